"""End-of-kernel check: the second line of defence after the per-retire scoreboards.

When a launch completes: every block ran to its end on the model, every global word equals the
model's, and every performance counter whose value does not depend on timing equals the model's
event count (docs/isa.md section 11). In end-only mode (the speed benchmark's baseline) the model is
run to completion here instead of being stepped by the retire scoreboard.
"""

from __future__ import annotations

import numpy as np

from spec.model import PERF_COUNTERS, TIMING_COUNTERS, Model
from tb.scoreboards.base import Mismatch, Scoreboard

EXACT_COUNTERS = tuple(n for n in PERF_COUNTERS if n not in TIMING_COUNTERS)


class EndOfKernelMismatch(Mismatch):
    """At the end of a launch: global memory, a block's completion or an exact counter differs."""


class EndOfKernelChecker(Scoreboard):
    name = "end of kernel"
    mismatch = EndOfKernelMismatch

    def __init__(self) -> None:
        super().__init__()
        self.words = self.counters = 0

    def check(self, model: Model, mem: np.ndarray, perf: dict[str, int]) -> list[str]:
        diffs: list[str] = []
        n = model.image.num_blocks
        unfinished = [b for b in range(n) if b not in model.blocks or not model.blocks[b].done]
        if unfinished:
            diffs.append(
                f"{len(unfinished)} of {n} blocks never finished on the model (first {unfinished[0]}): "
                "the RTL reported completion before retiring them"
            )
        bad = np.flatnonzero(mem != model.gmem)
        if len(bad):
            i = int(bad[0])
            diffs.append(
                f"global memory differs at {len(bad)} word(s), first word {i}: expected "
                f"0x{int(model.gmem[i]):08x}, RTL 0x{int(mem[i]):08x}"
            )
        exact = model.counters.as_dict()
        for name in EXACT_COUNTERS:
            if name in perf and perf[name] != exact[name]:
                diffs.append(f"performance counter {name}: expected {exact[name]}, RTL {perf[name]}")
        self.words += len(mem)
        self.counters += sum(name in perf for name in EXACT_COUNTERS)
        self.compared += 1
        return diffs

    def summary(self) -> str:
        return f"{self.compared} launches, {self.words} global words, {self.counters} counters matched"
