"""The golden model's view of a hung launch (spec/hang.py), as the watchdogs print it: the
spinning warp and its pc, the warps waiting at a barrier, or "the hang is the RTL's"."""

from __future__ import annotations

from kernels.directed import SCENARIOS
from spec.asm import assemble
from spec.config import GpuConfig
from spec.hang import (
    ST_BAR,
    ST_EMPTY,
    ST_MEM,
    ST_PIPE,
    ST_READY,
    WarpView,
    compare_hang,
    golden_hang,
    golden_run,
    rtl_lines,
    warp_report,
)
from spec.model import Model

SPIN_AT_BARRIER = SCENARIOS["spin_at_barrier"]

CFG = GpuConfig(num_warps=8)


def test_spinning_warp_and_barrier_waiter_are_named() -> None:
    image = assemble(SPIN_AT_BARRIER).image
    text = golden_hang(CFG, image, 500)
    assert text.startswith(
        "the golden model (budget 500 instructions per warp) stops at block 0 warp 0 pc 3 "
        "`BRA    3`: INSTRUCTION_BUDGET"
    )
    assert "block 0 warp 1 (SM 0): pc 5 `EXIT` waiting at barrier, 4 instructions retired" in text


def test_the_other_warp_spinning_is_named_instead() -> None:
    """The report follows the kernel: with the roles swapped, warp 1 spins and warp 0 waits."""
    image = assemble(SPIN_AT_BARRIER.replace("BNE  r2, wait", "BEQ  r2, wait")).image
    text = golden_hang(CFG, image, 500)
    assert "stops at block 0 warp 1 pc 3 `BRA    3`: INSTRUCTION_BUDGET" in text
    assert "block 0 warp 0 (SM 0): pc 5 `EXIT` waiting at barrier" in text


def test_a_kernel_that_ends_blames_the_rtl() -> None:
    text = golden_hang(CFG, assemble("EXIT").image, 1000)
    assert text == (
        "the golden model finishes this launch within 1000 instructions per warp (1 in all): "
        "the hang is the RTL's or the memory's, not the kernel's"
    )


def test_lock_step_report_lists_resident_warps_with_last_pc() -> None:
    image = assemble(SPIN_AT_BARRIER).image
    model = Model(CFG, image)
    model.start_block(0)
    for _ in range(4):
        model.step(0, 1)  # LDS, ANDI, BNE (taken), BAR
    for _ in range(5):
        model.step(0, 0)
    lines = warp_report(model, {(0, 0): 3, (0, 1): 4})
    assert lines == [
        "block 0 warp 0 (SM 0): pc 3 `BRA    3` ready, 5 instructions retired, last pc 3 `BRA    3`",
        "block 0 warp 1 (SM 0): pc 5 `EXIT` waiting at barrier, 4 instructions retired, last pc 4 `BAR`",
    ]
    assert warp_report(model, limit=1)[-1] == "... and 1 more warp(s)"


# ---- the RTL's debug view against the golden model (compare_hang, docs/verification.md "Hang report")


def _spin_model() -> tuple[Model, dict[tuple[int, int], list[int]]]:
    """SPIN_AT_BARRIER lock-step: warp 1 at the barrier (pc 5), warp 0 spinning at pc 3."""
    model = Model(CFG, assemble(SPIN_AT_BARRIER).image)
    model.start_block(0, sm=0)
    recent: dict[tuple[int, int], list[int]] = {(0, 0): [], (0, 1): []}
    for _ in range(4):
        recent[(0, 1)].append(model.step(0, 1).pc)
    for _ in range(70):
        recent[(0, 0)].append(model.step(0, 0).pc)
    recent[(0, 0)] = recent[(0, 0)][-64:]  # the retire scoreboard keeps a warp's last 64
    return model, recent


def _views(
    pc0: int = 3, state0: int = ST_READY, pc1: int = 5, state1: int = ST_BAR, last1: int | None = 4
) -> list[WarpView]:
    return [
        WarpView(0, 0, state0, 0, 0, pc0, 3),
        WarpView(0, 1, state1, 0, 1, pc1, last1),
        WarpView(0, 2, ST_EMPTY),
    ]


def test_rtl_view_that_matches_the_model_agrees() -> None:
    model, recent = _spin_model()
    stop = golden_run(CFG, model.image, 500)[1]
    assert stop is not None and (stop.block, stop.warp, stop.pc) == (0, 0, 3)
    assert compare_hang(_views(), model, recent, stop) == []
    assert compare_hang(_views(state0=ST_PIPE), model, recent, stop) == []
    assert rtl_lines(_views(), model.image.code) == [
        "SM 0 slot 0: block 0 warp 0 pc 3 `BRA    3` ready, last retired pc 3 `BRA    3`",
        "SM 0 slot 1: block 0 warp 1 pc 5 `EXIT` at barrier, last retired pc 4 `BAR`",
    ]


def test_planted_view_faults_are_caught() -> None:
    """A pc one too high (fault 7), a wrong state, a wrong last pc, a missing warp, the wrong SM."""
    model, recent = _spin_model()
    stop = golden_run(CFG, model.image, 500)[1]
    assert any(
        "pc 4 is not a pc of its loop [3]" in p for p in compare_hang(_views(pc0=4, pc1=6), model, recent)
    )
    assert any(
        "the RTL's pc 6, the model's 5" in p for p in compare_hang(_views(pc0=4, pc1=6), model, recent)
    )
    assert any(
        "the RTL says ready, the model says waiting at barrier" in p
        for p in compare_hang(_views(state1=ST_READY), model, recent)
    )
    assert any("last retired pc 3, the model's 4" in p for p in compare_hang(_views(last1=3), model, recent))
    assert any("does not show it" in p for p in compare_hang(_views()[:1], model, recent))
    twice = [*_views(), WarpView(0, 8, ST_READY, 0, 0, 3, 3)]  # slot 8 of an 8-slot SM decoded as slot 0
    assert any(
        "block 0 warp 0 twice: SM 0 slot 0 and SM 0 slot 8" in p for p in compare_hang(twice, model, recent)
    )
    moved = [WarpView(1, v.slot, v.state, v.block, v.warp, v.pc, v.last_pc) for v in _views()]
    assert any("on SM 1, it was dispatched to SM 0" in p for p in compare_hang(moved, model, recent))
    # the budget run names warp 0 spinning: the RTL must show it running, not at the barrier
    assert any(
        "shows that warp at barrier" in p for p in compare_hang(_views(state0=ST_BAR), model, recent, stop)
    )


def test_debug_registers_decode() -> None:
    v = WarpView.from_registers(1, 9, 3 << 4 | 1 << 3 | ST_MEM, 7, 12, 11)
    assert (v.sm, v.slot, v.state, v.block, v.warp, v.pc, v.last_pc) == (1, 9, ST_MEM, 7, 3, 12, 11)
    assert WarpView.from_registers(0, 0, ST_READY, 0, 0, 0).last_pc is None  # nothing retired yet
