"""Event counts (docs/isa.md section 11, the counted events of sections 1, 4, 5, 6), counted by hand from
the spec for small kernels; timing independence (8.2: "any order and any SM assignment give the same
results for a race-free kernel"; 11: "These counts do not depend on timing"); and a few kernels
repeated over machine configurations (section 9).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spec.config import GpuConfig
from tb.tests.model import kit

CLASSES = ("alu", "sreg", "shared", "const", "global", "branch", "sync", "exit")


def zero_classes() -> dict[str, int]:
    return dict.fromkeys(CLASSES, 0)


def test_counter_classes_are_the_spec_classes() -> None:
    c = kit.run("EXIT").counters
    assert set(c.warp_by_class) == set(CLASSES) and set(c.thread_by_class) == set(CLASSES)


IF_ELSE = """
        .regs 4
        LDS r0, %tid
        ANDI r1, r0, 1
        SSY join
        BNE r1, then
        MVI r2, 10
        BRA join
then:   MVI r2, 20
join:   STG [r0 + 0], r2
        EXIT
"""


def test_if_else_counts_by_hand() -> None:
    c = kit.run(IF_ELSE).counters
    # retired: LDS(32) ANDI(32) SSY(32) BNE(32) MVI(16 odd) MVI(16 even) BRA(16) STG(32) EXIT(32)
    assert (c.warp_instrs, c.thread_instrs) == (9, 6 * 32 + 3 * 16)
    warp = zero_classes() | {"alu": 3, "sreg": 1, "sync": 1, "branch": 2, "global": 1, "exit": 1}
    thread = zero_classes() | {"alu": 64, "sreg": 32, "sync": 32, "branch": 48, "global": 32, "exit": 32}
    assert c.warp_by_class == warp and c.thread_by_class == thread
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (1, 2, 2, 2)
    assert (c.global_accesses, c.global_transactions) == (1, 4)
    assert (c.shared_accesses, c.shared_passes, c.barrier_arrivals, c.barrier_releases) == (0, 0, 0, 0)


SHARED_BAR = """
        .regs 4
        .shared 64
        LDS r0, %tid
        LDS r1, %ctaid.x
        ST [r0 + 0], r0         ; linear
        BAR
        ANDI r2, r0, 7
        SHLI r2, r2, 3          ; 8 distinct words of bank 0 per row
        LD r3, [r2 + 0]
        LDC r2, [r0 + 0]
        MULI r1, r1, 64
        ADD r1, r1, r0
        STG [r1 + 0], r3
        EXIT
