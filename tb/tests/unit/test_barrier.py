"""Unit bench of rtl/sm/simt_barrier.v: per-block-slot barrier counters (docs/sm.md, docs/isa.md §5).

Reference: the golden model's own rule, ``Model._barrier_check`` (spec/model.py), applied to
model ``Block``/``Warp`` objects whose warp states the bench drives: a BAR makes the warp WAITING, a
final EXIT makes it DONE, and after each event the model decides whether the block's waiting warps are
released. The RTL sees the same events on its arrive/exit ports and must pulse ``released[slot]``
exactly in the cycle after each event the model releases on, and never otherwise.

* ``random_blocks``: every slot runs a sequence of blocks; each block has a random warp count and each
  warp a random number of BARs followed by its EXIT. A waiting warp does nothing until it is released
  (it may act again already in the cycle the pulse is visible). One arrival and one exit per cycle at
  most (one port each), often for the same slot; a freed slot is re-initialised while the others run.
* ``directed``: hand-written cases with hand-written expected pulses: a one-warp block, arrive + exit
  of one slot in the same cycle, a release completed by an exit, two slots releasing in the same cycle,
  re-init clearing the counts, init overriding a same-cycle arrival, an arrival in the pulse cycle.

Port naming deviation from docs/sm.md: the output is ``released`` (``release`` is a Verilog keyword).
"""

from __future__ import annotations

import os
import random
from types import SimpleNamespace

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from spec.model import Block, Model, Warp, WarpState
from tb import benchenv, benchutil, rtlsim

TESTS = ["random_blocks", "directed"]


class Ports:
    """Drives one cycle of events and checks, one cycle later, the released vector."""

    def __init__(self, dut, num_blocks: int) -> None:
        self.dut, self.nb = dut, num_blocks
        self.expect = 0  # released vector due in the current cycle
        self.checked = self.pulses = 0
        self.cycle = 0

    async def step(self, init=None, arrive=None, exit_=None, expect_next: int = 0, what: str = "") -> None:
        """One clock cycle: drive init=(slot, warps) / arrive=slot / exit_=slot, check the pulses due now,
        and remember expect_next as the released vector of the following cycle."""
        dut = self.dut
        await RisingEdge(dut.clk)
        dut.init.value = init is not None
        dut.init_slot.value = init[0] if init else 0
        dut.init_warps.value = init[1] if init else 0
        dut.arrive.value = arrive is not None
        dut.arrive_slot.value = arrive if arrive is not None else 0
        dut.exit.value = exit_ is not None
        dut.exit_slot.value = exit_ if exit_ is not None else 0
        await ReadOnly()
        got = int(dut.released.value)
        assert got == self.expect, (
            f"cycle {self.cycle}{' (' + what + ')' if what else ''}: released = {got:0{self.nb}b}, "
            f"expected {self.expect:0{self.nb}b} (slot 0 = LSB)"
        )
        self.checked += 1
        self.pulses += bin(got).count("1")
        self.expect = expect_next
        self.cycle += 1


async def _start(dut, test: str) -> Ports:
    nb, nw = len(dut.released), (1 << len(dut.init_warps)) - 1
    dut._log.info(
        "SEED=%d reruns %s: NUM_BLOCKS=%d (init_warps up to %d)",
        benchutil.rerun_seed(__name__, test),
        test,
        nb,
        nw,
    )
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    for sig in (
        dut.init,
        dut.init_slot,
        dut.init_warps,
        dut.arrive,
        dut.arrive_slot,
        dut.exit,
        dut.exit_slot,
    ):
        sig.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    return Ports(dut, nb)


# ---------------------------------------------------------------------------------------------
# Random blocks against Model._barrier_check
# ---------------------------------------------------------------------------------------------
class SlotRef:
    """One resident block: model Block/Warp objects plus each warp's remaining script."""

    def __init__(self, slot: int, nwarps: int, cycle: int) -> None:
        self.block = Block(slot, (slot, 0, 0), 0, 0)
        self.block.warps = [Warp(self.block, w, 1, None, None) for w in range(nwarps)]
        self.bars = [random.choice([0, 1, 1, 2, 3, 5]) for _ in range(nwarps)]  # BARs before EXIT
        self.eligible = [cycle + 1 + random.randint(0, 3) for _ in range(nwarps)]

    @property
    def done(self) -> bool:
        return all(w.state is WarpState.DONE for w in self.block.warps)


