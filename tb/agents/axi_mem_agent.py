"""Global memory of the AXI top (rtl/top/simt_gpu_axi.v): cocotbext-axi's ``AxiRam`` on ``m_axi_*``.

The GPU's memory knobs (tb/agents/gmem_agent.py ``GMEM_PROFILES``) become the knobs of the Verilog
pacing in the test wrapper (tb/hdl/simt_tb_axi_pace.v, set once per launch: no Python per cycle):
``req_ready_prob`` is the chance that AW, W and AR may move in a cycle, ``rsp_valid_prob`` the
chance that R and B may; the wrapper's ``pace_stalls`` counts the cycles a channel was held off (the
test reads it, :meth:`AxiMemAgent.stalls`). ``out_of_order`` lets the read side answer any of up to four
waiting read bursts first (tb/agents/axi_reorder.py: other IDs overtake, so the bridge's IDs are
exercised); ``latency`` has no counterpart (the pacing delays instead). At each launch's ``begin`` the RAM and the image are cleared; at its
``end`` the image (``GMEM``, which the end-of-kernel check reads) is read back **out of the RAM**, so a
store the bridge lost or wrote wrongly on AXI fails the end-of-kernel check even though the native
port carried it right.

Planted faults (``AXI_FAULT``, meta-tests of tb/tests/system/test_axi.py): ``corrupt_read`` flips
bit 0 of every word of the first read burst (a corrupted R response: the retire scoreboard must
catch the wrong load value), ``drop_write`` loses the first word written after the first read (a
store the slave never performed: the end-of-kernel check must catch it), ``slverr_read`` answers the
first read beat SLVERR (the bridge's ``axi_error`` bit 0 must rise). The broken slaves of the
bridge's other ``axi_error`` checks (docs/gpu.md "AXI option"): ``decerr_write`` answers the first
write burst DECERR, its data written (bit 0 must rise: an error response on B), ``bad_rlast`` drops
RLAST on the last beat of the first read burst and ``extra_b`` sends the first B response twice, the
second with an ID no longer in flight (each a slave protocol violation: bit 1 must rise).

A launch with ``slave_error`` set (the fault soak's "slave-error" kind) gets one read beat of its
first burst answered SLVERR with the RAM's own data (tb/agents/axi_reorder.py): the launch must end
exactly as the model says, and the host must find ``axi_error`` bit 0 set and cleared by a reset.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pyuvm
from cocotb.triggers import FallingEdge
from cocotbext.axi import AxiBus
from cocotbext.axi.axi_ram import AxiRamWrite
from cocotbext.axi.constants import AxiResp

from tb.agents.axi_reorder import ReorderingAxiRamRead
from tb.agents.observers import reset_applied

FAULTS = ("corrupt_read", "drop_write", "slverr_read", "decerr_write", "bad_rlast", "extra_b")


def pct(prob: float) -> int:
    """A probability as the pacing's knob, in 256ths (256: always)."""
    if not 0.0 <= prob <= 1.0:
        raise ValueError(f"memory knob probability {prob} outside 0..1")
    return round(prob * 256)


