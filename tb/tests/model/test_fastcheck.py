"""The compiled checking fast path (tb/fastcheck, ``SIMT_FAST_CHECK=1``) equals the Python model.

Differential test on random kernels (tb/sequences/random_kernel.py, with divergence, barriers, shared and
global memory) on several machines: a golden model runs each launch in a random interleaving of its warps
(as an RTL might retire them) and the trace's lines are written from its records as the test wrapper
writes them: the loader's writes of the DATA words, dispatches, shared-memory bank writes, global-memory
requests (tagged with the warp slot, a few held off) and their responses in a random order, and retire
lines with every field at its full hex width (what docs/isa.md leaves undefined filled with random
values: inactive lanes, ``rd`` of an instruction that writes none, passes, transactions, the top of an
empty stack). Two checkers read the same lines through the real trace monitor's line handling: the
Python path alone (the retire scoreboard stepping the model, the quiet-path counts of tb/env/checker.py
``count_quiet``, every board's ``check``, the memory agent's image, functional coverage) and the fast
path with the Python path for every line it leaves (tb/agents/trace_monitor.py ``_drain_fast``'s
hand-over). Both must end with the same model (registers, shared and global memory, every warp's pc,
mask, count, state and stack depth, the counters), the same board counts and leftovers, retire history,
memory image, outstanding requests and coverage counts, and the fast path must have taken most
retires. A directed kernel (``EXIT_RELEASES``) adds what random kernels never do: a warp that leaves while
the others of its block wait at a barrier, releasing them. A corrupted retire line, bank write, store
transaction, stack top or final shared word is reported by both with the same text; a planted fault in
the C code for each path it checks (``PLANTS``) is caught.
"""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from spec.asm import assemble
from spec.machines import RANDOM
from spec.model import Model, StepError
from spec.records import WarpState
from spec.retire_record import FIELDS, decode
from tb.agents.gmem_agent import GmemAgent
from tb.agents.sm_driver import SmLaunch
from tb.agents.trace_monitor import TraceMonitor
from tb.coverage.collector import CoverageCollector
from tb.coverage.functional import GpuCoverage
from tb.env.checker import count_quiet
from tb.fastcheck import FastPath
from tb.scoreboards.base import CoalescingMismatch, DivergenceMismatch, Mismatch, SharedMismatch
from tb.scoreboards.coalescing import CoalescingScoreboard
from tb.scoreboards.divergence import DivergenceScoreboard
from tb.scoreboards.retire import RetireScoreboard, where
from tb.scoreboards.shared import SharedMemoryScoreboard
from tb.sequences.random_kernel import generate

CASES = (
    [("sm1-l8", s) for s in range(4)] + [("sm2-l32", s) for s in range(3)] + [("w16-l4", s) for s in range(3)]
)


# Warp 1 of each block spins, then leaves without a barrier while the others (often) wait at theirs: its
# finishing EXIT releases them (spec/model.py _barrier_check; done warps count as arrived, docs/isa.md 5).
# Random kernels never do this (tb/sequences/random_kernel.py exits only in the last phase by default).
EXIT_RELEASES = """
.grid 3
.block 97
.shared 97
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %warpid
        SEQI r3, r2, 1
        BNE  r3, late            ; uniform in a warp
        LDS  r4, %ctaid.x
        MULI r5, r4, 97
        ADD  r5, r5, r1
        ST   [r1], r5
        BAR
        MVI  r6, 96
        SUB  r6, r6, r1
        LD   r7, [r6]
        LDS  r8, %OUT
        ADD  r8, r8, r5
        STG  [r8], r7
        EXIT
late:   MVI  r9, 6
spin:   SUBI r9, r9, 1
        BNE  r9, spin
        EXIT
"""


def _digits(f: Any, cfg: Any) -> int:
    depth_w = max(1, (cfg.stack_depth).bit_length())  # clog2(STACK_DEPTH + 1)
    return (f.bits(cfg.warp_size, depth_w) + 3) // 4


