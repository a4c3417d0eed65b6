"""Unit bench of rtl/sm/simt_perf.v: one SM's performance counters (docs/isa.md 11, spec/model.py
PERF_COUNTERS).

Reference (:class:`PerfRef`, from docs/isa.md 11 and the port list): cycles and idle cycles count only
while a launch runs (`run`); a retire counts one warp-instruction, its active threads, and both in its
class's pair of counters; divergent branches, stack pushes and pops, the deepest stack depth (with
depth_valid), shared accesses and their passes, global accesses and their transactions, barrier arrivals,
released barriers (one per set bit) and barrier wait cycles (bar_waiting per cycle) count their events;
reset clears every counter (and the events of the cycle before it), an index past the last counter reads 0,
and a counter shows an event one cycle after the ports report it (the unit registers its events first).

* ``random_events``: random events of every kind every cycle (bursts and quiet stretches, `run` on and
  off, occasional resets); each cycle one random counter is read through `sel` and compared, and every
  counter at the end. The timing-dependent counters (cycles, idle cycles) are checked here exactly,
  which the system benches cannot do (they compare only the event counts with the model).

Configurations: the default machine, and WARP_SIZE 8 / 2 block slots, and the default with planted
fault 15 (idle cycles counted while no launch runs), which the bench must catch.
"""

from __future__ import annotations

import os
import random

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from spec.model import PERF_COUNTERS
from tb import benchutil, rtlsim

SOURCES = ["sm/simt_perf.v"]
M64 = (1 << 64) - 1
IDX = {name: i for i, name in enumerate(PERF_COUNTERS)}
CLASSES = ("alu", "sreg", "shared", "const", "global", "branch", "sync", "exit")  # SIMT_CLS_* order


class PerfRef:
    def __init__(self) -> None:
        self.c = [0] * 32
        self.pending: dict[str, int] | None = None  # the events registered last cycle, counted at this edge

    def step(self, i: dict[str, int]) -> None:
        """One clock edge: count the events registered at the previous edge, register ``i``."""
        if self.pending is not None:
            self._count(self.pending)
        self.pending = dict(i)

    def _count(self, i: dict[str, int]) -> None:
        c, add = self.c, self._add
        if i["run"]:
            add("cycles", 1)
            if i["idle_cycle"]:
                add("idle_cycles", 1)
        if i["retire"]:
            n = bin(i["mask"]).count("1")
            add("warp_instrs", 1)
            add("thread_instrs", n)
            add(f"warp_{CLASSES[i['cls']]}", 1)
            add(f"thread_{CLASSES[i['cls']]}", n)
        add("divergent_branches", i["divergent"])
        add("stack_pushes", i["pushes"])
        add("stack_pops", i["pops"])
        if i["depth_valid"]:
            c[IDX["max_stack_depth"]] = max(c[IDX["max_stack_depth"]], i["depth"])
        if i["shared_access"]:
            add("shared_accesses", 1)
            add("shared_passes", i["passes"])
        if i["global_access"]:
            add("global_accesses", 1)
            add("global_transactions", i["txns"])
        add("barrier_arrivals", i["bar_arrive"])
        add("barrier_releases", bin(i["bar_release"]).count("1"))
        add("barrier_wait_cycles", i["bar_waiting"])

    def _add(self, name: str, n: int) -> None:
        self.c[IDX[name]] = (self.c[IDX[name]] + n) & M64


