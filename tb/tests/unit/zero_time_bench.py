"""cocotb bench of test_zero_time_hang.py: drives a copy of simt_barrier with a planted zero-time loop
(a ``for`` whose step never advances, entered at the first arrive after reset) into its hang."""

from __future__ import annotations

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles


@cocotb.test()
async def hang_after_reset(dut) -> None:  # type: ignore[no-untyped-def]
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
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
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 5)
    dut._log.info("arriving: the planted loop starts at the next edge")
    dut.arrive.value = 1
    await ClockCycles(dut.clk, 20)  # never returns: the simulator is stuck at the edge
    raise AssertionError("the planted zero-time loop did not hang the simulator")