@cocotb.test()
async def random_blocks(dut):
    ports = await _start(dut, "random_blocks")
    nb = ports.nb
    nw_max = benchenv.parameter("NUM_WARPS")
    slot_codes = 1 << len(dut.init_slot)  # > nb when NUM_BLOCKS is not a power of two
    cycles = int(os.environ.get("BAR_CYCLES", "4000"))
    model = SimpleNamespace(counters=SimpleNamespace(barrier_releases=0))  # `self` of Model._barrier_check
    slots: list[SlotRef | None] = [None] * nb
    stats = dict(
        blocks=0,
        arrivals=0,
        exits=0,
        same_slot=0,
        exit_releases=0,
        multi=0,
        pulse_cycle_arrivals=0,
        ignored=0,
    )
    expect_now = 0
    for cyc in range(cycles):
        # --- choose this cycle's events -------------------------------------------------------
        init = None
        free = [s for s in range(nb) if slots[s] is None or slots[s].done]
        if free and random.random() < 0.3:
            s = random.choice(free)
            n = min(nw_max, random.choice([1, 2, 3, random.randint(1, 4), random.randint(1, nw_max), nw_max]))
            init = (s, n)
            slots[s] = SlotRef(s, n, cyc)
            stats["blocks"] += 1
        ready = [
            (s, w)
            for s in range(nb)
            if slots[s] is not None and (init is None or init[0] != s)
            for w, x in enumerate(slots[s].block.warps)
            if x.state is WarpState.READY and slots[s].eligible[w] <= cyc
        ]
        bar_c = [(s, w) for s, w in ready if slots[s].bars[w] > 0]
        exit_c = [(s, w) for s, w in ready if slots[s].bars[w] == 0]
        # Steer toward interesting cycles: often fire the arrival of one block's last running warp
        # together with the exit of another block's last running warp (two releases in one cycle),
        # holding such completing events back for a while until a partner exists; prefer the block
        # closest to its barrier; often pair an arrival and an exit of the same block.
        running = [0 if x is None else sum(w.state is WarpState.READY for w in x.block.warps) for x in slots]
        waiting = [x is not None and any(w.state is WarpState.WAITING for w in x.block.warps) for x in slots]
        comp_arr = [c for c in bar_c if running[c[0]] == 1]
        comp_exit = [c for c in exit_c if running[c[0]] == 1 and waiting[c[0]]]
        pairs = [(x, y) for x in comp_arr for y in comp_exit if x[0] != y[0]]
        arrive = exit_ = None
        if pairs and random.random() < 0.7:
            arrive, exit_ = random.choice(pairs)
        else:
            hold = random.random() < 0.5
            arr_pool = [c for c in bar_c if not (hold and c in comp_arr)]
            exit_pool = [c for c in exit_c if not (hold and c in comp_exit)]
            if arr_pool and random.random() < 0.7:
                fewest = min(running[c[0]] for c in arr_pool)
                closest = [c for c in arr_pool if running[c[0]] == fewest]
                arrive = random.choice(closest if random.random() < 0.6 else arr_pool)
            if exit_pool and random.random() < 0.6:
                same = [c for c in exit_pool if arrive and c[0] == arrive[0]]
                exit_ = random.choice(same if same and random.random() < 0.4 else exit_pool)
        # --- reference: the model's rule after each event, in port order ------------------------
        released = 0
        if arrive:
            s, w = arrive
            slots[s].block.warps[w].state = WarpState.WAITING
            slots[s].bars[w] -= 1
            stats["arrivals"] += 1
            stats["pulse_cycle_arrivals"] += bool(expect_now >> s & 1)
            if Model._barrier_check(model, slots[s].block):
                released |= 1 << s
        if exit_:
            s, w = exit_
            slots[s].block.warps[w].state = WarpState.DONE
            stats["exits"] += 1
            stats["same_slot"] += bool(arrive and arrive[0] == s)
            if Model._barrier_check(model, slots[s].block):
                assert not released >> s & 1, "the model released one block twice in one cycle"
                released |= 1 << s
                stats["exit_releases"] += 1
        for s in range(nb):
            if released >> s & 1:  # released warps may act again from the pulse cycle on
                for w, x in enumerate(slots[s].block.warps):
                    if x.state is WarpState.READY:
                        slots[s].eligible[w] = cyc + 1 + random.choice([0, 0, 1, 2, 5])
        stats["multi"] += bin(released).count("1") > 1
        # Unused slot numbers (NUM_BLOCKS not a power of two) must be ignored.
        a_slot = arrive[0] if arrive else None
        e_slot = exit_[0] if exit_ else None
        if slot_codes > nb and random.random() < 0.05:
            if a_slot is None:
                a_slot = random.randrange(nb, slot_codes)
                stats["ignored"] += 1
            elif e_slot is None:
                e_slot = random.randrange(nb, slot_codes)
                stats["ignored"] += 1
        await ports.step(init, a_slot, e_slot, released, f"arrive {arrive} exit {exit_} init {init}")
        expect_now = released
    await ports.step()  # the pulse of the last cycle's events
    await ports.step()
    assert ports.pulses == model.counters.barrier_releases
    dut._log.info("events: %s", stats)
    assert stats["arrivals"] and stats["exits"] and ports.pulses
    if nb > 1 and nw_max > 1:
        assert stats["same_slot"] and stats["exit_releases"] and stats["multi"], f"weak stimulus: {stats}"
    dut._log.info("checked %d cycles of released[%d], %d release pulses", ports.checked, nb, ports.pulses)
    assert ports.checked > 0