class AxiMemAgent(pyuvm.uvm_component):
    def build_phase(self) -> None:
        db = pyuvm.ConfigDB()
        self.dut = db.get(self, "", "DUT")
        self.cfg = db.get(self, "", "GPU_CFG")
        self.mem: np.ndarray = db.get(self, "", "GMEM")
        self.knobs: dict[str, Any] = dict(db.get(self, "", "GMEM_KNOBS"))
        self.rng = db.get(self, "", "RNG")
        try:
            self.fault: str | None = db.get(self, "", "AXI_FAULT")
        except Exception:  # noqa: BLE001 - pyuvm raises its own error for a missing key
            self.fault = None
        if self.fault is not None and self.fault not in FAULTS:
            raise ValueError(f"AXI_FAULT={self.fault!r}: choose one of {', '.join(FAULTS)}")
        self.launch_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("launch_export", self, self.write_launch)
        # the native requests are not needed: the image is read out of the RAM at each launch's end
        self.request_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("request_export", self, lambda _txn: None)
        self.planted = 0  # beats the planted fault changed

    def start_of_simulation_phase(self) -> None:
        for name in ("awready", "wready", "bvalid", "arready", "rvalid"):  # until the RAM drives them
            getattr(self.dut, f"m_axi_{name}").value = 0
        self.dut.pace_seed.value = self.rng.getrandbits(64)  # loaded at each reset (Verilog xorshift)
        self.dut.pace_req_pct.value = self.dut.pace_rsp_pct.value = 256
        self.paced_launches = 0  # launches run with some pacing on
        self.pacing = False

    def stalls(self) -> int:
        """Cycles so far in which the pacing held off a channel with VALID (tb/hdl/simt_tb_axi_pace.v)."""
        return int(self.dut.pace_stalls.value)

    async def run_phase(self) -> None:
        # made once the first reset is over: cocotbext-axi's channels start sampling at once, and
        # before (and during) reset the master's outputs are X on Icarus, random bits on Verilator
        await reset_applied(self.dut.clk, self.dut.rst)
        while int(self.dut.rst.value):
            await FallingEdge(self.dut.clk)
        bus, clk, rst = AxiBus.from_prefix(self.dut, "m_axi"), self.dut.clk, self.dut.rst
        # AxiRam's two halves on one memory, the read half answering out of order (tb/agents/axi_reorder.py)
        self.ram = AxiRamWrite(bus.write, clk, rst, size=4 * self.cfg.global_words)
        self.reader = ReorderingAxiRamRead(
            bus.read, clk, rst, size=4 * self.cfg.global_words, mem=self.ram.mem, rng=self.rng
        )
        logging.getLogger(f"cocotb.{self.dut._name}.m_axi").setLevel(logging.WARNING)  # a line per burst
        self.apply(self.knobs)
        if self.fault is not None:
            self._plant(self.fault)

    def apply(self, knobs: dict[str, Any]) -> None:
        self.reader.depth = 4 if knobs["out_of_order"] else 1  # ARs among which the next burst is drawn
        req, rsp = pct(knobs["req_ready_prob"]), pct(knobs["rsp_valid_prob"])
        self.dut.pace_req_pct.value, self.dut.pace_rsp_pct.value = req, rsp
        self.pacing = min(req, rsp) < 256

    def write_launch(self, event: tuple[str, Any]) -> None:
        what, item = event
        if what == "begin":
            if item.gmem is not None:
                self.apply(item.gmem)
            self.paced_launches += self.pacing
            # the fault soak's "slave-error": one of the first burst's beats SLVERR, with its data
            self.reader.error_in = self.rng.randrange(self.cfg.seg_words) if item.slave_error else None
            self.ram.write(0, bytes(4 * self.cfg.global_words))
            self.mem[:] = 0
        else:  # "end" or "abandon": what the slave holds now
            self.mem[:] = np.frombuffer(self.ram.read(0, 4 * self.cfg.global_words), dtype="<u4")

    def _plant(self, fault: str) -> None:
        """Wrap the RAM's beat accesses (cocotbext-axi calls ``_read``/``_write`` once per beat)."""
        r, w = self.reader, self.ram
        read, write = r._read, w._write
        seg = self.cfg.seg_words
        state = {"reads": 0, "dropped": False}

        async def bad_read(address: int, length: int) -> bytes:
            data = await read(address, length)
            state["reads"] += 1
            if fault == "slverr_read" and state["reads"] == 1:
                self.planted += 1
                raise OSError("planted: slave error")  # cocotbext-axi answers the beat SLVERR
            if fault == "corrupt_read" and state["reads"] <= seg:
                self.planted += 1
                return bytes([data[0] ^ 1]) + data[1:]
            return data

        async def bad_write(address: int, data: bytes) -> None:
            if fault == "drop_write" and state["reads"] and not state["dropped"]:
                self.planted += 1
                state["dropped"] = True
                return
            await write(address, data)

        r._read, w._write = bad_read, bad_write
        if fault == "bad_rlast":
            r.bad_rlast = True  # tb/agents/axi_reorder.py: the first burst's last beat without RLAST
            self.planted += 1
        if fault in ("decerr_write", "extra_b"):
            send = w.b_channel.send

            async def bad_send(b: Any) -> None:
                first = not state["b_sent"]
                state["b_sent"] = True
                if first and fault == "decerr_write":
                    b.bresp = AxiResp.DECERR
                    self.planted += 1
                await send(b)
                if first and fault == "extra_b":  # the same ID again: its transaction is answered already
                    self.planted += 1
                    await send(b)

            state["b_sent"] = False
            w.b_channel.send = bad_send