def s_lines(
    cfg: Any, sm: int, clear: bool, ws: int, writes: list[tuple[int, int]], cycle: int, rng: random.Random
) -> list[str]:
    """``writes`` as the wrapper's shared-memory lines: shuffled, at most NUM_BANKS a line."""
    writes = list(writes)
    rng.shuffle(writes)
    out, nb = [], cfg.num_banks
    for i in range(0, len(writes), nb):
        pairs = " ".join(f"{a:x}:{d:08x}" for a, d in writes[i : i + nb])
        out.append(f"S {cycle:08x} {sm} {int(clear)} {ws:02x} {pairs}\n")
    return out


def q_line(
    cfg: Any, cycle: int, addr: int, write: bool, mask: int, data: list[int], tag: int, held: bool
) -> str:
    seg = cfg.seg_words
    packed = sum((d & 0xFFFF_FFFF) << (32 * i) for i, d in enumerate(data))
    return (f"Q {cycle:08x} {addr:08x} {int(write)} {mask:0{(seg + 3) // 4}x} {packed:0{8 * seg}x} {tag:04x} "
            f"{int(held)}\n")  # fmt: skip


class Port:
    """The memory port of a trace: requests with unique tags per SM, answered in a random order."""

    def __init__(self, cfg: Any, image: Any, rng: random.Random) -> None:
        coal = CoalescingScoreboard(cfg, image)
        self.cfg, self.rng, self.tag_w, self.idx_w = cfg, rng, coal.tag_w, coal.idx_w
        self.out: list[tuple[int, int]] = []  # (tag, cycle) outstanding
        self.lines: list[str] = []

    def request(self, cycle: int, port: int, ws: int, i: int, base: int, mask: int, store: bool,
                data: list[int] | None) -> None:  # fmt: skip
        tag = port << self.tag_w | ws << self.idx_w | i
        self.answer(cycle, lambda t: t == tag)  # (an SM never reuses an outstanding tag)
        words = [self.rng.getrandbits(32) for _ in range(self.cfg.seg_words)]
        for k in range(self.cfg.seg_words):
            if data is not None and mask >> k & 1:
                words[k] = data[k]
        self.lines.append(q_line(self.cfg, cycle, base, store, mask, words, tag, self.rng.random() < 0.03))
        self.out.append((tag, cycle))

    def answer(self, cycle: int, which: Any = None) -> None:
        """Responses: to the outstanding requests ``which`` picks, else to a random few."""
        rng = self.rng
        if which is None:
            picked = [o for o in self.out if rng.random() < 0.3]
        else:
            picked = [o for o in self.out if which(o[0])]
        rng.shuffle(picked)
        for o in picked:
            self.out.remove(o)
            data = rng.getrandbits(32 * self.cfg.seg_words)
            self.lines.append(f"P {cycle:08x} {o[0]:x} {data:0{8 * self.cfg.seg_words}x}\n")


