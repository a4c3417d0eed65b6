"""What the golden model reports: kernel errors (docs/isa.md section 7), warp states, the retire
record of one warp-instruction and its memory accesses (section 10), and the event counters with the
performance-counter order the RTL shares (section 11). Part of the model (spec/model.py).
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import isa

DEFAULT_BUDGET = 1_000_000  # warp-instructions per warp before INSTRUCTION_BUDGET


class ErrorKind(enum.Enum):
    ILLEGAL_INSTRUCTION = "illegal instruction"
    PC_OUT_OF_RANGE = "pc out of range"
    BAD_REGISTER = "register out of range"
    BAD_PARAM = "parameter not supplied"
    SHARED_OUT_OF_RANGE = "shared address out of range"
    CONST_OUT_OF_RANGE = "constant address out of range"
    GLOBAL_OUT_OF_RANGE = "global address out of range"
    STACK_OVERFLOW = "divergence stack overflow"
    DIVERGENT_WITHOUT_SSY = "divergent branch without SSY"
    BARRIER_DIVERGENCE = "BAR under divergence"
    INSTRUCTION_BUDGET = "instruction budget exceeded"
    RACE = "unordered conflicting accesses (race)"


# Error status codes reported by the RTL: 0 = no error, then ErrorKind in declaration order.
ERROR_CODES: dict[ErrorKind, int] = {kind: i + 1 for i, kind in enumerate(ErrorKind)}


class KernelError(Exception):
    """A kernel error (docs/isa.md section 7), naming where it happened."""

    def __init__(
        self, kind: ErrorKind, message: str, *, block: int, warp: int, pc: int, lane: int | None = None
    ) -> None:
        self.kind, self.block, self.warp, self.pc, self.lane = kind, block, warp, pc, lane
        self.detail = message
        where = f"block {block} warp {warp} pc {pc}" + (f" lane {lane}" if lane is not None else "")
        super().__init__(f"{kind.name}: {message} ({where})")


class StepError(RuntimeError):
    """The caller asked the model to step a warp that cannot execute (not started, waiting, done)."""


class WarpState(enum.Enum):
    READY = "ready"
    WAITING = "waiting at barrier"
    DONE = "done"


SYNC, DIV = "SYNC", "DIV"


@dataclass(slots=True, frozen=True)
class StackEvent:
    action: str  # "push" | "pop" | "merge"
    kind: str  # SYNC | DIV
    pc: int  # rpc of a SYNC, path pc of a DIV
    mask: int  # the entry's mask after the event
    depth: int  # stack depth after the event


@dataclass(slots=True, frozen=True)
class Transaction:
    """One global-memory transaction: an aligned segment, its word mask and (stores) data."""

    base: int
    mask: int
    store: bool
    data: tuple[int, ...] | None = None  # SEG_WORDS words for stores; 0 where not masked


@dataclass(slots=True)
class MemAccess:
    space: str  # "shared" | "const" | "global"
    store: bool
    addrs: np.ndarray  # per lane (only active lanes meaningful)
    data: np.ndarray | None = None  # store data per lane
    passes: int = 0  # shared: serialized passes (docs/isa.md 6.1)
    rows: tuple[int, ...] = ()  # shared: the passes of each row with an active lane (their sum is passes)
    transactions: tuple[Transaction, ...] = ()  # global: in issue order (docs/isa.md 6.3)


@dataclass(slots=True)
class Retire:
    """One retired warp-instruction (docs/isa.md section 10)."""

    block: int
    warp: int
    pc: int
    word: int
    mask: int
    rd: int | None = None
    values: np.ndarray | None = None  # the destination register of every lane after the write
    mem: MemAccess | None = None
    stack: tuple[StackEvent, ...] = ()
    next_pc: int = 0
    next_mask: int = 0
    barrier: bool = False  # the warp arrived at a barrier
    released: bool = False  # this instruction released its block's barrier
    done: bool = False  # the warp finished
    block_done: bool = False  # the block finished

    @property
    def mnemonic(self) -> str:
        return _mnemonic(self.word)


@functools.cache
def _mnemonic(word: int) -> str:
    try:
        return isa.lookup(word).mnemonic
    except isa.IllegalInstruction:
        return "<illegal>"


CLASSES = tuple(u.value for u in isa.Unit)


@dataclass
class Counters:
    """Exact event counts of a launch (docs/isa.md section 11)."""

    warp_instrs: int = 0
    thread_instrs: int = 0
    warp_by_class: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    thread_by_class: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    divergent_branches: int = 0
    stack_pushes: int = 0
    stack_pops: int = 0
    max_stack_depth: int = 0
    shared_accesses: int = 0
    shared_passes: int = 0
    global_accesses: int = 0
    global_transactions: int = 0
    barrier_arrivals: int = 0
    barrier_releases: int = 0

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if not isinstance(v, dict)}
        for cls in CLASSES:
            d[f"warp_{cls}"] = self.warp_by_class[cls]
            d[f"thread_{cls}"] = self.thread_by_class[cls]
        return d


# Performance counters the RTL exposes (perf_sel index = position). Those also in Counters.as_dict()
# are exact event counts the RTL must equal; "cycles" and "idle_cycles" depend on timing.
PERF_COUNTERS: tuple[str, ...] = (
    "cycles", "idle_cycles", "warp_instrs", "thread_instrs",
    *(f"warp_{c}" for c in CLASSES), *(f"thread_{c}" for c in CLASSES),
    "divergent_branches", "stack_pushes", "stack_pops", "max_stack_depth",
    "shared_accesses", "shared_passes", "global_accesses", "global_transactions",
    "barrier_arrivals", "barrier_releases", "barrier_wait_cycles",
)  # fmt: skip
# Depend on timing, so no model count exists: cycles, cycles the back end had nothing to do, and
# warp-cycles spent waiting at barriers.
TIMING_COUNTERS = ("cycles", "idle_cycles", "barrier_wait_cycles")
assert len(PERF_COUNTERS) <= 32 and set(PERF_COUNTERS) - set(TIMING_COUNTERS) == set(Counters().as_dict())


@dataclass
class RunResult:
    gmem: np.ndarray
    shared: dict[int, np.ndarray]  # final shared memory of each block
    counters: Counters
    retires: int
