"""Divergence scoreboard: the warp's divergence stack after every retired warp-instruction.

Its fields of the retire record (spec/retire_record.py, board "divergence"): the stack events
(pushes, pops, DIV merges), the depth after the instruction, the entry on top of the stack (kind,
reconvergence or path pc, mask) and the pc and active mask the warp continues with — the
reconvergence point after a pop (docs/isa.md section 4). They are compared with the rest of the
record in one ``==`` by the retire scoreboard, which raises a difference in them as a
:class:`DivergenceMismatch`; this board counts what was compared. A finished warp's next pc, mask and
stack are not compared (section 10).
"""

from __future__ import annotations

from typing import Any

from spec.model import Model, Retire
from tb.scoreboards.base import DivergenceMismatch, Scoreboard


class DivergenceScoreboard(Scoreboard):
    name = "divergence"
    mismatch = DivergenceMismatch
    counts = ("pushes", "pops", "merges", "tops")

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model
        self.pushes = self.pops = self.merges = self.tops = 0

    def check(self, rtl: Any, exp: Retire, sm: int = 0) -> list[str]:
        """Count the stack fields of a retire whose record the retire scoreboard found equal (so no
        differences are left to return); ``sm`` is unused: it keeps the per-retire boards' signature."""
        self.compared += 1
        if exp.stack:
            for e in exp.stack:
                if e.action == "push":
                    self.pushes += 1
                elif e.action == "pop":
                    self.pops += 1
                else:
                    self.merges += 1
        if rtl.depth and not exp.done:
            self.tops += 1
        return []

    def summary(self) -> str:
        return (
            f"{self.compared} retires, {self.pushes} pushes, {self.pops} pops, {self.merges} merges, "
            f"{self.tops} stack tops matched"
        )
