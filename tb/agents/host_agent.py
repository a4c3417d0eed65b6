"""Host agent (pyuvm): sequencer, driver and monitor on the GPU's host register interface.

The sequence item is a kernel launch (:class:`tb.env.items.LaunchItem`). The driver announces the
launch on ``launch_ap`` (``("begin", item)``), loads it (through the HDL image driver,
tb/agents/image_driver.py, or the BFM's register writes), starts it through the BFM, sleeps until the
GPU's ``irq`` says the launch ended (a watchdog ends a hang), collects the outcome (status, error
registers, every performance counter through :class:`PerfReader`) and announces ``("end", item)`` —
where the checker compares it with the model. The driver only drives: it neither steps the model nor
looks at the checker. The monitor publishes every register access on ``ap``.
"""

from __future__ import annotations

from typing import Any

import cocotb
import pyuvm
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

from spec.model import PERF_COUNTERS
from tb.agents.host_bfm import (
    NO_LANE,
    REG_MEM_OUTSTANDING,
    REG_UNLISTED,
    ST_BUSY,
    ST_DONE,
    ST_ERROR,
    ST_IGNORED,
    HostBfm,
    HostMonitor,
    Watchdog,
    check_irq,
)
from tb.agents.image_driver import HdlImageDriver
from tb.agents.trace_monitor import sync
from tb.env.items import LaunchItem


class PerfReader:
    """Reads the GPU's performance counters (summed over SMs) through the host registers."""

    def __init__(self, bfm: HostBfm) -> None:
        self.bfm = bfm

    async def read_all(self) -> dict[str, int]:
        return {name: await self.bfm.perf(i) for i, name in enumerate(PERF_COUNTERS)}

    async def per_sm(self, name: str, num_sms: int) -> list[int]:
        """One counter of each SM (``read_all`` sums over SMs: its ``cycles`` are SM-cycles)."""
        return [await self.bfm.perf(PERF_COUNTERS.index(name), sm) for sm in range(num_sms)]


