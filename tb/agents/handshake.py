"""Valid/ready waits shared by every driver and monitor: the one sampling rule, and the one bound.

A DUT that never answers a handshake must end the run with a report naming the signal, never freeze
it: every wait here counts cycles and raises :class:`HandshakeTimeout` after ``bound`` of them.
Drivers call :func:`wait_high` (the handshake is decided in ReadOnly, before the edge) or
:func:`edge_when_high` (decided by the value sampled at the edge); monitors call
:func:`next_handshake`, which sleeps while the channel is idle and bounds only the wait for ready.
"""

from __future__ import annotations

from typing import Any

from cocotb.triggers import ReadOnly, RisingEdge

DEFAULT_BOUND = 20_000  # cycles; far above any legal back-pressure of the project's DUTs


class HandshakeTimeout(AssertionError):
    """A DUT handshake signal stayed low for the bound: the DUT does not answer."""


def signal_name(signal: Any) -> str:
    """The signal's hierarchical name (for reports)."""
    return str(getattr(signal, "_path", None) or getattr(signal, "_name", None) or signal)


def _high(signal: Any) -> bool:
    value = signal.value
    return bool(value.is_resolvable and int(value))


def _timeout(signal: Any, bound: int, what: str) -> HandshakeTimeout:
    return HandshakeTimeout(
        f"{what}: {signal_name(signal)} stayed low for {bound} cycles: the DUT never answered the handshake "
        "(a stuck ready/valid; see the waves with WAVES=1)"
    )


async def wait_high(clock: Any, signal: Any, *, what: str, bound: int = DEFAULT_BOUND) -> int:
    """Return in the ReadOnly phase of the first cycle (this one included) in which ``signal`` is high,
    with the number of cycles waited; the caller acts on the handshake, then awaits the rising edge."""
    for waited in range(bound):
        await ReadOnly()
        if _high(signal):
            return waited
        await RisingEdge(clock)
    raise _timeout(signal, bound, what)


async def edge_when_high(clock: Any, signal: Any, *, what: str, bound: int = DEFAULT_BOUND) -> int:
    """Return right after the first rising edge at which ``signal`` was high (values read then are
    those of the cycle that just ended), with the number of edges waited."""
    for waited in range(bound):
        await RisingEdge(clock)
        if _high(signal):
            return waited
    raise _timeout(signal, bound, what)


async def next_handshake(clock: Any, valid: Any, ready: Any, *, bound: int = DEFAULT_BOUND) -> None:
    """Return at the rising edge where ``valid`` and ``ready`` were both high.

    Values read right after the return are those of the cycle that just ended (the transfer's
    payload). While ``valid`` is low this sleeps on its rising edge, so an idle channel costs nothing
    per cycle; ``valid`` is read in ReadOnly, so a driver writing it in the same timestep is no race.
    Once ``valid`` is high, ``ready`` must follow within ``bound`` cycles.
    """
    held = 0
    while True:
        await ReadOnly()
        if not _high(valid):
            held = 0
            await RisingEdge(valid)
            continue
        await RisingEdge(clock)
        if int(ready.value):
            return
        held += 1
        if held >= bound:
            raise _timeout(ready, bound, f"monitor of {signal_name(valid)}")
