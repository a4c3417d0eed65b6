"""Retire scoreboard: every warp-instruction the RTL retires is replayed on the golden model.

On each RTL retire the model steps *that* warp (the RTL decides the interleaving); the model's record,
projected to the RTL's record type (spec/retire_record.py ``project``), must equal the RTL's record
(``==`` on the whole record: every field docs/isa.md section 10 defines). On a difference the
mismatch carries a table of the differing fields, each with the scoreboard that owns it
(``Field.board``), and is raised as that board's mismatch (:attr:`RetireScoreboard.owners`). The
model's record is returned so the divergence, shared-memory and coalescing scoreboards check the rest
of the same retire (memory traffic, bank writes). The first mismatch raises with the SM, block,
warp, pc, disassembly, the table and the last retires of that warp.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any

from spec.disasm import disassemble
from spec.model import KernelError, Model, Retire, StepError
from spec.retire_record import BOARDS, RtlRetire, difference_table, differences, project
from tb.scoreboards.base import OWNERS, Mismatch, RetireMismatch, Scoreboard


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
        self.warp: Any = None  # the model's warp after the last checked retire
        # board name (spec/retire_record.py Field.board) -> the mismatch raised for its fields
        self.owners: dict[str, type[Mismatch]] = OWNERS
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
        self.warp = warp = self.model.blocks[exp.block].warps[exp.warp]
        self._last[(exp.block, exp.warp)].append((exp.pc, exp.word, exp.mask))  # formatted only when shown
        want = project(exp, warp, rtl)
        if want != rtl:
            rows = differences(want, rtl)
            owner = min((row[1] for row in rows), key=BOARDS.index, default="retire")
            self.fail(
                rtl,
                f"{len(rows)} field(s) differ from the model's\n    "
                + difference_table(rows).replace("\n", "\n    "),
                owner,
                self.owners.get(owner, RetireMismatch),
            )
        if want.wr:
            self.lanes_compared += exp.mask.bit_count()
        self.compared += 1
        return exp

    def remember(self, block: int, warp: int, entries: list[tuple[int, int, int]]) -> None:
        """Retires of (block, warp) checked elsewhere (the compiled fast path, tb/fastcheck), in order."""
        self._last[(block, warp)].extend(entries)

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