class HostDriver(pyuvm.uvm_driver):
    """Drives launches; publishes ``("begin", item)``, then ``("end", item)`` with the outcome filled in
    (``status``, ``cycles``, ``error`` registers, ``perf`` counters), or ``("abandon", item)`` after an
    interrupt. Before "end" and "abandon" it waits until the trace monitor has published every event
    up to that moment (:func:`tb.agents.trace_monitor.sync`), so subscribers see a launch whole."""

    def build_phase(self) -> None:
        self.dut = pyuvm.ConfigDB().get(self, "", "DUT")
        self.num_sms = pyuvm.ConfigDB().get(self, "", "GPU_CFG").num_sms
        self.launch_ap = pyuvm.uvm_analysis_port("launch_ap", self)
        self.bfm: HostBfm | None = None

    def start_of_simulation_phase(self) -> None:
        self.bfm = HostBfm(self.dut, self.dut.clk)
        self.perf = PerfReader(self.bfm)
        self.dut.trace_sync.value = 0
        self.loader = HdlImageDriver.for_dut(self.dut, self.dut.clk)

    async def load(self, item: LaunchItem) -> None:
        """Write the launch's image (``item.words`` when given, else ``item.image``) to IMAGE: through the
        HDL image driver, or word by word through the BFM with ``SIMT_HOST_LOAD=registers``."""
        assert self.bfm is not None
        if item.words is not None:
            words = item.words
        else:
            assert item.image is not None, f"{item}: a launch with neither an image nor words"
            words = item.image.to_words()
        if self.loader is not None:
            await self.loader.load(words)
        else:
            await self.bfm.load(words)

    async def reset(self, cycles: int = 3) -> None:
        dut = self.dut
        await FallingEdge(dut.clk)
        dut.rst.value = 1
        await ClockCycles(dut.clk, cycles)
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 2)

    async def run_phase(self) -> None:
        while True:
            item = await self.seq_item_port.get_next_item()
            await self.drive(item)
            self.seq_item_port.item_done()

    async def drive(self, item: LaunchItem) -> None:
        bfm = self.bfm
        assert bfm is not None
        self.launch_ap.write(("begin", item))
        await self.load(item)
        t0 = cocotb.utils.get_sim_time("ns")
        if item.start:
            await bfm.start()
        if item.meddle is not None:
            await self.meddle(item)
        if item.interrupt is not None:
            await self.interrupt(item)
            await sync(self.dut)
            self.launch_ap.write(("abandon", item))
            return
        try:
            item.status = await bfm.wait_idle(
                item.max_cycles,
                irq=self.dut.irq,
                stall_cycles=item.stall_cycles,
                max_instrs=item.max_instrs,
                report=self._hang_report(),
            )
        except Watchdog as hang:
            if item.expect_hang is None:
                await sync(self.dut)  # the checker may know why (a mismatch before the hang)
                raise
            missing = [t for t in item.expect_hang if t not in str(hang)]
            assert not missing, f"{item}: the watchdog's report lacks {missing}:\n{hang}"
            item.hang_report = str(hang)
            self.logger.info(f"{item}: hung as expected; the watchdog reported:\n{hang}")
            await bfm.abort()
            st = await bfm.wait_idle()
            assert not st & ST_BUSY, f"after ABORT STATUS must not be busy, got 0x{st:x}"
            await sync(self.dut)
            self.launch_ap.write(("abandon", item))
            return
        if item.expect_hang is not None:
            raise AssertionError(f"{item}: expected a hang, the launch ended with STATUS 0x{item.status:x}")
        item.cycles = int((cocotb.utils.get_sim_time("ns") - t0) // 10)
        if item.status & ST_DONE and not item.status & ST_ERROR:
            item.open_at_end = await self._open_at_end()
        await ClockCycles(self.dut.clk, 4)  # the last responses reach the memory
        if item.expect_launch_error is not None:
            err = await bfm.error()
            assert item.status & ST_ERROR and err.kind == item.expect_launch_error, (
                f"{item}: expected launch error 0x{item.expect_launch_error:x}, got STATUS 0x{item.status:x}, {err}"
            )
            # a launch error names no lane (docs/gpu.md: ERR_LANE "63 when no lane is responsible"), also
            # after a kernel error that did name one
            assert err.lane == NO_LANE, (
                f"{item}: ERR_LANE reads {err.lane} after a launch error; docs/gpu.md: {NO_LANE}"
            )
            if item.expect_rule is not None:
                assert (err.rule, err.word) == item.expect_rule, (
                    f"{item}: ERR_RULE/IMG_WORDS {err.rule}/{err.word}, image_rules.check_words says "
                    f"{item.expect_rule[0]}/{item.expect_rule[1]} ({err})"
                )
            await bfm.abort()
            await bfm.wait_idle()  # the refused image's DATA stores drain before the next launch
        elif item.expect_error is not None:
            assert item.status & ST_ERROR, (
                f"{item}: expected {item.expect_error}; finished with STATUS 0x{item.status:x}"
            )
            item.error = await bfm.error()
            await bfm.abort()
        elif not item.status & ST_DONE or item.status & ST_ERROR:
            await sync(self.dut)  # the checker may know why (a mismatch before the hang)
            raise AssertionError(f"{item} ended with STATUS 0x{item.status:x}: {await bfm.error()}")
        else:
            ignored = bool(item.status & ST_IGNORED)
            assert ignored == (item.meddle is not None), (
                f"{item}: STATUS 0x{item.status:x} has IGNORED={int(ignored)}, but the host "
                + (
                    "wrote IMAGE words or a START while it ran"
                    if item.meddle is not None
                    else "wrote nothing while it ran"
                )
            )
            item.perf = await self.perf.read_all()
            # the launch's own length: its busiest SM's cycles (perf["cycles"] sums over SMs)
            item.cycles_per_sm = await self.perf.per_sm("cycles", self.num_sms)
        await sync(self.dut)
        self.launch_ap.write(("end", item))
        if item.slave_error:
            await self.recover_from_slave_error(item)

    async def recover_from_slave_error(self, item: LaunchItem) -> None:
        """After a launch that got a SLVERR read beat (AXI top): ``axi_error`` bit 0 must be set, and
        a reset, the documented way to clear it (docs/gpu.md "AXI option"), must leave it 0 and the GPU
        idle. The next launch is then checked in lockstep like every other."""
        dut, bfm = self.dut, self.bfm
        assert bfm is not None
        err = int(dut.axi_error.value)
        assert err & 1, (
            f"{item}: the AXI slave answered a read beat SLVERR, yet axi_error is 0b{err:02b}; bit 0 "
            "must be set (docs/gpu.md)"
        )
        await self.reset()
        err, st = int(dut.axi_error.value), await bfm.status()
        assert err == 0 and st == 0, (
            f"{item}: after the reset that follows a slave error axi_error must read 0 and STATUS idle; "
            f"got axi_error 0b{err:02b}, STATUS 0x{st:x}"
        )

    async def _open_at_end(self) -> list[str]:
        """The checker's view (ConfigDB LAUNCH_OPEN) of the memory traffic still open as the host sees
        the launch done: with posted stores the launch must not end before their acknowledgements."""
        try:
            launch_open = pyuvm.ConfigDB().get(self, "", "LAUNCH_OPEN")
        except pyuvm.UVMConfigItemNotFound:
            return []
        await sync(self.dut)
        return launch_open()

    def _hang_report(self) -> Any:
        """The watchdog's report: the checker's (ConfigDB HANG_REPORT: the RTL's debug view next to the
        golden model's, compared), called once every trace event up to now has been published."""
        try:
            report = pyuvm.ConfigDB().get(self, "", "HANG_REPORT")
        except pyuvm.UVMConfigItemNotFound:
            return None

        async def synced(instrs: int, views: list) -> str:
            await sync(self.dut)
            return report(instrs, views)

        return synced

    async def meddle(self, item: LaunchItem) -> None:
        """Write ``item.meddle`` to IMAGE and a START (unless ``item.meddle_start`` is False) while the
        launch runs (both to be ignored); first a write to an unlisted register, which is not meddling.
        STATUS.IGNORED is read after each: clear before the IMAGE words and the START, set after either."""
        bfm = self.bfm
        assert bfm is not None and item.meddle is not None
        await ClockCycles(self.dut.clk, item.interrupt_after)
        st = await bfm.status()
        assert st & ST_BUSY, (
            f"{item}: the launch was over before the host meddled (STATUS 0x{st:x}): meddle earlier"
        )
        await bfm.write(REG_UNLISTED, 1)  # not IMAGE, not START: not ignored, no IGNORED
        st = await bfm.status()
        assert not st & ST_IGNORED, (
            f"{item}: STATUS 0x{st:x} has IGNORED set during the launch before any IMAGE word or START was "
            f"written (the launch clears it; a write to register 0x{REG_UNLISTED:02x} does not set it)"
        )
        writes = []
        if item.meddle:
            await bfm.load(item.meddle)
            writes.append(f"{len(item.meddle)} IMAGE words")
        if item.meddle_start:
            await bfm.start()
            writes.append("a START")
        st = await bfm.status()
        assert st & ST_IGNORED, (
            f"{item}: STATUS 0x{st:x} lacks IGNORED right after {' and '.join(writes)} during the launch"
        )
        assert st & ST_BUSY and not st & ST_ERROR, (
            f"{item}: STATUS 0x{st:x} right after {' and '.join(writes)} written during the launch, which "
            'must be ignored (docs/gpu.md "Launch lifecycle"), or the kernel is too short for the check'
        )

    async def interrupt(self, item: LaunchItem) -> None:
        """Reset or ABORT the running kernel, then prove the GPU is idle."""
        dut, bfm = self.dut, self.bfm
        assert bfm is not None
        await ClockCycles(dut.clk, item.interrupt_after)
        if item.interrupt == "reset":
            if item.interrupt_on_retire:  # (a meta-test's soak) reset while instructions are in flight
                for _ in range(10_000):
                    if int(dut.rt_valid.value):
                        break
                    await RisingEdge(dut.clk)
            await self.reset()
            await ClockCycles(dut.clk, 50)
            st = await bfm.status()
            assert st == 0, f"after reset STATUS must be idle, got 0x{st:x}"
            return
        if hasattr(dut, "mem_pending"):  # (the AXI top has no such count: ABORT at the cycle drawn)
            for _ in range(10_000):  # abort while responses are owed, so the GPU's drain is exercised
                if int(dut.mem_pending.value) > 0:
                    break
                await RisingEdge(dut.clk)
            assert int(dut.mem_pending.value) > 0, "no memory request in flight to abort"
        await bfm.abort()
        st = await bfm.wait_idle()
        assert not st & ST_BUSY, f"after ABORT STATUS must not be busy, got 0x{st:x}"
        check_irq(self.dut.irq, st)  # ABORT ended no launch: irq low
        # the drain took every owed response (docs/gpu.md: ABORT ... then it is idle), so no request of
        # the external port is left unanswered
        left = await bfm.read(REG_MEM_OUTSTANDING)
        assert left == 0, (
            f"after ABORT's drain MEM_OUTSTANDING reads {left}: no request can be left unanswered"
        )


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
