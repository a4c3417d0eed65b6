"""Tests of the analytical cycle model (ppa/perf.py): hand-computed launches for each of Hong's cases,
Ye's PWP, the residency limits, the launch and barrier terms, and the golden-model event counter. A
planted wrong term (a parameter or an event dropped or doubled) must change the answer."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ppa import perf
from spec.asm import assemble
from spec.config import GpuConfig

# The 8-lane machine's parameters as ppa/micro.py measures them (ROWS = 4), rounded.
P8 = perf.Params(
    alu=4,
    alu1=7,
    shared=6,
    pass_=1,
    branch=5,
    stacked=1,
    bar=13,
    gmem_lat=40,
    load=8,
    store=5,
    store_lat=37,
    txn=1,
    launch_fixed=42,
    launch_block=34,
    launch_thread=1,
)
M8 = perf.Machine(lanes=8, num_warps=16, num_blocks=4, num_sms=1, params=P8, rf_depth=1024, shared_words=2048)


def ev(**kw) -> perf.Events:
    base = dict(
        alu=0,
        shared=0,
        shared_passes=0,
        branch=0,
        sync=0,
        exit=0,
        loads=0,
        stores=0,
        transactions=0,
        pops=0,
        stacked=0,
        releases=0,
        blocks=1,
        warps_per_block=1,
        threads_per_block=32,
        crit_instrs=0,
        crit_loads=0,
        regs=8,
        shared_words=0,
    )
    base.update(kw)
    return perf.Events(**base)


def test_alu_only_many_warps_is_rows_per_instruction() -> None:
    # 8 warps x (100 ALU + EXIT): Comp = 8*(100*4 + 1) = 3208; launch = 42 + (256-32)*1 = 266
    e = ev(alu=800, exit=8, blocks=1, warps_per_block=8, threads_per_block=256, crit_instrs=101)
    p = perf.predict(e, M8)
    assert p.case == "compute only"
    assert p.cycles == pytest.approx(3208 + 266)


def test_one_warp_pays_the_pipeline_latency_pwp() -> None:
    # one warp, 100 ALU: c = 4, d = 3, PWP_full = 7/4 > N = 1, so 100 * 7 = 700 (+ launch 42)
    p = perf.predict(ev(alu=100, crit_instrs=100), M8)
    assert p.cycles == pytest.approx(700 + 42)
    # two warps hide it: 2 * 100 * 4 = 800
    p2 = perf.predict(ev(alu=200, blocks=1, warps_per_block=2, threads_per_block=64, crit_instrs=100), M8)
    assert p2.cycles == pytest.approx(800 + 42 + 32)


def test_compute_bound_adds_one_memory_latency() -> None:
    # 8 warps, each 40 ALU + 1 load of 4 transactions. Mem_L = (40 - 8) + 1*(4-1) = 35;
    # Comp_w = 40*4 + 8 = 168; Mem_cycles = 35; CWP = (35+168)/168 = 1.21 < MWP = min(35/4, 8) = 8
    # -> case 3: Mem_L + Comp_w * N = 35 + 1344
    e = ev(
        alu=320,
        loads=8,
        transactions=32,
        blocks=1,
        warps_per_block=8,
        threads_per_block=256,
        crit_instrs=41,
        crit_loads=1,
    )
    p = perf.predict(e, M8)
    assert p.case == "3: compute bound"
    assert p.mem_l == pytest.approx(35)
    assert p.cycles == pytest.approx(35 + 1344 + 266)


def test_memory_bound_uses_mwp() -> None:
    # 16 warps (2 blocks of 8), each 10 loads of 32 transactions and nothing else.
    # Mem_L = 32 + 31 = 63, Departure = 32, MWP = 63/32; Comp_w = 10*8 = 80; Mem_cycles = 630
    # CWP = 710/80 = 8.875 >= MWP: case 2 = 630*16/MWP + (80/10)*(MWP-1); the port: 16*320 = 5120 wins
    e = ev(
        loads=160,
        transactions=5120,
        blocks=2,
        warps_per_block=8,
        threads_per_block=256,
        crit_instrs=10,
        crit_loads=10,
    )
    p = perf.predict(e, M8)
    assert p.case == "2: memory bound"
    mwp = 63 / 32
    hong = 630 * 16 / mwp + 8 * (mwp - 1)
    # the second block's initialisation (34 - 32 + 256) overlaps the body
    assert p.cycles == pytest.approx(max(hong, 5120) + 266)


def test_residency_from_registers_serialises_blocks_and_their_initialisation() -> None:
    # 4 warps x 40 regs x 4 rows = 640 rows per block: one block of 1024 rows fits at a time
    e = ev(alu=400, blocks=2, warps_per_block=4, threads_per_block=128, regs=40, crit_instrs=100)
    p = perf.predict(e, M8)
    assert p.n == 4 and p.waves == 2
    items = 640  # max(threads 128, rows 640, shared lines 0)
    first = 42 + (items - 32)
    rest = (34 - 32) + items  # exposed: nothing else runs while the only slot initialises
    assert p.cycles == pytest.approx(2 * (4 * 50 * 4) + first + rest)
    # with 20 registers two blocks fit: one wave, the second initialisation hidden behind the body
    p2 = perf.predict(replace(e, regs=20), M8)
    assert p2.waves == 1 and p2.n == 8


def test_barrier_and_divergence_terms() -> None:
    base = ev(alu=800, blocks=1, warps_per_block=8, threads_per_block=256, crit_instrs=100)
    b = perf.predict(replace(base, sync=80, releases=10), M8)
    # 80 BARs at 1 cycle each, 10 releases x (13 - 8) = 50
    assert b.cycles - perf.predict(base, M8).cycles == pytest.approx(80 + 50)
    s = perf.predict(replace(base, stacked=800, pops=8), M8)
    assert s.cycles - perf.predict(base, M8).cycles == pytest.approx(800 * 1 + 8)


def test_shared_conflicts_cost_extra_passes_only() -> None:
    base = ev(
        shared=80, shared_passes=80 * 4, blocks=1, warps_per_block=8, threads_per_block=256, crit_instrs=10
    )
    # conflict-free: 80 x 6 = 480 EX cycles, + launch 42 + 224
    assert perf.predict(base, M8).cycles == pytest.approx(480 + 266)
    c = perf.predict(replace(base, shared_passes=80 * 4 + 100), M8)
    assert c.cycles - perf.predict(base, M8).cycles == pytest.approx(100)


@pytest.mark.parametrize("wrong", ["alu", "load", "launch_thread", "pass_"])
def test_a_planted_wrong_parameter_moves_the_prediction(wrong: str) -> None:
    e = ev(
        alu=320,
        shared=40,
        shared_passes=200,
        loads=8,
        transactions=32,
        blocks=3,
        warps_per_block=8,
        threads_per_block=256,
        crit_instrs=50,
        crit_loads=1,
    )
    good = perf.predict(e, M8).cycles
    bad = perf.predict(e, replace(M8, params=replace(P8, **{wrong: getattr(P8, wrong) * 2}))).cycles
    assert abs(bad / good - 1) > 0.01


def test_geomean_abs() -> None:
    assert perf.geomean_abs([0.1, -0.1, 0.1]) == pytest.approx(0.1)
    assert perf.geomean_abs([0.01, 0.04]) == pytest.approx(0.02)


def test_count_events_on_a_tiny_kernel() -> None:
    cfg = GpuConfig(
        warp_size=32,
        num_lanes=8,
        num_warps=4,
        num_blocks=2,
        rf_depth=256,
        shared_words=256,
        num_banks=8,
        global_words=4096,
    ).check()
    src = """
        LDS  r1, %tid.x
        LDG  r2, [r1 + 1024]
        SLTI r3, r1, 16
        SSY  done
        BEQ  r3, done
        ADDI r2, r2, 1
        STG  [r1 + 512], r2
