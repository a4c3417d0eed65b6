"""Unit bench of ``rtl/sm/simt_shared_lsu.v``: banked shared memory with conflict replay.

Checked against the specification (docs/isa.md 3.3 and 6.1, docs/sm.md ``simt_shared_lsu``):

* every row's ``passes`` equals ``spec.model.shared_passes`` (the golden model's count);
* every load lane's data equals a Python memory model (a list of words updated in row order; for
  several lanes storing to one word the highest lane wins, docs/isa.md 3.3); inactive lanes and
  store rows answer 0 (the module's documented behaviour);
* every bank write on the observation port, cycle by cycle: the pass schedule of docs/sm.md (per bank
  the lowest pending lane's word, broadcast to every pending lane with that word, the highest such
  lane's data) — the schedule's length is cross-checked against ``shared_passes``; clears write 0 to
  the line in every bank in one cycle; nothing else is ever written;
* timing contract of the module header: one pass per cycle, response max(passes, 1) cycles after
  the acceptance edge, ``req_ready``/``clr_ready`` exactly as documented (the next row may be held
  on the port while a row is in progress and is accepted in the row's last cycle);
* final contents: every word read back through conflict-free load rows.

Stimulus: random rows with a controlled conflict pattern (none, broadcast, k-way, all lanes in one
bank, random, narrow window with many same-word stores, strides), random masks (full, empty, single,
sparse, random), loads and stores interleaved, random gaps and back-to-back rows, random line clears
(sometimes in the same cycle as a row). ``SEED=n`` repeats a run.
"""

from __future__ import annotations

import random
from collections import deque

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

from spec.model import shared_passes
from tb import benchutil, rtlsim

M32 = 0xFFFF_FFFF
SOURCES = ["sm/simt_shared_lsu.v"]
# (NUM_LANES, NUM_BANKS, SHARED_WORDS)
CONFIGS = [(8, 8, 256), (8, 4, 256), (16, 16, 512), (4, 8, 128), (8, 1, 64), (32, 32, 1024)]
PATTERNS = ("none", "broadcast", "kway", "samebank", "random", "window", "stride")


