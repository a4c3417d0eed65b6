"""Divergence scoreboard: the warp's divergence stack after every retired warp-instruction.

For each retire (paired with the golden model's record by the retire scoreboard) it compares the
stack events (pushes, pops, DIV merges), the depth after the instruction, the entry on top of the
stack (kind, reconvergence or path pc, mask) and the pc and active mask the warp continues with —
the reconvergence point after a pop (docs/isa.md section 4). A finished warp's next pc and mask
are not compared (section 10).
"""

from __future__ import annotations

from typing import Any

from spec.model import DIV, Model, Retire
from tb.scoreboards.base import Mismatch, Scoreboard


class DivergenceMismatch(Mismatch):
    pass


class DivergenceScoreboard(Scoreboard):
    name = "divergence"
    mismatch = DivergenceMismatch
    counts = ("pushes", "pops", "merges", "tops")

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model
        self.pushes = self.pops = self.merges = self.tops = 0

    def check(self, rtl: Any, exp: Retire, sm: int = 0) -> list[str]:
        """Return the differences (empty when the RTL matches); counts what it compared. ``sm`` is
        unused (a warp's stack is its own); it keeps the per-retire boards' signature the same."""
        diffs: list[str] = []

        def cmp(name: str, got: Any, want: Any, fmt: str = "{}") -> None:
            if got != want:
                diffs.append(f"{name}: expected {fmt.format(want)}, RTL {fmt.format(got)}")

        pushes = sum(e.action == "push" for e in exp.stack)
        pops = sum(e.action == "pop" for e in exp.stack)
        merges = sum(e.action == "merge" for e in exp.stack)
        cmp("stack pushes", rtl.pushes, pushes)
        cmp("stack pops", rtl.pops, pops)
        cmp("stack merges", rtl.merged, merges)
        if not exp.done:
            stack = self.model.warp(rtl.block, rtl.warp).stack
            cmp("next pc", rtl.next_pc, exp.next_pc)
            cmp("next mask", rtl.next_mask, exp.next_mask, "0x{:x}")
            cmp("stack depth", rtl.depth, len(stack))
            if stack and hasattr(rtl, "top_pc"):
                kind, pc, mask = stack[-1]
                cmp("top of stack kind", "DIV" if rtl.top_kind else "SYNC", "DIV" if kind == DIV else "SYNC")
                cmp("top of stack pc", rtl.top_pc, pc)
                cmp("top of stack mask", rtl.top_mask, mask, "0x{:x}")
                self.tops += 1
        self.compared += 1
        self.pushes += pushes
        self.pops += pops
        self.merges += merges
        return diffs

    def summary(self) -> str:
        return (
            f"{self.compared} retires, {self.pushes} pushes, {self.pops} pops, {self.merges} merges, "
            f"{self.tops} stack tops matched"
        )
