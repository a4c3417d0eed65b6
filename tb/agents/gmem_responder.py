"""Global-memory responder: a cocotb model of the memory behind an SM memory port (docs/sm.md).

The port (signal names after an optional prefix)::

    mreq_valid  in   mreq_ready  out  (driven here)
    mreq_addr   in   segment base word address
    mreq_write  in   1 = store
    mreq_mask   in   SEG_WORDS word mask (bit i: word addr + i)
    mreq_wdata  in   SEG_WORDS x 32 store data (word i at bits [i*32 +: 32])
    mreq_tag    in   returned with the response
    mrsp_valid  out  (driven here)  mrsp_ready  in
    mrsp_tag    out  mrsp_rdata out  SEG_WORDS x 32 load data (0 for stores and unmasked words)

Ordering choice: a request takes effect on the memory **when it is accepted** (the rising edge where
mreq_valid and mreq_ready are both high): a store writes its masked words then, a load reads its
segment then. The response (load data or store acknowledgement) only reports it, ``latency`` cycles
later. So the memory's order is the order of acceptance; a warp that waits for its store's
acknowledgement before issuing a load (docs/isa.md 6.4) always sees its own store.

Knobs: ``req_ready_prob`` (mreq_ready is high with that probability each cycle), ``latency``
(min, max) cycles from acceptance until the response may be presented (uniform), ``out_of_order``
(responses are presented in order of their random ready cycle, so a later request can overtake an
earlier one; otherwise strictly in request order), ``rsp_valid_prob`` (probability that a ready
response is presented in a given cycle: bubbles on the response channel). A presented response is
held stable until mrsp_ready takes it.

Every transaction is recorded as a :class:`MemTxn` in :attr:`GmemResponder.transactions` and passed
to the ``on_request`` / ``on_response`` callbacks, for monitors and scoreboards. The class only
knows the port: it does not know the unit behind it, so a pyuvm agent can wrap it unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from cocotb import start_soon
from cocotb.handle import SimHandleBase
from cocotb.task import Task
from cocotb.triggers import ReadOnly, RisingEdge

M32 = 0xFFFF_FFFF


class ProtocolError(AssertionError):
    """The DUT broke the memory-port protocol (X on a valid, a changed held request, bad address)."""


@dataclass
class MemTxn:
    """One memory-port transaction.

    ``data`` is the store data (``SEG_WORDS`` words as sent, unmasked words included) for a write,
    and the returned load data (unmasked words 0) for a read. Cycle n is the clock period after the
    n-th rising edge since :meth:`GmemResponder.start`: ``issue_cycle`` / ``response_cycle`` are the
    cycles in which the request / response handshake was high (it completes at the next edge;
    ``response_cycle`` is None until the response is taken), ``ready_cycle`` the first cycle in which
    the response may be presented (``issue_cycle`` + latency).
    """

    addr: int
    write: bool
    mask: int
    data: tuple[int, ...]
    tag: int
    issue_cycle: int
    ready_cycle: int = 0
    response_cycle: int | None = None
    seq: int = 0  # acceptance order (0, 1, 2, ...)
    overtook: bool = False  # answered while an earlier-accepted request was still unanswered
    held: bool = False  # held off (valid, not ready) at least one cycle before it was accepted


def _bit(handle: SimHandleBase) -> int | None:
    """Value of a 1-bit signal, None when it is X/Z (Icarus before reset)."""
    v = handle.value
    return int(v) if v.is_resolvable else None


class GmemResponder:
    """Memory model attached to a DUT's ``mreq_*``/``mrsp_*`` signals.

    Args:
        dut: the DUT handle holding the port signals.
        clk: the clock the port is synchronous to.
        mem: word-addressed memory (numpy uint32), modified in place by stores.
        prefix: prepended to every signal name (``""`` → ``dut.mreq_valid``; ``"sm0_"`` →
            ``dut.sm0_mreq_valid``).
        reset: optional active-high reset; while it is high the responder idles, samples nothing and
            drops every response still in flight (counted in :attr:`dropped`).
        req_ready_prob: probability that mreq_ready is high in a cycle.
        latency: (min, max) cycles from acceptance to the earliest cycle the response is presented;
            min is at least 1.
        out_of_order: present responses by ready cycle (True) or in request order (False).
        rsp_valid_prob: probability that a ready response is presented in a cycle.
        rng: random source (default: the ``random`` module, which cocotb seeds).
        check_protocol: raise :class:`ProtocolError` when a request is X while valid, changes while
            held (valid and not ready) or addresses memory outside ``mem``.
    """

    def __init__(
        self,
        dut: Any,
        clk: SimHandleBase,
        mem: np.ndarray,
        *,
        prefix: str = "",
        reset: SimHandleBase | None = None,
        req_ready_prob: float = 1.0,
        latency: tuple[int, int] = (1, 1),
        out_of_order: bool = False,
        rsp_valid_prob: float = 1.0,
        rng: random.Random | Any = None,
        check_protocol: bool = True,
    ) -> None:
        if mem.dtype != np.uint32:
            raise TypeError("GmemResponder: mem must be a numpy uint32 array")
        self.clk = clk
        self.mem = mem
        self.reset = reset
        self.req_ready_prob = req_ready_prob
        self.latency = latency
        self.out_of_order = out_of_order
        self.rsp_valid_prob = rsp_valid_prob
        self.rng = rng if rng is not None else random
        self.check_protocol = check_protocol

        def sig(name: str) -> SimHandleBase:
            return getattr(dut, prefix + name)

        self.req_valid, self.req_ready = sig("mreq_valid"), sig("mreq_ready")
        self.req_addr, self.req_write = sig("mreq_addr"), sig("mreq_write")
        self.req_mask, self.req_wdata, self.req_tag = sig("mreq_mask"), sig("mreq_wdata"), sig("mreq_tag")
        self.rsp_valid, self.rsp_ready = sig("mrsp_valid"), sig("mrsp_ready")
        self.rsp_tag, self.rsp_rdata = sig("mrsp_tag"), sig("mrsp_rdata")
        self.seg_words = len(self.req_mask)

        self.transactions: list[MemTxn] = []
        self.on_request: list[Callable[[MemTxn], None]] = []
        self.on_response: list[Callable[[MemTxn], None]] = []
        self.cycle = 0
        self._pending: list[MemTxn] = []  # accepted, response not yet taken
        self.dropped = 0  # responses discarded by a reset
        self.held = 0  # requests held off at least one cycle (valid while ready was low)
        self._presented: MemTxn | None = None
        self._held: tuple[int, ...] | None = None  # request payload seen valid and not accepted
        self._task: Task | None = None
        self._ready_q = self._valid_q = False  # last values written to mreq_ready / mrsp_valid

    # ------------------------------------------------------------------ public
    def start(self) -> None:
        """Drive the port idle and start serving requests."""
        self.req_ready.value = 0
        self.rsp_valid.value = 0
        self.rsp_tag.value = 0
        self.rsp_rdata.value = 0
        self._task = start_soon(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    @property
    def outstanding(self) -> int:
        """Accepted requests whose response has not been taken."""
        return len(self._pending)

    @property
    def responses(self) -> int:
        return sum(t.response_cycle is not None for t in self.transactions)

    async def drain(self, max_cycles: int = 100_000) -> None:
        """Wait until every accepted request has been answered (raise after ``max_cycles``)."""
        for _ in range(max_cycles):
            if not self._pending:
                return
            await RisingEdge(self.clk)
        raise TimeoutError(f"GmemResponder: {len(self._pending)} response(s) still outstanding")

    # ------------------------------------------------------------------ per cycle
    async def _run(self) -> None:
        rsp_taken = False
        while True:
            await RisingEdge(self.clk)
            self.cycle += 1
            if rsp_taken:  # the response presented in the last cycle was taken at this edge
                self._retire_presented()
            if self.reset is not None and _bit(self.reset) != 0:
                # The memory system shares the GPU's reset: responses still in flight are dropped
                # (their stores already took effect at acceptance), so none reaches the reset DUT.
                self.req_ready.value = 0
                self.rsp_valid.value = 0
                self._ready_q = self._valid_q = False
                self._held = None
                self.dropped += len(self._pending)
                self._pending.clear()
                await ReadOnly()
                rsp_taken = False
                continue
            ready = self.rng.random() < self.req_ready_prob
            if ready != self._ready_q:  # write only on change: a write per cycle is the main cost
                self.req_ready.value = int(ready)
                self._ready_q = ready
            self._drive_response()
            await ReadOnly()
            if _bit(self.req_valid) is None and self.check_protocol:
                raise ProtocolError("mreq_valid is X/Z out of reset")
            if _bit(self.req_valid):
                self._sample_request(ready)
            else:
                self._held = None
            rsp_taken = self._presented is not None and _bit(self.rsp_ready) == 1

    def _sample_request(self, ready: bool) -> None:
        payload = (
            int(self.req_addr.value),
            int(self.req_write.value),
            int(self.req_mask.value),
            int(self.req_wdata.value) if int(self.req_write.value) else 0,
            int(self.req_tag.value),
        )
        if self.check_protocol and self._held is not None and payload != self._held:
            raise ProtocolError(f"request changed while held (valid, not ready): {self._held} -> {payload}")
        if not ready:
            if self._held is None:
                self.held += 1
            self._held = payload
            return
        self._held = None
        addr, write, mask, wdata, tag = payload
        seg = self.seg_words
        if self.check_protocol and (addr % seg or addr + seg > len(self.mem)):
            raise ProtocolError(
                f"request address {addr:#x} unaligned or outside memory ({len(self.mem)} words)"
            )
        words = [(wdata >> (32 * i)) & M32 for i in range(seg)]
        if write:
            for i in range(seg):
                if mask >> i & 1:
                    self.mem[addr + i] = words[i]
            data = tuple(words)
        else:
            data = tuple(int(self.mem[addr + i]) if mask >> i & 1 else 0 for i in range(seg))
        lo, hi = self.latency
        ready_cycle = self.cycle + max(1, self.rng.randint(lo, hi))
        txn = MemTxn(addr, bool(write), mask, data, tag, self.cycle, ready_cycle, seq=len(self.transactions))
        self.transactions.append(txn)
        self._pending.append(txn)
        for cb in self.on_request:
            cb(txn)

    def _drive_response(self) -> None:
        if self._presented is None:
            nxt = self._next_ready()
            if nxt is not None and self.rng.random() < self.rsp_valid_prob:
                self._presented = nxt
                rdata = 0 if nxt.write else sum(w << (32 * i) for i, w in enumerate(nxt.data))
                self.rsp_tag.value = nxt.tag
                self.rsp_rdata.value = rdata
        valid = self._presented is not None
        if valid != self._valid_q:
            self.rsp_valid.value = int(valid)
            self._valid_q = valid

    def _next_ready(self) -> MemTxn | None:
        if not self._pending:
            return None
        if self.out_of_order:
            cand = min(self._pending, key=lambda t: (t.ready_cycle, t.seq))
        else:
            cand = self._pending[0]
        return cand if cand.ready_cycle <= self.cycle else None

    def _retire_presented(self) -> None:
        txn = self._presented
        assert txn is not None
        txn.response_cycle = self.cycle - 1  # the cycle in which the handshake happened
        self._pending.remove(txn)
        self._presented = None
        txn.overtook = any(p.seq < txn.seq for p in self._pending)
        for cb in self.on_response:
            cb(txn)