def trace_of(cfg: Any, image: Any, seed: int) -> list[str]:
    """D, S, Q, P and R lines of one launch run by a golden model in a random interleaving: the loader's
    writes of the image's DATA words first, a block's shared region cleared at its dispatch, a shared
    store's bank writes before its retire, a global access's transactions (tagged with its warp slot)
    before its retire, the responses in a random order with the tags of a warp slot answered before it
    reuses them, a few requests held off."""
    rng = random.Random(seed)
    m = Model(cfg, image)
    wpb = image.warps_per_block(cfg.warp_size)
    stride = SmLaunch.of(cfg, image).sh_stride
    per_sm = min(
        cfg.num_blocks, cfg.num_warps // wpb, cfg.shared_words // stride if stride else cfg.num_blocks
    )
    capacity = max(1, cfg.num_sms * per_sm)
    pending, resident, lines, cycle = list(range(image.num_blocks)), [], [], 0
    port = Port(cfg, image, rng)
    seg = cfg.seg_words
    for base, words in image.data:  # the loader: whole segments, the DATA words masked in
        for lo in range(base - base % seg, base + len(words), seg):
            idx = [a - base for a in range(lo, lo + seg)]
            mask = sum(1 << k for k, i in enumerate(idx) if 0 <= i < len(words))
            data = [words[i] & 0xFFFF_FFFF if 0 <= i < len(words) else 0 for i in idx]
            port.request(cycle, cfg.num_sms, 0, 0, lo, mask, True, data)
            cycle += 1
            port.answer(cycle)
    lines += port.lines
    slots: dict[int, int] = {}
    while pending or resident:
        port.lines = []
        while pending and len(resident) < capacity:
            bid = pending.pop(0)
            sm = bid % cfg.num_sms
            used = {slots[b] for b in resident if m.blocks[b].sm == sm}
            slots[bid] = min(set(range(cfg.num_blocks)) - used)
            m.start_block(bid, sm=sm)
            resident.append(bid)
            lines.append(f"D {cycle:08x} {bid:x} {sm}\n")
            base = slots[bid] * stride
            zeros = [(base + a, 0) for a in range(len(m.blocks[bid].shared))]
            lines += s_lines(cfg, sm, True, slots[bid] * wpb, zeros, cycle, rng)
        ready = [(b, w.wid) for b in resident for w in m.blocks[b].warps if w.state is WarpState.READY]
        if not ready:
            raise AssertionError("no ready warp")
        bid, wid = rng.choice(ready)
        rec = m.step(bid, wid)
        cycle += rng.randint(1, 3)
        mem = rec.mem
        sm, ws = m.blocks[bid].sm, slots[bid] * wpb + wid
        if mem is not None and mem.store and mem.space == "shared":
            want = SharedMemoryScoreboard.expected_writes(
                SimpleNamespace(cfg=cfg, stride=stride), SimpleNamespace(slot=slots[bid]), rec
            )
            lines += s_lines(cfg, sm, False, ws, want, cycle, rng)
        if mem is not None and mem.space == "global":
            for i, t in enumerate(mem.transactions):
                port.request(
                    cycle, sm, ws, i, t.base, t.mask, t.store, None if t.data is None else list(t.data)
                )
        port.answer(cycle)
        lines += port.lines
        lines.append(r_line(cfg, m, rec, slots[bid], cycle, rng))
        resident = [b for b in resident if not m.blocks[b].done]
    port.lines = []
    port.answer(cycle + 1, lambda t: True)
    return lines + port.lines


def r_line(cfg: Any, m: Model, rec: Any, slot: int, cycle: int, rng: random.Random) -> str:
    W = cfg.warp_size
    warp = m.warp(rec.block, rec.warp)
    stack = warp.stack
    wr = rec.rd is not None
    junk = rng.getrandbits(32 * W)
    values = junk
    if wr:
        packed = int.from_bytes(rec.values.astype("<u4").tobytes(), "little")
        lanes = sum(0xFFFF_FFFF << (32 * i) for i in range(W) if rec.mask >> i & 1)
        values = (junk & ~lanes) | (packed & lanes)
    mem = rec.mem
    top = stack[-1] if stack and not rec.done else None
    vals = {
        "block": rec.block, "warp": rec.warp, "pc": rec.pc, "instr": rec.word, "mask": rec.mask, "wr": int(wr),
        "rd": rec.rd if wr else rng.randrange(32), "values": values,
        "next_pc": rec.next_pc, "next_mask": rec.next_mask,
        "pushes": sum(e.action == "push" for e in rec.stack), "pops": sum(e.action == "pop" for e in rec.stack),
        "merged": sum(e.action == "merge" for e in rec.stack), "depth": 0 if rec.done else len(stack),
        "passes": mem.passes if mem is not None and mem.space == "shared" else rng.randrange(8),
        "txns": len(mem.transactions) if mem is not None and mem.space == "global" else rng.randrange(8),
        "barrier": int(rec.barrier), "done": int(rec.done), "slot": slot,
        "top_pc": top[1] if top else rng.randrange(64), "top_mask": top[2] if top else rng.getrandbits(W),
        "top_kind": int(top[0] == "DIV") if top else rng.randrange(2),
    }  # fmt: skip
    if rec.done:  # the next pc, mask and stack of a finished warp are the RTL's
        vals["next_pc"], vals["next_mask"] = rng.randrange(64), 0
    fields = " ".join(f"{vals[f.name]:0{_digits(f, cfg)}x}" for f in FIELDS)
    return f"R {cycle:08x} {m.blocks[rec.block].sm} {fields}\n"


