"""Retire scoreboard: every warp-instruction the RTL retires is replayed on the golden model.

On each RTL retire the model steps *that* warp (the RTL decides the interleaving) and the retire
fields are compared: pc, instruction, active mask, destination register and every active lane's
value, barrier arrival and finish (docs/isa.md section 10). The model's record is returned so the
divergence, shared-memory and coalescing scoreboards check the rest of the same retire.
The first mismatch raises with the SM, block, warp, pc, disassembly, lane, expected and actual
values and the last retires of that warp.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any

from spec.disasm import disassemble
from spec.model import KernelError, Model, Retire, StepError
from spec.retire_record import RtlRetire
from tb.scoreboards.base import Mismatch, Scoreboard


class RetireMismatch(Mismatch):
    """The RTL retired something the golden model did not."""


def where(rtl: Any, sm: int) -> str:
    return f"SM {sm} block {rtl.block} warp {rtl.warp} pc {rtl.pc} ({disassemble(rtl.instr)})"


LOOP_HISTORY = (
    64  # retires per warp kept for the hang report's loop rule (docs/verification.md "Hang report")
)


class RetireScoreboard(Scoreboard):
    name = "retire"
    mismatch = RetireMismatch
    counts = ("lanes_compared",)

    def __init__(self, model: Model, history: int = 8) -> None:
        super().__init__()
        self.model = model
        self.sm = 0
        self.history = history  # retires of a warp shown with a mismatch
        self.lanes_compared = 0
        # each warp's last LOOP_HISTORY retires (pc, word, mask): a hang report's loop (spec/hang.py)
        keep = max(history, LOOP_HISTORY)
        self._last: dict[tuple[int, int], deque[tuple[int, int, int]]] = defaultdict(
            lambda: deque(maxlen=keep)
        )

    def check(self, rtl: RtlRetire, sm: int | None = None) -> Retire:
        if sm is not None:
            self.sm = sm
        try:
            exp = self.model.step(rtl.block, rtl.warp)
        except (StepError, KernelError) as exc:
            self.fail(rtl, f"the model cannot execute this retire: {exc}")
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
            want_all = exp.values.tolist()
            got_all = rtl.values
            lanes = [i for i in range(len(got_all)) if exp.mask >> i & 1]
            self.lanes_compared += len(lanes)
            for lane in lanes:
                if got_all[lane] != want_all[lane]:
                    got, want = got_all[lane], want_all[lane]
                    shown = "X" if got is None else f"0x{got:08x}"
                    diffs.append(f"lane {lane} r{exp.rd}: expected 0x{want:08x}, RTL {shown}")
        cmp("finished", rtl.done, exp.done)
        cmp("barrier arrival", rtl.barrier, exp.barrier)
        self._last[(rtl.block, rtl.warp)].append((exp.pc, exp.word, exp.mask))  # formatted only when shown
        if diffs:
            self.fail(rtl, "; ".join(diffs))
        self.compared += 1
        return exp

    def last_retires(self, block: int, warp: int) -> str:
        shown = list(self._last.get((block, warp), []))[-self.history :]
        lines = [f"pc {pc:4d}  {disassemble(word):28s} mask 0x{mask:08x}" for pc, word, mask in shown]
        return "\n    ".join(lines) or "(none)"

    def fail(
        self, rtl: RtlRetire, what: str, board: str = "retire", exc: type[Mismatch] = RetireMismatch
    ) -> None:
        raise exc(
            f"{board} mismatch on {where(rtl, self.sm)}: {what}\n"
            f"  last retires of this warp (model):\n    {self.last_retires(rtl.block, rtl.warp)}"
        )

    def summary(self) -> str:
        return f"{self.compared} warp-instructions, {self.lanes_compared} lane values matched"

    def report(self) -> str:
        if self.compared == 0:
            raise AssertionError("retire scoreboard compared nothing: the RTL retired no instruction")
        return f"retire scoreboard: {self.summary()}"
