"""Sequence items of the host agent: one kernel launch, and what became of it."""

from __future__ import annotations

from typing import Any

import pyuvm

from spec.image import LaunchImage


class LaunchItem(pyuvm.uvm_sequence_item):
    """A kernel launch through the host interface.

    ``image`` is loaded and started; ``words`` replaces the image's words (malformed images);
    ``start=False`` loads without starting. ``expect_error`` names the kernel error the launch must end
    with (docs/isa.md section 7), ``expect_launch_error`` the launch error code (docs/gpu.md).
    ``interrupt`` ("reset" or "abort") stops the kernel ``interrupt_after`` cycles after START (abort
    waits until a memory response is owed, so the drain is exercised; ``interrupt_on_retire`` makes a
    reset wait further for a cycle with a retire, so instructions are in flight); ``gmem`` switches the memory
    responder's knobs before the launch; ``seed`` is the random kernel's seed, for the rerun command.
    ``golden`` is a benchmark case (:class:`kernels.suite.Case`) whose output words must equal its C
    reference's; ``max_cycles`` is the watchdog's budget for the launch (a stall, no retire in
    ``stall_cycles``, is caught sooner; ``max_instrs`` bounds the warp-instructions). ``expect_hang``
    lists texts the watchdog's report must contain: the launch must hang (then it is ABORTed).
    ``meddle`` (words, possibly none) is written to IMAGE, then a START unless ``meddle_start`` is False,
    ``interrupt_after`` cycles after START while the launch runs: the GPU ignores both (docs/gpu.md
    "Launch lifecycle"), the launch ends as its own image says and STATUS.IGNORED reads 1 (0 after
    every launch without meddling). Before them the host writes an unlisted register, which must leave
    IGNORED clear, and it reads IGNORED after each kind of write.
    ``slave_error`` (AXI top only): the AXI slave answers one read beat of the launch's first burst
    SLVERR, with the right data; the launch must end exactly, ``axi_error`` bit 0 must then read 1,
    and the host resets the GPU, after which ``axi_error`` must read 0 and STATUS idle.
    """

    def __init__(self, name: str, image: LaunchImage | None = None, **kw: Any) -> None:
        super().__init__(name)
        self.image = image
        self.words: list[int] | None = kw.pop("words", None)
        self.start: bool = kw.pop("start", True)
        self.expect_error: str | None = kw.pop("expect_error", None)
        self.expect_launch_error: int | None = kw.pop("expect_launch_error", None)
        self.expect_rule: tuple[int, int] | None = kw.pop("expect_rule", None)  # (ERR_RULE, IMG_WORDS)
        self.interrupt: str | None = kw.pop("interrupt", None)
        self.interrupt_after: int = kw.pop("interrupt_after", 300)
        self.interrupt_on_retire: bool = kw.pop("interrupt_on_retire", False)
        self.gmem: dict[str, Any] | None = kw.pop("gmem", None)
        self.seed: int | None = kw.pop("seed", None)
        self.golden: Any = kw.pop("golden", None)
        self.max_cycles: int = kw.pop("max_cycles", 2_000_000)
        self.stall_cycles: int = kw.pop("stall_cycles", 100_000)
        self.max_instrs: int | None = kw.pop("max_instrs", None)
        self.expect_hang: list[str] | None = kw.pop("expect_hang", None)
        self.meddle: list[int] | None = kw.pop("meddle", None)
        self.meddle_start: bool = kw.pop("meddle_start", True)
        self.slave_error: bool = kw.pop("slave_error", False)
        if kw:
            raise TypeError(f"LaunchItem: unknown fields {sorted(kw)}")
        # results, filled by the driver
        self.status = 0
        self.error: Any = None  # GpuError: the error registers, read when expect_error is set
        self.perf: dict[str, int] = {}  # performance counters summed over SMs (cycles: SM-cycles)
        self.cycles_per_sm: list[int] = []  # each SM's `cycles` counter; the launch took max() of them
        self.cycles = 0
        self.hang_report = ""  # the watchdog's message, when the launch hung as expected
        # memory traffic still open in the cycle the host saw the launch done (the checker's LAUNCH_OPEN)
        self.open_at_end: list[str] = []

    def __str__(self) -> str:
        return f"launch {self.get_name()}" + (f" (kernel seed {self.seed})" if self.seed is not None else "")