@cocotb.test()
async def random_events(dut):
    benchutil.log_seed(__name__, "random_events")
    ws, nb, dw = len(dut.mask), len(dut.bar_release), len(dut.depth)
    fault = int(os.environ.get("PERF_FAULT", "0"))
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    ref = PerfRef()
    names = ("run", "idle_cycle", "retire", "cls", "mask", "divergent", "pushes", "pops", "depth", "depth_valid",
             "shared_access", "passes", "global_access", "txns", "bar_arrive", "bar_release", "bar_waiting")  # fmt: skip
    ins = dict.fromkeys(names, 0)
    for k in names:
        getattr(dut, k).value = 0
    dut.rst.value = 1
    dut.sel.value = 0
    for _ in range(2):
        await RisingEdge(dut.clk)
    mismatch = None
    counts = {"checked": 0, "resets": 1, "run_off_idle": 0}
    seen: set[int] = set()  # counters that were nonzero at some point (resets clear them)
    cycles = int(os.environ.get("PERF_CYCLES", "3000"))
    for cyc in range(cycles):
        await FallingEdge(dut.clk)
        # Random resets (about 9 in 3000 cycles), and one at mid-run if none came by then: with only
        # the random ones, e^-9 of the seeds (1 in 8,000) had none and failed the check below.
        rst = random.random() < 0.003 or (cyc == cycles // 2 and counts["resets"] == 1)
        busy = cyc % 500 < 350
        p = 0.5 if busy else 0.05
        ins.update(
            run=int(random.random() < (0.9 if busy else 0.3)),
            idle_cycle=int(random.random() < 0.4),
            retire=int(random.random() < p),
            cls=random.randrange(8),
            mask=random.choice([(1 << ws) - 1, random.getrandbits(ws), 1 << random.randrange(ws)]),
            divergent=int(random.random() < p / 4),
            pushes=int(random.random() < p / 3),
            pops=random.randrange(1 << dw) if random.random() < p / 3 else 0,
            depth=random.randrange(1 << dw),
            depth_valid=int(random.random() < p / 3),
            shared_access=int(random.random() < p / 3),
            passes=random.randrange(128),
            global_access=int(random.random() < p / 3),
            txns=random.randrange(64),
            bar_arrive=int(random.random() < p / 4),
            bar_release=random.getrandbits(nb) if random.random() < p / 4 else 0,
            bar_waiting=random.randrange(64) if random.random() < p else 0,
        )
        sel = random.randrange(32)
        for k, v in ins.items():
            getattr(dut, k).value = v
        dut.rst.value = int(rst)
        dut.sel.value = sel
        await ReadOnly()
        got = int(dut.value.value)
        if got != ref.c[sel]:
            mismatch = (
                f"cycle {cyc}: counter {sel} ({PERF_COUNTERS[sel] if sel < len(PERF_COUNTERS) else 'unused'})"
            )
            mismatch += f" = {got}, expected {ref.c[sel]}"
            break
        counts["checked"] += 1
        counts["run_off_idle"] += bool(not ins["run"] and ins["idle_cycle"])
        await RisingEdge(dut.clk)
        if rst:
            ref = PerfRef()
            counts["resets"] += 1
        else:
            ref.step(ins)
        seen.update(i for i, v in enumerate(ref.c) if v)
    if mismatch is None:  # every counter at the end
        await FallingEdge(dut.clk)
        for k in names:
            getattr(dut, k).value = 0
        dut.rst.value = 0
        for sel in range(32):
            dut.sel.value = sel
            await ReadOnly()
            got = int(dut.value.value)
            if got != ref.c[sel]:
                mismatch = f"at the end: counter {sel} = {got}, expected {ref.c[sel]}"
                break
            await FallingEdge(dut.clk)
            ref.step(dict.fromkeys(names, 0))
    if fault:
        assert mismatch, f"planted fault {fault} not caught in {counts['checked']} cycles"
        dut._log.info("planted fault %d caught: %s", fault, mismatch)
        return
    assert mismatch is None, mismatch
    dut._log.info("checked %s; final counters %s", counts, ref.c)
    assert counts["checked"] > 1000 and counts["resets"] > 1 and counts["run_off_idle"] > 0, counts
    assert seen == set(range(len(PERF_COUNTERS))), f"counters that never counted: {set(IDX.values()) - seen}"


@pytest.mark.parametrize(
    "params,fault",
    [({}, 0), ({"WARP_SIZE": 8, "NUM_BLOCKS": 2, "DEPTH_W": 3}, 0), ({}, 15)],
    ids=["default", "w8-b2", "planted-idle-outside-launch"],
)
def test_perf(params: dict[str, int], fault: int) -> None:
    rtlsim.run(
        "simt_perf",
        SOURCES,
        __name__,
        parameters=params,
        extra_env={"PERF_FAULT": str(fault)},
        fault=fault,  # one build with the hooks for the fault-free and the planted runs
    )
