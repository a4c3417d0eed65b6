"""GpuEnv: the pyuvm environment around rtl/top/simt_gpu.v (docs/verification.md).

    host agent (sequencer, driver, monitor) ──launch_ap──▶ LaunchChecker ◀── retire monitor
    memory agent (responder, monitor) ─────request/response──▶   │       ◀── shared-memory monitor
                                                                 ▼
                         retire / divergence / shared-memory / coalescing / end-of-kernel scoreboards

ConfigDB keys set by the test: DUT, GPU_CFG, GMEM (numpy memory), GMEM_KNOBS, RNG, CHECK_MODE
("full" or "end"), optionally EXPECT_FAULT (meta-tests).
"""

from __future__ import annotations

import pyuvm

from tb.agents.gmem_agent import GmemAgent
from tb.agents.host_agent import HostAgent
from tb.agents.observers import RetireMonitor, SharedMonitor
from tb.coverage.collector import CoverageCollector
from tb.env.checker import LaunchChecker


class GpuEnv(pyuvm.uvm_env):
    def build_phase(self) -> None:
        self.full = pyuvm.ConfigDB().get(self, "", "CHECK_MODE") == "full"
        pyuvm.ConfigDB().set(self, "memory", "GMEM_MONITOR", self.full)
        self.host = HostAgent("host", self)
        self.memory = GmemAgent("memory", self)
        self.retires = RetireMonitor("retires", self)
        self.shared = SharedMonitor("shared", self) if self.full else None
        self.checker = LaunchChecker("checker", self)
        # functional coverage samples checked retires, so it needs the full checking mode
        self.coverage = CoverageCollector("coverage", self) if self.full else None

    def connect_phase(self) -> None:
        c = self.checker
        self.host.driver.launch_ap.connect(c.launch_export)
        self.host.driver.memory = self.memory
        self.host.driver.checker = c
        self.retires.dispatch_ap.connect(c.dispatch_export)
        self.retires.retire_ap.connect(c.retire_export)
        if self.shared is not None:
            self.shared.ap.connect(c.shared_export)
        self.memory.request_ap.connect(c.request_export)
        self.memory.response_ap.connect(c.response_export)
        if self.coverage is not None:
            c.checked_ap.connect(self.coverage.retire_export)
            self.retires.dispatch_ap.connect(self.coverage.dispatch_export)
            self.host.driver.launch_ap.connect(self.coverage.launch_export)
            self.coverage.memory = self.memory