"""


def test_shared_barrier_const_counts_by_hand() -> None:
    """2 blocks of 40 threads: warp 0 has 32 threads (4 rows), warp 1 has 8 (row 0 only)."""
    res = kit.run(SHARED_BAR, grid=2, block=40, consts=list(range(40)))
    c = res.counters
    assert (c.warp_instrs, c.thread_instrs) == (2 * 2 * 12, 2 * 40 * 12)
    per_block_warp = {"sreg": 4, "shared": 4, "sync": 2, "alu": 8, "const": 2, "global": 2, "exit": 2}
    assert c.warp_by_class == zero_classes() | {k: 2 * v for k, v in per_block_warp.items()}
    assert c.thread_by_class == zero_classes() | {k: 2 * v // 2 * 40 for k, v in per_block_warp.items()}
    # ST: warp 0 4 rows x 1, warp 1 1 row x 1; LD: warp 0 4 rows x 8, warp 1 1 row x 8
    assert (c.shared_accesses, c.shared_passes) == (2 * 4, 2 * (4 + 1 + 32 + 8))
    # STG of block b to b*64 + t: warp 0 covers 4 segments, warp 1 one segment
    assert (c.global_accesses, c.global_transactions) == (4, 2 * (4 + 1))
    assert (c.barrier_arrivals, c.barrier_releases) == (4, 2)
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (0, 0, 0, 0)
    exp = [(t & 7) * 8 if (t & 7) * 8 < 40 else 0 for t in range(40)]
    assert kit.gmem(res, 0, 40) == exp and kit.gmem(res, 64, 40) == exp


def test_partial_exit_and_loop_counts_by_hand() -> None:
    src = """
            .regs 4
            LDS r0, %tid
            SLTI r1, r0, 10
            SSY ok
            BNE r1, ok
            EXIT                ; 22 threads
    ok:     ANDI r2, r0, 1
            ADDI r2, r2, 1      ; 1 or 2 iterations
            SSY done
    loop:   SUBI r2, r2, 1
            BNE r2, loop
    done:   EXIT
    """
    c = kit.run(src).counters
    # LDS 32, SLTI 32, SSY 32, BNE 32, EXIT 22, ANDI 10, ADDI 10, SSY 10,
    # iteration 1: SUBI 10, BNE 10 (odd stay: 5); iteration 2: SUBI 5, BNE 5; EXIT 10
    assert c.warp_instrs == 13
    assert c.thread_instrs == 4 * 32 + 22 + 3 * 10 + 2 * 10 + 2 * 5 + 10
    assert c.warp_by_class == zero_classes() | {"sreg": 1, "alu": 5, "sync": 2, "branch": 3, "exit": 2}
    assert c.thread_by_class == zero_classes() | {
        "sreg": 32,
        "alu": 32 + 10 + 10 + 10 + 5,
        "sync": 42,
        "branch": 32 + 10 + 5,
        "exit": 32,
    }
    # divergent: the range check (10 / 22) and iteration 1 (5 leave, 5 stay); iteration 2 is uniform
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (2, 2, 2, 1)


def test_totals_equal_sum_of_classes_and_active_threads() -> None:
    m, res = kit.run_model(SHARED_BAR, grid=3, block=70, consts=list(range(70)), shared_words=128)
    c = res.counters
    assert c.warp_instrs == sum(c.warp_by_class.values()) == len(m.log) == res.retires
    assert c.thread_instrs == sum(c.thread_by_class.values()) == sum(r.mask.bit_count() for r in m.log)


# ---------------------------------------------------------------------------------------------
# Timing independence: run() vs. our own schedules through step()
# ---------------------------------------------------------------------------------------------
KERNEL = """
        .regs 12
        .shared 64
        .param 230                  ; n elements; the last block is only partly in range
        LDS r0, %tid
        LDS r1, %ctaid.x
        LDS r2, %ntid.x
        MAD r3, r1, r2, r0          ; global index i
        LDS r4, %param0
        SLTU r5, r3, r4
        SSY ok
        BNE r5, ok
        EXIT                        ; out-of-range threads leave
ok:     LDG r6, [r3 + 1000]         ; x = in[i]
        ANDI r7, r6, 3
        ADDI r7, r7, 1              ; 1..4 loop iterations
        MVI r8, 0
        SSY done
loop:   MAD r8, r8, r7, r6          ; r8 = r8 * k + x
        SUBI r7, r7, 1
        BNE r7, loop
done:   ANDI r9, r0, 1
        SSY join
        BEQ r9, even
        XORI r8, r8, 0x5A5A
        BRA join
even:   ADDI r8, r8, 77
join:   ST [r0 + 0], r8
        BAR
        SUB r10, r2, r0
        SUBI r10, r10, 1            ; mirror thread in the block
        SLTU r11, r10, r2
        LD r10, [r10 + 0]           ; only in-range mirrors wrote: others read 0
        ADD r8, r8, r10
        ADDI r3, r3, 2000
        STG [r3 + 0], r8
        EXIT
