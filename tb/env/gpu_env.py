"""GpuEnv: the pyuvm environment around the GPU's test wrapper tb/hdl/simt_gpu_tb.v (docs/verification.md).

    host agent (sequencer, driver) ──launch_ap──▶ memory agent (knobs, clear, image of the memory)
          │                                  └──▶ LaunchChecker ◀── trace monitor: dispatches, retires,
          └── host monitor ──ap──▶ (tests)                            shared writes, requests, responses
                                                     ▼
                     retire / divergence / shared-memory / coalescing / end-of-kernel scoreboards

Global memory is HDL (no Python per cycle); every observation arrives in order, in batches, from the
wrapper's trace (tb/agents/trace_monitor.py). ConfigDB keys set by the test: DUT, GPU_CFG, GMEM
(numpy image of the memory), GMEM_KNOBS, RNG, CHECK_MODE ("full" or "end"), TRACE_PATH, optionally
EXPECT_FAULT (meta-tests).
"""

from __future__ import annotations

import pyuvm

from tb.agents.gmem_agent import GmemAgent
from tb.agents.host_agent import HostAgent
from tb.agents.trace_monitor import TraceMonitor
from tb.coverage.collector import CoverageCollector
from tb.env.checker import LaunchChecker


class GpuEnv(pyuvm.uvm_env):
    def build_phase(self) -> None:
        self.full = pyuvm.ConfigDB().get(self, "", "CHECK_MODE") == "full"
        self.host = HostAgent("host", self)
        self.memory = GmemAgent("memory", self)
        self.trace = TraceMonitor("trace", self)
        self.checker = LaunchChecker("checker", self)
        # functional coverage samples checked retires, so it needs the full checking mode
        self.coverage = CoverageCollector("coverage", self) if self.full else None

    def connect_phase(self) -> None:
        c, t, launches = self.checker, self.trace, self.host.driver.launch_ap
        launches.connect(self.memory.launch_export)  # first: the memory is cleared before the checker looks
        launches.connect(c.launch_export)
        t.request_ap.connect(self.memory.request_export)
        if hasattr(self.memory, "host_export"):  # the HDL memory: ABORT un-deafens it after a hang test
            self.host.ap.connect(self.memory.host_export)
        t.dispatch_ap.connect(c.dispatch_export)
        t.retire_ap.connect(c.retire_export)
        t.shared_ap.connect(c.shared_export)
        t.request_ap.connect(c.request_export)
        t.response_ap.connect(c.response_export)
        if self.coverage is not None:
            c.checked_ap.connect(self.coverage.retire_export)
            t.dispatch_ap.connect(self.coverage.dispatch_export)
            t.request_ap.connect(self.coverage.request_export)
            t.response_ap.connect(self.coverage.response_export)
            launches.connect(self.coverage.launch_export)
