"""Functional coverage of the GPU: what a regression exercised, as bins (cocotb-coverage).

:class:`GpuCoverage` owns the cover points of one machine configuration and is fed with *checked*
observations: a retire is sampled only after the scoreboards agreed with the model, so a bin hit
means "this case happened and was right". Cover points (docs/testplan.yaml maps features to them):

===============================  ==========================================================================
``gpu.instr.opcode_x_mask``      every instruction × active-mask class (all, partial, single, none)
``gpu.div.stack_depth_sD``       divergence-stack depth after each retire, 0 … STACK_DEPTH (D), + overflow
``gpu.div.shape``                divergent if/else, nested divergence, divergent loop, partial EXIT, …
``gpu.shared.passes_bN``         shared-memory passes of a row of lanes, 1 … NUM_BANKS (N)
``gpu.shared.sharing``           broadcast (every active lane one word), some lanes sharing a word, none
``gpu.global.coalescing``        transactions per access: fully coalesced … fully scattered, × load/store
``gpu.memory.order`` / latency   responses in order / overtaking; response latency buckets; backpressure
``gpu.barrier.arrival``          the order in which a block's warps reached a barrier
``gpu.sched.resident_bN``        blocks resident on an SM when one is dispatched, 1 … NUM_BLOCKS (N)
``gpu.sched.switch``             consecutive retires of one SM: same warp, other warp, other block
``gpu.launch.after``             what the GPU did before a launch: reset, a launch, an error, an ABORT
===============================  ==========================================================================

Points whose bins depend on a parameter carry it in their name, so configurations merge cleanly.
The database is cocotb-coverage's process-wide ``coverage_db``; :func:`export` writes it as YAML
and ``tb/coverage/report.py`` merges the files of every run (seeds, configurations, simulators).
"""

from __future__ import annotations

import functools
import weakref
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db

from spec import isa
from spec.config import GpuConfig
from spec.model import row_passes

MNEMONICS = [op.mnemonic for op in isa.OPS]
MASK_CLASSES = ["all", "partial", "single", "none"]
SHAPES = ["uniform_branch", "if_else", "if_only", "nested", "loop", "partial_exit", "merge"]
SHARING = ["broadcast", "partial_sharing", "distinct"]
COALESCING = ["single", "coalesced", "partial", "scattered"]
DIRECTIONS = ["load", "store"]
ORDER = ["in_order", "overtaking"]
LATENCY = ["1", "2-4", "5-16", "17-64", "65+"]
ARRIVAL = ["one_warp", "ascending", "descending", "mixed"]
SWITCH = ["same_warp", "other_warp", "other_block"]
AFTER = ["reset", "launch", "kernel_error", "launch_error", "abort", "reset_mid_kernel"]
OVERFLOW = "overflow"


def mask_class(mask: int, valid: int) -> str:
    """all: every thread the warp was launched with; single: one thread; partial: the rest."""
    if mask == 0:
        return "none"
    if mask == valid:
        return "all"
    return "single" if mask & (mask - 1) == 0 else "partial"


def sharing_class(addrs: list[int]) -> str:
    distinct = len(set(addrs))
    if len(addrs) > 1 and distinct == 1:
        return "broadcast"
    return "partial_sharing" if distinct < len(addrs) else "distinct"