class Checker:
    """The Python path's checks of a trace (the real trace monitor's line handling for D, S, Q, P; the
    model, retire board, quiet-path counts, the other boards and coverage for R), with or without the
    fast path in front (the trace monitor's hand-over, TraceMonitor._drain_fast)."""

    def __init__(self, cfg: Any, image: Any, fast: bool, plant: int = 0) -> None:
        self.cfg, self.model = cfg, Model(cfg, image)
        self.retire = RetireScoreboard(self.model)
        self.div = DivergenceScoreboard(self.model)
        self.shared = SharedMemoryScoreboard(cfg, self.model, SmLaunch.of(cfg, image).sh_stride)
        self.coal = CoalescingScoreboard(cfg, image)
        self.cov = GpuCoverage(cfg)
        self.wpb = image.warps_per_block(cfg.warp_size)
        self.fault = None
        self.fast = (
            FastPath(self.model, self.retire, (self.div, self.shared, self.coal), self.wpb, self.cov)
            if fast
            else None
        )
        if self.fast is not None:
            self.fast.st.plant = plant
        # the trace monitor, its ports' subscribers: the memory agent's image, this checker, coverage
        self.memory = object.__new__(GmemAgent)
        self.memory.mem = np.zeros(cfg.global_words, np.uint32)
        self.collector = object.__new__(CoverageCollector)
        self.collector.cov, self.collector._held = self.cov, False
        mon = self.monitor = object.__new__(TraceMonitor)
        mon.cfg, mon.path, mon.lines, mon._pending, mon._seq, mon.cycle = cfg, "trace", 0, [], 0, 0
        mon.dispatch_ap = SimpleNamespace(write=self.dispatch)
        mon.shared_ap = SimpleNamespace(
            subscribers=[SimpleNamespace(write=lambda e: self.shared.observe(*e))]
        )
        mon.request_ap = SimpleNamespace(
            subscribers=[SimpleNamespace(write_fn=f) for f in
                         (self.memory.write_request, self.write_request, self.collector.write_request)]
        )  # fmt: skip
        mon.response_ap = SimpleNamespace(
            subscribers=[
                SimpleNamespace(write_fn=f) for f in (self.write_response, self.collector.write_response)
            ]
        )

    def write_request(self, txn: Any) -> None:
        self.coal.on_request(txn)

    def write_response(self, rsp: Any) -> None:
        self.coal.on_response(rsp)

    def dispatch(self, event: tuple[int, int]) -> None:
        self.model.start_block(*event)
        if self.fast is not None:
            self.fast.register()
        self.cov.dispatch(*event)  # (the coverage collector's dispatch export: residency)

    def python_retire(self, event: tuple[Any, int]) -> None:
        rtl, sm = event
        exp = self.retire.check(rtl, sm)
        if not count_quiet(self.div, self.shared, self.coal, self.wpb, rtl, exp, sm):
            for board in (self.div, self.shared, self.coal):
                diffs = board.check(rtl, exp, sm)
                if diffs:
                    raise board.mismatch(f"{board.name} mismatch on {where(rtl, sm)}: " + "; ".join(diffs))
        self.cov.retire(exp, sm, self.retire.warp)

    def feed(self, lines: list[str], batch: int = 64) -> None:
        mon = self.monitor
        for i in range(0, len(lines), batch):
            chunk = lines[i : i + batch]
            if self.fast is None:
                for line in chunk:
                    if line[0] == "R":
                        t = line.split()
                        self.python_retire((decode(t[3:], self.cfg.warp_size), int(t[2])))
                    else:
                        mon._event(line)
                continue
            mon._drain_fast("".join(chunk).encode("latin-1"), self.python_retire, self)
        if self.fast is not None:
            self.fast.settle()
        for board in (self.retire, self.div, self.shared, self.coal):
            left = board.end()
            if left:
                raise board.mismatch(f"{board.name} at the end: " + "; ".join(left))

    def state(self) -> dict[str, Any]:
        m = self.model
        self.cov._classify()
        return {
            "counters": m.counters.as_dict(),
            "retires": m.retires,
            "gmem": m.gmem.tobytes(),
            "warps": {(b, w.wid): (w.pc, w.count, w.mask, w.state, w.exited, len(w.stack))
                      for b, bl in m.blocks.items() for w in bl.warps},  # fmt: skip
            "regs": {b: bl.regs.tobytes() for b, bl in m.blocks.items()},
            "shared": {b: bl.shared.tobytes() for b, bl in m.blocks.items()},
            "epochs": {b: bl.epoch for b, bl in m.blocks.items()},
            "done": {b: bl.done for b, bl in m.blocks.items()},
            "residency": (dict(self.cov.resident_on), dict(self.cov.block_sm)),
            "arrivals": {b: list(a) for b, a in self.cov.arrivals.items()},
            "mirror": [x.tobytes() for x in self.shared.mirror],
            "pending": {k: list(v) for k, v in self.shared.pending.items()},
            "memory": (self.memory.mem.tobytes(), self.collector._held, list(self.monitor._pending), self.monitor._seq),
            "loader": sorted(self.coal.loader_done),
            "boards": [(b.compared, *(getattr(b, k) for k in b.counts)) for b in (self.retire, self.div, self.shared, self.coal)],
            "history": {k: list(v) for k, v in self.retire._last.items()},
            "coverage": (self.cov.samples, dict(self.cov.last_retire),
                         {k: Counter(p.counts) for k, p in vars(self.cov).items() if hasattr(p, "counts")}),
        }  # fmt: skip


