"""Retire scoreboard: every warp-instruction the RTL retires is replayed on the golden model.

On each RTL retire the model steps *that* warp (the RTL decides the interleaving) and every field of
the record is compared: pc, instruction, active mask, destination register and every active lane's
value, next pc and mask, divergence-stack events, shared passes or global transactions, barrier and
finish flags (docs/isa.md section 10). The first mismatch raises with the SM, block, warp, pc,
disassembly, lane, expected and actual values and the last retires of that warp.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from tb.reference.disasm import disassemble
from tb.reference.model import KernelError, Model, Retire, StepError


class RetireLike(Protocol):
    block: int
    warp: int
    pc: int
    instr: int
    mask: int
    wr: bool
    rd: int
    values: list[int | None]  # None: the RTL drove X/Z in that lane
    next_pc: int
    next_mask: int
    pushes: int
    pops: int
    merged: int
    depth: int
    passes: int
    txns: int
    barrier: bool
    done: bool


class RetireMismatch(AssertionError):
    """The RTL retired something the golden model did not."""


@dataclass
class RetireScoreboard:
    model: Model
    sm: int = 0
    history: int = 8  # retires of a warp shown with a mismatch
    compared: int = 0
    lanes_compared: int = 0
    _last: dict[tuple[int, int], deque[str]] = field(default_factory=lambda: defaultdict(deque))

    def check(self, rtl: RetireLike) -> Retire:
        key = (rtl.block, rtl.warp)
        try:
            exp = self.model.step(rtl.block, rtl.warp)
        except (StepError, KernelError) as exc:
            self._fail(rtl, f"the model cannot execute this retire: {exc}")
        diffs: list[str] = []

        def cmp(name: str, got: Any, want: Any, fmt: str = "{}") -> None:
            if got != want:
                diffs.append(f"{name}: expected {fmt.format(want)}, RTL {fmt.format(got)}")

        cmp("pc", rtl.pc, exp.pc)
        cmp("instruction", rtl.instr, exp.word, "0x{:08x}")
        cmp("active mask", rtl.mask, exp.mask, "0x{:x}")
        cmp("writes a register", rtl.wr, exp.rd is not None)
        if exp.rd is not None and exp.values is not None:
            cmp("destination", rtl.rd, exp.rd, "r{}")
            for lane in range(len(rtl.values)):
                if exp.mask >> lane & 1:
                    self.lanes_compared += 1
                    want = int(exp.values[lane])
                    got = rtl.values[lane]
                    if got != want:
                        shown = "X" if got is None else f"0x{got:08x}"
                        diffs.append(f"lane {lane} r{exp.rd}: expected 0x{want:08x}, RTL {shown}")
        cmp("finished", rtl.done, exp.done)
        if not exp.done:
            cmp("next pc", rtl.next_pc, exp.next_pc)
            cmp("next mask", rtl.next_mask, exp.next_mask, "0x{:x}")
        cmp("barrier arrival", rtl.barrier, exp.barrier)
        pushes = sum(e.action == "push" for e in exp.stack)
        pops = sum(e.action == "pop" for e in exp.stack)
        merged = sum(e.action == "merge" for e in exp.stack)
        cmp("stack pushes", rtl.pushes, pushes)
        cmp("stack pops", rtl.pops, pops)
        cmp("stack merges", rtl.merged, merged)
        if not exp.done:
            cmp("stack depth", rtl.depth, len(self.model.warp(rtl.block, rtl.warp).stack))
        if exp.mem is not None and exp.mem.space == "shared":
            cmp("shared passes", rtl.passes, exp.mem.passes)
        if exp.mem is not None and exp.mem.space == "global":
            cmp("global transactions", rtl.txns, len(exp.mem.transactions))
        line = f"pc {exp.pc:4d}  {disassemble(exp.word):28s} mask 0x{exp.mask:08x}"
        hist = self._last[key]
        hist.append(line)
        if len(hist) > self.history:
            hist.popleft()
        if diffs:
            self._fail(rtl, "; ".join(diffs))
        self.compared += 1
        return exp

    def _fail(self, rtl: RetireLike, what: str) -> None:
        hist = "\n    ".join(self._last.get((rtl.block, rtl.warp), [])) or "(none)"
        raise RetireMismatch(
            f"retire mismatch on SM {self.sm} block {rtl.block} warp {rtl.warp} pc {rtl.pc} "
            f"({disassemble(rtl.instr)}): {what}\n  last retires of this warp (model):\n    {hist}"
        )

    def report(self) -> str:
        """Fail if nothing was compared; otherwise a one-line summary."""
        if self.compared == 0:
            raise AssertionError("retire scoreboard compared nothing: the RTL retired no instruction")
        return f"retire scoreboard: {self.compared} warp-instructions, {self.lanes_compared} lane values matched"
