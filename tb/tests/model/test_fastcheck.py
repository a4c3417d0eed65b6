"""The compiled checking fast path (tb/fastcheck, ``SIMT_FAST_CHECK=1``) equals the Python model.

Differential test on random kernels (tb/sequences/random_kernel.py) on several machines: a golden model
runs each launch in a random interleaving of its warps (as an RTL might retire them) and the trace's
retire lines are written from its records as the test wrapper writes them (every field at its full
hex width; what docs/isa.md leaves undefined filled with random values: inactive lanes, ``rd`` of an
instruction that writes none, passes, transactions, the top of an empty stack). Two checkers read the
same lines: the Python path alone (the retire scoreboard stepping the model, the quiet-path counts of
tb/env/checker.py ``count_quiet``, functional coverage) and the fast path with the Python path for
every line it leaves (tb/agents/trace_monitor.py ``_drain_fast``'s hand-over). Both must end with
the same model (registers, shared and global memory, every warp's pc, mask, count and state, the
counters), the same board counts, retire history and coverage counts, and the fast path must have
taken most retires. A corrupted retire line is reported by both with the same text; planted faults
in the C code (a wrong register write after the compare; a lane not compared) are caught.
"""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from spec.machines import RANDOM
from spec.model import Model, StepError
from spec.records import WarpState
from spec.retire_record import FIELDS, decode
from tb.agents.sm_driver import SmLaunch
from tb.coverage.functional import GpuCoverage
from tb.env.checker import count_quiet
from tb.fastcheck import FastPath
from tb.scoreboards.base import Mismatch, SharedMismatch
from tb.scoreboards.coalescing import CoalescingScoreboard
from tb.scoreboards.divergence import DivergenceScoreboard
from tb.scoreboards.retire import RetireScoreboard, where
from tb.scoreboards.shared import SharedMemoryScoreboard
from tb.sequences.random_kernel import generate

CASES = (
    [("sm1-l8", s) for s in range(4)] + [("sm2-l32", s) for s in range(3)] + [("w16-l4", s) for s in range(3)]
)


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


def trace_of(cfg: Any, image: Any, seed: int) -> list[str]:
    """D, S and R lines of one launch run by a golden model in a random interleaving: a block's shared
    region cleared at its dispatch, a shared store's bank writes before its retire."""
    rng = random.Random(seed)
    m = Model(cfg, image)
    wpb = image.warps_per_block(cfg.warp_size)
    stride = SmLaunch.of(cfg, image).sh_stride
    per_sm = min(
        cfg.num_blocks, cfg.num_warps // wpb, cfg.shared_words // stride if stride else cfg.num_blocks
    )
    capacity = max(1, cfg.num_sms * per_sm)
    pending, resident, lines, cycle = list(range(image.num_blocks)), [], [], 0
    slots: dict[int, int] = {}
    while pending or resident:
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
        if mem is not None and mem.store and mem.space == "shared":
            want = SharedMemoryScoreboard.expected_writes(
                SimpleNamespace(cfg=cfg, stride=stride), SimpleNamespace(slot=slots[bid]), rec
            )
            lines += s_lines(cfg, m.blocks[bid].sm, False, slots[bid] * wpb + wid, want, cycle, rng)
        lines.append(r_line(cfg, m, rec, slots[bid], cycle, rng))
        resident = [b for b in resident if not m.blocks[b].done]
    return lines


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
    """The Python path's checks of D and R lines (model, retire board, quiet-path counts, coverage),
    with or without the fast path in front (the trace monitor's hand-over)."""

    def __init__(self, cfg: Any, image: Any, fast: bool, plant: int = 0) -> None:
        self.cfg, self.model = cfg, Model(cfg, image)
        self.retire = RetireScoreboard(self.model)
        self.div = DivergenceScoreboard(self.model)
        self.shared = SharedMemoryScoreboard(cfg, self.model, SmLaunch.of(cfg, image).sh_stride)
        self.coal = CoalescingScoreboard(cfg, image)
        self.cov = GpuCoverage(cfg)
        self.wpb = image.warps_per_block(cfg.warp_size)
        self.fast = (
            FastPath(self.model, self.retire, (self.div, self.shared, self.coal), self.wpb, self.cov)
            if fast
            else None
        )
        if self.fast is not None:
            self.fast.st.plant = plant

    def python_retire(self, line: str) -> None:
        t = line.split()
        rtl, sm = decode(t[3:], self.cfg.warp_size), int(t[2])
        f = self.fast
        if f is not None:
            f.before_python(rtl.block, rtl.warp, sm, rtl.slot)
        exp = self.retire.check(rtl, sm)
        if not count_quiet(self.div, self.shared, self.coal, self.wpb, rtl, exp, sm):
            glob = (
                exp.mem is not None and exp.mem.space == "global"
            )  # (no memory port traffic in these traces)
            for board in (self.div, self.shared) if glob else (self.div, self.shared, self.coal):
                diffs = board.check(rtl, exp, sm)
                if diffs:
                    raise board.mismatch(f"{board.name} mismatch on {where(rtl, sm)}: " + "; ".join(diffs))
        self.cov.retire(exp, sm, self.retire.warp)
        if f is not None:
            f.after_python(rtl.block, rtl.warp)

    def feed(self, lines: list[str], batch: int = 64) -> None:
        for i in range(0, len(lines), batch):
            chunk = lines[i : i + batch]
            if self.fast is None:
                for line in chunk:
                    self.line(line)
                continue
            buf = "".join(chunk).encode("latin-1")
            pos, end = 0, len(buf)
            while pos < end:
                if buf[pos] in (82, 83):
                    pos = self.fast.run(buf, pos, end)
                    if pos >= end:
                        break
                nl = buf.index(b"\n", pos)
                if buf[pos] == 83:
                    self.fast.spill()
                self.line(buf[pos:nl].decode("latin-1"))
                pos = nl + 1
            self.fast.flush()
        if self.fast is not None:
            self.fast.settle()

    def line(self, line: str) -> None:
        if line[0] == "S":
            t = line.split()
            flat = [int(x, 16) for x in " ".join(t[5:]).replace(":", " ").split()]
            self.shared.observe(int(t[2]), t[3] == "1", list(zip(flat[::2], flat[1::2])), int(t[4], 16))
        elif line[0] == "D":
            t = line.split()
            self.model.start_block(int(t[2], 16), sm=int(t[3]))
            if self.fast is not None:
                self.fast.register()
        else:
            self.python_retire(line)

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
            "arrivals": {b: list(a) for b, a in self.cov.arrivals.items()},
            "mirror": [x.tobytes() for x in self.shared.mirror],
            "pending": {k: list(v) for k, v in self.shared.pending.items()},
            "boards": [(b.compared, *(getattr(b, k) for k in b.counts)) for b in (self.retire, self.div, self.shared, self.coal)],
            "history": {k: list(v) for k, v in self.retire._last.items()},
            "coverage": (self.cov.samples, dict(self.cov.last_retire),
                         {k: Counter(p.counts) for k, p in vars(self.cov).items() if hasattr(p, "counts")}),
        }  # fmt: skip


