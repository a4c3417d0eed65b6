"""The pyuvm component that feeds :class:`~tb.coverage.functional.GpuCoverage` (docs/verification.md).

It listens to the launch checker's *checked* retires (sampled after every scoreboard agreed), the
block dispatches, the host driver's launch events and the memory requests and responses of the trace monitor, and
at the end of each pyuvm test writes the process's whole coverage database to
``$SIMT_FCOV/<sim>-<config>-<pid>.yml`` (one file per simulator run; ``make coverage`` merges them).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyuvm

from tb.coverage.functional import GpuCoverage, export


class CoverageCollector(pyuvm.uvm_component):
    def build_phase(self) -> None:
        self.cfg = pyuvm.ConfigDB().get(self, "", "GPU_CFG")
        self.cov = GpuCoverage(self.cfg)
        Imp = pyuvm.uvm_subscriber.uvm_AnalysisImp
        self.retire_export = Imp("retire_export", self, self.write_retire)
        self.dispatch_export = Imp("dispatch_export", self, self.write_dispatch)
        self.launch_export = Imp("launch_export", self, self.write_launch)
        self.request_export = Imp("request_export", self, self.write_request)
        self.response_export = Imp("response_export", self, self.write_response)
        self._held = False  # a request of this launch was held off

    def write_retire(self, event: tuple[Any, int, Any]) -> None:
        self.cov.retire(*event)

    def write_dispatch(self, event: tuple[int, int]) -> None:
        self.cov.dispatch(*event)

    def write_launch(self, event: tuple[str, Any]) -> None:
        what, item = event
        if what != "begin" and self._held:
            self._held = False
            self.cov.stalled()
        self.cov.launch(what, item)

    def write_request(self, txn: Any) -> None:
        self._held |= txn.held

    def write_response(self, rsp: Any) -> None:
        self.cov.response(rsp.latency, rsp.overtook)

    def report_phase(self) -> None:
        self.cov.flush()
        folder = os.environ.get("SIMT_FCOV")
        if not folder:
            return
        if self.cov.samples == 0 and not getattr(pyuvm.uvm_root().uvm_test_top, "no_kernels_ok", False):
            raise AssertionError("functional coverage sampled no retire in this test")
        name = f"{os.environ.get('SIM', 'sim')}-{os.environ.get('GPU_TAG', 'gpu')}-{os.getpid()}.yml"
        export(Path(folder) / name)
