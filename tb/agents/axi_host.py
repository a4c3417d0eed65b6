"""The host side of the AXI top (rtl/top/simt_gpu_axi.v): the GPU's registers through cocotbext-axi's
``AxiLiteMaster`` on ``s_axil_*`` (register n at byte offset 4 * n, docs/gpu.md "AXI option").

:class:`AxiHostBfm` has the native :class:`~tb.agents.host_bfm.HostBfm`'s interface (``read``,
``write``, image load, START/ABORT, waiting for ``irq``, error registers, counters), so the host
driver and every sequence run unchanged; only the two register accesses differ. :class:`AxiHostAgent`
is the host agent with that BFM. It has no bus monitor: the AXI-Lite accesses are cocotbext-axi's, and
the tests that subscribe to the native monitor (``ErrorTest``'s ERR_SM check) do not run on AXI.
"""

from __future__ import annotations

import logging
from typing import Any

import pyuvm
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiResp

from tb.agents.host_agent import HostAgent, HostDriver, PerfReader
from tb.agents.host_bfm import HostBfm
from tb.agents.image_driver import HdlImageDriver


class AxiLiteError(AssertionError):
    """An AXI-Lite access to the GPU's registers was answered with an error response."""


class AxiHostBfm(HostBfm):
    """HostBfm whose register accesses are AXI4-Lite transfers (no native ``host_*`` pins)."""

    def __init__(self, dut: Any, clock: Any, period_ns: int = 10) -> None:  # noqa: D107 - no BusDriver: no host_* pins
        self.dut, self.clock, self.period_ns = dut, clock, period_ns
        self._axil: AxiLiteMaster | None = None

    @property
    def axil(self) -> AxiLiteMaster:
        """The AXI-Lite master, made at the first access: after the first reset, when the slave's
        outputs are defined (before it they are X on Icarus and the master would sample them)."""
        if self._axil is None:
            self._axil = AxiLiteMaster(AxiLiteBus.from_prefix(self.dut, "s_axil"), self.clock, self.dut.rst)
            logging.getLogger(f"cocotb.{self.dut._name}.s_axil").setLevel(
                logging.WARNING
            )  # a line per access
        return self._axil

    def idle(self) -> None:
        return  # cocotbext-axi drives the AXI-Lite bus

    async def write(self, addr: int, value: int) -> None:
        stale = self.axil.write_if.b_channel.count()
        if stale:  # writes are one at a time: before one, no B response may wait
            raise AxiLiteError(
                f"before the AXI-Lite write of register 0x{addr:02x} the master holds {stale} B "
                "response(s) nobody asked for: the HDL image driver's (simt_gpu_axi_tb must hide its "
                "handshakes while it loads); the write would be answered before the GPU took it"
            )
        rsp = await self.axil.write(4 * addr, (value & 0xFFFF_FFFF).to_bytes(4, "little"))
        if rsp.resp != AxiResp.OKAY:
            raise AxiLiteError(
                f"AXI-Lite write of register 0x{addr:02x} answered {rsp.resp!r}, expected OKAY"
            )

    async def read(self, addr: int) -> int:
        rsp = await self.axil.read(4 * addr, 4)
        if rsp.resp != AxiResp.OKAY:
            raise AxiLiteError(f"AXI-Lite read of register 0x{addr:02x} answered {rsp.resp!r}, expected OKAY")
        return int.from_bytes(rsp.data, "little")


class AxiHostDriver(HostDriver):
    def start_of_simulation_phase(self) -> None:
        self.bfm = AxiHostBfm(self.dut, self.dut.clk)
        for name in ("awvalid", "wvalid", "bready", "arvalid", "rready"):  # until the master drives them
            getattr(self.dut, f"s_axil_{name}").value = 0
        self.perf = PerfReader(self.bfm)
        self.dut.trace_sync.value = 0
        self.loader = HdlImageDriver.for_dut(self.dut, self.dut.clk)


class AxiHostAgent(HostAgent):
    def build_phase(self) -> None:
        self.dut = pyuvm.ConfigDB().get(self, "", "DUT")
        self.sequencer = pyuvm.uvm_sequencer("sequencer", self)
        self.driver = AxiHostDriver("driver", self)
        self.ap = pyuvm.uvm_analysis_port("ap", self)
        self.accesses = 0

    def start_of_simulation_phase(self) -> None:
        self.monitor = None