def pass_schedule(addrs, mask, num_lanes, num_banks):
    """The passes of one row per docs/sm.md: a list of {bank: (word, lanes served)} per pass."""
    pend = [i for i in range(num_lanes) if mask >> i & 1]
    passes = []
    while pend:
        sel = {}
        for i in pend:  # ascending: the lowest pending lane of each bank picks the word
            sel.setdefault(addrs[i] % num_banks, addrs[i])
        served = {b: [i for i in pend if addrs[i] == a] for b, a in sel.items()}
        passes.append({b: (sel[b], lanes) for b, lanes in served.items()})
        done = {i for lanes in served.values() for i in lanes}
        pend = [i for i in pend if i not in done]
    return passes


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.nl = len(dut.lane_mask)
        self.nb = len(dut.obs_we)
        self.aw = len(dut.addr) // self.nl
        self.words = 1 << self.aw
        self.lines = self.words // self.nb
        self.mem = [None] * self.words  # None: never written (not compared)
        self.cycle = 0  # number of rising edges since the start
        self.obs = {}  # cycle -> {bank: (word, data)} expected on the observation port
        self.rsp = deque()  # expected responses, in order
        self.busy_from = self.busy_to = -1  # the current row occupies cycles [from, to)
        self.pending_req = None  # row presented on the port, not yet accepted
        self.pending_clr = None  # line presented on clr, not yet accepted
        self.n_rows = self.n_passes = self.n_words = self.n_writes = self.n_held = 0
        self.n_cycles_checked = self.n_clears = self.n_empty = 0

    # ------------------------------------------------------------------ stimulus
    def rand_mask(self):
        full = (1 << self.nl) - 1
        r = random.random()
        if r < 0.40:
            return full
        if r < 0.48:
            return 0
        if r < 0.56:
            return 1 << random.randrange(self.nl)
        if r < 0.70:
            return sum(1 << i for i in range(self.nl) if random.random() < 0.2)
        return random.getrandbits(self.nl)

    def rand_addrs(self, pattern):
        nl, nb, lines, words = self.nl, self.nb, self.lines, self.words
        if pattern == "none":  # at most one word per bank
            line = [random.randrange(lines) for _ in range(nb)]
            banks = random.sample(range(nb), nl) if nl <= nb else [random.randrange(nb) for _ in range(nl)]
            return [line[b] * nb + b for b in banks]
        if pattern == "broadcast":
            return [random.randrange(words)] * nl
        if pattern == "kway":  # k distinct words in one hot bank, the other lanes conflict-free
            k = random.randint(2, min(nl, lines))
            hot = random.randrange(nb)
            hot_words = [ln * nb + hot for ln in random.sample(range(lines), k)]
            cold = {b: random.randrange(lines) * nb + b for b in range(nb) if b != hot}
            lanes = random.sample(range(nl), nl)
            out = [0] * nl
            for n, i in enumerate(lanes):
                if n < k:
                    out[i] = hot_words[n]
                elif cold and random.random() < 0.5:
                    out[i] = random.choice(list(cold.values()))
                else:
                    out[i] = random.choice(hot_words)
            return out
        if pattern == "samebank":  # every lane a different word of one bank
            b = random.randrange(nb)
            return [ln * nb + b for ln in random.sample(range(lines), nl)]
        if pattern == "window":  # few words: many same-word stores (highest lane wins)
            base = random.randrange(words)
            span = random.choice((1, 2, 3, nb, 2 * nb))
            return [(base + random.randrange(span)) % words for _ in range(nl)]
        if pattern == "stride":
            base = random.randrange(words)
            stride = random.choice((1, 2, 3, 4, 5, nb, 2 * nb, nb + 1, lines))
            return [(base + i * stride) % words for i in range(nl)]
        return [random.randrange(words) for _ in range(nl)]

    def rand_row(self):
        pattern = random.choice(PATTERNS)
        store = random.random() < 0.5
        data = [random.getrandbits(32) for _ in range(self.nl)]
        if random.random() < 0.1:
            data = [random.choice((0, M32, 0x8000_0000, 1)) for _ in range(self.nl)]
        return (self.rand_mask(), self.rand_addrs(pattern), store, data)

    # ------------------------------------------------------------------ model
    def accept_row(self, row, edge):
        """The row is accepted at rising edge ``edge``: update the model, record what to expect."""
        mask, addrs, store, data = row
        sched = pass_schedule(addrs, mask, self.nl, self.nb)
        passes = shared_passes(addrs, mask, warp_size=self.nl, num_lanes=self.nl, num_banks=self.nb)
        assert len(sched) == passes, f"bench schedule {len(sched)} passes, model {passes}: bench bug"
        exp = [0] * self.nl
        if store:
            for k, p in enumerate(sched):
                cyc = self.obs.setdefault(edge + k, {})
                for b, (word, lanes) in p.items():
                    cyc[b] = (word, data[max(lanes)])
            for i in range(self.nl):  # ascending: the highest lane's store is the one left
                if mask >> i & 1:
                    self.mem[addrs[i]] = data[i]
        else:
            for i in range(self.nl):
                if mask >> i & 1:
                    exp[i] = self.mem[addrs[i]]
        latency = max(passes, 1)
        self.busy_from, self.busy_to = edge, edge + latency
        self.rsp.append((edge + latency, passes, exp, mask, store, row))

    def accept_clr(self, line, cycle):
        """The clear is presented in ``cycle`` and written at the next edge, before any row pass."""
        self.obs[cycle] = {b: (line * self.nb + b, 0) for b in range(self.nb)}
        for b in range(self.nb):
            self.mem[line * self.nb + b] = 0
        self.n_clears += 1

    # ------------------------------------------------------------------ checks (at a falling edge)
    def check_cycle(self):
        dut, c = self.dut, self.cycle
        busy = self.busy_from <= c < self.busy_to
        exp_ready = int(not busy or c == self.busy_to - 1)
        exp_clr_ready = int(not busy)
        ready, clr_ready = int(dut.req_ready.value), int(dut.clr_ready.value)
        assert ready == exp_ready, f"cycle {c}: req_ready={ready}, expected {exp_ready}"
        assert clr_ready == exp_clr_ready, f"cycle {c}: clr_ready={clr_ready}, expected {exp_clr_ready}"
        # handshakes at the coming edge (inputs were driven after the previous edge)
        if self.pending_clr is not None and clr_ready:
            self.accept_clr(self.pending_clr, c)
            self.pending_clr = None
        if self.pending_req is not None and ready:
            if busy:
                self.n_held += 1
            self.accept_row(self.pending_req, c + 1)
            self.pending_req = None
        self.check_obs(c)
        self.check_rsp(c)
        self.n_cycles_checked += 1

    def check_obs(self, c):
        dut = self.dut
        exp = self.obs.pop(c, {})
        we = int(dut.obs_we.value)
        got = {}
        if we:
            oa, od = int(dut.obs_addr.value), int(dut.obs_data.value)
            for b in range(self.nb):
                if we >> b & 1:
                    got[b] = (oa >> (b * self.aw) & (self.words - 1), od >> (32 * b) & M32)
        assert got == exp, f"cycle {c}: bank writes {got}, expected {exp}"
        self.n_writes += len(got)

    def check_rsp(self, c):
        dut = self.dut
        valid = int(dut.rsp_valid.value)
        if not self.rsp or self.rsp[0][0] != c:
            assert not valid, f"cycle {c}: unexpected rsp_valid"
            return
        assert valid, f"cycle {c}: rsp_valid missing"
        _, passes, exp, mask, store, row = self.rsp.popleft()
        got_p = int(dut.passes.value)
        assert got_p == passes, f"cycle {c}: passes={got_p}, expected {passes} for row {row}"
        rd = int(dut.rdata.value)
        for i in range(self.nl):
            got = rd >> (32 * i) & M32
            if store or not mask >> i & 1:
                assert got == 0, f"cycle {c}: lane {i} rdata {got:#x} (inactive or store: 0)"
            elif exp[i] is not None:
                assert got == exp[i], f"cycle {c}: lane {i} rdata {got:#x}, expected {exp[i]:#x}; row {row}"
                self.n_words += 1
        self.n_rows += 1
        self.n_passes += passes
        self.n_empty += mask == 0

    # ------------------------------------------------------------------ driving
    def drive_row(self, row):
        mask, addrs, store, data = row
        dut = self.dut
        dut.req_valid.value = 1
        dut.lane_mask.value = mask
        dut.addr.value = sum(a << (self.aw * i) for i, a in enumerate(addrs))
        dut.store.value = int(store)
        dut.wdata.value = sum(d << (32 * i) for i, d in enumerate(data))
        self.pending_req = row

    def drive_clr(self, line):
        self.dut.clr.value = 1
        self.dut.clr_line.value = line
        self.pending_clr = line

    async def reset(self):
        dut = self.dut
        for sig in (dut.req_valid, dut.lane_mask, dut.addr, dut.store, dut.wdata, dut.clr, dut.clr_line):
            sig.value = 0
        Clock(dut.clk, 10, unit="ns").start()
        dut.rst.value = 1
        for _ in range(3):
            await RisingEdge(dut.clk)
        dut.rst.value = 0

    async def step(self):
        """Check this cycle (at the falling edge), then advance to just after the next rising edge."""
        await FallingEdge(self.dut.clk)
        self.check_cycle()
        await RisingEdge(self.dut.clk)
        self.cycle += 1
        if self.pending_req is None:
            self.dut.req_valid.value = 0
        if self.pending_clr is None:
            self.dut.clr.value = 0

    async def run(self, ops, back_to_back=0.4, max_gap=3):
        """Play ``ops`` ("row", row) / ("clr", line) / ("clr+row", line, row) with random gaps."""
        ops = deque(ops)
        while ops or self.pending_req is not None or self.pending_clr is not None:
            if self.pending_req is None and self.pending_clr is None and ops:
                op = ops.popleft()
                if op[0] in ("clr", "clr+row"):
                    self.drive_clr(op[1])
                if op[0] == "row":
                    self.drive_row(op[1])
                elif op[0] == "clr+row":
                    self.drive_row(op[2])
                await self.step()
                if random.random() >= back_to_back:  # else present the next op while this one runs
                    for _ in range(random.randint(0, max_gap)):
                        await self.step()
            else:
                await self.step()
        while self.rsp or self.obs:  # drain
            await self.step()
        for _ in range(3):  # and nothing more may come
            await self.step()

    def readback_ops(self):
        """Conflict-free full-mask loads of every word."""
        return [
            ("row", ((1 << self.nl) - 1, list(range(base, base + self.nl)), False, [0] * self.nl))
            for base in range(0, self.words, self.nl)
        ]

    def clear_all_ops(self):
        return [("clr", line) for line in range(self.lines)]

    def report(self, log, what):
        log.info(
            "checked %d rows (%d empty, %d held while busy), %d passes, %d load words, %d bank writes, "
            "%d clears, %d cycles (%s)",
            self.n_rows,
            self.n_empty,
            self.n_held,
            self.n_passes,
            self.n_words,
            self.n_writes,
            self.n_clears,
            self.n_cycles_checked,
            what,
        )
        assert self.n_rows > 0 and self.n_words > 0 and self.n_writes > 0, "checked nothing"


