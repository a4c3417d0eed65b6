"""pyuvm tests of the AXI top (rtl/top/simt_gpu_axi.v through tb/hdl/simt_gpu_axi_tb.v), run by
tb/tests/system/test_axi.py: the host is cocotbext-axi's AxiLiteMaster, global memory its AxiRam with
pause generators; the environment (tb/env/axi_env.py) checks every retire, shared write and memory
transaction as in gpu_tests.py, and each launch's final memory as the AXI RAM holds it.

Environment (set by the launcher): the machine (tb/benchenv.py), KERNEL_SEEDS (random kernels), KERNEL_CASES (benchmark
kernels with their C reference, "name:size,..."), AXI_FAULT and SIMT_FAULT_EXPECT (meta-test).
"""

from __future__ import annotations

import os

import cocotb
import pyuvm
from cocotb.triggers import First

from spec.image import MAGIC
from tb.agents.axi_host import AxiHostBfm
from tb.agents.gmem_agent import GMEM_PROFILES
from tb.agents.host_bfm import REG_CONFIG, REG_ID, REG_PERF_SEL
from tb.env.axi_env import AxiGpuEnv
from tb.env.items import LaunchItem
from tb.sequences import library
from tb.sequences.soak import AXI_FAULT_KINDS
from tb.tests.system.gpu_tests import GpuTest, SoakMixin, seeds_from_env

# the AXI slave's behaviour per launch, cycled: no backpressure, the default profile, heavy backpressure
# the bridge's checks a planted broken slave must trip (SIMT_FAULT_EXPECT -> axi_error, docs/gpu.md)
AXI_ERROR_BITS = {"AxiError": 0b01, "AxiProtocolError": 0b10}
AXI_PROFILES = [GMEM_PROFILES["ideal"], GMEM_PROFILES["default"], GMEM_PROFILES["stress"]]


class AxiGpuTest(GpuTest):
    env_class = AxiGpuEnv

    def report_phase(self) -> None:
        super().report_phase()
        err = int(cocotb.top.axi_error.value)
        assert err == 0, (
            f"simt_gpu_axi raised axi_error=0b{err:02b} (bit 0 error response, bit 1 slave protocol)"
        )
        self.check_pacing()

    def check_pacing(self) -> None:
        """The Verilog pacing (tb/hdl/simt_tb_axi_pace.v) held channels off when it was on."""
        mem = self.env.memory
        stalls, paced = mem.stalls(), mem.paced_launches
        self.logger.info(f"AXI pacing: {stalls} cycle(s) with a channel held off, {paced} paced launch(es)")
        assert stalls > 0 or paced == 0, (
            f"no AXI cycle was held off in {paced} launch(es) run with backpressure on: the pacing "
            "(tb/hdl/simt_tb_axi_pace.v) did not pace"
        )


@pyuvm.test()
class AxiKernelTest(AxiGpuTest):
    """The AXI-Lite register map (ID, CONFIG, a partial-word write refused with SLVERR), then directed
    (the first with a read beat answered SLVERR, its data intact: axi_error set, then cleared by reset),
    random and benchmark kernels through AXI, the slave's backpressure changing every launch."""

    def items(self) -> list[LaunchItem]:
        from kernels.suite import prepare

        items = library.directed(self.rng, ["vecadd", "shared_barrier"])
        # a read beat answered SLVERR with its data: exact result, axi_error set, cleared by reset
        items[0].slave_error = True
        items += library.random_kernels(self.cfg, seeds_from_env("0:1"))
        for spec in filter(None, os.environ.get("KERNEL_CASES", "").split(",")):
            name, size = spec.split(":")
            case = prepare(name, int(size), self.rng.randrange(1 << 31), self.cfg)
            items.append(LaunchItem(f"{case.label} (inputs seed {case.seed})", case.image, golden=case))
        for i, item in enumerate(items):
            item.gmem = AXI_PROFILES[i % len(AXI_PROFILES)]
        return items

    async def run_phase(self) -> None:
        self.raise_objection()
        await self.env.host.driver.reset()
        bfm = self.env.host.driver.bfm
        assert isinstance(bfm, AxiHostBfm)
        ident, config = await bfm.read(REG_ID), await bfm.read(REG_CONFIG)
        c = self.cfg
        want = c.num_sms << 24 | c.num_lanes << 16 | c.warp_size << 8 | 1
        assert (ident, config) == (MAGIC, want), (
            f"over AXI-Lite ID reads 0x{ident:08x} and CONFIG 0x{config:08x}; docs/gpu.md says 0x{MAGIC:08x} "
            f"and 0x{want:08x}"
        )
        await bfm.write(REG_PERF_SEL, 0x155)
        rsp = await bfm.axil.write(4 * REG_PERF_SEL, b"\xaa\x0a")  # two bytes: WSTRB 0b0011
        back = await bfm.read(REG_PERF_SEL)
        assert rsp.resp == 2 and back == 0x155, (
            f"a partial-word AXI-Lite write must be refused (SLVERR, register unchanged): response "
            f"{rsp.resp!r}, PERF_SEL 0x{back:x} (was 0x155)"
        )
        await library.LaunchSequence("launches", self.items()).start(self.env.host.sequencer)
        overtaken = self.env.memory.reader.overtaken
        assert overtaken > 0, (
            "no read burst overtook an older one: the out-of-order AXI path was not exercised"
        )
        self.logger.info(f"AXI: {overtaken} read bursts answered before an older one of another ID")
        self.drop_objection()


