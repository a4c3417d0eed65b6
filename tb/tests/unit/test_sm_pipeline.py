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
- **Flush on error** is checked for every error kind by ``test_sm.py``: after the error nothing
  retires (an older instruction may retire on the edge that raises it).
"""

from __future__ import annotations

import os
import random

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

from kernels import suite
from spec.config import GpuConfig
from tb import benchenv, rtlsim
from tb.agents.gmem_responder import GmemResponder
from tb.agents.sm_driver import SmDriver
from tb.tests.unit.test_sm import CONFIGS, SM_SOURCES, run_kernel

MACHINES = {"l8": CONFIGS["w32l8"], "l32": CONFIGS["w32l32"]}
SLACK = 0.25  # cycles per warp-instruction over ROWS allowed in steady state
QUIET = 40  # cycles checked after a reset


def _case(cfg: GpuConfig) -> suite.Case:
    """AluStream with one block of every warp slot."""
    return suite.prepare("alustream", cfg.num_warps * cfg.warp_size, seed=1, cfg=cfg)


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
    await run_kernel(dut, "alustream", cfg, image=_case(cfg).image, retire_log=log)
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


@cocotb.test()
async def sm_reset_flush(dut) -> None:
    cfg = benchenv.machine()
    image = _case(cfg).image
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
        if retires >= 100:
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
    if os.environ.get("PIPE_FAULT") == "6":
        assert seen, "planted stale DEC instruction not caught: nothing happened after the reset"
        dut._log.info(f"planted fault caught: {seen[0]}")
    else:
        assert not seen, "; ".join(seen[:4])
        dut._log.info(f"reset after {retires} retires: {QUIET} quiet cycles")


def _run(testcase: str, machine: str, fault: int) -> None:
    rtlsim.run(
        "simt_sm",
        SM_SOURCES,
        __name__,
        machine=MACHINES[machine],
        extra_env={"PIPE_FAULT": str(fault)},
        testcase=testcase,
        tag=f"w32{machine}" + ("-faults" if fault else ""),
        defines={"SIMT_FAULTS": 1} if fault else None,
        plusargs=[f"+SIMT_FAULT={fault}"] if fault else (),
    )


@pytest.mark.parametrize("fault", [0, 5], ids=["pipelined", "planted-serial-issue"])
@pytest.mark.parametrize("machine", list(MACHINES))
def test_alu_cadence(machine: str, fault: int) -> None:
    """ALU code with enough ready warps streams at ROWS + 0.25 cycles per warp-instruction or better."""
    _run("sm_cadence", machine, fault)


@pytest.mark.parametrize("fault", [0, 6], ids=["flushed", "planted-stale-token"])
def test_reset_flush(fault: int) -> None:
    """A reset in the middle of a kernel empties every stage."""
    _run("sm_reset_flush", "l8", fault)
