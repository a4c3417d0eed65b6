"""Unit bench of the SM pipeline (docs/sm.md "Pipeline"): issue overlap and the flush on reset.

The lock-step checks of ``test_sm.py`` (every retire against the golden model, stack, shared and
counters) run here too; this bench adds what only the pipeline has:

- **Issue and overlap.** AluStream (kernels/alustream) on one block of 8 warps (8 lanes) or 4 warps
  (32 lanes): in the middle half of the run, the retire port must deliver a warp-instruction every
  ROWS + 0.25 cycles or better (docs/sm.md "Pipeline timing"; the issue's steady-state target). A
  pipeline that issues only into an empty back end (planted fault 5, SIMT_FAULT_SERIAL_ISSUE) needs
  ROWS + 3 and must fail the check.
- **Flush on reset.** Reset in the middle of the kernel, with instructions in every stage: for 40
  cycles after it nothing may retire, touch shared memory, request global memory or report an error,
  and the SM must be idle. A reset that leaves DEC's instruction in place (planted fault 6,
  SIMT_FAULT_STALE_TOKEN) must fail the check.
- **Shared accesses stream** (docs/sm.md "Shared load"). Straight-line shared traffic on one block of
  every warp slot (``SHARED_SRC``: two shared loads and a MAD, a store, a load and an ADD, per round; every
  retire checked): the retire port must deliver a warp-instruction every ROWS + 0.75 cycles or
  better over the middle half (a shared instruction that holds EX until its rows land needs about
  ROWS + 1.3), and the landing rows of the
  shared writeback must keep the register-file write port. A bench where EX's row takes the port
  from a landing row (planted fault 8, SIMT_FAULT_PORT_PRIORITY) loses that row's register write and
  must fail the lock-step check.
- **Flush on reset** covers the shared writeback too: the reset bench also runs that traffic (reset
  right after a shared retire), and a reset
  that misses the LSU and the writeback (planted fault 9, SIMT_FAULT_STALE_SWB: rows in
  flight land and retire after it) must fail it.
- **Flush on error** is checked for every error kind by ``test_sm.py``: after the error nothing
  retires (an older instruction may retire on the edge that raises it).
- **Thread-id table** (rtl/sm/simt_tid_table.v: rows of four slots, one write port with a per-entry
  enable). Blocks of 5 x 7 x 2 threads (three warps, the last group of four tids partial), more blocks
  than slots, read tid.x, tid.y, tid.z and the flat tid; every retire checked. A table that writes
  entry 0's tid into entry 1 of every row (planted fault 18, SIMT_FAULT_TID_ENTRY) must fail the
  lock-step check.
- **Issue ahead** (docs/sm.md "Issue ahead"). One warp alone (``AHEAD_SRC``: independent and
  dependent ALU instructions, a shared store, a shared load and its use, per round; every retire
  checked): its instructions must follow each other every ROWS + 2 cycles or better over the middle
  half (a warp that waits for its own retire needs ROWS + 3 or more), and an instruction that reads a shared
  load's destination must wait for the load's rows to land. A scoreboard that lets it into EX while
  its warp's load is in the shared writeback (planted fault 12, SIMT_FAULT_NO_HOLD) reads the old
  value and must fail the lock-step check.
- **Idle warps first** (docs/sm.md "Issue ahead", the idle-warp rule). Global loads and ALU code on one
  block of every warp slot (``IDLE_SRC``; the loads return after random latencies, so warps become
  READY at scattered times; every retire checked): in every cycle the scheduler takes a grant while
  IDLE_MIN or more READY warps have nothing in flight (simt_sm's default IDLE_MIN = 1), the granted
  warp must have no released instruction in flight (``w_ahead`` = 0); the run must meet that choice
  often enough to test it. A warp table without the rule (planted fault 23, SIMT_FAULT_NO_IDLE_FIRST)
  grants such a warp and must fail the check.
- **Issue ahead in a region** (docs/sm.md "Issue ahead", `simt_sm` parameter AHEAD_SSY: default 1 at
  ROWS = 1, else 0). One warp alone in if/else regions that diverge (``SSY_SRC``: the taken path runs
  first and its last instruction reaches the rpc, whose pop sends the warp to the else path waiting in
  a DIV; every retire checked): at 32 lanes instructions of the warp with a SYNC on its stack must be
  released from DEC (at least four per round), and the one whose pc + 1 is the rpc must not be: a warp
  table that releases it too (planted fault 28, SIMT_FAULT_AHEAD_AT_RPC) fetches the rpc instead of
  the else path and must fail the lock-step check. At 8 lanes (AHEAD_SSY = 0) none may be released.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

from kernels import suite
from spec import isa
from spec.asm import assemble
from spec.config import GpuConfig
from spec.image import LaunchImage
from tb import benchenv, rtlsim
from tb.agents.gmem_responder import GmemResponder
from tb.agents.sm_driver import SmDriver
from tb.tests.unit.test_sm import CONFIGS, SM_SOURCES, run_kernel

MACHINES = {"l8": CONFIGS["w32l8"], "l32": CONFIGS["w32l32"]}
SLACK = 0.25  # cycles per warp-instruction over ROWS allowed in steady state
QUIET = 40  # cycles checked after a reset
SH_SLACK = 0.75  # cycles per warp-instruction over ROWS allowed for the shared traffic (middle half)


# Straight-line shared traffic (no divergence stack involved): every thread stores a value and reads
# it back, a MAD or ADD consuming the loads while other warps' loads land; each round stores a new value,
# so a lost register write shows in the next round.
_ROUND = """
        LD   r2, [r1]
        LD   r3, [r1]
        MAD  r4, r2, r3, r4
        ST   [r1], r4
        LD   r5, [r1]
        ADD  r4, r4, r5
