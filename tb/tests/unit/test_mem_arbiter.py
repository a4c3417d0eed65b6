"""simt_mem_arbiter bench: NUM_SMS random requesters through the arbiter into one GmemResponder.

Every SM port is driven by its own requester (random valid gaps, loads and stores to random segments
of one shared memory, random masks and data, random tags unique among that SM's outstanding
requests, random payload on the port while valid is low) and its own response consumer (random
mrsp_ready, long stalls). The external port x_* is tb/agents/gmem_responder.py with request
back-pressure, random latency and out-of-order responses.

Checks:
- every request on the external port, as it is accepted: it is the oldest request granted on the SM
  side and not yet forwarded (so requests leave in grant order: none lost, none duplicated, per-SM
  order kept), with unchanged addr/write/mask/wdata and tag {sm, sm tag};
- the bench's own memory copy is updated in external acceptance order (the responder's ordering
  rule), from the SM-side record of each store; a load expects that copy's words (0 unmasked);
- every response seen by an SM: a tag that SM has outstanding on the external port, the expected data
  (loads) or 0 (stores), taken once; at most one SM sees a response per cycle and at most one SM is
  granted per cycle;
- protocol: a held external request stays valid and unchanged (the responder checks the payload,
  this bench the valid), a response an SM holds back stays valid and unchanged;
- round-robin bound on random traffic: while an SM waits with its request valid, no other SM is
  granted twice; saturation test: with every SM requesting, each window of NUM_SMS consecutive grants
  grants every SM (and with an always-ready memory, one grant per cycle);
- at the end: every request answered, nothing outstanding, port idle, final memory equal to the copy;
- directed response routing (all SM indices, including those >= NUM_SMS, which are dropped) and the
  illegal-parameter check.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from dataclasses import dataclass, field

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from tb import benchutil, rtlsim
from tb.agents.gmem_responder import GmemResponder

M32 = 0xFFFF_FFFF
SOURCES = ["top/simt_mem_arbiter.v"]
# (NUM_SMS, SEG_WORDS, TAG_W); 17 is what simt_gpu instantiates for 16 SMs (+ the loader): a port count
# that is not a power of two, so SM fields >= NUM_SMS exist (simt_gpu with 2 SMs uses 3)
CONFIGS = [(1, 8, 6), (2, 4, 9), (4, 8, 9), (16, 4, 6), (17, 8, 9)]
WATCHDOG = 3000  # cycles without any grant or response while work remains: a hang
NUM_SEGS = 24  # memory segments: small, so loads often read what other SMs stored


@dataclass
class Req:
    sm: int
    tag: int
    addr: int
    write: bool
    mask: int
    words: list[int]
    expect: list[int] = field(default_factory=list)  # response data, fixed at external acceptance

    @property
    def wdata(self) -> int:
        return sum(w << (32 * i) for i, w in enumerate(self.words))


@dataclass
class Knobs:
    per_sm: int  # requests per SM
    valid_prob: float = 0.5  # chance per cycle that an idle SM offers its next request
    write_prob: float = 0.5
    req_ready_prob: float = 1.0  # external port back-pressure
    latency: tuple[int, int] = (1, 1)
    out_of_order: bool = False
    rsp_valid_prob: float = 1.0
    rsp_ready_range: tuple[float, float] = (1.0, 1.0)  # per-SM mrsp_ready probability drawn from this
    stall_prob: float = 0.0  # chance per cycle that an SM starts holding mrsp_ready low
    stall_len: tuple[int, int] = (1, 1)


class Sm:
    """One SM-side port: requester and response consumer state."""

    def __init__(self, idx: int, tag_w: int, knobs: Knobs, rng: random.Random) -> None:
        self.idx = idx
        self.todo = knobs.per_sm
        self.cur: Req | None = None  # offered (valid high), not yet granted
        self.granted: deque[Req] = deque()  # granted, not yet on the external port
        self.outstanding: dict[int, Req] = {}  # on the external port, response not yet taken
        self.free_tags = list(range(1 << tag_w))
        self.rsp_ready_prob = rng.uniform(*knobs.rsp_ready_range)
        self.stall = 0
        self.held_rsp: tuple[int, int] | None = None  # (tag, rdata) presented and not taken
        self.others_granted: Counter[int] = Counter()  # grants to other SMs while cur waits
        self.ready = False

    @property
    def busy(self) -> bool:
        return bool(self.todo or self.cur or self.granted or self.outstanding)


class ArbBench:
    def __init__(self, dut, knobs: Knobs) -> None:
        self.dut = dut
        self.n = len(dut.s_mreq_valid)
        self.seg = len(dut.x_mreq_mask)
        self.tag_w = len(dut.s_mreq_tag) // self.n
        self.sm_w = max(1, (self.n - 1).bit_length())
        assert len(dut.x_mreq_tag) == self.sm_w + self.tag_w, "x tag width is not SM_W + TAG_W"
        self.k = knobs
        rng = random.Random(random.getrandbits(32))
        self.rng = rng
        self.mem = np.array([rng.randrange(1 << 32) for _ in range(NUM_SEGS * self.seg)], dtype=np.uint32)
        self.shadow = self.mem.copy()  # updated in external acceptance order from the SM-side records
        self.sms = [Sm(i, self.tag_w, knobs, rng) for i in range(self.n)]
        self.grant_fifo: deque[Req] = deque()  # granted on the SM side, in grant order
        self.grants: list[tuple[int, int, bool]] = []  # (cycle, sm, every SM had valid high)
        self.cycle = 0
        self.progress = 0  # cycle of the last grant or response
        self.all_valid_cycles = 0
        self.all_valid_grants = 0
        self.x_checked = self.rsp_checked = self.loads_checked = self.held_checks = 0
        self.rr_checks = 0
        self.responder = GmemResponder(
            dut,
            dut.clk,
            self.mem,
            prefix="x_",
            reset=dut.rst,
            req_ready_prob=knobs.req_ready_prob,
            latency=knobs.latency,
            out_of_order=knobs.out_of_order,
            rsp_valid_prob=knobs.rsp_valid_prob,
            rng=rng,
        )

    # ------------------------------------------------------------------ stimulus
    def _new_req(self, sm: Sm) -> Req:
        rng, seg = self.rng, self.seg
        tag = sm.free_tags.pop(rng.randrange(len(sm.free_tags)))
        full = (1 << seg) - 1
        mask = rng.choice([full, full, rng.randrange(1, full + 1), 1 << rng.randrange(seg), 0])
        return Req(
            sm.idx,
            tag,
            rng.randrange(NUM_SEGS) * seg,
            rng.random() < self.k.write_prob,
            mask,
            [rng.randrange(1 << 32) for _ in range(seg)],
        )

    async def reset(self) -> None:
        d = self.dut
        d.s_mreq_valid.value = 0
        d.s_mreq_addr.value = 0
        d.s_mreq_write.value = 0
        d.s_mreq_mask.value = 0
        d.s_mreq_wdata.value = 0
        d.s_mreq_tag.value = 0
        d.s_mrsp_ready.value = 0
        d.restart.value = 0
        d.rst.value = 1
        for _ in range(3):
            await RisingEdge(d.clk)
        d.rst.value = 0

    def _drive(self) -> None:
        """Drive every SM's request (random junk while idle) and mrsp_ready for this cycle."""
        d, rng, k = self.dut, self.rng, self.k
        seg, tw = self.seg, self.tag_w
        valid = addr = write = mask = wdata = tag = ready = 0
        for sm in self.sms:
            i = sm.idx
            if sm.cur is None and sm.todo and sm.free_tags and rng.random() < k.valid_prob:
                sm.cur = self._new_req(sm)
                sm.others_granted.clear()
            r = sm.cur
            if r is not None:
                valid |= 1 << i
                fields = (r.addr, int(r.write), r.mask, r.wdata, r.tag)
            else:  # payload while valid is low must be ignored
                fields = (
                    rng.randrange(1 << 32),
                    rng.randrange(2),
                    rng.randrange(1 << seg),
                    rng.randrange(1 << (32 * seg)),
                    rng.randrange(1 << tw),
                )
            addr |= fields[0] << (32 * i)
            write |= fields[1] << i
            mask |= fields[2] << (seg * i)
            wdata |= fields[3] << (32 * seg * i)
            tag |= fields[4] << (tw * i)
            if sm.stall:
                sm.stall -= 1
                sm.ready = False
            elif rng.random() < k.stall_prob:
                sm.stall = rng.randint(*k.stall_len)
                sm.ready = False
            else:
                sm.ready = rng.random() < sm.rsp_ready_prob
            ready |= int(sm.ready) << i
        d.s_mreq_valid.value = valid
        d.s_mreq_addr.value = addr
        d.s_mreq_write.value = write
        d.s_mreq_mask.value = mask
        d.s_mreq_wdata.value = wdata
        d.s_mreq_tag.value = tag
        d.s_mrsp_ready.value = ready

    # ------------------------------------------------------------------ SM-side monitor
    def _sample_grants(self) -> None:
        gr = int(self.dut.s_mreq_ready.value)
        valid = [sm for sm in self.sms if sm.cur is not None]
        all_valid = len(valid) == self.n
        self.all_valid_cycles += all_valid
        granted = [sm for sm in valid if gr >> sm.idx & 1]
        assert len(granted) <= 1, f"cycle {self.cycle}: SMs {[s.idx for s in granted]} granted at once"
        if not granted:
            return
        g = granted[0]
        r = g.cur
        assert r is not None
        for sm in valid:  # round-robin bound: a waiting SM sees each other SM granted at most once
            if sm is not g:
                sm.others_granted[g.idx] += 1
                assert sm.others_granted[g.idx] <= 1, (
                    f"cycle {self.cycle}: SM {g.idx} granted twice while SM {sm.idx} waited"
                )
                self.rr_checks += 1
        g.cur = None
        g.todo -= 1
        g.granted.append(r)
        self.grant_fifo.append(r)
        self.grants.append((self.cycle, g.idx, all_valid))
        self.all_valid_grants += all_valid
        self.progress = self.cycle

    def _sample_responses(self) -> None:
        d = self.dut
        valid = int(d.s_mrsp_valid.value)
        assert valid & (valid - 1) == 0, f"cycle {self.cycle}: responses to several SMs at once ({valid:#x})"
        tags = int(d.s_mrsp_tag.value)
        rdata = int(d.s_mrsp_rdata.value)
        dw = 32 * self.seg
        for sm in self.sms:
            i = sm.idx
            if not valid >> i & 1:
                assert sm.held_rsp is None, f"cycle {self.cycle}: SM {i}: held response withdrawn"
                continue
            rsp = (
                (tags >> (self.tag_w * i)) & ((1 << self.tag_w) - 1),
                (rdata >> (dw * i)) & ((1 << dw) - 1),
            )
            if sm.held_rsp is not None:
                assert rsp == sm.held_rsp, f"cycle {self.cycle}: SM {i}: held response changed"
                self.held_checks += 1
            if not sm.ready:
                sm.held_rsp = rsp
                continue
            sm.held_rsp = None
            tag, data = rsp
            r = sm.outstanding.pop(tag, None)
            assert r is not None, f"cycle {self.cycle}: SM {i}: response tag {tag:#x} not outstanding"
            got = [(data >> (32 * w)) & M32 for w in range(self.seg)]
            assert got == r.expect, (
                f"cycle {self.cycle}: SM {i} tag {tag:#x} {'store' if r.write else 'load'} addr {r.addr:#x} "
                f"mask {r.mask:#x}: data {[hex(x) for x in got]} != {[hex(x) for x in r.expect]}"
            )
            sm.free_tags.append(tag)
            self.rsp_checked += 1
            self.loads_checked += not r.write
            self.progress = self.cycle

    # ------------------------------------------------------------------ external-side monitor
    def _sample_external(self, held: bool) -> bool:
        """Check the external request handshake this cycle; returns whether a request is held."""
        d = self.dut
        v = int(d.x_mreq_valid.value)
        assert v or not held, f"cycle {self.cycle}: x_mreq_valid dropped while the request was held"
        if not v:
            return False
        if not int(d.x_mreq_ready.value):
            return True
        xtag = int(d.x_mreq_tag.value)
        got = (
            int(d.x_mreq_addr.value),
            bool(int(d.x_mreq_write.value)),
            int(d.x_mreq_mask.value),
            int(d.x_mreq_wdata.value),
            xtag >> self.tag_w,
            xtag & ((1 << self.tag_w) - 1),
        )
        assert self.grant_fifo, f"cycle {self.cycle}: external request {got} was never granted"
        r = self.grant_fifo.popleft()
        exp = (r.addr, r.write, r.mask, r.wdata, r.sm, r.tag)
        names = ("addr", "write", "mask", "wdata", "sm", "tag")
        bad = [f"{n} {g:#x} != {e:#x}" for n, g, e in zip(names, got, exp) if g != e]
        assert not bad, (
            f"cycle {self.cycle}: external request of SM {r.sm} tag {r.tag:#x} (oldest granted): {bad}"
        )
        sm = self.sms[r.sm]
        assert sm.granted and sm.granted[0] is r
        sm.granted.popleft()
        seg = self.seg
        if r.write:
            for w in range(seg):
                if r.mask >> w & 1:
                    self.shadow[r.addr + w] = r.words[w]
            r.expect = [0] * seg  # the responder acknowledges stores with 0 data
        else:
            r.expect = [int(self.shadow[r.addr + w]) if r.mask >> w & 1 else 0 for w in range(seg)]
        assert r.tag not in sm.outstanding
        sm.outstanding[r.tag] = r
        self.x_checked += 1
        return False

    # ------------------------------------------------------------------ run
    async def run(self, limit: int = 50_000) -> None:
        d = self.dut
        await self.reset()
        self.responder.start()
        held = False
        while any(sm.busy for sm in self.sms) or self.responder.outstanding:
            await RisingEdge(d.clk)
            self.cycle += 1
            self._drive()
            await ReadOnly()
            self._sample_grants()
            held = self._sample_external(held)
            self._sample_responses()
            if self.cycle - self.progress > WATCHDOG or self.cycle > limit:
                state = {
                    sm.idx: (sm.todo, sm.cur is not None, len(sm.granted), len(sm.outstanding))
                    for sm in self.sms
                    if sm.busy
                }
                raise AssertionError(
                    f"hang at cycle {self.cycle}: (todo, offering, granted, outstanding) "
                    f"per SM {state}, responder outstanding {self.responder.outstanding}"
                )
        for _ in range(5):  # nothing may follow: no stray request or response
            await RisingEdge(d.clk)
            await ReadOnly()
            assert int(d.x_mreq_valid.value) == 0 and int(d.s_mrsp_valid.value) == 0, "activity after drain"
        self.final_checks()

    def final_checks(self) -> None:
        r = self.responder
        total = self.n * self.k.per_sm
        assert len(self.grants) == self.x_checked == total, (
            f"{len(self.grants)} grants, {self.x_checked} external requests, {total} sent"
        )
        assert len(r.transactions) == total and r.responses == total and self.rsp_checked == total, (
            f"responder saw {len(r.transactions)} requests / {r.responses} responses, SMs took "
            f"{self.rsp_checked}, {total} sent"
        )
        diff = np.nonzero(self.mem != self.shadow)[0]
        assert diff.size == 0, f"final memory differs from the bench copy at {diff.size} words"
        cocotb.log.info(
            "checked %d requests on the external port, %d responses (%d loads), %d held-response cycles, "
            "%d round-robin waits, over %d cycles (NUM_SMS=%d SEG_WORDS=%d TAG_W=%d)",
            self.x_checked,
            self.rsp_checked,
            self.loads_checked,
            self.held_checks,
            self.rr_checks,
            self.cycle,
            self.n,
            self.seg,
            self.tag_w,
        )
        assert self.x_checked > 0 and self.rsp_checked > 0, "checked 0 requests"

    def check_windows(self) -> int:
        """Every NUM_SMS consecutive grants made while all SMs requested grant every SM once."""
        windows = 0
        run: list[int] = []
        for _, sm, all_valid in self.grants + [(0, -1, False)]:
            if all_valid:
                run.append(sm)
                continue
            for s in range(len(run) - self.n + 1):
                win = run[s : s + self.n]
                assert len(set(win)) == self.n, f"grants {win} (window {s}) miss an SM: round-robin violated"
                windows += 1
            run = []
        return windows


