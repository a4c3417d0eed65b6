"""Global-memory agent: the responder behind the GPU's external memory port, and a passive monitor.

* :class:`GmemMonitor` (cocotb-bus ``BusMonitor``) publishes every request handshake as a
  :class:`~tb.agents.gmem_responder.MemTxn` and every response handshake as a :class:`MemResponse`.
  It does not look inside the responder, so it sees what the port carried, whichever memory model
  answers. Each channel sleeps while its valid is low (:func:`tb.agents.handshake.next_handshake`).
* :class:`GmemAgent` (pyuvm) owns the numpy memory image, builds the responder with the knobs it
  gets from the ConfigDB (``GMEM_KNOBS``: latency range, backpressure and response-bubble
  probabilities, out-of-order completion) and exposes the monitor on two analysis ports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cocotb
import numpy as np
import pyuvm
from cocotb_bus.monitors import BusMonitor

from tb.agents.gmem_responder import M32, GmemResponder, MemTxn
from tb.agents.handshake import next_handshake

REQ_SIGNALS = ["mreq_valid", "mreq_ready", "mreq_addr", "mreq_write", "mreq_mask", "mreq_wdata", "mreq_tag"]
RSP_SIGNALS = ["mrsp_valid", "mrsp_ready", "mrsp_tag", "mrsp_rdata"]

#: named responder settings (tests pick one; the memory-stress test uses "stress")
GMEM_PROFILES: dict[str, dict[str, Any]] = {
    "ideal": {"req_ready_prob": 1.0, "latency": (1, 1), "out_of_order": False, "rsp_valid_prob": 1.0},
    "default": {"req_ready_prob": 0.7, "latency": (2, 40), "out_of_order": True, "rsp_valid_prob": 0.8},
    "stress": {"req_ready_prob": 0.3, "latency": (1, 200), "out_of_order": True, "rsp_valid_prob": 0.4},
}


@dataclass
class MemResponse:
    tag: int
    rdata: tuple[int, ...]


class GmemMonitor(BusMonitor):
    """Publishes requests (``callback``) and responses (``on_response``) seen on the memory port."""

    _signals = REQ_SIGNALS + RSP_SIGNALS

    def __init__(self, dut: Any, clock: Any, callback: Any = None, on_response: Any = None) -> None:
        self.on_response = on_response
        super().__init__(dut, None, clock, callback=callback)
        self.seg_words = len(self.bus.mreq_mask)
        self._rsp_task = cocotb.start_soon(self._responses())

    async def _monitor_recv(self) -> None:
        b, seq = self.bus, 0
        while True:
            await next_handshake(self.clock, b.mreq_valid, b.mreq_ready)
            write = bool(int(b.mreq_write.value))
            wdata = int(b.mreq_wdata.value) if write else 0
            # issue_cycle 0: the monitor sleeps between transactions and counts no cycles
            self._recv(MemTxn(int(b.mreq_addr.value), write, int(b.mreq_mask.value), self._words(wdata),
                              int(b.mreq_tag.value), 0, seq=seq))  # fmt: skip
            seq += 1

    async def _responses(self) -> None:
        b = self.bus
        while True:
            await next_handshake(self.clock, b.mrsp_valid, b.mrsp_ready)
            if self.on_response is not None:
                self.on_response(MemResponse(int(b.mrsp_tag.value), self._words(int(b.mrsp_rdata.value))))

    def _words(self, packed: int) -> tuple[int, ...]:
        return tuple((packed >> (32 * i)) & M32 for i in range(self.seg_words))

    def kill(self) -> None:
        super().kill()
        if self._rsp_task is not None:
            self._rsp_task.cancel()
            self._rsp_task = None


class GmemAgent(pyuvm.uvm_component):
    """Memory image + responder (always) + monitor (when ``GMEM_MONITOR`` is true in the ConfigDB)."""

    def build_phase(self) -> None:
        self.dut = pyuvm.ConfigDB().get(self, "", "DUT")
        self.mem: np.ndarray = pyuvm.ConfigDB().get(self, "", "GMEM")
        self.knobs: dict[str, Any] = pyuvm.ConfigDB().get(self, "", "GMEM_KNOBS")
        self.rng = pyuvm.ConfigDB().get(self, "", "RNG")
        self.request_ap = pyuvm.uvm_analysis_port("request_ap", self)
        self.response_ap = pyuvm.uvm_analysis_port("response_ap", self)
        self.monitor_on = bool(pyuvm.ConfigDB().get(self, "", "GMEM_MONITOR"))
        self.responder: GmemResponder | None = None
        self.monitor: GmemMonitor | None = None

    def start_of_simulation_phase(self) -> None:
        dut = self.dut
        self.responder = GmemResponder(dut, dut.clk, self.mem, reset=dut.rst, rng=self.rng, **self.knobs)
        self.responder.start()
        if self.monitor_on:
            self.monitor = GmemMonitor(dut, dut.clk, callback=self.request_ap.write, on_response=self.response_ap.write)

    def set_profile(self, knobs: dict[str, Any]) -> None:
        """Change latency/backpressure/ordering between launches."""
        assert self.responder is not None
        for k, v in knobs.items():
            setattr(self.responder, k, v)