"""
SHARED_SRC = "        LDS  r1, %tid\n        ST   [r1], r1\n" + _ROUND * 12 + "        EXIT\n"

# One warp alone: ALU instructions (the XOR reads what the two before it wrote), a shared store and a
# load whose destination the next instruction reads at once (the scoreboard's SWB hold).
_AHEAD_ROUND = """
        ADDI r2, r2, 1
        ADDI r3, r3, 3
        ADDI r7, r7, 5
        XOR  r6, r2, r3
        ST   [r1], r6
        LD   r4, [r1]
        ADD  r5, r5, r4
        ADD  r7, r7, r4
"""
AHEAD_SRC = "        LDS  r1, %tid\n" + _AHEAD_ROUND * 16 + "        EXIT\n"

# Every warp: a global load, then ALU code (independent, then using the load), per round: the loads'
# random latencies make warps READY at scattered times, next to warps running ahead (the idle-warp rule).
_IDLE_ROUND = """
        LDG  r2, [r1]
        ADDI r3, r3, 1
        ADDI r4, r4, 2
        XOR  r6, r3, r4
        ADD  r5, r5, r2
        ADDI r7, r7, 3
        ADD  r7, r7, r6
"""
IDLE_SRC = "        LDS  r1, %tid\n" + _IDLE_ROUND * 30 + "        EXIT\n"
# One warp alone, divergent SSY regions (if/else): lanes with an even tid take the branch and run
# first, the odd ones wait in a DIV; the taken path's last instruction (the XOR) reaches the rpc, so
# its pop sends the warp to the else path with the odd lanes, which ends with a BRA to the rpc (the
# SYNC's pop restores the full mask); every lane then adds what its path computed.
_SSY_ROUND = """
        SSY  j{n}
        BEQ  r2, t{n}
        ADDI r3, r3, 1
        ADDI r4, r4, 3
        SUB  r5, r4, r3
        BRA  j{n}
t{n}:   ADDI r3, r3, 2
        ADDI r4, r4, 5
        XOR  r5, r3, r4
j{n}:   ADD  r6, r6, r5
"""
SSY_ROUNDS = 16
SSY_SRC = (
    "        LDS  r1, %tid\n        ANDI r2, r1, 1\n"
    + "".join(_SSY_ROUND.format(n=n) for n in range(SSY_ROUNDS))
    + "        EXIT\n"
)
# cycles per warp-instruction over ROWS allowed for one warp alone (middle half): measured 2.74 at 32
# lanes (ROWS = 1; the shared store, load and use wait for the writeback); a warp that waits for its own
# retire needs ROWS + 3 for every instruction, more for shared ones
AHEAD_SLACK = 2.0


# Every thread reads its tid.x, tid.y, tid.z and flat tid and combines them (each retire's lane values
# are compared with the model's, so a wrong table entry shows at once).
TIDS_SRC = """
        LDS  r1, %tid.x
        LDS  r2, %tid.y
        LDS  r3, %tid.z
        LDS  r4, %tid
        SHLI r5, r3, 8
        SHLI r6, r2, 4
        OR   r5, r5, r6
        OR   r5, r5, r1
        XOR  r5, r5, r4
        EXIT
