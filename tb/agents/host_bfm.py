"""Host-side driver of the GPU's register interface (docs/gpu.md "Host interface").

Loads a launch image word by word through the IMAGE register, starts the kernel, polls STATUS, reads
the error registers and performance counters. Everything goes through the documented registers: no
hierarchical reference into the RTL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cocotb.triggers import ReadOnly, RisingEdge

from tb.reference.image import LaunchImage

REG_ID, REG_CONFIG, REG_CTRL, REG_STATUS, REG_IMAGE = 0x00, 0x01, 0x02, 0x03, 0x04
REG_ERR_KIND, REG_ERR_SM, REG_ERR_BLOCK, REG_ERR_WARP, REG_ERR_PC, REG_ERR_LANE = range(0x08, 0x0E)
REG_PERF_SEL, REG_PERF_LO, REG_PERF_HI, REG_BLOCKS_DONE = 0x10, 0x11, 0x12, 0x13
CTRL_START, CTRL_ABORT = 1, 2
ST_BUSY, ST_DONE, ST_ERROR, ST_LOADING = 1, 2, 4, 8
PERF_ALL_SMS = 0xFF

LAUNCH_ERRORS = {0x10: "bad image", 0x11: "block cannot fit one SM", 0x12: "program or constants too large",
                 0x13: "START with no image loaded"}  # fmt: skip


@dataclass(frozen=True)
class GpuError:
    kind: int
    sm: int
    block: int
    warp: int
    pc: int
    lane: int


class HostDriver:
    """Drives ``host_*`` of simt_gpu. Call from a cocotb coroutine after reset."""

    def __init__(self, dut: Any) -> None:
        self.dut = dut
        self.responder: Any = None  # the memory model behind the GPU, when a test attaches one

    def idle(self) -> None:
        d = self.dut
        d.host_valid.value = 0
        d.host_write.value = 0
        d.host_addr.value = 0
        d.host_wdata.value = 0

    async def write(self, addr: int, value: int) -> None:
        d = self.dut
        d.host_valid.value, d.host_write.value = 1, 1
        d.host_addr.value, d.host_wdata.value = addr, value & 0xFFFF_FFFF
        while True:
            await RisingEdge(d.clk)
            if int(d.host_ready.value):  # sampled at the edge: this edge's handshake
                break
        d.host_valid.value = 0

    async def read(self, addr: int) -> int:
        d = self.dut
        d.host_valid.value, d.host_write.value, d.host_addr.value = 1, 0, addr
        while True:
            await RisingEdge(d.clk)
            if int(d.host_ready.value):
                break
        d.host_valid.value = 0
        while True:
            await ReadOnly()
            if int(d.host_rvalid.value):
                value = int(d.host_rdata.value)
                await RisingEdge(d.clk)
                return value
            await RisingEdge(d.clk)

    async def load(self, image: LaunchImage) -> None:
        for word in image.to_words():
            await self.write(REG_IMAGE, word)

    async def start(self) -> None:
        await self.write(REG_CTRL, CTRL_START)

    async def abort(self) -> None:
        await self.write(REG_CTRL, CTRL_ABORT)

    async def status(self) -> int:
        return await self.read(REG_STATUS)

    async def wait_idle(self, max_polls: int = 10_000, every: int = 50) -> int:
        """Poll STATUS until BUSY and LOADING are low; a watchdog ends a hang with a clear error."""
        for _ in range(max_polls):
            st = await self.status()
            if not st & (ST_BUSY | ST_LOADING):
                return st
            for _ in range(every):
                await RisingEdge(self.dut.clk)
        raise AssertionError(f"watchdog: the GPU stayed busy for {max_polls * every} cycles (STATUS 0x{st:x})")

    async def error(self) -> GpuError:
        regs = [await self.read(r) for r in range(REG_ERR_KIND, REG_ERR_LANE + 1)]
        return GpuError(*regs)

    async def perf(self, counter: int, sm: int = PERF_ALL_SMS) -> int:
        await self.write(REG_PERF_SEL, (sm << 5) | counter)
        lo = await self.read(REG_PERF_LO)
        hi = await self.read(REG_PERF_HI)
        return hi << 32 | lo