"""


def kernel_data(n: int = 240) -> list[tuple[int, list[int]]]:
    return [(1000, [(i * 2654435761) & 0xFFFF for i in range(n)])]


def snapshot(m) -> tuple:
    return (
        kit.gmem(m, 0, 4096),
        {b: [int(x) for x in s.shared] for b, s in m.blocks.items()},
        m.counters.as_dict(),
    )


@pytest.mark.parametrize(
    "order,seed,sms", [("rev", 0, None), ("random", 1, 3), ("random", 2, 16), ("rr", 0, 2)]
)
def test_interleaving_independence(order: str, seed: int, sms: int | None) -> None:
    """Same memory and same counters for run() and for other interleavings / SM assignments."""
    cfg = GpuConfig(num_sms=16)
    ref, _ = kit.launch(KERNEL, cfg, grid=5, block=48, data=kernel_data(), detect_races=True)
    ref.run()
    other, _ = kit.launch(KERNEL, cfg, grid=5, block=48, data=kernel_data(), detect_races=True)
    kit.step_all(other, order, seed=seed, sms=sms)
    assert snapshot(other) == snapshot(ref)
    kit.check_retire_chain(ref)
    kit.check_retire_chain(other)
    g = kit.gmem(ref, 2000, 240)
    assert g[230:] == [0] * 10 and all(v != 0 for v in g[:230])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6), block=st.sampled_from([32, 40, 64, 100]), warp=st.sampled_from([32, 16, 8])
)
def test_interleaving_independence_random(seed: int, block: int, warp: int) -> None:
    cfg = GpuConfig(warp_size=warp, num_lanes=min(8, warp), num_warps=16)
    grid = -(-230 // block)
    ref, _ = kit.launch(KERNEL, cfg, grid=grid, block=block, data=kernel_data(), shared_words=128)
    ref.run()
    other, _ = kit.launch(KERNEL, cfg, grid=grid, block=block, data=kernel_data(), shared_words=128)
    kit.step_all(other, "random", seed=seed, sms=4)
    assert snapshot(other) == snapshot(ref)


def test_results_independent_of_warp_size_and_lanes() -> None:
    """The kernel's results depend on the block shape only, never on WARP_SIZE or NUM_LANES."""
    outs = []
    for ws, nl in [(32, 8), (32, 4), (32, 16), (32, 32), (16, 16), (16, 4), (8, 8), (4, 4)]:
        res = kit.run(KERNEL, GpuConfig(warp_size=ws, num_lanes=nl), grid=5, block=48, data=kernel_data())
        outs.append(kit.gmem(res, 2000, 240))
    assert all(o == outs[0] for o in outs)


# ---------------------------------------------------------------------------------------------
# Section 9: warp size / lanes variations of counted events
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "warp_size,num_lanes", [(32, 4), (32, 8), (32, 16), (32, 32), (16, 4), (16, 16), (8, 8), (8, 4)]
)
def test_shared_barrier_kernel_over_configurations(warp_size: int, num_lanes: int) -> None:
    cfg = GpuConfig(warp_size=warp_size, num_lanes=num_lanes)
    W = warp_size
    nthreads = 40
    res = kit.run(SHARED_BAR, cfg, grid=2, block=nthreads, consts=list(range(40)))
    c = res.counters
    warps = -(-nthreads // W)
    passes = 0
    for w in range(warps):
        valid = kit.full(min(W, nthreads - w * W))
        st_addrs = [w * W + lane for lane in range(W)]
        ld_addrs = [((w * W + lane) & 7) * 8 for lane in range(W)]
        passes += kit.passes_ref(st_addrs, valid, W, num_lanes, 8) + kit.passes_ref(
            ld_addrs, valid, W, num_lanes, 8
        )
    assert (c.shared_accesses, c.shared_passes) == (2 * 2 * warps, 2 * passes)
    assert (c.warp_instrs, c.thread_instrs) == (2 * warps * 12, 2 * 40 * 12)
    assert (c.barrier_arrivals, c.barrier_releases) == (2 * warps, 2)
    tx = 0
    for b in range(2):
        for w in range(warps):
            addrs = [b * 64 + w * W + lane for lane in range(W)]
            tx += len(kit.transactions_ref(addrs, kit.full(min(W, nthreads - w * W)), 8))
    assert (c.global_accesses, c.global_transactions) == (2 * warps, tx)
    exp = [(t & 7) * 8 if (t & 7) * 8 < 40 else 0 for t in range(40)]
    assert kit.gmem(res, 0, 40) == exp and kit.gmem(res, 64, 40) == exp


@pytest.mark.parametrize("warp_size,num_lanes", [(32, 4), (32, 16), (32, 32), (16, 8), (8, 8)])
def test_if_else_over_configurations(warp_size: int, num_lanes: int) -> None:
    W = warp_size
    m, res = kit.run_model(IF_ELSE, GpuConfig(warp_size=W, num_lanes=num_lanes), block=32)
    warps = 32 // W
    c = res.counters
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (
        warps,
        2 * warps,
        2 * warps,
        2,
    )
    assert c.warp_instrs == 9 * warps and c.thread_instrs == 6 * 32 + 3 * 16
    assert kit.gmem(res, 0, 32) == [20 if t & 1 else 10 for t in range(32)]
    odd = kit.mask_of(range(1, W, 2))
    for w in range(warps):
        assert [r.mask for r in m.retires_of(0, w)][4:7] == [odd, kit.full(W) & ~odd, kit.full(W) & ~odd]