"""
TIDS_BLOCK = (5, 7, 2)  # 70 threads, three warps: the last group of four tids is partial; y and z carry


def _image(cfg: GpuConfig, kernel: str = "alustream") -> LaunchImage:
    """One block of every warp slot: AluStream, or the shared traffic above; or the tid readers."""
    threads = cfg.num_warps * cfg.warp_size
    if kernel == "tids":
        img = assemble(TIDS_SRC, "<thread ids>", cfg).image
        return replace(img, block=TIDS_BLOCK, grid=(2 * cfg.num_blocks + 1, 1, 1))
    if kernel == "shared":
        img = assemble(SHARED_SRC, "<shared stream>", cfg).image
        return replace(img, block=(threads, 1, 1), shared_words=threads)
    if kernel == "idle":
        img = assemble(IDLE_SRC, "<idle warps first>", cfg).image
        return replace(img, block=(threads, 1, 1))
    if kernel == "ssy":
        img = assemble(SSY_SRC, "<issue ahead in a region>", cfg).image
        return replace(img, block=(cfg.warp_size, 1, 1))
    if kernel == "ahead":
        img = assemble(AHEAD_SRC, "<issue ahead>", cfg).image
        return replace(img, block=(cfg.warp_size, 1, 1), shared_words=cfg.warp_size)
    return suite.prepare(kernel, threads, seed=1, cfg=cfg).image


def steady_cadence(log: list[tuple[int, object]]) -> float:
    """Mean cycles between retires over the middle half of the run (warm-up and drain left out)."""
    cycles = [c for c, _ in log]
    lo, hi = len(cycles) // 4, 3 * len(cycles) // 4
    assert hi - lo >= 16, f"only {len(cycles)} retires: too short to measure a steady state"
    return (cycles[hi] - cycles[lo]) / (hi - lo)


@cocotb.test()
async def sm_cadence(dut) -> None:
    cfg = benchenv.machine()
    rows = cfg.warp_size // cfg.num_lanes
    log: list[tuple[int, object]] = []
    await run_kernel(dut, "alustream", cfg, image=_image(cfg), retire_log=log)
    mean = steady_cadence(log)
    ok = mean <= rows + SLACK
    dut._log.info(
        f"{len(log)} retires: {mean:.3f} cycles per warp-instruction in steady state, "
        f"target <= ROWS + {SLACK} = {rows + SLACK}"
    )
    if os.environ.get("PIPE_FAULT") == "5":
        assert not ok, f"planted serial issue not caught: {mean:.3f} cycles per warp-instruction"
    else:
        assert ok, f"{mean:.3f} cycles per warp-instruction in steady state, target <= {rows + SLACK}"


def is_shared(word: int) -> bool:
    return isa.lookup(word).unit is isa.Unit.SHARED


async def run_planted(dut, kernel: str, cfg, fault: int, what: str) -> list[tuple[int, object]] | None:  # type: ignore[no-untyped-def]
    """Run ``kernel`` in lockstep with its retire log; with planted fault ``fault`` (PIPE_FAULT) the
    lockstep check must fail: None when it did, else the log (an uncaught planted fault fails)."""
    log: list[tuple[int, object]] = []
    planted = os.environ.get("PIPE_FAULT") == str(fault)
    try:
        await run_kernel(dut, kernel, cfg, image=_image(cfg, kernel), retire_log=log)
    except AssertionError as exc:
        if planted:
            dut._log.info(f"planted fault caught after {len(log)} retires: {str(exc).splitlines()[0]}")
            return None
        raise
    assert not planted, f"planted {what} fault not caught: {len(log)} retires matched"
    return log


@cocotb.test()
async def sm_shared_stream(dut) -> None:
    cfg = benchenv.machine()
    rows = cfg.warp_size // cfg.num_lanes
    log = await run_planted(dut, "shared", cfg, 8, "port-priority")
    if log is None:
        return
    mean = steady_cadence(log)
    shared = sum(is_shared(int(rec.instr)) for _, rec in log)
    dut._log.info(
        f"{len(log)} retires ({shared} shared): {mean:.3f} cycles per warp-instruction in steady state, "
        f"target <= ROWS + {SH_SLACK} = {rows + SH_SLACK}"
    )
    assert mean <= rows + SH_SLACK, f"{mean:.3f} cycles per warp-instruction, target <= {rows + SH_SLACK}"


@cocotb.test()
async def sm_issue_ahead(dut) -> None:
    cfg = benchenv.machine()
    rows = cfg.warp_size // cfg.num_lanes
    log = await run_planted(dut, "ahead", cfg, 12, "scoreboard")
    if log is None:
        return
    mean = steady_cadence(log)
    dut._log.info(
        f"{len(log)} retires of one warp: {mean:.3f} cycles per warp-instruction in steady state, "
        f"target <= ROWS + {AHEAD_SLACK} = {rows + AHEAD_SLACK}"
    )
    assert mean <= rows + AHEAD_SLACK, (
        f"{mean:.3f} cycles per warp-instruction, target <= {rows + AHEAD_SLACK}"
    )


@cocotb.test()
async def sm_ahead_ssy(dut) -> None:
    cfg = benchenv.machine()
    seen = {"in_region": 0}

    async def watch() -> None:
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if int(dut.rel.value) and int(dut.d_sync.value):
                seen["in_region"] += 1  # released while its warp's stack holds a SYNC

    mon = cocotb.start_soon(watch())
    log = await run_planted(dut, "ssy", cfg, 28, "release-at-rpc")
    mon.cancel()
    if log is None:
        return
    dut._log.info(f"{len(log)} retires, {seen['in_region']} instructions released inside a region")
    if cfg.warp_size // cfg.num_lanes > 1:  # simt_sm's default AHEAD_SSY = 0 there
        assert seen["in_region"] == 0, f"released inside a region with AHEAD_SSY = 0: {seen}"
        return
    # per round the four ADDIs at least (the XOR reaches the rpc and must wait for its retire)
    assert seen["in_region"] >= 4 * SSY_ROUNDS, f"too few releases inside a region: {seen}"


@cocotb.test()
async def sm_idle_first(dut) -> None:
    cfg = benchenv.machine()
    idle_min = 1  # simt_sm's default IDLE_MIN
    warps = dut.u_warps
    seen = {"grants": 0, "contested": 0, "broken": 0}
    first: list[str] = []

    async def watch() -> None:
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if not int(dut.u_issue.take_sched.value):
                continue
            ready = int(warps.rdy_all.value)
            ahead = [int(warps.w_ahead[w].value) for w in range(cfg.num_warps)]
            idle = [w for w in range(cfg.num_warps) if ready >> w & 1 and ahead[w] == 0]
            running = [w for w in range(cfg.num_warps) if ready >> w & 1 and ahead[w] > 0]
            g = int(dut.u_issue.f_warp.value)
            seen["grants"] += 1
            if len(idle) >= idle_min and running:
                seen["contested"] += 1
                if g in running:
                    seen["broken"] += 1
                    first.append(
                        f"warp {g} granted with {ahead[g]} ahead while warps {idle} had nothing in flight"
                    )

    mon = cocotb.start_soon(watch())
    await run_kernel(dut, "idle", cfg, image=_image(cfg, "idle"))
    mon.cancel()
    dut._log.info(f"grants {seen}")
    if os.environ.get("PIPE_FAULT") == "23":
        assert seen["broken"], f"planted fault 23 (no idle-warp rule) not caught: {seen}"
        dut._log.info(f"planted fault caught: {first[0]}")
        return
    assert not seen["broken"], f"{seen['broken']} grants broke the idle-warp rule, first: {first[0]}"
    assert seen["contested"] >= 10, f"the idle-warp rule was hardly tested: {seen}"


@cocotb.test()
async def sm_tid_table(dut) -> None:
    await run_planted(dut, "tids", benchenv.machine(), 18, "tid-table")


@cocotb.test()
async def sm_reset_flush(dut) -> None:
    cfg = benchenv.machine()
    image = _image(cfg, os.environ.get("PIPE_KERNEL", "alustream"))
    shared = os.environ.get("PIPE_KERNEL") == "shared"
    rng = random.Random(cocotb.RANDOM_SEED)
    mem = np.zeros(cfg.global_words, np.uint32)
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    drv = SmDriver(dut, cfg, image)
    drv.idle_inputs()
    dut.rst.value = 1
    GmemResponder(dut, dut.clk, mem, reset=dut.rst, latency=(2, 10), rng=rng).start()
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    await drv.load()
    dispatch = cocotb.start_soon(drv.dispatch_all())
    retires = 0
    for _ in range(20_000):
        await RisingEdge(dut.clk)
        await ReadOnly()
        retires += int(dut.rt_valid.value)
        # A shared kernel is reset right after a shared retire: more shared rows are landing then.
        if retires >= 100 and (
            not shared or (int(dut.rt_valid.value) and is_shared(int(dut.rt_instr.value)))
        ):
            break
    assert retires >= 100, f"only {retires} retires before the planned reset"
    await FallingEdge(dut.clk)
    dispatch.cancel()
    drv.idle_inputs()
    dut.blk_valid.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    seen: list[str] = []
    for cyc in range(QUIET):
        await RisingEdge(dut.clk)
        await ReadOnly()
        for name in ("rt_valid", "sh_obs_we", "mreq_valid", "err_valid"):
            if int(getattr(dut, name).value):
                seen.append(f"{name} high {cyc + 1} cycles after the reset")
        if not int(dut.idle.value):
            seen.append(f"idle low {cyc + 1} cycles after the reset")
    if os.environ.get("PIPE_FAULT") in ("6", "9"):
        assert seen, "planted stale state not caught: nothing happened after the reset"
        dut._log.info(f"planted fault caught: {seen[0]}")
    else:
        assert not seen, "; ".join(seen[:4])
        dut._log.info(f"reset after {retires} retires: {QUIET} quiet cycles")


def _run(testcase: str, machine: str, fault: int, kernel: str = "alustream") -> None:
    rtlsim.run(
        "simt_sm",
        SM_SOURCES,
        __name__,
        machine=MACHINES[machine],
        extra_env={"PIPE_FAULT": str(fault), "PIPE_KERNEL": kernel},
        testcase=testcase,
        tag=f"w32{machine}",  # the build of test_sm.py's machine of that name
        fault=fault,  # one build with the hooks for the fault-free and the planted runs
    )


@pytest.mark.parametrize("fault", [0, 5], ids=["pipelined", "planted-serial-issue"])
@pytest.mark.parametrize("machine", list(MACHINES))
def test_alu_cadence(machine: str, fault: int) -> None:
    """ALU code with enough ready warps streams at ROWS + 0.25 cycles per warp-instruction or better."""
    _run("sm_cadence", machine, fault)


@pytest.mark.parametrize(
    "fault,kernel",
    [(0, "alustream"), (6, "alustream"), (0, "shared"), (9, "shared")],
    ids=["flushed", "planted-stale-token", "flushed-shared", "planted-stale-swb"],
)
def test_reset_flush(fault: int, kernel: str) -> None:
    """A reset in the middle of a kernel empties every stage (the shared writeback included)."""
    _run("sm_reset_flush", "l8", fault, kernel)


# The port fault only on 8 lanes: with the 32-lane bench's 4 warps a landing row never meets another
# warp's writing row in this traffic (each warp's next instruction waits for its own retire).
@pytest.mark.parametrize(
    "machine,fault",
    [("l8", 0), ("l32", 0), ("l8", 8)],
    ids=["l8-streamed", "l32-streamed", "l8-planted-port-priority"],
)
def test_shared_stream(machine: str, fault: int) -> None:
    """Shared loads of consecutive warps stream through EX; the writeback keeps the write port."""
    _run("sm_shared_stream", machine, fault)


@pytest.mark.parametrize(
    "machine,fault",
    [("l8", 0), ("l32", 0), ("l32", 12)],
    ids=["l8-ahead", "l32-ahead", "l32-planted-no-hold"],
)
def test_issue_ahead(machine: str, fault: int) -> None:
    """One warp issues its next instruction while the last is in flight; reads wait for their writes."""
    _run("sm_issue_ahead", machine, fault)


@pytest.mark.parametrize(
    "machine,fault",
    [("l8", 0), ("l32", 0), ("l32", 28)],
    ids=["l8-ahead-ssy", "l32-ahead-ssy", "l32-planted-ahead-at-rpc"],
)
def test_ahead_ssy(machine: str, fault: int) -> None:
    """At 32 lanes a warp with a SYNC on its stack issues ahead, except past the instruction that reaches
    the rpc; at 8 lanes (AHEAD_SSY = 0 by default) it does not."""
    _run("sm_ahead_ssy", machine, fault)


@pytest.mark.parametrize(
    "machine,fault",
    [("l8", 0), ("l8", 23)],
    ids=["l8-idle-first", "l8-planted-no-idle-first"],
)
# Only on 8 lanes: the 32-lane bench's 4 warps seldom meet the rule's choice in this traffic (6-7 grants
# of 848 had an idle warp and one running ahead both READY).
def test_idle_first(machine: str, fault: int) -> None:
    """With issue ahead the scheduler grants a warp with nothing in flight before one running ahead."""
    _run("sm_idle_first", machine, fault)


@pytest.mark.parametrize(
    "machine,fault",
    [("l8", 0), ("l32", 0), ("l8", 18)],
    ids=["l8-tids", "l32-tids", "l8-planted-tid-entry"],
)
def test_tid_table(machine: str, fault: int) -> None:
    """Every thread of partial-group, three-dimensional blocks reads its own tid from the table."""
    _run("sm_tid_table", machine, fault)
