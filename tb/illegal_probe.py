"""cocotb test module for illegal-parameter checks (tb/rtlsim.py ``expect_fatal``).

An RTL module given an illegal parameter must stop the simulator at time 0 with a readable
``$fatal``; cocotb starts tests before time-0 ``initial`` blocks run, so this probe waits 1 us and
fails if the simulation is still alive.
"""

from __future__ import annotations

import cocotb
from cocotb.triggers import Timer

RAN_ON = "elaborated and ran with an illegal parameter"  # rtlsim.expect_fatal fails on this text


@cocotb.test()
async def illegal_probe(dut) -> None:
    await Timer(1, unit="us")
    raise AssertionError(f"{dut._name} {RAN_ON}")
