"""What every passive monitor of the GPU waits for first: the first reset (:func:`reset_applied`).

The GPU's observations (dispatches, retires, shared-memory writes, memory traffic) are read from the
test wrapper's trace by tb/agents/trace_monitor.py; the host monitor (tb/agents/host_bfm.py) samples
the host interface and starts at the first reset.
"""

from __future__ import annotations

from typing import Any

from cocotb.triggers import FallingEdge, RisingEdge


def _int(handle: Any) -> int:
    v = handle.value
    return int(v) if v.is_resolvable else 0


async def reset_applied(clk: Any, rst: Any) -> None:
    """Return at the first rising clock edge with ``rst`` high (seen at the falling edge before it).

    Until then every register holds what the simulator starts it with: X on Icarus, random bits on
    Verilator (tb/rtlsim.py), so an observation port's valid may be 1 with garbage behind it.
    """
    while True:
        await FallingEdge(clk)
        if _int(rst):
            await RisingEdge(clk)
            return
