"""AxiGpuEnv: :class:`~tb.env.gpu_env.GpuEnv` around the AXI test wrapper tb/hdl/simt_gpu_axi_tb.v.

The same trace monitor, launch checker, scoreboards and coverage collector; only the two agents at
the GPU's edges change: the host agent drives AXI4-Lite (tb/agents/axi_host.py) and global memory is
cocotbext-axi's AxiRam (tb/agents/axi_mem_agent.py), whose contents the end-of-kernel check reads.
"""

from __future__ import annotations

import pyuvm

from tb.agents.axi_host import AxiHostAgent
from tb.agents.axi_mem_agent import AxiMemAgent
from tb.agents.trace_monitor import TraceMonitor
from tb.coverage.collector import CoverageCollector
from tb.env.checker import LaunchChecker
from tb.env.gpu_env import GpuEnv


class AxiGpuEnv(GpuEnv):
    def build_phase(self) -> None:
        self.full = pyuvm.ConfigDB().get(self, "", "CHECK_MODE") == "full"
        self.host = AxiHostAgent("host", self)
        self.memory = AxiMemAgent("memory", self)
        self.trace = TraceMonitor("trace", self)
        self.checker = LaunchChecker("checker", self)
        self.coverage = CoverageCollector("coverage", self) if self.full else None
