"""simt_coalescer bench: every transaction against spec.model.coalesce (docs/isa.md 6.3).

Each accepted access is turned into its expected transaction list by ``model.coalesce``; every beat
on the output is compared, in order, with the next expected transaction: base, word mask, store
flag, store data (per masked word the highest lane's data; loads carry 0), ``last``, ``index`` and
``lanes`` (the active lanes whose address lies in the segment). An access with an empty mask must
produce exactly one marker beat (``empty`` = ``last`` = 1, no words, no lanes) — the unit's
documented answer to an empty access. Payloads must stay stable while held (valid, not ready).

Tests: ``directed`` (named patterns: sequential, misaligned, strided 2/SEG/33, reversed, scattered,
all lanes on one word, partial masks, single lane, top of the address space, empty) first with the
output always ready and the input never idle — which must give one beat per cycle with no bubble,
also between accesses — then under random back-pressure; ``random_stream`` (random mixes, idle
input gaps, bursty output back-pressure). The launchers run every configuration of CONFIGS and a
refused illegal parameter on the selected simulator.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from spec import model
from tb import benchutil, rtlsim
from tb.agents.handshake import wait_high

M32 = 0xFFFF_FFFF
CONFIGS = [(32, 8), (32, 1), (32, 32), (16, 4), (8, 16)]  # (WARP_SIZE, SEG_WORDS)


@dataclass
class Access:
    name: str
    addrs: list[int]
    mask: int
    store: bool
    data: list[int]


# ---------------------------------------------------------------------------------------- stimulus
def _pattern(name: str, ws: int, seg: int, rng: random.Random) -> Access:
    full = (1 << ws) - 1
    base = rng.randrange(0, 1 << 20) * seg
    store = rng.random() < 0.5
    mask = full
    if name == "sequential":
        addrs = [base + i for i in range(ws)]
    elif name == "misaligned":
        addrs = [base + 1 + rng.randrange(max(seg - 1, 1)) + i for i in range(ws)]
    elif name.startswith("stride"):
        stride = {"stride2": 2, "strideSEG": seg, "stride33": 33}[name]
        addrs = [base + i * stride for i in range(ws)]
    elif name == "reversed":
        addrs = [base + ws - 1 - i for i in range(ws)]
    elif name == "scattered":
        addrs = [rng.randrange(0, 1 << 32) for _ in range(ws)]
    elif name == "one_word":
        addrs = [base + rng.randrange(seg)] * ws
    elif name == "partial":
        addrs = [base + i for i in range(ws)]
        mask = rng.randrange(1, full + 1)
    elif name == "single_lane":
        addrs = [rng.randrange(0, 1 << 32) for _ in range(ws)]
        mask = 1 << rng.randrange(ws)
    elif name == "top_of_space":
        addrs = [(M32 - ws + 1 + i) & M32 for i in range(ws)]
    elif name == "empty":
        addrs = [rng.randrange(0, 1 << 32) for _ in range(ws)]
        mask = 0
    elif name == "random":
        pool = [base + rng.randrange(4 * seg + 8) for _ in range(rng.randint(1, ws))]
        addrs = [rng.choice(pool) for _ in range(ws)]
        mask = rng.choice([full, rng.randrange(0, full + 1)])
    else:
        raise ValueError(name)
    data = [rng.randrange(0, 1 << 32) for _ in range(ws)]
    return Access(name, addrs, mask, store, data)


DIRECTED = ["sequential", "misaligned", "stride2", "strideSEG", "stride33", "reversed", "scattered",
            "one_word", "partial", "single_lane", "top_of_space", "empty"]  # fmt: skip


# ---------------------------------------------------------------------------------------- harness
class CoalescerBench:
    """Drives accesses, plays the output consumer and checks every beat against model.coalesce."""

    def __init__(self, dut) -> None:
        self.dut = dut
        self.ws = len(dut.in_mask)
        self.seg = len(dut.out_wmask)
        self.expected: deque[tuple[Access, list[model.Transaction]]] = deque()
        self.beat_in_access = 0
        self.ready_prob = 1.0
        self.stall_prob = 0.0  # chance per cycle to start a multi-cycle stall
        self.stall = 0
        self.beats: list[int] = []  # cycle of every beat taken
        self.cycle = 0
        self.accesses = self.transactions = self.words = self.markers = 0
        self._held: tuple | None = None

    async def reset(self) -> None:
        d = self.dut
        d.in_valid.value = 0
        d.out_ready.value = 0
        d.in_mask.value = 0
        d.in_addr.value = 0
        d.in_store.value = 0
        d.in_wdata.value = 0
        d.rst.value = 1
        for _ in range(3):
            await RisingEdge(d.clk)
        d.rst.value = 0

    async def drive(self, accesses: list[Access], gap_prob: float = 0.0) -> None:
        d, ws = self.dut, self.ws
        for acc in accesses:
            while random.random() < gap_prob:
                await RisingEdge(d.clk)
            d.in_valid.value = 1
            d.in_mask.value = acc.mask
            d.in_addr.value = sum((a & M32) << (32 * i) for i, a in enumerate(acc.addrs))
            d.in_store.value = int(acc.store)
            d.in_wdata.value = sum(v << (32 * i) for i, v in enumerate(acc.data))
            await wait_high(d.clk, d.in_ready, what="coalescer driver: access offered")
            txns = list(model.coalesce(acc.addrs, acc.mask, acc.data if acc.store else None, ws, self.seg))
            self.expected.append((acc, txns))
            await RisingEdge(d.clk)
            d.in_valid.value = 0

    async def consume(self) -> None:
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            if self.stall:
                self.stall -= 1
                ready = False
            elif random.random() < self.stall_prob:
                self.stall = random.randint(1, 12)
                ready = False
            else:
                ready = random.random() < self.ready_prob
            d.out_ready.value = int(ready)
            await ReadOnly()
            if int(d.out_valid.value) != 1:
                self._held = None
                continue
            beat = self._sample()
            if self._held is not None:
                assert beat == self._held, f"output changed while held: {self._held} -> {beat}"
            if ready:
                self._held = None
                self._check(beat)
            else:
                self._held = beat

    def _sample(self) -> tuple:
        d = self.dut
        return (
            int(d.out_base.value),
            int(d.out_wmask.value),
            int(d.out_wdata.value),
            int(d.out_store.value),
            int(d.out_last.value),
            int(d.out_index.value),
            int(d.out_lanes.value),
            int(d.out_empty.value),
        )

    def _check(self, beat: tuple) -> None:
        base, wmask, wdata, store, last, index, lanes, empty = beat
        assert self.expected, f"unexpected beat {beat}: no access outstanding"
        acc, txns = self.expected[0]
        k = self.beat_in_access
        where = f"access '{acc.name}' mask={acc.mask:#x} addrs={[hex(a) for a in acc.addrs]} beat {k}"
        self.beats.append(self.cycle)
        if not txns:  # empty access: one marker beat
            assert (empty, last, index, wmask, lanes) == (1, 1, 0, 0, 0), f"{where}: bad empty marker {beat}"
            self.markers += 1
            self.expected.popleft()
            self.accesses += 1
            return
        t = txns[k]
        assert empty == 0, f"{where}: empty flagged on a real transaction"
        assert base == t.base, f"{where}: base {base:#x} != model {t.base:#x}"
        assert wmask == t.mask, f"{where}: wmask {wmask:#x} != model {t.mask:#x}"
        assert store == int(t.store), f"{where}: store {store} != model {t.store}"
        assert index == k, f"{where}: index {index} != {k}"
        assert last == int(k == len(txns) - 1), f"{where}: last {last} with {len(txns)} transactions"
        exp_lanes = sum(
            1 << i
            for i in range(self.ws)
            if acc.mask >> i & 1 and t.base <= (acc.addrs[i] & M32) < t.base + self.seg
        )
        assert lanes == exp_lanes, f"{where}: lanes {lanes:#x} != {exp_lanes:#x}"
        words = [(wdata >> (32 * i)) & M32 for i in range(self.seg)]
        exp_words = list(t.data) if t.store else [0] * self.seg
        assert words == exp_words, (
            f"{where}: data {[hex(x) for x in words]} != model {[hex(x) for x in exp_words]}"
        )
        self.transactions += 1
        self.words += bin(wmask).count("1")
        self.beat_in_access += 1
        if last:
            self.beat_in_access = 0
            self.expected.popleft()
            self.accesses += 1

    async def drain(self, limit: int = 100_000) -> None:
        for _ in range(limit):
            if not self.expected and int(self.dut.out_valid.value) == 0:
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"coalescer did not drain: {len(self.expected)} access(es) left")


async def _start(dut, test: str) -> CoalescerBench:
    benchutil.log_seed(__name__, test)
    Clock(dut.clk, 10, unit="ns").start()
    tb = CoalescerBench(dut)
    await tb.reset()
    cocotb.start_soon(tb.consume())
    return tb


def _report(tb: CoalescerBench) -> None:
    cocotb.log.info(
        "checked %d accesses, %d transactions, %d words, %d empty markers (WARP_SIZE=%d SEG_WORDS=%d)",
        tb.accesses,
        tb.transactions,
        tb.words,
        tb.markers,
        tb.ws,
        tb.seg,
    )
    assert tb.transactions > 0, "checked 0 transactions"


# ---------------------------------------------------------------------------------------- tests
@cocotb.test()
async def directed(dut) -> None:
    """Named patterns, first at full speed (no bubble allowed), then under back-pressure."""
    tb = await _start(dut, "directed")
    rng = random.Random(random.getrandbits(32))
    accs = [_pattern(n, tb.ws, tb.seg, rng) for _ in range(4) for n in DIRECTED]
    # Full speed: the output is always ready and the input always valid -> one beat per cycle.
    await tb.drive(accs)
    await tb.drain()
    span = tb.beats[-1] - tb.beats[0] + 1
    assert span == len(tb.beats), f"{len(tb.beats)} beats took {span} cycles at full speed (bubbles)"
    tb.ready_prob, tb.stall_prob = 0.5, 0.05
    await tb.drive([_pattern(n, tb.ws, tb.seg, rng) for _ in range(4) for n in DIRECTED], gap_prob=0.3)
    await tb.drain()
    _report(tb)


@cocotb.test()
async def random_stream(dut) -> None:
    """Random mixes of every pattern with idle input gaps and bursty output back-pressure."""
    tb = await _start(dut, "random_stream")
    rng = random.Random(random.getrandbits(32))
    names = DIRECTED + ["random"] * 6
    for ready_prob, stall_prob, gap in ((1.0, 0.0, 0.2), (0.7, 0.02, 0.1), (0.3, 0.1, 0.0)):
        tb.ready_prob, tb.stall_prob = ready_prob, stall_prob
        await tb.drive([_pattern(rng.choice(names), tb.ws, tb.seg, rng) for _ in range(60)], gap_prob=gap)
    await tb.drain()
    _report(tb)


# ---------------------------------------------------------------------------------------- launchers
@pytest.mark.parametrize("warp_size,seg_words", CONFIGS, ids=[f"ws{w}-seg{s}" for w, s in CONFIGS])
def test_coalescer(warp_size: int, seg_words: int) -> None:
    rtlsim.run(
        "simt_coalescer",
        ["sm/simt_coalescer.v"],
        __name__,
        parameters={"WARP_SIZE": warp_size, "SEG_WORDS": seg_words},
        testcase=["directed", "random_stream"],
    )


def test_coalescer_illegal_parameter() -> None:
    """One illegal value is enough to prove the checks stop the simulator (each build costs time)."""
    params, message = {"WARP_SIZE": 8, "SEG_WORDS": 3}, "simt_coalescer: illegal parameter SEG_WORDS=3"
    rtlsim.expect_fatal("simt_coalescer", ["sm/simt_coalescer.v"], params, message)