done:   EXIT
"""
    img = assemble(src, "<t>", cfg).image
    img.block, img.grid = (64, 1, 1), (1, 1, 1)
    e = perf.count_events(cfg, img)
    # warp 0 diverges (lanes 0-15 store), warp 1 branches to done as a whole
    assert (e.loads, e.stores, e.blocks, e.warps_per_block) == (2, 1, 1, 2)
    assert (e.alu, e.branch, e.sync, e.exit, e.transactions) == (5, 2, 2, 2, 4 + 4 + 2)
    # under the SSY: warp 0's ADDI and STG (its BEQ is a branch; EXIT runs after the pop), none of warp 1's
    assert e.stacked == 2
    assert e.crit_instrs == 8 and e.crit_loads == 1


def test_several_sms_split_the_blocks_but_share_the_memory_port() -> None:
    # 8 blocks of 8 warps, 100 ALU per warp: 2 SMs run 4 blocks each (2 waves of 2 blocks)
    e = ev(alu=6400, blocks=8, warps_per_block=8, threads_per_block=256, crit_instrs=100)
    one, two = perf.predict(e, M8), perf.predict(e, replace(M8, num_sms=2))
    assert two.cycles < 0.6 * one.cycles
    # a port-bound launch does not speed up: 64 warps x 64 transactions through one port either way
    m = ev(
        loads=64,
        transactions=64 * 64,
        blocks=8,
        warps_per_block=8,
        threads_per_block=256,
        crit_instrs=1,
        crit_loads=1,
    )
    assert perf.predict(m, replace(M8, num_sms=2)).cycles >= 64 * 64
