"""Unit bench of rtl/top/simt_block_sched.v: grid walk and round-robin block dispatch (docs/gpu.md).

Python stand-ins play NUM_SMS SMs: each has a random capacity (1..4 resident blocks), is ready when
it has a free slot (after taking a block it may stay busy a few cycles, like the SM's initialiser,
and it sometimes stalls for a while), and finishes each block after a random delay with a one-cycle
``blk_done`` pulse (several SMs often finish in the same cycle).

Reference rules checked every cycle (docs/gpu.md "Block scheduler" and the module header):
- blocks are offered in flat order 0..n-1 with ctaid = (bid % gx, bid / gx % gy, bid / (gx*gy));
- at most one ``blk_valid`` bit, only to a ready SM, and exactly the first ready SM after the one that
  took the last block (wrapping; SM 0 first after a start) — so a block is offered whenever some SM is
  ready (work conserving) and no ready SM waits more than NUM_SMS - 1 dispatches (no starvation);
- ``blocks_dispatched`` / ``blocks_done`` equal the bench's counts (registered: handshakes and pulses
  of earlier cycles), ``busy`` is high from the cycle after ``start`` until done;
- ``done`` rises exactly two cycles after the cycle of the last completion pulse (completion counted
  at the next edge, then done registered), never earlier, and holds until the next start or abort;
- ``start`` while busy is ignored; ``abort`` drops busy and done at the next edge and no block is
  offered in the abort cycle; after an abort (the GPU resets the SMs) a new launch runs normally.
At the end of every launch: each block dispatched exactly once, each completed exactly once.

Configurations: NUM_SMS 1, 2, 3 (not a power of two), 4; an illegal NUM_SMS must stop both simulators.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from tb import benchutil, rtlsim

SOURCES = ["top/simt_block_sched.v"]
TESTS = ["random_grids", "abort_restart", "directed_grids"]


def ctaid_of(bid: int, grid: tuple[int, int, int]) -> tuple[int, int, int]:
    gx, gy, _ = grid
    return bid % gx, (bid // gx) % gy, bid // (gx * gy)


def pack48(v: tuple[int, int, int]) -> int:
    return v[0] | v[1] << 16 | v[2] << 32


@dataclass
class StandIn:
    """One SM: capacity, resident blocks with their remaining cycles, initialiser and stall timers."""

    cap: int
    delay: tuple[int, int]
    init_cycles: tuple[int, int]
    stall_prob: float
    resident: dict[int, int] = field(default_factory=dict)
    init_wait: int = 0
    stall: int = 0
    taken: int = 0

    def ready(self) -> bool:
        return len(self.resident) < self.cap and self.init_wait == 0 and self.stall == 0


class Bench:
    def __init__(self, dut, rng: random.Random) -> None:
        self.dut, self.rng = dut, rng
        self.n_sms = len(dut.blk_ready)
        self.cycle = 0
        # DUT state as the bench expects it (registered outputs of the current cycle)
        self.run = False
        self.done = False
        self.last = self.n_sms - 1
        self.dispatched = 0
        self.completed = 0
        # checks
        self.dispatches = self.completions = self.cycles = self.multi_done_cycles = 0
        self.max_wait = 0

    async def reset(self) -> None:
        d = self.dut
        d.rst.value = 1
        d.start.value = 0
        d.abort.value = 0
        d.blk_ready.value = 0
        d.blk_done.value = 0
        d.cfg_grid.value = pack48((1, 1, 1))
        d.cfg_nblocks.value = 1
        for _ in range(3):
            await RisingEdge(d.clk)
        d.rst.value = 0
        self.run = self.done = False
        self.last = self.n_sms - 1
        self.dispatched = self.completed = 0

    # ------------------------------------------------------------------ one launch
    async def launch(
        self,
        grid: tuple[int, int, int],
        *,
        caps: tuple[int, int] = (1, 4),
        delay: tuple[int, int] = (1, 30),
        init_cycles: tuple[int, int] = (0, 3),
        stall_prob: float = 0.02,
        abort_at: int | None = None,
        start_while_busy: float = 0.0,
        abort_with_start: bool = False,
    ) -> None:
        """Run one launch of ``grid``; ``abort_at`` aborts after that many cycles (then returns)."""
        d, rng = self.dut, self.rng
        n = grid[0] * grid[1] * grid[2]
        sms = [StandIn(rng.randint(*caps), delay, init_cycles, stall_prob) for _ in range(self.n_sms)]
        seen: dict[int, int] = {}  # block -> SM that took it
        finished: set[int] = set()
        waits = [0] * self.n_sms  # dispatches to other SMs while this one stayed ready
        last_pulse_cycle = None
        handshake: tuple[int, int] | None = None
        await RisingEdge(d.clk)
        d.cfg_grid.value = pack48(grid)
        d.cfg_nblocks.value = n
        t = 0
        while True:
            # ---- effects of the edge that just passed
            if handshake is not None:
                s, bid = handshake
                sms[s].resident[bid] = rng.randint(*sms[s].delay)
                sms[s].init_wait = rng.randint(*sms[s].init_cycles)
                sms[s].taken += 1
                handshake = None
            # ---- this cycle's inputs
            pulses = 0
            for s, sm in enumerate(sms):
                for bid in sm.resident:
                    sm.resident[bid] = max(0, sm.resident[bid] - 1)
                due = [bid for bid, left in sm.resident.items() if left == 0]
                if due:  # an SM reports one block per cycle; others wait for the next cycles
                    bid = rng.choice(due)
                    del sm.resident[bid]
                    assert bid not in finished
                    finished.add(bid)
                    pulses |= 1 << s
                sm.init_wait = max(0, sm.init_wait - 1)
                if sm.stall:
                    sm.stall -= 1
                elif rng.random() < sm.stall_prob:
                    sm.stall = rng.randint(1, 20)
            ready = sum(1 << s for s, sm in enumerate(sms) if sm.ready())
            start = t == 0 or (self.run and rng.random() < start_while_busy)
            abort = abort_at is not None and t == abort_at or (abort_with_start and t == 0)
            d.blk_ready.value = ready
            d.blk_done.value = pulses
            d.start.value = int(start)
            d.abort.value = int(abort)
            await ReadOnly()
            self.cycles += 1
            # ---- checks of this cycle's outputs
            where = f"grid {grid} cycle {t}"
            assert int(d.busy.value) == int(self.run), (
                f"{where}: busy {int(d.busy.value)}, expected {int(self.run)}"
            )
            assert int(d.done.value) == int(self.done), (
                f"{where}: done {int(d.done.value)}, expected {int(self.done)}"
            )
            assert int(d.blocks_dispatched.value) == self.dispatched, (
                f"{where}: blocks_dispatched {int(d.blocks_dispatched.value)}, expected {self.dispatched}"
            )
            assert int(d.blocks_done.value) == self.completed, (
                f"{where}: blocks_done {int(d.blocks_done.value)}, expected {self.completed}"
            )
            valid = int(d.blk_valid.value)
            pick = None
            if self.run and not abort and self.dispatched < n:
                for i in range(self.n_sms):
                    s = (self.last + 1 + i) % self.n_sms
                    if ready >> s & 1:
                        pick = s
                        break
            if pick is None:
                assert valid == 0, f"{where}: blk_valid {valid:#x}, expected none (ready {ready:#x})"
            else:
                assert valid == 1 << pick, (
                    f"{where}: blk_valid {valid:#x}, expected SM {pick} (ready {ready:#x}, last {self.last})"
                )
                bid = int(d.blk_id.value)
                ctaid = int(d.blk_ctaid.value)
                assert bid == self.dispatched, f"{where}: blk_id {bid}, expected {self.dispatched}"
                exp = pack48(ctaid_of(bid, grid))
                assert ctaid == exp, f"{where}: block {bid} ctaid {ctaid:#014x}, expected {exp:#014x}"
                assert bid not in seen, f"{where}: block {bid} dispatched twice"
                seen[bid] = pick
                handshake = (pick, bid)
                for s in range(self.n_sms):
                    if s != pick and ready >> s & 1:
                        waits[s] += 1
                        self.max_wait = max(self.max_wait, waits[s])
                        assert waits[s] < self.n_sms, (
                            f"{where}: SM {s} ready but passed over {waits[s]} times"
                        )
                    else:
                        waits[s] = 0
                self.dispatches += 1
            if pulses and self.run:
                last_pulse_cycle = t
                self.multi_done_cycles += bin(pulses).count("1") > 1
            # ---- the bench's model of the next edge
            nxt_run, nxt_done = self.run, self.done
            if abort:
                nxt_run, nxt_done = False, False
            elif start and not self.run:
                nxt_run, nxt_done = True, False
                self.dispatched = self.completed = 0
                self.last = self.n_sms - 1
            elif self.run and self.dispatched == n and self.completed == n:
                nxt_run, nxt_done = False, True
                assert last_pulse_cycle is not None and t == last_pulse_cycle + 1, (
                    f"{where}: done at cycle {t + 1}, last completion at {last_pulse_cycle}"
                )
            elif pick is not None:
                self.dispatched += 1
                self.last = pick
            if self.run:
                self.completed += bin(pulses).count("1")
                self.completions += bin(pulses).count("1")
            was_run = self.run
            self.run, self.done = nxt_run, nxt_done
            await RisingEdge(d.clk)
            t += 1
            if abort:
                d.abort.value = 0
                d.start.value = 0
                d.blk_ready.value = 0
                d.blk_done.value = 0
                return  # the GPU resets the SMs: the stand-ins' blocks vanish
            if was_run and not self.run:
                break
            assert t < 200 * n + 1000, (
                f"grid {grid}: launch hangs ({len(seen)} of {n} dispatched, "
                f"{self.completed} completed, resident {[sm.resident for sm in sms]})"
            )
        # the launch finished: done now high, every block dispatched and completed exactly once
        d.start.value = 0
        d.blk_ready.value = 0
        d.blk_done.value = 0
        await ReadOnly()
        assert int(d.done.value) == 1 and int(d.busy.value) == 0, (
            f"grid {grid}: not done after the last block"
        )
        assert sorted(seen) == list(range(n)), f"grid {grid}: dispatched {len(seen)} of {n} blocks"
        assert finished == set(range(n)), f"grid {grid}: {len(finished)} of {n} blocks completed"
        per_sm = [sum(1 for s in seen.values() if s == i) for i in range(self.n_sms)]
        cocotb.log.debug("grid %s: blocks per SM %s (capacities %s)", grid, per_sm, [sm.cap for sm in sms])
        await RisingEdge(d.clk)


def random_grid(rng: random.Random, max_blocks: int) -> tuple[int, int, int]:
    dims = rng.choice([1, 2, 3])
    while True:
        g = [1, 1, 1]
        for i in rng.sample(range(3), dims):
            g[i] = rng.randint(2, 13)
        if rng.random() < 0.2:
            g[rng.randrange(3)] = 1
        if g[0] * g[1] * g[2] <= max_blocks:
            return g[0], g[1], g[2]


async def _start(dut, test: str) -> Bench:
    benchutil.log_seed(__name__, test)
    Clock(dut.clk, 10, unit="ns").start()
    b = Bench(dut, random.Random(random.getrandbits(32)))
    await b.reset()
    return b


def _report(b: Bench, what: str) -> None:
    cocotb.log.info(
        "checked %d dispatches, %d completions, %d cycles (%s; NUM_SMS=%d; %d cycles with several "
        "completions; longest wait of a ready SM %d dispatches)",
        b.dispatches,
        b.completions,
        b.cycles,
        what,
        b.n_sms,
        b.multi_done_cycles,
        b.max_wait,
    )
    assert b.dispatches > 0 and b.completions > 0, "checked 0 dispatches"


@cocotb.test()
async def random_grids(dut) -> None:
    """Random 1-D..3-D grids, random SM capacities, delays and stalls; some starts while busy."""
    b = await _start(dut, "random_grids")
    rng = b.rng
    for k in range(14):
        grid = random_grid(rng, 220)
        await b.launch(
            grid,
            caps=rng.choice([(1, 1), (1, 4), (2, 4)]),
            delay=rng.choice([(1, 3), (1, 30), (10, 60)]),
            init_cycles=rng.choice([(0, 0), (0, 3)]),
            start_while_busy=0.05 if k % 3 == 0 else 0.0,
        )
    if b.n_sms > 1:
        assert b.multi_done_cycles > 0, "no cycle with several completions: not exercised"
    _report(b, "random grids")


@cocotb.test()
async def abort_restart(dut) -> None:
    """Abort at random points of a launch (and in idle, and with done high), then complete launches."""
    b = await _start(dut, "abort_restart")
    rng = b.rng
    for _ in range(8):
        grid = random_grid(rng, 120)
        await b.launch(grid, abort_at=rng.randint(1, 80))
        await b.launch(random_grid(rng, 60))  # done high now; abort must clear it
        await b.launch(grid, abort_at=1)
    await b.launch((4, 3, 2), abort_with_start=True)  # start and abort together: abort wins
    await b.launch((5, 2, 1))
    _report(b, "aborts")


@cocotb.test()
async def directed_grids(dut) -> None:
    """One block; a long x row, y column and z column; full-speed SMs; single-slot slow SMs."""
    b = await _start(dut, "directed_grids")
    for grid, kw in [
        ((1, 1, 1), {}),
        ((300, 1, 1), {"caps": (4, 4), "delay": (1, 2), "init_cycles": (0, 0), "stall_prob": 0.0}),
        ((1, 257, 1), {}),
        ((1, 1, 129), {"caps": (1, 1), "delay": (20, 20)}),
        ((3, 1, 40), {}),
        ((7, 5, 3), {"caps": (16, 16), "delay": (50, 80), "init_cycles": (0, 0), "stall_prob": 0.0}),
    ]:
        await b.launch(grid, **kw)
    _report(b, "directed grids")


# ---------------------------------------------------------------------------------------- launchers
@pytest.mark.parametrize("num_sms", [1, 2, 3, 4])
def test_block_sched(num_sms: int) -> None:
    rtlsim.run("simt_block_sched", SOURCES, __name__, parameters={"NUM_SMS": num_sms}, testcase=TESTS)


def test_block_sched_illegal_parameter() -> None:
    rtlsim.expect_fatal(
        "simt_block_sched",
        SOURCES,
        {"NUM_SMS": 17},
        "simt_block_sched: illegal parameter NUM_SMS=17 (must be in 1..16)",
    )