def launch(name: str, seed: int, directed: str | None = None) -> tuple[Any, Any, list[str]]:
    """A random kernel's launch on machine ``name`` (or the assembly text ``directed``), its trace."""
    cfg = RANDOM[name]
    image = generate(seed, cfg).image if directed is None else assemble(directed).image
    return cfg, image, trace_of(cfg, image, seed)


def differ(cfg: Any, image: Any, lines: list[str], plant: int = 0) -> list[str]:
    """What differs between the Python path and the fast path on ``lines`` (or their mismatches)."""
    outcome = []
    for fast in (False, True):
        chk = Checker(cfg, image, fast, plant)
        try:
            chk.feed(lines)
            if chk.fast is not None:
                assert chk.fast.handled > 0
            outcome.append(chk.state())
        except (Mismatch, StepError) as exc:
            outcome.append({"mismatch": str(exc)})
    py, fa = outcome
    return sorted(k for k in set(py) | set(fa) if py.get(k) != fa.get(k))


@pytest.mark.parametrize(("name", "seed"), CASES)
def test_fast_path_equals_the_model(name: str, seed: int) -> None:
    cfg, image, lines = launch(name, seed)
    chk = Checker(cfg, image, True)
    chk.feed(lines)
    retires = sum(line[0] == "R" for line in lines)
    assert chk.fast.handled > retires // 5, "the fast path took too few retires to prove anything"
    assert differ(cfg, image, lines) == []


def exit_releases(cfg: Any, image: Any, lines: list[str]) -> int:
    """How many retires of ``lines`` are an EXIT that finishes its warp and releases its block's barrier."""
    m, n = Model(cfg, image), 0
    for line in lines:
        t = line.split()
        if t[0] == "D":
            m.start_block(int(t[2], 16), sm=int(t[3]))
        elif t[0] == "R":
            rtl = decode(t[3:], cfg.warp_size)
            rec = m.step(rtl.block, rtl.warp)
            n += rec.done and rec.released
    return n


@pytest.mark.parametrize(("name", "seed"), [("sm1-l8", 0), ("sm2-l32", 1), ("w16-l4", 2)])
def test_an_exit_releasing_a_barrier_is_checked_in_c(name: str, seed: int) -> None:
    """A warp's finishing EXIT that releases the block's other warps from their barrier, and the EXIT
    that finishes the block (its shared memory compared with the mirror), are the fast path's: every
    retire of the launch is checked in C, with the same outcome as the Python path."""
    cfg, image, lines = launch(name, seed, EXIT_RELEASES)
    assert exit_releases(cfg, image, lines) > 0, (
        "the trace has no EXIT releasing a barrier: pick another seed"
    )
    chk = Checker(cfg, image, True)
    chk.feed(lines)
    assert chk.fast.handled == sum(line[0] == "R" for line in lines)
    assert chk.fast.blocks == image.num_blocks == chk.shared.blocks_checked
    assert differ(cfg, image, lines) == []