def launch(name: str, seed: int) -> tuple[Any, Any, list[str]]:
    cfg = RANDOM[name]
    image = generate(seed, cfg).image
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


def _fast_line(cfg: Any, image: Any, lines: list[str], kind: str) -> int:
    """Index of a retire line of ``kind`` the fast path takes (a warp with an empty stack), with lane 0
    active and written (``kind`` "add", "lds"), or active and stored to shared memory ("store")."""
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
        empty = not m.warp(rtl.block, rtl.warp).stack
        m.step(rtl.block, rtl.warp)
        if kind == "store":
            ok = ins.kind == "store" and ins.unit == "shared"
        else:
            ok = rtl.wr and (ins.op.alu if kind == "add" else ins.kind) == ("ADD" if kind == "add" else kind)
        if i > len(lines) // 4 and empty and rtl.mask & 1 and ok:
            return i
    raise AssertionError(f"no {kind} retire")


def _corrupt(lines: list[str], i: int) -> list[str]:
    """``lines`` with lane 0's value of retire ``i`` (lowest bit) flipped."""
    t = lines[i].split(" ")
    v = 3 + [f.name for f in FIELDS].index("values")
    t[v] = t[v][:-1] + f"{int(t[v][-1], 16) ^ 1:x}"
    return [*lines[:i], " ".join(t), *lines[i + 1 :]]


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


def test_the_fast_path_takes_shared_stores_bank_writes_and_barriers() -> None:
    cfg, image, lines = launch("sm1-l8", 1)
    chk = Checker(cfg, image, True)
    chk.feed(lines)
    assert chk.fast.stores > 0 and chk.shared.clears > 0
    assert chk.fast.barriers > 0 and chk.model.counters.barrier_releases > 0


@pytest.mark.parametrize("plant", [1, 2, 3, 4])
def test_planted_fast_path_faults_are_caught(plant: int) -> None:
    """plant 1: an ADD's register write is off by one after the compare (the model's state diverges);
    plant 2: lane 0 is not compared (a corrupted lane 0 goes through); plant 3: a shared store's bank
    writes are compared by count only (a wrong data word goes through); plant 4: a BAR releases its
    block's barrier whatever the other warps do (the model's warp states diverge)."""
    cfg, image, lines = launch("sm1-l8", 1 if plant >= 3 else 0)
    if plant == 2:
        lines = _corrupt(lines, _fast_line(cfg, image, lines, "add"))
    if plant == 3:
        lines = _corrupt_bank_write(lines, _fast_line(cfg, image, lines, "store"))
    assert differ(cfg, image, lines, plant) != []