async def _start(dut, test: str) -> None:
    benchutil.log_seed(__name__, test)
    Clock(dut.clk, 10, unit="ns").start()


def _per_sm(dut, total: int, least: int) -> int:
    return max(least, total // len(dut.s_mreq_valid))


# ---------------------------------------------------------------------------------------- tests
@cocotb.test()
async def random_traffic(dut) -> None:
    """Random gaps, back-pressure on both sides, random latency and out-of-order responses."""
    await _start(dut, "random_traffic")
    await ArbBench(
        dut,
        Knobs(
            per_sm=_per_sm(dut, 600, 25),
            valid_prob=0.4,
            req_ready_prob=0.6,
            latency=(1, 30),
            out_of_order=True,
            rsp_valid_prob=0.8,
            rsp_ready_range=(0.4, 1.0),
            stall_prob=0.005,
            stall_len=(5, 40),
        ),
    ).run()


@cocotb.test()
async def response_stalls(dut) -> None:
    """SMs hold mrsp_ready low for long stretches: head-of-line blocking must not lose or deadlock."""
    await _start(dut, "response_stalls")
    await ArbBench(
        dut,
        Knobs(
            per_sm=_per_sm(dut, 250, 12),
            valid_prob=0.7,
            req_ready_prob=0.9,
            latency=(1, 10),
            out_of_order=True,
            rsp_ready_range=(0.6, 1.0),
            stall_prob=0.02,
            stall_len=(30, 120),
        ),
    ).run()


@cocotb.test()
async def saturation(dut) -> None:
    """Every SM always requesting: round-robin windows; an always-ready memory gets one grant per cycle."""
    await _start(dut, "saturation")
    n = len(dut.s_mreq_valid)
    per_sm = _per_sm(dut, 480, 24)
    bench = ArbBench(dut, Knobs(per_sm=per_sm, valid_prob=1.0, latency=(1, 6), out_of_order=True))
    task = cocotb.start_soon(bench.run())
    # First half: memory always ready, so the arbiter must grant in every cycle in which all SMs request.
    while len(bench.grants) < n * per_sm // 2:
        await RisingEdge(dut.clk)
    full_speed = (bench.all_valid_cycles, bench.all_valid_grants)
    assert full_speed[0] > 0 and full_speed[0] == full_speed[1], (
        f"always-ready memory: {full_speed[1]} grants in {full_speed[0]} cycles with every SM requesting"
    )
    bench.responder.req_ready_prob = 0.5  # second half: back-pressure, windows still hold
    await task
    assert bench.grants[0][1] == 0, f"first grant after reset went to SM {bench.grants[0][1]}, not SM 0"
    windows = bench.check_windows()
    assert windows >= n * per_sm // 3 or n == 1, f"only {windows} all-requesting windows"
    cocotb.log.info(
        "checked %d round-robin windows of %d grants, %d full-speed cycles", windows, n, full_speed[0]
    )


@cocotb.test()
async def response_routing(dut) -> None:
    """Directed: every SM field value (those >= NUM_SMS are dropped with x_mrsp_ready = 1)."""
    await _start(dut, "response_routing")
    n = len(dut.s_mreq_valid)
    tag_w = len(dut.s_mreq_tag) // n
    sm_w = len(dut.x_mrsp_tag) - tag_w
    seg = len(dut.x_mreq_mask)
    rng = random.Random(random.getrandbits(32))
    d = dut
    d.s_mreq_valid.value = 0
    d.s_mreq_addr.value = d.s_mreq_write.value = d.s_mreq_mask.value = 0
    d.s_mreq_wdata.value = d.s_mreq_tag.value = 0
    d.x_mreq_ready.value = 0
    d.x_mrsp_valid.value = 0
    d.x_mrsp_tag.value = 0
    d.x_mrsp_rdata.value = 0
    d.s_mrsp_ready.value = 0
    d.restart.value = 0
    d.rst.value = 1
    await RisingEdge(d.clk)
    await RisingEdge(d.clk)
    d.rst.value = 0
    checked = 0
    dw = 32 * seg
    for sm in list(range(1 << sm_w)) * 4:
        await RisingEdge(d.clk)
        v = rng.random() < 0.8
        tag, data, ready = rng.randrange(1 << tag_w), rng.randrange(1 << dw), rng.randrange(1 << n)
        d.x_mrsp_valid.value = int(v)
        d.x_mrsp_tag.value = (sm << tag_w) | tag
        d.x_mrsp_rdata.value = data
        d.s_mrsp_ready.value = ready
        await ReadOnly()
        known = sm < n
        exp_valid = (1 << sm) if v and known else 0
        assert int(d.s_mrsp_valid.value) == exp_valid, (
            f"sm field {sm}: s_mrsp_valid {int(d.s_mrsp_valid.value):#x}"
        )
        exp_ready = (ready >> sm & 1) if known else 1
        assert int(d.x_mrsp_ready.value) == exp_ready, (
            f"sm field {sm}: x_mrsp_ready {int(d.x_mrsp_ready.value)}"
        )
        if known:
            t = (int(d.s_mrsp_tag.value) >> (tag_w * sm)) & ((1 << tag_w) - 1)
            r = (int(d.s_mrsp_rdata.value) >> (dw * sm)) & ((1 << dw) - 1)
            assert (t, r) == (tag, data), f"sm field {sm}: tag/data not passed through"
        assert int(d.x_mreq_valid.value) == 0, "request out of nowhere"
        checked += 1
    cocotb.log.info("checked %d routed responses (%d SM field values, NUM_SMS=%d)", checked, 1 << sm_w, n)
    assert checked > 0


@cocotb.test()
async def restart_pointer(dut) -> None:
    """Directed: `restart` puts the round-robin pointer back to its reset value (docs/gpu.md "Global memory
    port": every launch starts from it). For each SM s: grant s alone, so the pointer is left at s; pulse
    restart in a cycle with no request (as simt_gpu does); then every SM requests at once and SM 0 must be
    the one told ready. Without the pulse the same requests go to SM s + 1, checked too, so the bench sees
    the pointer move (and a restart that did nothing would fail for every s but the last)."""
    await _start(dut, "restart_pointer")
    d = dut
    n = len(d.s_mreq_valid)
    for name in ("s_mreq_valid", "s_mreq_addr", "s_mreq_write", "s_mreq_mask", "s_mreq_wdata", "s_mreq_tag"):
        getattr(d, name).value = 0
    d.s_mrsp_ready.value = (1 << n) - 1
    d.x_mreq_ready.value = 1
    d.x_mrsp_valid.value = 0
    d.x_mrsp_tag.value = 0
    d.x_mrsp_rdata.value = 0
    d.restart.value = 0
    d.rst.value = 1
    await RisingEdge(d.clk)
    await RisingEdge(d.clk)
    d.rst.value = 0
    checked = 0
    for s in range(n):
        for restart in (False, True):
            d.s_mreq_valid.value = 1 << s  # grant s alone: the pointer is left at s
            await ReadOnly()
            assert int(d.s_mreq_ready.value) == 1 << s, f"SM {s} alone not granted"
            await RisingEdge(d.clk)
            d.s_mreq_valid.value = 0
            d.restart.value = int(restart)
            await RisingEdge(d.clk)
            d.restart.value = 0
            d.s_mreq_valid.value = (1 << n) - 1
            await ReadOnly()
            want = 0 if restart else (s + 1) % n
            got = int(d.s_mreq_ready.value)
            assert got == 1 << want, (
                f"after SM {s} was granted {'and a restart' if restart else 'without a restart'}, "
                f"all requesting: s_mreq_ready {got:#x}, expected SM {want} ({1 << want:#x})"
            )
            await RisingEdge(d.clk)
            d.s_mreq_valid.value = 0
            for _ in range(3):  # let the skid buffer empty
                await RisingEdge(d.clk)
            checked += 1
    cocotb.log.info("checked %d pointer restarts and non-restarts, NUM_SMS=%d", checked, n)


# ---------------------------------------------------------------------------------------- launchers
@pytest.mark.parametrize(
    "num_sms,seg_words,tag_w", CONFIGS, ids=[f"sms{n}-seg{s}-tag{t}" for n, s, t in CONFIGS]
)
def test_mem_arbiter(num_sms: int, seg_words: int, tag_w: int) -> None:
    rtlsim.run(
        "simt_mem_arbiter",
        SOURCES,
        __name__,
        parameters={"NUM_SMS": num_sms, "SEG_WORDS": seg_words, "TAG_W": tag_w},
    )


def test_mem_arbiter_illegal_parameter() -> None:
    """One illegal value is enough to prove the checks stop the simulator (each build costs time)."""
    rtlsim.expect_fatal(
        "simt_mem_arbiter",
        SOURCES,
        {"NUM_SMS": 33, "SEG_WORDS": 8, "TAG_W": 6},
        "simt_mem_arbiter: illegal parameter NUM_SMS=33 (must be in 1..32)",
    )
