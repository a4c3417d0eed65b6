"""Global-memory agent: the knobs of the HDL memory behind the GPU, and the Python image of its contents.

The memory itself is Verilog (tb/hdl/simt_tb_mem.v, inside the test wrapper): it answers every request
without Python, so a cycle where nothing is observed costs no Python at all. This agent

* sets the memory's knobs (``GMEM_KNOBS`` from the ConfigDB, or a launch item's ``gmem``) and clears
  the memory at the start of each launch (``launch_export``, from the host driver); a memory made
  deaf for a hang test (``rsp_valid_prob`` 0) answers again from the launch's ABORT (``host_export``);
* keeps :attr:`mem` (the ConfigDB's ``GMEM`` numpy image) equal to the HDL memory by applying every
  store request the trace monitor reports (``request_export``), in acceptance order — the order in
  which the HDL memory applies them — so the end-of-kernel check reads what the GPU's stores made.

Knobs (the former Python responder's, tb/agents/gmem_responder.py): ``req_ready_prob``, ``latency``
(min, max), ``out_of_order``, ``rsp_valid_prob``; probabilities become 256ths in the HDL.
"""

from __future__ import annotations

from typing import Any

import cocotb
import numpy as np
import pyuvm
from cocotb.triggers import RisingEdge

from tb.agents.host_bfm import CTRL_ABORT, REG_CTRL

#: named memory settings (tests pick one; the memory-stress test uses "stress")
GMEM_PROFILES: dict[str, dict[str, Any]] = {
    "ideal": {"req_ready_prob": 1.0, "latency": (1, 1), "out_of_order": False, "rsp_valid_prob": 1.0},
    "default": {"req_ready_prob": 0.7, "latency": (2, 40), "out_of_order": True, "rsp_valid_prob": 0.8},
    "stress": {"req_ready_prob": 0.3, "latency": (1, 200), "out_of_order": True, "rsp_valid_prob": 0.4},
}


def _pct(prob: float) -> int:
    if not 0.0 <= prob <= 1.0:
        raise ValueError(f"memory knob probability {prob} outside 0..1")
    return round(prob * 256)


def apply_knobs(dut: Any, knobs: dict[str, Any], seed: int) -> None:
    """Drive the wrapper's memory knob inputs (between launches; the memory reads them every cycle)."""
    lo, hi = knobs["latency"]
    if not 1 <= lo <= hi < 1 << 16:
        raise ValueError(f"memory latency {knobs['latency']}: need 1 <= min <= max < 65536")
    dut.mem_ready_pct.value = _pct(knobs["req_ready_prob"])
    dut.mem_rsp_pct.value = _pct(knobs["rsp_valid_prob"])
    dut.mem_lat_min.value, dut.mem_lat_max.value = lo, hi
    dut.mem_ooo.value = int(bool(knobs["out_of_order"]))
    dut.mem_seed.value = seed & (1 << 64) - 1


class GmemAgent(pyuvm.uvm_component):
    def build_phase(self) -> None:
        db = pyuvm.ConfigDB()
        self.dut = db.get(self, "", "DUT")
        self.mem: np.ndarray = db.get(self, "", "GMEM")
        self.knobs: dict[str, Any] = dict(db.get(self, "", "GMEM_KNOBS"))
        self.base_knobs = dict(self.knobs)
        self.rng = db.get(self, "", "RNG")
        self.launch_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("launch_export", self, self.write_launch)
        self.request_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("request_export", self, self.write_request)
        self.host_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("host_export", self, self.write_host)

    def start_of_simulation_phase(self) -> None:
        apply_knobs(self.dut, self.knobs, self.rng.getrandbits(64))  # the seed is loaded during reset
        self.dut.mem_clear.value = 0

    def write_launch(self, event: tuple[str, Any]) -> None:
        what, item = event
        if what != "begin":
            return
        if item.gmem is not None:
            self.knobs = dict(item.gmem)
            apply_knobs(self.dut, self.knobs, self.rng.getrandbits(64))
        self.mem[:] = 0
        self.dut.mem_clear.value = 1
        cocotb.start_soon(self._end_clear())

    def write_host(self, acc: Any) -> None:
        """A memory made deaf for a hang test (``rsp_valid_prob`` 0: it never answers) answers again
        from the ABORT that ends the launch, so the GPU's drain completes (docs/gpu.md ABORT)."""
        if acc.write and acc.addr == REG_CTRL and acc.data & CTRL_ABORT and self.knobs["rsp_valid_prob"] == 0:
            self.knobs = dict(self.base_knobs)
            apply_knobs(self.dut, self.knobs, self.rng.getrandbits(64))

    async def _end_clear(self) -> None:
        await RisingEdge(self.dut.clk)  # the memory clears at this edge, before the image's first word
        self.dut.mem_clear.value = 0

    def write_request(self, txn: Any) -> None:
        if not txn.write:
            return
        for i, word in enumerate(txn.data):
            if txn.mask >> i & 1:
                self.mem[txn.addr + i] = word
