"""Host agent (pyuvm): sequencer, driver and monitor on the GPU's host register interface.

The sequence item is a kernel launch (:class:`tb.env.items.LaunchItem`). The driver announces the
launch on ``launch_ap`` (``("begin", item)``), loads and starts it through the BFM, waits for the GPU
to go idle under a watchdog, collects the outcome (status, error registers, every performance
counter through :class:`PerfReader`), checks an expected error, and announces ``("end", item)`` — where
the end-of-kernel checks run. The monitor publishes every register access on ``ap``.
"""

from __future__ import annotations

from typing import Any

import cocotb
import pyuvm
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

from tb.agents.host_bfm import ST_BUSY, ST_DONE, ST_ERROR, HostBfm, HostMonitor
from tb.env.items import LaunchItem
from tb.reference.model import ERROR_CODES, PERF_COUNTERS, KernelError, Model


class PerfReader:
    """Reads the GPU's performance counters (summed over SMs) through the host registers."""

    def __init__(self, bfm: HostBfm) -> None:
        self.bfm = bfm

    async def read_all(self) -> dict[str, int]:
        return {name: await self.bfm.perf(i) for i, name in enumerate(PERF_COUNTERS)}


class HostDriver(pyuvm.uvm_driver):
    def build_phase(self) -> None:
        self.dut = pyuvm.ConfigDB().get(self, "", "DUT")
        self.cfg = pyuvm.ConfigDB().get(self, "", "GPU_CFG")
        self.launch_ap = pyuvm.uvm_analysis_port("launch_ap", self)
        self.bfm: HostBfm | None = None
        self.memory: Any = None  # the GmemAgent, for knobs and outstanding responses (set by the env)
        self.checker: Any = None  # polled for a recorded fault (meta-tests)

    def start_of_simulation_phase(self) -> None:
        self.bfm = HostBfm(self.dut, self.dut.clk)
        self.perf = PerfReader(self.bfm)

    async def reset(self, cycles: int = 3) -> None:
        dut = self.dut
        await FallingEdge(dut.clk)
        dut.rst.value = 1
        await ClockCycles(dut.clk, cycles)
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 2)

    def _poll(self) -> None:
        if self.checker is not None and self.checker.failed:
            raise _FaultSeen()

    async def run_phase(self) -> None:
        while True:
            item = await self.seq_item_port.get_next_item()
            try:
                await self.drive(item)
            except _FaultSeen:
                pass
            self.seq_item_port.item_done()

    async def drive(self, item: LaunchItem) -> None:
        bfm = self.bfm
        assert bfm is not None
        if item.gmem is not None:
            self.memory.set_profile(item.gmem)
        self.launch_ap.write(("begin", item))
        await bfm.load(item.words if item.words is not None else item.image)
        t0 = cocotb.utils.get_sim_time("ns")
        if item.start:
            await bfm.start()
        if item.interrupt is not None:
            await self.interrupt(item)
            self.launch_ap.write(("abandon", item))
            return
        item.status = await bfm.wait_idle(item.max_cycles, on_poll=self._poll)
        item.cycles = int((cocotb.utils.get_sim_time("ns") - t0) // 10)
        await ClockCycles(self.dut.clk, 4)  # the monitors see the last responses
        self._poll()
        if item.expect_launch_error is not None:
            err = await bfm.error()
            assert item.status & ST_ERROR and err.kind == item.expect_launch_error, (
                f"{item}: expected launch error 0x{item.expect_launch_error:x}, got STATUS 0x{item.status:x}, {err}")
            await bfm.abort()
        elif item.expect_error is not None:
            await self.check_kernel_error(item)
            await bfm.abort()
        elif not item.status & ST_DONE or item.status & ST_ERROR:
            raise AssertionError(f"{item} ended with STATUS 0x{item.status:x}: {await bfm.error()}")
        else:
            item.perf = await self.perf.read_all()
        self.launch_ap.write(("end", item))

    async def check_kernel_error(self, item: LaunchItem) -> None:
        """The GPU's error registers must name the error the model raises stepping that warp."""
        bfm = self.bfm
        assert bfm is not None and item.image is not None
        assert item.status & ST_ERROR, f"{item}: expected {item.expect_error}; finished with STATUS 0x{item.status:x}"
        err = await bfm.error()
        model: Model | None = self.checker.model if self.checker is not None else None
        try:
            if model is not None and err.block in model.blocks:
                model.step(err.block, err.warp)  # lock-step: the warp the GPU blames must fail now
            else:
                Model(self.cfg, item.image).run()  # end-only mode: the model's own interleaving
        except KernelError as exc:
            want = (ERROR_CODES[exc.kind], exc.pc, 63 if exc.lane is None else exc.lane)
            assert exc.kind.name == item.expect_error, f"model raised {exc.kind.name}, expected {item.expect_error}"
        else:
            raise AssertionError(f"GPU reports an error at block {err.block} warp {err.warp}; the model steps it")
        assert (err.kind, err.pc, err.lane) == want, f"GPU error {err}, model (kind, pc, lane) {want}"

    async def interrupt(self, item: LaunchItem) -> None:
        """Reset or ABORT the running kernel, then prove the GPU is idle."""
        dut, bfm = self.dut, self.bfm
        assert bfm is not None
        await ClockCycles(dut.clk, item.interrupt_after)
        if item.interrupt == "reset":
            await self.reset()
            await ClockCycles(dut.clk, 50)
            st = await bfm.status()
            assert st == 0, f"after reset STATUS must be idle, got 0x{st:x}"
            return
        for _ in range(10_000):  # abort while responses are owed, so the GPU's drain is exercised
            if self.memory.responder.outstanding > 0:
                break
            await RisingEdge(dut.clk)
        assert self.memory.responder.outstanding > 0, "no memory request in flight to abort"
        await bfm.abort()
        st = await bfm.wait_idle()
        assert not st & ST_BUSY, f"after ABORT STATUS must not be busy, got 0x{st:x}"


class _FaultSeen(Exception):
    """A meta-test's planted fault was caught: stop driving this launch."""


class HostAgent(pyuvm.uvm_agent):
    def build_phase(self) -> None:
        self.dut = pyuvm.ConfigDB().get(self, "", "DUT")
        self.sequencer = pyuvm.uvm_sequencer("sequencer", self)
        self.driver = HostDriver("driver", self)
        self.ap = pyuvm.uvm_analysis_port("ap", self)
        self.accesses = 0

    def connect_phase(self) -> None:
        self.driver.seq_item_port.connect(self.sequencer.seq_item_export)

    def start_of_simulation_phase(self) -> None:
        self.monitor = HostMonitor(self.dut, self.dut.clk, callback=self._publish)

    def _publish(self, acc: Any) -> None:
        self.accesses += 1
        self.ap.write(acc)