def _fast_line(cfg: Any, image: Any, lines: list[str], kind: str) -> int:
    """Index of a retire line of ``kind`` in the last three quarters of the trace: lane 0 active and
    written by an ADD ("add"), an LDS ("lds") or a global load ("ldg"); a store to shared memory ("store")
    or to global memory ("stg"); a retire leaving the divergence stack non-empty ("top"); an EXIT that
    finishes its block, whose shared memory is not empty ("final")."""
    m = Model(cfg, image)
    for i, line in enumerate(lines):
        if line[0] == "D":
            t = line.split()
            m.start_block(int(t[2], 16), sm=int(t[3]))
        if line[0] != "R":
            continue
        t = line.split()
        rtl = decode(t[3:], cfg.warp_size)
        ins = m.code[rtl.pc]
        m.step(rtl.block, rtl.warp)
        if kind == "store":
            ok = ins.kind == "store" and ins.unit == "shared"
        elif kind == "stg":
            ok = ins.kind == "store" and ins.unit == "global"
        elif kind == "ldg":
            ok = rtl.wr and ins.kind == "load" and ins.unit == "global"
        elif kind == "top":
            ok = rtl.depth > 0 and not rtl.done
        elif kind == "final":
            ok = m.blocks[rtl.block].done and len(m.blocks[rtl.block].shared) > 0
        else:
            ok = rtl.wr and (ins.op.alu if kind == "add" else ins.kind) == ("ADD" if kind == "add" else kind)
        if i > len(lines) // 4 and (rtl.mask & 1 or kind == "final") and ok:
            return i
    raise AssertionError(f"no {kind} retire")


def _corrupt_field(lines: list[str], i: int, name: str) -> list[str]:
    """``lines`` with the lowest bit of field ``name`` of retire ``i`` flipped."""
    t = lines[i].split(" ")
    v = 3 + [f.name for f in FIELDS].index(name)
    t[v] = t[v][:-1] + f"{int(t[v][-1], 16) ^ 1:x}"
    return [*lines[:i], " ".join(t), *lines[i + 1 :]]


def _corrupt_store_data(cfg: Any, lines: list[str], i: int) -> list[str]:
    """``lines`` with a masked data word of the last store transaction before retire ``i`` flipped."""
    j = next(j for j in range(i - 1, 0, -1) if lines[j][0] == "Q" and lines[j].split()[3] == "1")
    t = lines[j].rstrip("\n").split(" ")
    mask, data, seg = int(t[4], 16), t[5], cfg.seg_words
    k = (mask & -mask).bit_length() - 1  # the lowest masked word
    at = 8 * (seg - k) - 1
    t[5] = data[:at] + f"{int(data[at], 16) ^ 1:x}" + data[at + 1 :]
    return [*lines[:j], " ".join(t) + "\n", *lines[j + 1 :]]


def _corrupt_final_shared(cfg: Any, image: Any, lines: list[str], i: int) -> list[str]:
    """``lines`` with a shared-memory line clearing word 0 of the block that retire ``i`` (the EXIT that
    finishes it) leaves, to a wrong value, just before that retire: only the block's final check sees it."""
    t = lines[i].split()
    sm, rtl = int(t[2]), decode(t[3:], cfg.warp_size)
    stride, wpb = SmLaunch.of(cfg, image).sh_stride, image.warps_per_block(cfg.warp_size)
    m = Model(cfg, image)
    for line in lines[:i]:
        u = line.split()
        if u[0] == "D":
            m.start_block(int(u[2], 16), sm=int(u[3]))
        elif u[0] == "R":
            r = decode(u[3:], cfg.warp_size)
            m.step(r.block, r.warp)
    bad = int(m.blocks[rtl.block].shared[0]) ^ 1
    s = f"S {int(t[1], 16):08x} {sm} 1 {rtl.slot * wpb:02x} {rtl.slot * stride:x}:{bad:08x}\n"
    return [*lines[:i], s, *lines[i:]]


