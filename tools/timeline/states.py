"""What every warp was doing, cycle by cycle, read from a run's trace (tb/hdl/simt_tb_trace.v lines).

Only the trace is used (dispatches ``D``, memory requests ``Q`` and responses ``P``, retire records
``R``), never the SM's internals, so the pictures stay right whatever the SM's pipeline looks like.
A warp is one row: SM, and its warp slot in that SM (block slot × warps per block + warp in block).
From its block's dispatch to the block's first retire a warp is in ``start`` (the SM sets the block
up: thread indices, shared memory). Between two retires of a warp, the time is put down to one reason:

* ``memory``   from the warp's first global-memory request after its previous retire, to its next
  retire (the request's tag names the warp slot: docs/gpu.md "Global memory port");
* ``barrier``  after a retire that arrived at a barrier, until the warp's next retire;
* ``others``   the back end was retiring other warps' instructions (the warp was not ready or not
  picked: the pipeline was busy with someone else) — up to the last other retire in the gap;
* ``own``      the rest: the warp's own instruction on its way through the back end.

A trace holds several launches (back-to-back tests); a launch starts at the dispatch of block 0.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from spec import cli, retire_record

REASONS = ("start", "own", "others", "memory", "barrier")


@dataclass
class Retire:
    cycle: int
    sm: int
    block: int
    warp: int  # warp index in its block
    slot: int  # block slot in the SM
    pc: int
    barrier: bool
    done: bool
    txns: int


@dataclass
class Launch:
    """One launch's events, cycles counted from the trace's clock (the memory's cycle since reset)."""

    index: int
    start: int
    dispatches: list[tuple[int, int, int]] = field(default_factory=list)  # (cycle, block, sm)
    retires: list[Retire] = field(default_factory=list)
    requests: list[tuple[int, int]] = field(default_factory=list)  # (cycle, tag) of SM requests
    end: int = 0

    @property
    def num_sms(self) -> int:
        return 1 + max((r.sm for r in self.retires), default=0)

    @property
    def warps_per_block(self) -> int:
        return 1 + max((r.warp for r in self.retires), default=0)


@dataclass
class WarpRow:
    """One warp slot of one SM over a launch: its retire cycles and reason intervals."""

    sm: int
    wslot: int
    retires: list[int] = field(default_factory=list)
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: {r: [] for r in REASONS})

    def cycles(self, reason: str) -> int:
        return sum(b - a for a, b in self.spans[reason])


def read_launches(path: Path, warp_size: int | None = None) -> list[Launch]:
    """Every launch of a trace file, in order. ``warp_size`` is found from the records if not given."""
    launches: list[Launch] = []
    cur: Launch | None = None
    try:
        text = path.read_text()
    except UnicodeDecodeError as e:
        raise TraceError(
            f"{path}: error: not a trace (byte {e.start} is not text); name a run's trace.txt"
        ) from None
    for number, line in enumerate(text.splitlines(), 1):
        try:
            cur = _read_line(line.split(), launches, cur, warp_size)
        except (ValueError, IndexError, KeyError, AssertionError):
            raise TraceError(
                f"{path}:{number}: error: not a trace record: {line[:60]!r}; name a run's trace.txt "
                "(tb/hdl/simt_tb_trace.v writes it)"
            ) from None
    return launches


class TraceError(ValueError, cli.InputError):
    """A file that is not a trace: the message names the file and line (one line, for the CLI)."""


