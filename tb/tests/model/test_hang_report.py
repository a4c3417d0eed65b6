"""The golden model's view of a hung launch (tb/reference/hang.py), as the watchdogs print it: the
spinning warp and its pc, the warps waiting at a barrier, or "the hang is the RTL's"."""

from __future__ import annotations

from tb.reference.asm import assemble
from tb.reference.config import GpuConfig
from tb.reference.hang import golden_hang, warp_report
from tb.reference.model import Model
from tb.sequences.library import SPIN_AT_BARRIER

CFG = GpuConfig(num_warps=8)


def test_spinning_warp_and_barrier_waiter_are_named() -> None:
    image = assemble(SPIN_AT_BARRIER).image
    text = golden_hang(CFG, image, 500)
    assert text.startswith("the golden model (budget 500 instructions per warp) stops at block 0 warp 0 pc 3 "
                           "`BRA    3`: INSTRUCTION_BUDGET")  # fmt: skip
    assert "block 0 warp 1 (SM 0): pc 5 `EXIT` waiting at barrier, 4 instructions retired" in text


def test_the_other_warp_spinning_is_named_instead() -> None:
    """The report follows the kernel: with the roles swapped, warp 1 spins and warp 0 waits."""
    image = assemble(SPIN_AT_BARRIER.replace("BNE  r2, wait", "BEQ  r2, wait")).image
    text = golden_hang(CFG, image, 500)
    assert "stops at block 0 warp 1 pc 3 `BRA    3`: INSTRUCTION_BUDGET" in text
    assert "block 0 warp 0 (SM 0): pc 5 `EXIT` waiting at barrier" in text


def test_a_kernel_that_ends_blames_the_rtl() -> None:
    text = golden_hang(CFG, assemble("EXIT").image, 1000)
    assert text == ("the golden model finishes this launch within 1000 instructions per warp (1 in all): "
                    "the hang is the RTL's, not the kernel's")  # fmt: skip


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