def _corrupt(lines: list[str], i: int) -> list[str]:
    """``lines`` with lane 0's value of retire ``i`` (lowest bit) flipped."""
    return _corrupt_field(lines, i, "values")


def _corrupt_bank_write(lines: list[str], i: int) -> list[str]:
    """``lines`` with the data of the first bank write of shared store ``i`` (the S line before it) flipped."""
    j = i - 1
    assert lines[j][0] == "S" and lines[j].split()[3] == "0"
    t = lines[j].rstrip("\n").split(" ")
    a, d = t[5].split(":")
    t[5] = f"{a}:{int(d, 16) ^ 1:08x}"
    return [*lines[:j], " ".join(t) + "\n", *lines[j + 1 :]]


def _reports(cfg, image, bad: list[str], error: type[Exception]) -> tuple[str, str]:
    """The report of ``error`` that feeding ``bad`` raises: (Python path, fast path)."""
    out = []
    for fast in (False, True):
        with pytest.raises(error) as exc:
            Checker(cfg, image, fast).feed(bad)
        out.append(str(exc.value))
    return out[0], out[1]


@pytest.mark.parametrize("kind", ["add", "lds"])
def test_a_corrupted_retire_is_reported_the_same_by_both(kind: str) -> None:
    cfg, image, lines = launch("sm1-l8", 0)
    bad = _corrupt(lines, _fast_line(cfg, image, lines, kind))
    python, fast = _reports(cfg, image, bad, Mismatch)
    assert python == fast
    assert "values[lane 0]" in python


def test_a_corrupted_bank_write_is_reported_the_same_by_both() -> None:
    """A shared store's bank write with wrong data (its S line): the fast path leaves the store to the
    Python path, with the writes it holds, and the shared-memory board reports it as without it."""
    cfg, image, lines = launch("sm1-l8", 1)
    bad = _corrupt_bank_write(lines, _fast_line(cfg, image, lines, "store"))
    python, fast = _reports(cfg, image, bad, SharedMismatch)
    assert python == fast
    assert "missing bank write" in python and "unexpected bank write" in python


def test_a_corrupted_global_store_is_reported_the_same_by_both() -> None:
    """A global store's transaction with a wrong data word (its Q line): the fast path hands the
    transactions it holds to the coalescing board, which reports it as without it."""
    cfg, image, lines = launch("sm1-l8", 1)
    bad = _corrupt_store_data(cfg, lines, _fast_line(cfg, image, lines, "stg"))
    python, fast = _reports(cfg, image, bad, CoalescingMismatch)
    assert python == fast
    assert "store data expected" in python


def test_a_corrupted_stack_top_is_reported_the_same_by_both() -> None:
    cfg, image, lines = launch("sm1-l8", 1)
    bad = _corrupt_field(lines, _fast_line(cfg, image, lines, "top"), "top_pc")
    python, fast = _reports(cfg, image, bad, DivergenceMismatch)
    assert python == fast
    assert "top_pc" in python


def test_a_corrupted_final_shared_word_is_reported_the_same_by_both() -> None:
    """A block finishing with a shared word that differs from the model's (a wrong write no store
    accounts for): the fast path leaves its last EXIT to the Python path, whose shared board reports it."""
    cfg, image, lines = launch("sm1-l8", 1)
    bad = _corrupt_final_shared(cfg, image, lines, _fast_line(cfg, image, lines, "final"))
    python, fast = _reports(cfg, image, bad, SharedMismatch)
    assert python == fast
    assert "shared word(s) differing from the model" in python