def coalescing_class(addrs: list[int], txns: int, seg_words: int) -> str:
    """A global access makes one transaction per segment it touches (docs/isa.md 6.3). single: one;
    coalesced: as few as its distinct words allow (> 1); scattered: one per distinct word (> 1);
    partial: in between."""
    if txns == 1:
        return "single"
    words = len(set(addrs))
    if txns == -(-words // seg_words):
        return "coalesced"
    return "scattered" if txns == words else "partial"


def row_conflicts(addrs: list[int], mask: int, warp_size: int, num_lanes: int, num_banks: int) -> list[int]:
    """Per row of lanes with an active lane, the passes it needs: the most distinct addresses any one
    bank receives from the row (docs/isa.md 6.1), 1 … NUM_BANKS (the model's one definition)."""
    return row_passes(addrs, mask, warp_size, num_lanes, num_banks)


def latency_bucket(cycles: int) -> str:
    for limit, name in ((1, "1"), (4, "2-4"), (16, "5-16"), (64, "17-64")):
        if cycles <= limit:
            return name
    return "65+"


def arrival_class(order: list[int]) -> str:
    if len(order) == 1:
        return "one_warp"
    if order == sorted(order):
        return "ascending"
    return "descending" if order == sorted(order, reverse=True) else "mixed"


@functools.cache
def _mnemonic(word: int) -> str:
    return isa.decode(word).op.mnemonic


@functools.cache
def _target(word: int) -> int:
    return isa.decode(word).imm


@functools.cache
def _shaped(word: int) -> bool:
    """A BEQ, BNE or EXIT: the instructions whose divergence shape is sampled."""
    return _mnemonic(word) in ("BEQ", "BNE", "EXIT")


class _Tally:
    """A sampler that counts its samples and hands them to cocotb-coverage in one go (:meth:`flush`).

    Sampling cocotb-coverage directly on every checked retire cost more than the checking itself
    (its crosses recompute their coverage on each call). Here each distinct value is sampled once per
    flush through the real CoverPoint/CoverCross, and its further hits are added to the same bins, so
    the database ends with exactly the hit counts one-call-per-sample would give."""

    def __init__(self, sample: Callable[..., None], items: list[tuple[str, Callable[..., Any]]]) -> None:
        self.sample = sample
        self.items = items  # (cover item name, args -> its bin)
        self.counts: Counter[tuple[Any, ...]] = Counter()

    def __call__(self, *args: Any) -> None:
        self.counts[args] += 1

    def flush(self) -> None:
        for args, n in self.counts.items():
            self.sample(*args)
            if n > 1:
                for name, key in self.items:
                    hits = coverage_db[name]._hits
                    b = key(args)
                    if b in hits:
                        hits[b] += n - 1
        self.counts.clear()


def _point(name: str, bins: list[Any]) -> _Tally:
    """A sampler: call it with a value, the bin equal to it is hit (cocotb-coverage CoverPoint)."""

    @CoverPoint(name, bins=list(bins))
    def sample(value: Any) -> None:
        pass

    return _Tally(sample, [(name, lambda a: a[0])])


def _cross(name: str, a: tuple[str, list[Any]], b: tuple[str, list[Any]]) -> _Tally:
    """A sampler of two points and their cross: ``sample(x, y)``."""

    @CoverPoint(f"{name}.{a[0]}", xf=lambda x, y: x, bins=list(a[1]))
    @CoverPoint(f"{name}.{b[0]}", xf=lambda x, y: y, bins=list(b[1]))
    @CoverCross(f"{name}.cross", items=[f"{name}.{a[0]}", f"{name}.{b[0]}"])
    def sample(x: Any, y: Any) -> None:
        pass

    return _Tally(
        sample,
        [
            (f"{name}.{a[0]}", lambda v: v[0]),
            (f"{name}.{b[0]}", lambda v: v[1]),
            (f"{name}.cross", lambda v: (v[0], v[1])),
        ],
    )


def point_names(cfg: GpuConfig) -> dict[str, list[Any]]:
    """Every cover point (or cross) of configuration ``cfg`` and its bins: the testplan's vocabulary."""
    names: dict[str, list[Any]] = {
        "gpu.instr.opcode_x_mask.cross": [(m, c) for m in MNEMONICS for c in MASK_CLASSES],
        f"gpu.div.stack_depth_s{cfg.stack_depth}": [*range(cfg.stack_depth + 1), OVERFLOW],
        "gpu.div.shape": SHAPES,
        f"gpu.shared.passes_b{cfg.num_banks}": list(range(1, cfg.num_banks + 1)),
        "gpu.shared.sharing": SHARING,
        "gpu.global.coalescing.cross": [(c, d) for c in COALESCING for d in DIRECTIONS],
        "gpu.memory.order": ORDER,
        "gpu.memory.latency": LATENCY,
        "gpu.memory.backpressure": [True],
        "gpu.barrier.arrival": ARRIVAL,
        f"gpu.sched.resident_b{cfg.num_blocks}": list(range(1, cfg.num_blocks + 1)),
        "gpu.sched.switch": SWITCH,
        "gpu.launch.after": AFTER,
    }
    return names


_LIVE: weakref.WeakSet[GpuCoverage] = weakref.WeakSet()


def flush_all() -> None:
    """Hand the counted samples of every live :class:`GpuCoverage` to cocotb-coverage's database."""
    for cov in list(_LIVE):
        cov.flush()


class GpuCoverage:
    """The cover points of one configuration and the bookkeeping that classifies observations.
    Samples are counted and reach cocotb-coverage's database at each launch event and on
    :meth:`flush` / :func:`flush_all` / :func:`export`."""

    def __init__(self, cfg: GpuConfig) -> None:
        _LIVE.add(self)
        self.cfg = cfg
        self.full = cfg.full_mask
        self.instr = _cross("gpu.instr.opcode_x_mask", ("opcode", MNEMONICS), ("mask", MASK_CLASSES))
        self.depth = _point(
            f"gpu.div.stack_depth_s{cfg.stack_depth}", [*range(cfg.stack_depth + 1), OVERFLOW]
        )
        self.shape = _point("gpu.div.shape", SHAPES)
        self.passes = _point(f"gpu.shared.passes_b{cfg.num_banks}", list(range(1, cfg.num_banks + 1)))
        self.sharing = _point("gpu.shared.sharing", SHARING)
        self.coalescing = _cross("gpu.global.coalescing", ("kind", COALESCING), ("dir", DIRECTIONS))
        self.order = _point("gpu.memory.order", ORDER)
        self.latency = _point("gpu.memory.latency", LATENCY)
        self.backpressure = _point("gpu.memory.backpressure", [True])
        self.arrival = _point("gpu.barrier.arrival", ARRIVAL)
        self.resident = _point(f"gpu.sched.resident_b{cfg.num_blocks}", list(range(1, cfg.num_blocks + 1)))
        self.switch = _point("gpu.sched.switch", SWITCH)
        self.after = _point("gpu.launch.after", AFTER)
        self.samples = 0
        # (word, mask, valid threads, stack depth, SWITCH index or None) of each checked retire
        self.raw: Counter[tuple[int, int, int, int, int | None]] = Counter()
        # (space, store, mask, lane addresses as bytes, passes per row, transactions) of each checked access
        self.mem_raw: Counter[tuple[str, bool, int, bytes, tuple[int, ...], int]] = Counter()
        self.previous = "reset"  # what happened before the next launch
        self._new_launch()

    def _new_launch(self) -> None:
        self.arrivals: dict[int, list[int]] = {}  # block -> warps at its barrier, in arrival order
        self.resident_on: dict[int, int] = {}  # sm -> blocks resident
        self.block_sm: dict[int, int] = {}
        self.last_retire: dict[int, tuple[int, int]] = {}  # sm -> (block, warp)

    # ---- launches (host driver) ------------------------------------------------------------------
    def flush(self) -> None:
        """Hand every counted sample to cocotb-coverage (at each launch event and before export)."""
        self._classify()
        for tally in vars(self).values():
            if isinstance(tally, _Tally):
                tally.flush()

    def launch(self, what: str, item: Any) -> None:
        self.flush()
        if what == "begin":
            self.after(self.previous)
            self._new_launch()
        elif what == "end":
            if item.expect_error == "STACK_OVERFLOW":
                self.depth(OVERFLOW)
            self.previous = ("kernel_error" if item.expect_error is not None else
                             "launch_error" if item.expect_launch_error is not None else "launch")  # fmt: skip
        else:  # abandoned: reset or ABORT in the middle of the kernel
            self.previous = "reset_mid_kernel" if item.interrupt == "reset" else "abort"

    def reset(self) -> None:
        """A reset between launches (not in the middle of one)."""
        self.previous = "reset"

    # ---- checked retires (the launch checker, after every scoreboard agreed) -------------------
    def retire(self, exp: Any, sm: int, warp: Any) -> None:
        """``exp``: the model's :class:`~spec.model.Retire`; ``warp``: the model's warp after it.

        Called once per checked retire, so it only counts: the raw keys of the opcode x mask, depth and
        switch points and of each memory access are classified once per distinct key at :meth:`flush`
        (:meth:`_classify`); only branches and EXIT (their shape needs the warp now) and barrier and
        block-end bookkeeping are looked at here."""
        self.samples += 1
        prev = self.last_retire.get(sm)
        key = (exp.block, exp.warp)
        switch = None if prev is None else 0 if prev == key else 1 if prev[0] == exp.block else 2
        self.last_retire[sm] = key
        word = exp.word
        self.raw[(word, exp.mask, warp.valid, len(warp.stack), switch)] += 1
        if _shaped(word):
            self._divergence(exp, warp)
        mem = exp.mem
        if mem is not None and mem.space != "const":
            ntx = len(mem.transactions)
            if mem.space == "shared" or ntx:  # (a global access with no active lane makes no transaction)
                self.mem_raw[(mem.space, mem.store, exp.mask, mem.addrs.tobytes(), mem.rows, ntx)] += 1
        if exp.barrier:
            self.arrivals.setdefault(exp.block, []).append(exp.warp)
        if exp.released:
            order = self.arrivals.pop(exp.block, [exp.warp])
            self.arrival(arrival_class(order))
        if exp.block_done:
            sm_of = self.block_sm.pop(exp.block, sm)
            self.resident_on[sm_of] = max(0, self.resident_on.get(sm_of, 1) - 1)

    def _classify(self) -> None:
        """The raw counts of :meth:`retire` as samples of the opcode x mask, depth, switch and memory points."""
        for (word, mask, valid, depth, switch), n in self.raw.items():
            self.instr.counts[(_mnemonic(word), mask_class(mask, valid))] += n
            self.depth.counts[(depth,)] += n
            if switch is not None:
                self.switch.counts[(SWITCH[switch],)] += n
        self.raw.clear()
        W = self.cfg.warp_size
        for (space, store, mask, raw_addrs, rows, ntx), n in self.mem_raw.items():
            addrs = np.frombuffer(raw_addrs, np.uint32).tolist()
            if mask != self.full:
                addrs = [addrs[i] for i in range(W) if mask >> i & 1]
            if space == "shared":
                for degree in set(rows):  # the model's passes per row (row_conflicts)
                    self.passes.counts[(degree,)] += n
                self.sharing.counts[(sharing_class(addrs),)] += n
            else:
                kind = coalescing_class(addrs, ntx, self.cfg.seg_words)
                self.coalescing.counts[(kind, "store" if store else "load")] += n
        self.mem_raw.clear()

    def _divergence(self, exp: Any, warp: Any) -> None:
        """Shapes (docs/isa.md 4.2): a BEQ/BNE *splits* when part of its active threads go on. loop: the
        split branch jumps backwards; nested: it splits threads already split off (the mask was a
        subset of the live threads); if_else: it pushes a DIV entry (both sides run); if_only: one side
        reached the reconvergence point and waits there (no entry); merge: joined a pending DIV entry."""
        name = _mnemonic(exp.word)
        if name in ("BEQ", "BNE"):
            split = exp.next_mask != exp.mask and exp.next_mask != 0
            if not split:
                self.shape("merge" if any(e.action == "merge" for e in exp.stack) else "uniform_branch")
                return
            merged = any(e.action == "merge" for e in exp.stack)
            if _target(exp.word) <= exp.pc:
                self.shape("loop")
            if exp.mask != warp.live:
                self.shape("nested")
            if merged:
                self.shape("merge")
            elif any(e.action == "push" for e in exp.stack):
                self.shape("if_else")
            else:
                self.shape("if_only")
        elif name == "EXIT" and warp.live:
            self.shape("partial_exit")

    # ---- block dispatches and memory traffic ---------------------------------------------------
    def dispatch(self, bid: int, sm: int) -> None:
        self.block_sm[bid] = sm
        self.resident_on[sm] = self.resident_on.get(sm, 0) + 1
        self.resident(min(self.resident_on[sm], self.cfg.num_blocks))

    def response(self, latency: int, overtook: bool) -> None:
        """A memory response was taken ``latency`` cycles after its request was accepted;
        ``overtook``: an earlier-accepted request was still unanswered."""
        self.order("overtaking" if overtook else "in_order")
        self.latency(latency_bucket(max(1, latency)))

    def stalled(self) -> None:
        """The memory held a request off (valid while ready was low)."""
        self.backpressure(True)


def export(path: Path) -> None:
    """Write the process's coverage database (every point of every configuration run) as YAML at
    ``path`` and as cocotb-coverage's XML beside it (same name, ``.xml``), for other tools."""
    flush_all()
    path.parent.mkdir(parents=True, exist_ok=True)
    coverage_db.export_to_yaml(str(path))
    coverage_db.export_to_xml(str(path.with_suffix(".xml")))