# ---------------------------------------------------------------------------------------------
# Directed cases (expected pulses written by hand from docs/isa.md §5)
# ---------------------------------------------------------------------------------------------
@cocotb.test()
async def directed(dut):
    p = await _start(dut, "directed")
    nb, nw = p.nb, (1 << len(dut.init_warps)) - 1
    nw = min(nw, benchenv.parameter("NUM_WARPS"))
    a, b = 0, nb - 1
    A, B = 1 << a, 1 << b
    c = p.step
    # One-warp block: every BAR releases at once; its EXIT releases nothing (nobody waits).
    await c(init=(a, 1))
    await c(arrive=a, expect_next=A, what="1 warp: arrive")
    await c(what="pulse")
    await c(arrive=a, expect_next=A)
    await c(arrive=a, expect_next=A, what="arrival in the pulse cycle counts for the next barrier")
    await c(exit_=a, what="exit")
    await c()
    if nw >= 2:
        # A release completed by an EXIT; then the survivor's barriers release alone.
        await c(init=(a, 2))
        await c(arrive=a)
        await c(exit_=a, expect_next=A, what="exit completes the barrier")
        await c(arrive=a, expect_next=A, what="finished warp stays counted")
        await c(exit_=a)
        # Re-init clears the counts.
        await c(init=(a, 2))
        await c(arrive=a)
        await c(init=(a, 2), what="re-init drops the arrival")
        await c(arrive=a)
        await c(arrive=a, expect_next=A)
        # init overrides a same-cycle arrival for its slot.
        await c(init=(a, 2), arrive=a, what="init + arrive same slot")
        await c(arrive=a)
        await c()
        await c(arrive=a, expect_next=A)
        # Arrival in the pulse cycle with a 2-warp block: counts toward the next barrier only.
        await c(arrive=a, what="arrival in the pulse cycle")
        await c(arrive=a, expect_next=A)
        await c(arrive=a, what="arrival in the pulse cycle, one of two")
        await c()
    if nw >= 3:
        # arrive + exit of one slot in the same cycle: both counted.
        await c(init=(a, 3))
        await c(arrive=a)
        await c(arrive=a, exit_=a, expect_next=A, what="arrive + exit same slot complete the barrier")
        await c(arrive=a)
        await c(arrive=a, expect_next=A)
        await c(exit_=a)
        await c(arrive=a, expect_next=A, what="the last live warp's BAR releases alone")
        await c(exit_=a, what="last exit, nobody waiting")
        await c()
        # arrive + exit of the same slot not completing it.
        await c(init=(a, 3))
        await c(arrive=a, exit_=a)
        await c()
        await c(arrive=a, expect_next=A)
    if nb > 1 and nw >= 2:
        # Two slots released in the same cycle (independent), by an arrival and an exit.
        await c(init=(a, 2))
        await c(init=(b, 2), arrive=a)
        await c(arrive=b)
        await c(arrive=a, exit_=b, expect_next=A | B, what="two slots release together")
        await c()
        # An event for one slot never touches another.
        await c(init=(b, 1), arrive=a, what="b re-inited while a runs")
        await c(arrive=b, expect_next=B)
        await c(exit_=a, expect_next=A, what="a: survivor waiting, exit completes")
        await c()
    if nb > 2:
        mid = nb // 2
        await c(init=(mid, 1))
        await c(arrive=mid, expect_next=1 << mid)
        await c()
    await c()
    assert p.pulses > 0
    dut._log.info("checked %d cycles of released[%d], %d release pulses", p.checked, nb, p.pulses)
    assert p.checked > 0


# ---------------------------------------------------------------------------------------------
# pytest launchers
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("num_blocks,num_warps", [(1, 1), (3, 5), (4, 16), (16, 32)])
def test_barrier(num_blocks, num_warps):
    rtlsim.run(
        "simt_barrier",
        ["sm/simt_barrier.v"],
        __name__,
        parameters={"NUM_BLOCKS": num_blocks, "NUM_WARPS": num_warps},
        testcase=TESTS,
    )


@pytest.mark.parametrize(
    "params,message",
    [
        (
            {"NUM_BLOCKS": 17, "NUM_WARPS": 32},
            "simt_barrier: illegal parameter NUM_BLOCKS=17 (must be in 1..16)",
        ),
        (
            {"NUM_BLOCKS": 4, "NUM_WARPS": 33},
            "simt_barrier: illegal parameter NUM_WARPS=33 (must be in 1..32)",
        ),
    ],
)
def test_barrier_illegal_parameter(params, message):
    rtlsim.expect_fatal("simt_barrier", ["sm/simt_barrier.v"], params, message)