@cocotb.test()
async def random_rows(dut):
    """Random conflict patterns, masks, loads/stores, clears and back-pressure; full read-back."""
    dut._log.info(
        "seed %d (SEED=%d reruns this)", cocotb.RANDOM_SEED, benchutil.rerun_seed(__name__, "random_rows")
    )
    tb = Bench(dut)
    await tb.reset()
    n_rows = max(400, 6000 // tb.nl)
    ops = tb.clear_all_ops()
    for _ in range(n_rows):
        r = random.random()
        if r < 0.03:
            ops.append(("clr", random.randrange(tb.lines)))
        elif r < 0.06:
            ops.append(("clr+row", random.randrange(tb.lines), tb.rand_row()))
        else:
            ops.append(("row", tb.rand_row()))
    ops += tb.readback_ops()
    await tb.run(ops)
    assert all(w is not None for w in tb.mem)
    tb.report(dut._log, "random")


@cocotb.test()
async def directed_rows(dut):
    """Corner rows: empty, broadcast, highest-lane-wins, one bank, lowest-lane-first order, clears."""
    dut._log.info("seed %d", cocotb.RANDOM_SEED)
    tb = Bench(dut)
    await tb.reset()
    nl, nb, words = tb.nl, tb.nb, tb.words
    full = (1 << nl) - 1
    lanes_data = [0x1000_0000 + i for i in range(nl)]
    ops = tb.clear_all_ops()
    ops += [
        ("row", (0, [0] * nl, True, lanes_data)),  # empty store: no write, 0 passes
        ("row", (0, [0] * nl, False, lanes_data)),  # empty load
        ("row", (full, [5 % words] * nl, True, lanes_data)),  # all lanes one word: lane nl-1 wins
        ("row", (full, [5 % words] * nl, False, lanes_data)),  # broadcast load: 1 pass
        ("row", (full, [i * nb for i in range(nl)], True, lanes_data)),  # bank 0, nl words: nl passes
        ("row", (full, [i * nb for i in range(nl)], False, lanes_data)),
        ("row", (full, list(range(nl)), True, lanes_data)),  # consecutive words
        ("row", (1 << (nl - 1), [words - 1] * nl, True, [M32] * nl)),  # last word, top lane only
        ("row", (full, list(range(words - nl, words)), False, lanes_data)),
    ]
    # Lowest lane first: lanes 0 and 2 share word A, lane 1 has word B of the same bank: pass 1
    # writes A with lane 2's data, pass 2 writes B (the obs check is per cycle).
    a, b_ = 3 * nb, 7 * nb
    addrs = [a, b_, a] + [a + nb * 11 if nb > 1 else a] * (nl - 3)
    ops += [
        ("row", (0b111, addrs, True, lanes_data)),
        ("row", (full, addrs, True, lanes_data)),
        ("row", (0b111, addrs, False, lanes_data)),
        ("clr+row", 3, (full, [3 * nb + (i % nb) for i in range(nl)], False, lanes_data)),
        ("clr", 7),
    ]
    ops += tb.readback_ops()
    await tb.run(ops, back_to_back=0.5, max_gap=1)
    # the same again, every op presented while the previous one is in progress
    await tb.run([("row", tb.rand_row()) for _ in range(40)], back_to_back=1.0)
    tb.report(dut._log, "directed")


@pytest.mark.parametrize("lanes,banks,words", CONFIGS, ids=[f"L{n}B{b}W{w}" for n, b, w in CONFIGS])
def test_shared_lsu(lanes, banks, words):
    rtlsim.run(
        "simt_shared_lsu",
        SOURCES,
        __name__,
        parameters={"NUM_LANES": lanes, "NUM_BANKS": banks, "SHARED_WORDS": words},
        testcase=["random_rows", "directed_rows"],
    )


def test_shared_lsu_illegal_parameter():
    """An illegal NUM_BANKS stops the simulator at time 0 with the module's message."""
    expected = "simt_shared_lsu: illegal parameter NUM_BANKS=64 (must be a power of two in 1..32)"
    params = {"NUM_LANES": 8, "NUM_BANKS": 64, "SHARED_WORDS": 1024}
    rtlsim.expect_fatal("simt_shared_lsu", SOURCES, params, expected)