def _read_line(
    t: list[str], launches: list[Launch], cur: Launch | None, warp_size: int | None
) -> Launch | None:
    """One trace record into ``launches``; returns the launch being read."""
    if not t or t[0] in ("Z", "E", "S"):
        return cur
    if len(t[0]) != 1 or not t[0].isupper():  # every record starts with its one-letter kind
        raise ValueError(t[0])
    cycle = int(t[1], 16)
    if t[0] == "D":
        block, sm = int(t[2], 16), int(t[3])
        if block == 0:
            cur = Launch(len(launches), cycle)
            launches.append(cur)
        if cur is not None:
            cur.dispatches.append((cycle, block, sm))
    elif cur is None:
        return cur
    elif t[0] == "R":
        ws = warp_size or 4 * len(t[3 + _VALUES]) // 32
        r = retire_record.decode(t[3:], ws)
        cur.retires.append(Retire(cycle, int(t[2]), r.block, r.warp, r.slot, r.pc, r.barrier, r.done, r.txns))
    elif t[0] == "Q":
        cur.requests.append((cycle, int(t[6], 16)))
    if cur is not None:
        cur.end = max(cur.end, cycle)
    return cur


_VALUES = next(i for i, f in enumerate(retire_record.FIELDS) if f.name == "values")


def warp_rows(launch: Launch, warp_size: int, num_warps: int) -> dict[tuple[int, int], WarpRow]:
    """The rows of a launch: (sm, warp slot) -> WarpRow. ``warp_size`` and ``num_warps`` give the tag's
    fields (warp slot: clog2(num_warps) bits above clog2(warp_size) index bits; the port above)."""
    wpb = launch.warps_per_block
    idx_w = int(math.log2(warp_size))
    wid_w = max(1, math.ceil(math.log2(num_warps))) if num_warps > 1 else 1
    tag_w = idx_w + wid_w
    # memory requests per (sm, warp slot), in order; the loader (port = num_sms) is left out
    reqs: dict[tuple[int, int], list[int]] = defaultdict(list)
    for cycle, tag in launch.requests:
        port, wslot = tag >> tag_w, (tag >> idx_w) & ((1 << wid_w) - 1)
        if port < launch.num_sms:
            reqs[(port, wslot)].append(cycle)
    by_sm: dict[int, list[int]] = defaultdict(list)
    for r in launch.retires:
        by_sm[r.sm].append(r.cycle)
    rows: dict[tuple[int, int], WarpRow] = {}
    last: dict[tuple[int, int], Retire] = {}
    starts = {(sm, b): c for c, b, sm in launch.dispatches}
    first: dict[tuple[int, int], int] = {}
    for r in launch.retires:
        first.setdefault((r.sm, r.block), r.cycle)
    for r in launch.retires:
        key = (r.sm, r.slot * wpb + r.warp)
        row = rows.setdefault(key, WarpRow(*key))
        prev = last.get(key)
        if prev is None or prev.done:  # the warp's first instruction in this block
            t0 = starts.get((r.sm, r.block), r.cycle)
            ready = min(max(t0, first[(r.sm, r.block)]), r.cycle)
            if ready > t0:
                row.spans["start"].append((t0, ready))
            t0, prev = ready, None
        else:
            t0 = prev.cycle
        _split(row, t0, r.cycle, prev, reqs.get(key, []), by_sm[r.sm])
        row.retires.append(r.cycle)
        last[key] = r
    return rows


def _split(
    row: WarpRow, t0: int, t1: int, prev: Retire | None, reqs: list[int], sm_retires: list[int]
) -> None:
    if t1 <= t0:
        return
    if prev is not None and prev.barrier and not prev.done:
        row.spans["barrier"].append((t0, t1))
        return
    mem = next((c for c in reqs if t0 <= c < t1), None)
    end = mem if mem is not None else t1
    others = [c for c in sm_retires if t0 < c < end]
    if others:
        row.spans["others"].append((t0, max(others)))
        t0 = max(others)
    if end > t0:
        row.spans["own"].append((t0, end))
    if mem is not None:
        row.spans["memory"].append((mem, t1))


def breakdown(rows: dict[tuple[int, int], WarpRow]) -> dict[str, int]:
    """Warp-cycles per reason, summed over the rows (the stall breakdown of a launch)."""
    return {reason: sum(row.cycles(reason) for row in rows.values()) for reason in REASONS}