def test_the_fast_path_takes_memory_traffic_and_the_divergence_stack() -> None:
    cfg, image, lines = launch("sm1-l8", 1)
    chk = Checker(cfg, image, True)
    chk.feed(lines)
    assert chk.fast.stores > 0 and chk.shared.clears > 0
    assert chk.fast.barriers > 0 and chk.model.counters.barrier_releases > 0
    exits = sum(line[0] == "R" and chk.model.code[decode(line.split()[3:], cfg.warp_size).pc].kind == "exit"
                for line in lines)  # fmt: skip
    assert chk.fast.exits == exits  # (the EXITs finishing their blocks included)
    assert chk.fast.blocks == image.num_blocks and chk.shared.blocks_checked > 0
    assert chk.fast.globals > chk.model.counters.global_accesses // 2 and chk.coal.loader_txns > 0
    assert chk.div.pushes and chk.div.pops and chk.div.merges and chk.model.counters.divergent_branches
    assert chk.fast.handled > 0.9 * chk.retire.compared


PLANTS = {
    # plant: (random kernel seed, what the trace gets wrong or None)
    1: (0, None),  # an ADD's register write is off by one after the compare (the model's state diverges)
    2: (0, "add"),  # lane 0 is not compared (a corrupted lane 0 goes through)
    3: (1, "store"),  # a shared store's bank writes are compared by count only (a wrong word goes through)
    4: (1, None),  # a BAR releases its block's barrier whatever the other warps do (warp states diverge)
    5: (1, "stg"),  # a global store's transaction data is not compared (a wrong word goes through)
    6: (1, None),  # a global load writes memory word 0 to lane 0 after the compare (registers diverge)
    7: (1, None),  # a response's latency is counted as 1 (coverage's latency buckets diverge)
    8: (1, None),  # a merge into a DIV entry is undone after the compare (the stacks diverge)
    9: (1, "top"),  # the top of the stack is not compared (a wrong top_pc goes through)
    10: (0, None),  # a finishing EXIT does not record its threads as exited after the compare (warps diverge)
    11: (1, "final"),  # a finished block's shared memory is not compared (a wrong final word goes through)
    12: (0, "exit_releases"),  # a finishing EXIT never releases the barrier (the waiting warps stay waiting)
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_fast_path_faults_are_caught(plant: int) -> None:
    """Each planted fault in fastcheck.c (St.plant) makes the fast path end differently from the Python
    path, on a correct trace or on one the Python path rejects."""
    seed, bad = PLANTS[plant]
    cfg, image, lines = launch("sm1-l8", seed, EXIT_RELEASES if bad == "exit_releases" else None)
    if bad in ("add", "top"):
        lines = _corrupt_field(
            lines, _fast_line(cfg, image, lines, bad), "values" if bad == "add" else "top_pc"
        )
    elif bad == "store":
        lines = _corrupt_bank_write(lines, _fast_line(cfg, image, lines, "store"))
    elif bad == "stg":
        lines = _corrupt_store_data(cfg, lines, _fast_line(cfg, image, lines, "stg"))
    elif bad == "final":
        lines = _corrupt_final_shared(cfg, image, lines, _fast_line(cfg, image, lines, "final"))
    assert differ(cfg, image, lines, plant) != []


def test_no_compiler_falls_back_with_one_warning(monkeypatch: Any, capsys: Any) -> None:
    """Without gcc the launch checker goes on with the Python path, saying so in one line, once."""
    import tb.fastcheck as fc

    def broken() -> Any:
        raise RuntimeError("SIMT_FAST_CHECK needs a C compiler (gcc, a prerequisite: README)")

    monkeypatch.setattr(fc, "library", broken)
    monkeypatch.setattr(fc, "_WARNED", [])
    assert not fc.available() and not fc.available()
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "warning: SIMT_FAST_CHECK: no compiled fast path (SIMT_FAST_CHECK needs a C compiler (gcc, a "
        "prerequisite: README)); checking with the Python path"
    ]


@pytest.mark.parametrize(("value", "on"), [(None, True), ("1", True), ("0", False), ("off", False)])
def test_the_fast_path_is_the_default(monkeypatch: Any, value: str | None, on: bool) -> None:
    import tb.fastcheck as fc

    if value is None:
        monkeypatch.delenv(fc.ENV, raising=False)
    else:
        monkeypatch.setenv(fc.ENV, value)
    assert fc.enabled() is on
