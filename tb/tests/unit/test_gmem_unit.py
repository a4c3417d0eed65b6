"""simt_gmem_unit bench: several warps' random loads/stores through the unit into a GmemResponder.

Warp slots drive random accesses (sequential, misaligned, strided 2/SEG/33, scattered, one word,
partial masks, random pools, a few empty masks) on the single access port, each warp at most one
access in flight (its next access is offered only after its completion), into disjoint address
regions (one per warp: no races, docs/isa.md 6.4). The memory behind the port is
tb/agents/gmem_responder.py with random request back-pressure, random latency and out-of-order
responses; the completion port gets random and bursty back-pressure, including long stalls while
responses keep arriving.

Checks:
- every request on the port, as it is issued: its tag names a warp with an access in flight and the
  next transaction index, and (base, mask, write, store data) equals that index of
  ``model.coalesce(...)`` for the access — so the order is checked as well as the multiset;
- every completion: an access in flight for that warp, the store flag, cpl_txns = number of model
  transactions, all of them issued and answered before it; load data of every active lane equals the
  bench's program-order memory model (a numpy copy updated per access in each warp's order), lanes
  outside the mask read 0, stores return 0;
- completion order: round-robin by warp slot, starting after the slot delivered last (slot 0 first
  after reset): a warp whose transactions were all answered a few cycles ago is never passed over
  for a slot further round (no warp can starve behind lower slots);
- at the end: every access completed, every request answered exactly once (no transaction lost or
  duplicated), nothing outstanding, final memory equal to the model, and (NUM_WARPS > 1) several
  warps had accesses in flight at once (latency hiding) and completions competed (round-robin
  exercised, when the completion port stalls: those runs start by holding completions until two warps
  have settled, so a contest happens on every seed, not only on most).

With POST_STORES = 1 (posted stores, rtl/sm/simt_gmem_unit.v) the same checks hold except: a request's
tag index is the warp's running count of requests (mod WARP_SIZE), never one still outstanding; a store
completes once every one of its transactions has been accepted on the port (answered or not), and its
acknowledgements may come after the warp's next access has started (a response is matched to its access
by tag); the bench requires that this happened. Meta-test: planted fault 26 (a store completes while
its last transaction still waits in the unit's output stage) must be caught by the "completed after k
of n requests" check (the request back-pressure of ``reordered`` holds transactions in that stage).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from spec import model
from tb import benchenv, benchutil, rtlsim
from tb.agents.gmem_responder import GmemResponder, MemTxn
from tb.agents.handshake import HandshakeTimeout, wait_high

M32 = 0xFFFF_FFFF
CONFIGS = [(32, 4, 8), (32, 8, 1), (16, 2, 4), (8, 16, 16)]  # (WARP_SIZE, NUM_WARPS, SEG_WORDS)
POSTED = [(32, 4, 8), (8, 16, 16), (16, 2, 1)]  # the same with POST_STORES = 1
SOURCES = ["sm/simt_gmem_unit.v", "sm/simt_coalescer.v"]
WATCHDOG = 4000  # cycles without a completion while accesses are in flight: a hang
# A warp's last response this many cycles ago has surely made it 'finished' inside the unit (one edge
# updates its outstanding count): the round-robin check only trusts those.
SETTLED = 2
# Runs that check round-robin competition hold completions for at most this many cycles at their start,
# until two warps have settled (GmemBench._hold_for_contest); well under WATCHDOG.
HOLD_CONTEST = 400


def _wid_w(num_warps: int) -> int:
    return max(1, (num_warps - 1).bit_length())


@dataclass
class Access:
    warp: int
    name: str
    addrs: list[int]
    mask: int
    store: bool
    data: list[int]
    txns: list[model.Transaction] = field(default_factory=list)
    expect: list[int] = field(default_factory=list)  # load: value of each active lane's word
    issued: int = 0  # requests seen on the port
    answered: int = 0  # responses taken
    offered_early: bool = False  # posted store: completion offered before all its acknowledgements


# ---------------------------------------------------------------------------------------- stimulus
PATTERNS = ["sequential", "misaligned", "stride2", "strideSEG", "stride33", "scattered", "one_word",
            "partial", "random", "random", "random"]  # fmt: skip


def make_access(warp: int, region: int, size: int, ws: int, seg: int, rng: random.Random) -> Access:
    """A random access of ``warp`` inside its region [region, region + size)."""
    full = (1 << ws) - 1
    name = "empty" if rng.random() < 0.02 else rng.choice(PATTERNS)
    hot = size // 8  # most patterns stay low in the region so loads meet earlier stores
    mask = full
    if name in ("sequential", "partial"):
        base = rng.randrange(0, hot // seg) * seg
        offs = [base + i for i in range(ws)]
        if name == "partial":
            mask = rng.randrange(1, full + 1)
    elif name == "misaligned":
        base = rng.randrange(0, hot // seg) * seg + 1 + rng.randrange(max(seg - 1, 1))
        offs = [base + i for i in range(ws)]
    elif name.startswith("stride"):
        stride = {"stride2": 2, "strideSEG": seg, "stride33": 33}[name]
        base = rng.randrange(0, size - stride * ws + 1)
        offs = [base + i * stride for i in range(ws)]
    elif name == "scattered":
        offs = [rng.randrange(size) for _ in range(ws)]
    elif name == "one_word":
        offs = [rng.randrange(hot)] * ws
    elif name == "random":
        pool = [rng.randrange(2 * ws) for _ in range(rng.randint(1, ws))]
        offs = [rng.choice(pool) for _ in range(ws)]
        mask = rng.choice([full, rng.randrange(1, full + 1)])
    else:  # empty: the SM never sends it, but the unit must complete it
        offs = [rng.randrange(size) for _ in range(ws)]
        mask = 0
    store = rng.random() < 0.5
    data = [rng.randrange(1 << 32) for _ in range(ws)]
    return Access(warp, name, [region + o for o in offs], mask, store, data)


# ---------------------------------------------------------------------------------------- harness
@dataclass
class Knobs:
    accesses_per_warp: int
    req_ready_prob: float = 1.0
    latency: tuple[int, int] = (1, 1)
    out_of_order: bool = False
    rsp_valid_prob: float = 1.0  # bubbles on the response channel
    cpl_ready_prob: float = 1.0
    cpl_stall_prob: float = 0.0  # chance per cycle to hold cpl_ready low for a burst
    cpl_stall_len: tuple[int, int] = (1, 1)
    acc_gap_prob: float = 0.0


class GmemBench:
    def __init__(self, dut, num_warps: int, knobs: Knobs) -> None:
        self.dut = dut
        self.ws = len(dut.acc_mask)
        self.seg = len(dut.mreq_mask)
        self.nw = num_warps
        self.k = knobs
        self.handshake_bound = 2 * WATCHDOG  # cycles acc_ready may stay low while an access is offered
        assert len(dut.acc_warp) == _wid_w(num_warps)
        self.tag_idx_w = (self.ws - 1).bit_length()
        self.region = max(64 * self.ws, 256)  # words per warp: fits stride 33 over the whole warp
        rng = random.Random(random.getrandbits(32))
        self.rng = rng
        self.mem = np.array([rng.randrange(1 << 32) for _ in range(self.nw * self.region)], dtype=np.uint32)
        self.model_mem = self.mem.copy()  # the bench's program-order memory model
        self.todo = {w: knobs.accesses_per_warp for w in range(self.nw)}
        self.inflight: dict[int, Access] = {}
        self.max_inflight = 0
        self.max_outstanding_txns = 0
        self.accesses = self.transactions = self.words = self.lanes = self.empties = 0
        self.requests_seen = 0
        self.overtaken = 0
        self.last_seq_answered = -1
        self.cycle = 0  # counted by complete()
        self.answered_at: dict[int, int] = {}  # warp -> cycle its last transaction was answered
        self.last_cpl = self.nw - 1  # round-robin: slot 0 is first after reset
        self.contested = 0  # completions chosen among several settled warps
        self.posted = benchenv.parameter("POST_STORES", 0) == 1
        self.next_idx = dict.fromkeys(range(num_warps), 0)  # POST_STORES: each warp's running tag index
        self.by_tag: dict[int, Access] = {}  # outstanding request tag -> its access
        # stores the unit offered for completion before all their acknowledgements were back: counted
        # when offered, not when taken, so long completion stalls (which let the acknowledgements
        # arrive before the bench takes the completion) do not hide that posting happened
        self.posted_early = 0
        self.fault = int(os.environ.get("GMEM_FAULT", "0"))  # planted fault: record, then stop
        self.caught: str | None = None
        self.responder = GmemResponder(
            dut,
            dut.clk,
            self.mem,
            reset=dut.rst,
            req_ready_prob=knobs.req_ready_prob,
            latency=knobs.latency,
            out_of_order=knobs.out_of_order,
            rsp_valid_prob=knobs.rsp_valid_prob,
            rng=rng,
        )
        self.responder.on_request.append(self._on_request)
        self.responder.on_response.append(self._on_response)

    # ------------------------------------------------------------------ port monitors
    def _split_tag(self, tag: int) -> tuple[int, int]:
        return tag >> self.tag_idx_w, tag & ((1 << self.tag_idx_w) - 1)

    def _on_request(self, t: MemTxn) -> None:
        if self.caught:
            return
        warp, idx = self._split_tag(t.tag)
        acc = self.inflight.get(warp)
        assert acc is not None, f"request tag {t.tag:#x} for warp {warp}, which has no access in flight"
        where = f"warp {warp} access '{acc.name}' mask={acc.mask:#x} request {acc.issued}"
        want = self.next_idx[warp] if self.posted else acc.issued
        assert idx == want, f"{where}: tag index {idx}, expected {want} (issue order)"
        assert t.tag not in self.by_tag, f"{where}: tag {t.tag:#x} reused while outstanding"
        self.by_tag[t.tag] = acc
        self.next_idx[warp] = (self.next_idx[warp] + 1) % self.ws
        assert acc.issued < len(acc.txns), f"{where}: more requests than the model's {len(acc.txns)}"
        exp = acc.txns[acc.issued]
        assert (t.addr, t.mask, t.write) == (exp.base, exp.mask, exp.store), (
            f"{where}: got addr={t.addr:#x} mask={t.mask:#x} write={t.write}, "
            f"model addr={exp.base:#x} mask={exp.mask:#x} write={exp.store}"
        )
        if exp.store:
            got = [d if t.mask >> i & 1 else 0 for i, d in enumerate(t.data)]
            assert got == list(exp.data), f"{where}: store data {got} != model {list(exp.data)}"
        acc.issued += 1
        if self.posted and acc.store and acc.issued == len(acc.txns):
            self.answered_at[warp] = self.cycle  # a posted store is finished once its last request left
        self.requests_seen += 1
        self.max_outstanding_txns = max(self.max_outstanding_txns, self.responder.outstanding)

    def _on_response(self, t: MemTxn) -> None:
        if self.caught:
            return
        warp, _ = self._split_tag(t.tag)
        acc = self.by_tag.pop(t.tag, None)
        assert acc is not None, f"response tag {t.tag:#x}: no request of warp {warp} outstanding with it"
        assert acc is self.inflight.get(warp) or (self.posted and acc.store), (
            f"response tag {t.tag:#x}: its access of warp {warp} has already completed"
        )
        acc.answered += 1
        if acc.answered == len(acc.txns) and acc is self.inflight.get(warp):
            self.answered_at[warp] = self.cycle
        if t.seq < self.last_seq_answered:
            self.overtaken += 1  # a later request was answered before this one
        self.last_seq_answered = max(self.last_seq_answered, t.seq)

    # ------------------------------------------------------------------ drivers
    async def reset(self) -> None:
        d = self.dut
        d.acc_valid.value = 0
        d.acc_warp.value = 0
        d.acc_mask.value = 0
        d.acc_addr.value = 0
        d.acc_store.value = 0
        d.acc_wdata.value = 0
        d.cpl_ready.value = 0
        d.rst.value = 1
        for _ in range(3):
            await RisingEdge(d.clk)
        d.rst.value = 0

    def _accept(self, acc: Access) -> None:
        """The access entered the unit: fix the model's transactions and this warp's expectations."""
        acc.txns = list(
            model.coalesce(acc.addrs, acc.mask, acc.data if acc.store else None, self.ws, self.seg)
        )
        active = [i for i in range(self.ws) if acc.mask >> i & 1]
        if acc.store:
            for i in active:  # increasing lanes: the highest lane's data stays
                self.model_mem[acc.addrs[i]] = acc.data[i]
        else:
            acc.expect = [int(self.model_mem[acc.addrs[i]]) for i in active]
        self.inflight[acc.warp] = acc
        self.max_inflight = max(self.max_inflight, len(self.inflight))

    async def drive(self) -> None:
        d, rng = self.dut, self.rng
        while any(self.todo.values()) and not self.caught:
            idle = [w for w, n in self.todo.items() if n and w not in self.inflight]
            if not idle or rng.random() < self.k.acc_gap_prob:
                await RisingEdge(d.clk)
                continue
            w = rng.choice(idle)
            acc = make_access(w, w * self.region, self.region, self.ws, self.seg, rng)
            d.acc_valid.value = 1
            d.acc_warp.value = w
            d.acc_mask.value = acc.mask
            d.acc_addr.value = sum(a << (32 * i) for i, a in enumerate(acc.addrs))
            d.acc_store.value = int(acc.store)
            d.acc_wdata.value = sum(v << (32 * i) for i, v in enumerate(acc.data))
            await wait_high(
                d.clk,
                d.acc_ready,
                what=f"gmem driver: access '{acc.name}' of warp {w}",
                bound=self.handshake_bound,
            )
            self._accept(acc)
            await RisingEdge(d.clk)
            self.todo[w] -= 1
            d.acc_valid.value = 0

    async def complete(self) -> None:
        d, rng, k = self.dut, self.rng, self.k
        stall = 0
        idle_cycles = 0  # cycles since the last completion while something is in flight
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            idle_cycles = idle_cycles + 1 if self.inflight else 0
            if idle_cycles > WATCHDOG:
                raise AssertionError(
                    f"hang: no completion for {WATCHDOG} cycles, warps {sorted(self.inflight)} "
                    f"in flight, {self.responder.outstanding} responses outstanding"
                )
            if stall:
                stall -= 1
                ready = False
            elif rng.random() < k.cpl_stall_prob:
                stall = rng.randint(*k.cpl_stall_len)
                ready = False
            else:
                ready = rng.random() < k.cpl_ready_prob
            if self._hold_for_contest():
                ready = False  # drawn first: the random stream, and so each seed's stimulus, is unchanged
            d.cpl_ready.value = int(ready)
            await ReadOnly()
            if self.posted and int(d.cpl_valid.value) == 1:
                self._note_posted_offer()
            if int(d.cpl_valid.value) == 1 and ready and not self.caught:
                self._check_completion()
                idle_cycles = 0

    def _hold_for_contest(self) -> bool:
        """The directed start of a run that requires round-robin competition: completions are held
        until two warps have settled (or HOLD_CONTEST cycles pass), so the first completion after it
        competes with the other settled warp whatever the seed. Random back-pressure alone left a
        contest count of 10-13 per run at 2 warps, a few seeds in 10^5 with none."""
        if self.contested or self.nw == 1 or self.k.cpl_stall_prob == 0 or self.cycle > HOLD_CONTEST:
            return False
        settled = sum(self.cycle - c >= SETTLED for c in self.answered_at.values())
        return settled < 2

    def _note_posted_offer(self) -> None:
        """Count a store whose completion is on offer while acknowledgements are still outstanding."""
        acc = self.inflight.get(int(self.dut.cpl_warp.value))
        if acc is not None and acc.store and acc.answered < len(acc.txns) and not acc.offered_early:
            acc.offered_early = True
            self.posted_early += 1

    def _check_completion(self) -> None:
        d = self.dut
        warp = int(d.cpl_warp.value)
        acc = self.inflight.pop(warp, None)
        assert acc is not None, f"completion for warp {warp}, which has no access in flight"
        self._check_round_robin(warp)
        where = f"warp {warp} access '{acc.name}' mask={acc.mask:#x}"
        assert int(d.cpl_store.value) == int(acc.store), f"{where}: cpl_store {int(d.cpl_store.value)}"
        assert int(d.cpl_txns.value) == len(acc.txns), (
            f"{where}: cpl_txns {int(d.cpl_txns.value)} != {len(acc.txns)}"
        )
        if self.fault and acc.issued != len(acc.txns):
            self.caught = f"{where}: completed after {acc.issued} of {len(acc.txns)} requests"
            return
        assert acc.issued == len(acc.txns), (
            f"{where}: completed after {acc.issued} of {len(acc.txns)} requests"
        )
        if not (self.posted and acc.store):  # posted: its acknowledgements may still be on their way
            assert acc.answered == len(acc.txns), (
                f"{where}: completed after {acc.answered} of {len(acc.txns)} responses"
            )
        rdata = int(d.cpl_rdata.value)
        got = [(rdata >> (32 * i)) & M32 for i in range(self.ws)]
        active = [i for i in range(self.ws) if acc.mask >> i & 1]
        if acc.store:
            assert not any(got), f"{where}: store completion carries data"
        else:
            for i, exp in zip(active, acc.expect):
                assert got[i] == exp, (
                    f"{where}: lane {i} addr {acc.addrs[i]:#x} loaded {got[i]:#x}, memory held {exp:#x}"
                )
            inactive = [i for i in range(self.ws) if not acc.mask >> i & 1]
            assert all(got[i] == 0 for i in inactive), f"{where}: inactive lanes not 0"
            self.lanes += len(active)
        self.accesses += 1
        self.transactions += len(acc.txns)
        self.words += sum(bin(t.mask).count("1") for t in acc.txns)
        self.empties += not acc.txns

    def _check_round_robin(self, warp: int) -> None:
        """No settled warp lies between the last delivered slot and ``warp`` going round."""

        def rank(w: int) -> int:
            return (w - self.last_cpl - 1) % self.nw

        settled = [w for w, c in self.answered_at.items() if w != warp and self.cycle - c >= SETTLED]
        skipped = [w for w in settled if rank(w) < rank(warp)]
        assert not skipped, (
            f"completion of warp {warp} after warp {self.last_cpl}: warp(s) {sorted(skipped)}, "
            f"finished earlier, come first in round-robin order (the unit must not starve them)"
        )
        self.contested += bool(settled)
        self.answered_at.pop(warp, None)
        self.last_cpl = warp

    async def run(self, limit: int = 20_000) -> None:
        await self.reset()
        self.responder.start()
        cocotb.start_soon(self.complete())
        await self.drive()
        if self.fault:
            assert self.caught, f"planted fault {self.fault} not caught in {self.accesses} completions"
            cocotb.log.info("planted fault %d caught: %s", self.fault, self.caught)
            return
        for _ in range(limit):
            if not self.inflight and self.responder.outstanding == 0:
                break
            await RisingEdge(self.dut.clk)
        else:
            raise AssertionError(
                f"not drained: warps {sorted(self.inflight)} in flight, "
                f"{self.responder.outstanding} responses outstanding"
            )
        for _ in range(5):  # nothing may follow: no stray request or completion
            await RisingEdge(self.dut.clk)
        await ReadOnly()
        assert int(self.dut.mreq_valid.value) == 0 and int(self.dut.cpl_valid.value) == 0, (
            "activity after drain"
        )
        self.final_checks()

    def final_checks(self) -> None:
        r = self.responder
        total = self.nw * self.k.accesses_per_warp
        assert self.accesses == total, f"{self.accesses} of {total} accesses completed"
        assert len(r.transactions) == self.transactions == self.requests_seen, (
            f"{len(r.transactions)} requests on the port, model expects {self.transactions}"
        )
        assert r.responses == len(r.transactions), (
            f"{r.responses} responses for {len(r.transactions)} requests"
        )
        for t in r.transactions:  # every request answered, after it was issued
            assert t.response_cycle is not None and t.response_cycle > t.issue_cycle, (
                f"bad response timing {t}"
            )
        diff = np.nonzero(self.mem != self.model_mem)[0]
        assert diff.size == 0, (
            f"final memory differs at {diff.size} words, first {int(diff[0]):#x}: "
            f"{int(self.mem[diff[0]]):#x} != model {int(self.model_mem[diff[0]]):#x}"
        )
        if self.k.out_of_order and self.k.latency[1] > self.k.latency[0] + 1:
            assert self.overtaken > 0, "no response overtook an earlier one: reordering not exercised"
        if self.nw > 1:
            assert self.max_inflight > 1, "never more than one warp in flight: no latency hiding exercised"
        if self.nw > 1 and self.k.cpl_stall_prob > 0:
            assert self.contested > 0, "completions never competed: round-robin order not exercised"
        if self.posted:
            assert self.posted_early > 0, (
                "no store completion offered before its acknowledgements: posting not exercised"
            )
            assert not self.by_tag, f"{len(self.by_tag)} request(s) never answered"
        cocotb.log.info(
            "checked %d accesses (%d empty), %d transactions, %d words, %d load lanes, %d memory words; "
            "%d responses overtaken; %d completions in round-robin competition; %d stores offered before "
            "their acknowledgements; max %d warps / %d transactions in flight "
            "(WARP_SIZE=%d NUM_WARPS=%d SEG_WORDS=%d POST_STORES=%d)",
            self.accesses,
            self.empties,
            self.transactions,
            self.words,
            self.lanes,
            self.mem.size,
            self.overtaken,
            self.contested,
            self.posted_early,
            self.max_inflight,
            self.max_outstanding_txns,
            self.ws,
            self.nw,
            self.seg,
            int(self.posted),
        )
        assert self.transactions > 0, "checked 0 transactions"


async def _run(dut, test: str, knobs: Knobs) -> None:
    benchutil.log_seed(__name__, test)
    Clock(dut.clk, 10, unit="ns").start()
    await GmemBench(dut, benchenv.parameter("NUM_WARPS"), knobs).run()


def _per_warp(total: int) -> int:
    return max(8, total // benchenv.parameter("NUM_WARPS"))


# ---------------------------------------------------------------------------------------- tests
@cocotb.test()
async def reordered(dut) -> None:
    """Random latency, out-of-order responses, request and completion back-pressure."""
    await _run(
        dut,
        "reordered",
        Knobs(
            accesses_per_warp=_per_warp(160),
            req_ready_prob=0.7,
            latency=(1, 40),
            out_of_order=True,
            rsp_valid_prob=0.8,
            cpl_ready_prob=0.8,
            cpl_stall_prob=0.03,
            cpl_stall_len=(5, 30),
            acc_gap_prob=0.1,
        ),
    )


@cocotb.test()
async def completion_stalls(dut) -> None:
    """Completions held back for long stretches while responses of every warp keep arriving."""
    await _run(
        dut,
        "completion_stalls",
        Knobs(
            accesses_per_warp=_per_warp(80),
            req_ready_prob=0.9,
            latency=(1, 8),
            out_of_order=True,
            cpl_ready_prob=0.5,
            cpl_stall_prob=0.05,
            cpl_stall_len=(40, 150),
        ),
    )


@cocotb.test()
async def in_order_full_speed(dut) -> None:
    """Memory always ready, one-cycle latency in order, completion always ready."""
    await _run(dut, "in_order_full_speed", Knobs(accesses_per_warp=_per_warp(120)))


@cocotb.test()
async def never_ready(dut) -> None:
    """A unit whose acc_ready never rises (tb/hdl/simt_gmem_unit_deaf.v): the driver's bounded wait
    must end the run within its bound with a report naming acc_ready, instead of freezing it."""
    benchutil.log_seed(__name__, "never_ready")
    Clock(dut.clk, 10, unit="ns").start()
    bench = GmemBench(dut, benchenv.parameter("NUM_WARPS"), Knobs(accesses_per_warp=2))
    bench.handshake_bound = 300
    start = cocotb.utils.get_sim_time("ns")
    try:
        await bench.run()
    except HandshakeTimeout as e:
        text = str(e)
    else:
        raise AssertionError("the bench finished although acc_ready never rose")
    cycles = (cocotb.utils.get_sim_time("ns") - start) / 10
    assert "acc_ready stayed low for 300 cycles: the DUT never answered the handshake" in text, text
    assert "gmem driver: access" in text and cycles < 400, (text, cycles)
    cocotb.log.info("reported after %d cycles: %s", cycles, text)


# ---------------------------------------------------------------------------------------- launchers
@pytest.mark.parametrize(
    "warp_size,num_warps,seg_words", CONFIGS, ids=[f"ws{w}-nw{n}-seg{s}" for w, n, s in CONFIGS]
)
def test_gmem_unit(warp_size: int, num_warps: int, seg_words: int) -> None:
    rtlsim.run(
        "simt_gmem_unit",
        SOURCES,
        __name__,
        parameters=_params(warp_size, num_warps, seg_words, 0),
        testcase=["reordered", "completion_stalls", "in_order_full_speed"],
    )


def _params(warp_size: int, num_warps: int, seg_words: int, post: int) -> dict[str, int]:
    return {
        "WARP_SIZE": warp_size,
        "NUM_WARPS": num_warps,
        "SEG_WORDS": seg_words,
        "POST_STORES": post,
        "TAG_W": _wid_w(num_warps) + (warp_size - 1).bit_length(),
    }


@pytest.mark.parametrize(
    "warp_size,num_warps,seg_words", POSTED, ids=[f"ws{w}-nw{n}-seg{s}" for w, n, s in POSTED]
)
def test_gmem_unit_posted(warp_size: int, num_warps: int, seg_words: int) -> None:
    """POST_STORES = 1: stores complete once accepted, acknowledgements overlap the next access."""
    rtlsim.run(
        "simt_gmem_unit",
        SOURCES,
        __name__,
        parameters=_params(warp_size, num_warps, seg_words, 1),
        testcase=["reordered", "completion_stalls", "in_order_full_speed"],
        fault=0,  # the build of the meta-test below: one build for both
    )


def test_gmem_unit_posted_planted_early() -> None:
    """Meta-test: fault 26 (a posted store completes before its last transaction left the unit)."""
    rtlsim.run(
        "simt_gmem_unit",
        SOURCES,
        __name__,
        parameters=_params(*POSTED[0], 1),
        testcase=["reordered"],
        extra_env={"GMEM_FAULT": "26"},
        fault=26,
    )


def test_gmem_unit_never_ready() -> None:
    """A DUT that never answers: the bounded handshake wait reports it (issue 20)."""
    rtlsim.run(
        "simt_gmem_unit_deaf",
        [rtlsim.ROOT / "tb" / "hdl" / "simt_gmem_unit_deaf.v", *SOURCES],
        __name__,
        parameters={"WARP_SIZE": 8, "NUM_WARPS": 4, "SEG_WORDS": 4, "TAG_W": 5},
        testcase=["never_ready"],
    )


def test_gmem_unit_illegal_parameter() -> None:
    """One illegal value is enough to prove the checks stop the simulator (each build costs time)."""
    params = {"WARP_SIZE": 8, "NUM_WARPS": 4, "SEG_WORDS": 4, "TAG_W": 4}
    message = "simt_gmem_unit: illegal parameter TAG_W=4 (must be 5: 2 warp-slot bits + 3 index bits)"
    rtlsim.expect_fatal("simt_gmem_unit", SOURCES, params, message)