@pyuvm.test()
class AxiPaceTest(AxiGpuTest):
    """Two vector additions under heavy backpressure (the pacing's meta-test runs it with fault 19
    planted, the pacing never holding a channel off: the check after the run must fail)."""

    def items(self) -> list[LaunchItem]:
        items = library.directed(self.rng, ["vecadd", "vecadd"])
        for item in items:
            item.gmem = GMEM_PROFILES["stress"]
        return items


@pyuvm.test()
class AxiLoadTest(AxiGpuTest):
    """Two vector additions, their images loaded by the HDL image driver (its meta-test runs it with
    fault 21 planted, the driver's AXI-Lite handshakes shown to the host: the check before the host's
    next write must fail). Two: the AXI-Lite master exists from the host's first access, after the
    first load."""

    def items(self) -> list[LaunchItem]:
        return library.directed(self.rng, ["vecadd", "vecadd"])


@pyuvm.test()
class AxiFaultTest(AxiGpuTest):
    """Meta-test: a fault planted in the AXI slave (AXI_FAULT, tb/agents/axi_mem_agent.py) must be
    caught by the named check (SIMT_FAULT_EXPECT)."""

    def build_phase(self) -> None:
        self.expect = os.environ["SIMT_FAULT_EXPECT"]
        db = pyuvm.ConfigDB()
        db.set(None, "*", "EXPECT_FAULT", self.expect)
        db.set(None, "*", "AXI_FAULT", os.environ["AXI_FAULT"])
        super().build_phase()
        self.no_kernels_ok = True

    def report_phase(self) -> None:
        return  # the planted fault is the point: no summary, no axi_error check

    async def _axi_error_raised(self) -> None:
        """Until axi_error is not 0 (the first bit the bridge raises)."""
        while int(cocotb.top.axi_error.value) == 0:
            await cocotb.top.axi_error.value_change

    def items(self) -> list[LaunchItem]:
        return library.directed(self.rng, ["vecadd"])

    async def run_phase(self) -> None:
        self.raise_objection()
        await self.env.host.driver.reset()
        seq = cocotb.start_soon(
            library.LaunchSequence("launches", self.items()).start(self.env.host.sequencer)
        )
        want = AXI_ERROR_BITS.get(self.expect)
        if want is not None:  # the bridge's own checks (docs/gpu.md "AXI option"): wait for its bit
            await First(seq, cocotb.start_soon(self._axi_error_raised()))
            err, planted = int(cocotb.top.axi_error.value), self.env.memory.planted
            assert planted > 0, (
                f"AXI_FAULT={os.environ['AXI_FAULT']} changed nothing: the meta-test proves nothing"
            )
            assert err == want, (
                f"AXI_FAULT={os.environ['AXI_FAULT']} left axi_error=0b{err:02b}; docs/gpu.md says 0b{want:02b} "
                "(bit 0 an error response, bit 1 a slave protocol violation)"
            )
            self.logger.info(f"caught as expected: axi_error=0b{err:02b}")
            self.drop_objection()
            return
        await First(seq, self.env.checker.fault_event.wait())
        fault, planted = self.env.checker.fault, self.env.memory.planted
        assert planted > 0, (
            f"AXI_FAULT={os.environ['AXI_FAULT']} changed nothing: the meta-test proves nothing"
        )
        assert fault is not None, f"the planted AXI fault was not caught: expected a {self.expect}"
        assert type(fault).__name__ == self.expect, (
            f"the planted AXI fault was caught by the wrong check: {type(fault).__name__}, expected {self.expect}:\n{fault}"
        )
        self.logger.info(f"caught as expected by {self.expect}: {str(fault).splitlines()[0]}")
        self.drop_objection()


@pyuvm.test()
class AxiSoakTest(SoakMixin, AxiGpuTest):
    """The fault soak (tb/sequences/soak.py) on the AXI top, slave errors included."""

    soak_kinds = AXI_FAULT_KINDS


@pyuvm.test()
class AxiSlaveErrorSoakTest(SoakMixin, AxiGpuTest):
    """Slave errors only, every other launch (the meta-test's soak: with fault 11 planted, the reset
    after a slave error leaves axi_error bit 0 set, and the host's recovery check must fail)."""

    soak_kinds = ("slave-error",)
    soak_fault_share = 0.5
