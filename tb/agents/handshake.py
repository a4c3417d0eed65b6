"""The one sampling rule every passive monitor of a valid/ready channel uses."""

from __future__ import annotations

from typing import Any

from cocotb.triggers import ReadOnly, RisingEdge


async def next_handshake(clock: Any, valid: Any, ready: Any) -> None:
    """Return at the rising edge where ``valid`` and ``ready`` were both high.

    Values read right after the return are those of the cycle that just ended (the transfer's
    payload). While ``valid`` is low this sleeps on its rising edge, so an idle channel costs nothing
    per cycle; ``valid`` is read in ReadOnly, so a driver writing it in the same timestep is no race.
    """
    while True:
        await ReadOnly()
        if not (valid.value.is_resolvable and int(valid.value)):
            await RisingEdge(valid)
            continue
        await RisingEdge(clock)
        if int(ready.value):
            return
