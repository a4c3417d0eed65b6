"""Bus functional model of the GPU's host register interface (docs/gpu.md "Host interface"), on
cocotb-bus's ``BusDriver``; and a passive ``BusMonitor`` publishing every register access.

The BFM loads a launch image word by word through the IMAGE register, starts the kernel, polls
STATUS, reads the error registers and performance counters. Everything goes through the documented
registers: no hierarchical reference into the RTL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from cocotb.triggers import First, RisingEdge, Timer
from cocotb.utils import get_sim_time
from cocotb_bus.drivers import BusDriver
from cocotb_bus.monitors import BusMonitor

from spec.error_names import LAUNCH_ERRORS, error_kind_name
from spec.hang import WarpView, rtl_lines
from spec.image import LaunchImage
from spec.image_rules import Rule
from spec.model import PERF_COUNTERS
from tb.agents.handshake import edge_when_high, next_handshake, wait_high
from tb.agents.observers import reset_applied

REG_ID, REG_CONFIG, REG_CTRL, REG_STATUS, REG_IMAGE = 0x00, 0x01, 0x02, 0x03, 0x04
REG_ERR_KIND, REG_ERR_SM, REG_ERR_BLOCK, REG_ERR_WARP, REG_ERR_PC, REG_ERR_LANE = range(0x08, 0x0E)
NO_LANE = 63  # ERR_LANE when no lane is responsible (docs/gpu.md register map): every launch error
REG_ERR_RULE, REG_IMG_WORDS = 0x0E, 0x0F
REG_PERF_SEL, REG_PERF_LO, REG_PERF_HI, REG_BLOCKS_DONE, REG_BLOCKS_DISPATCHED = 0x10, 0x11, 0x12, 0x13, 0x14
# the debug view (docs/gpu.md "Debug view") and the watchdog's memory-progress registers
REG_DBG_SEL, REG_DBG_WARP, REG_DBG_BLOCK, REG_DBG_PC, REG_DBG_LAST_PC = 0x18, 0x19, 0x1A, 0x1B, 0x1C
REG_MEM_RSPS, REG_MEM_OUTSTANDING = 0x1D, 0x1E
REG_UNLISTED = 0x1F  # no register has this index (docs/gpu.md): reads 0, writes do nothing
CTRL_START, CTRL_ABORT = 1, 2
ST_BUSY, ST_DONE, ST_ERROR, ST_LOADING = 1, 2, 4, 8
ST_IGNORED = 1 << 8  # an IMAGE word or START arrived while a launch ran and was ignored
PERF_ALL_SMS = 0xFF
PERF_WARP_INSTRS = PERF_COUNTERS.index("warp_instrs")  # read by the stall watchdog

HOST_BOUND = 100_000  # an ABORT drain or DATA stores can hold host_ready low; never this long
HOST_SIGNALS = ["valid", "ready", "write", "addr", "wdata", "rvalid", "rdata"]


@dataclass
class RegAccess:
    """One host register access; ``data`` is the write data, or the read data once read."""

    addr: int
    write: bool
    data: int = 0


LOADER_STATES = {0: "idle", 1: "version", 2: "record header", 3: "record payload", 4: "DATA base", 5: "DATA words",
                 6: "flushing stores", 7: "loaded", 8: "error"}  # fmt: skip


@dataclass(frozen=True)
class GpuError:
    kind: int
    sm: int
    block: int
    warp: int
    pc: int
    lane: int
    rule: int = 0  # ERR_RULE (loader errors)
    word: int = 0  # IMG_WORDS: the offending word's index (loader errors)

    @property
    def kind_name(self) -> str:
        return error_kind_name(self.kind)

    def __str__(self) -> str:
        if self.kind in LAUNCH_ERRORS:
            if self.kind == 0x13:
                return f"GpuError({self.kind_name})"
            rule = Rule(self.rule).name if self.rule in iter(Rule) else str(self.rule)
            return f"GpuError({self.kind_name}: rule {rule} at image word {self.word})"
        lane = "no lane" if self.lane == NO_LANE else f"lane {self.lane}"
        return (
            f"GpuError({self.kind_name} at SM {self.sm} block {self.block} warp {self.warp} pc {self.pc}, "
            f"{lane})"
        )


class Watchdog(AssertionError):
    """The GPU stayed busy longer than the harness allows: a hang, reported instead of a frozen run.
    ``views`` is every resident warp slot as the RTL's debug view showed it when the watchdog fired."""

    def __init__(self, text: str, views: list[WarpView] | None = None) -> None:
        super().__init__(text)
        self.views = views or []


# The watchdog's report callback: (warp-instructions so far, the RTL's resident warps) -> text.
HangReport = Callable[[int, list[WarpView]], Awaitable[str]]


class HostBfm(BusDriver):
    """Drives ``host_*`` of simt_gpu. Use from a cocotb coroutine after reset."""

    _signals = HOST_SIGNALS

    def __init__(self, dut: Any, clock: Any, period_ns: int = 10) -> None:
        super().__init__(dut, "host", clock)
        self.dut = dut
        self.period_ns = period_ns
        self.bound = HOST_BOUND  # cycles host_ready may stay low for one access
        self.idle()

    def idle(self) -> None:
        b = self.bus
        b.valid.value, b.write.value, b.addr.value, b.wdata.value = 0, 0, 0, 0

    async def _driver_send(self, transaction: RegAccess, sync: bool = True) -> None:
        if transaction.write:
            await self.write(transaction.addr, transaction.data)
        else:
            transaction.data = await self.read(transaction.addr)

    async def write(self, addr: int, value: int) -> None:
        b = self.bus
        b.valid.value, b.write.value = 1, 1
        b.addr.value, b.wdata.value = addr, value & 0xFFFF_FFFF
        # sampled at the edge: this edge's handshake
        await edge_when_high(
            self.clock,
            b.ready,
            what=f"host write of 0x{value & 0xFFFF_FFFF:x} to register 0x{addr:02x}",
            bound=self.bound,
        )
        b.valid.value = 0

    async def read(self, addr: int) -> int:
        b = self.bus
        b.valid.value, b.write.value, b.addr.value = 1, 0, addr
        await edge_when_high(
            self.clock, b.ready, what=f"host read of register 0x{addr:02x}", bound=self.bound
        )
        b.valid.value = 0
        await wait_high(
            self.clock, b.rvalid, what=f"host read of register 0x{addr:02x} (read data)", bound=16
        )
        value = int(b.rdata.value)
        await RisingEdge(self.clock)
        return value

    async def load(self, image: LaunchImage | list[int]) -> None:
        for word in image if isinstance(image, list) else image.to_words():
            await self.write(REG_IMAGE, word)

    async def start(self) -> None:
        await self.write(REG_CTRL, CTRL_START)

    async def abort(self) -> None:
        await self.write(REG_CTRL, CTRL_ABORT)

    async def status(self) -> int:
        return await self.read(REG_STATUS)

    async def wait_idle(
        self,
        max_cycles: int = 2_000_000,
        irq: Any = None,
        stall_cycles: int = 100_000,
        every: int = 50,
        max_instrs: int | None = None,
        report: HangReport | None = None,
    ) -> int:
        """Wait until STATUS shows BUSY and LOADING low; return STATUS. With ``irq`` (the GPU's
        launch-ended interrupt) it sleeps until irq rises, waking every ``stall_cycles`` for the
        watchdog; without, it polls STATUS every ``every`` cycles. A :class:`Watchdog` ends a hang with
        a clear error: after ``max_cycles``; as soon as there was no progress in ``stall_cycles`` — no
        warp-instruction retired (performance counter ``warp_instrs``) and no memory response
        (``MEM_RSPS``); or once more than ``max_instrs`` retired (a warp spinning). Its message gives
        STATUS, the block counters, the memory counters, what the loader waits for, the RTL's debug view
        of every resident warp (:meth:`warps`) and ``await report(warp_instrs so far, those warps)``
        (the environment's golden-model view and their comparison; without it, the RTL's lines)."""
        last, last_check = (-1, -1), 0
        start = get_sim_time("ns")
        while True:
            st = await self.status()
            if not st & (ST_BUSY | ST_LOADING):
                # The wait above only sleeps on irq (polling STATUS finds the end regardless), so irq is
                # checked here: idle, it must be high exactly when STATUS shows DONE or ERROR.
                if irq is not None:
                    check_irq(irq, st)
                return st
            waited = int((get_sim_time("ns") - start) // self.period_ns)
            if waited >= max_cycles:
                raise await self._watchdog(f"the GPU stayed busy for {max_cycles} cycles", st, report)
            if st & ST_BUSY and waited - last_check >= min(stall_cycles, max_cycles):
                instrs = await self.perf(PERF_WARP_INSTRS)
                rsps = await self.read(REG_MEM_RSPS)
                if (instrs, rsps) == last:
                    raise await self._watchdog(
                        f"no warp-instruction retired and no memory response in {stall_cycles} "
                        f"cycles ({instrs} retired, {rsps} responses so far; stopped after "
                        f"{waited} cycles)",
                        st,
                        report,
                        instrs,
                    )
                if max_instrs is not None and instrs > max_instrs:
                    raise await self._watchdog(
                        f"the launch ran past its budget of {max_instrs} warp-instructions "
                        f"({instrs} after {waited} cycles: a warp spinning?)",
                        st,
                        report,
                        instrs,
                    )
                last, last_check = (instrs, rsps), waited
            if irq is None:
                await Timer(every * self.period_ns, "ns")  # one simulator callback, not one per cycle
            elif not int(irq.value):  # already high: the launch ended while STATUS was being read
                wait = min(stall_cycles, max_cycles - waited) * self.period_ns
                await First(RisingEdge(irq), Timer(max(wait, self.period_ns), "ns"))
            await RisingEdge(self.clock)

    async def _watchdog(
        self, what: str, st: int, report: HangReport | None, instrs: int | None = None
    ) -> Watchdog:
        text = f"watchdog: {what} ({await self._progress(st)})"
        views = await self.warps() if st & ST_BUSY else []
        if instrs is None:
            instrs = await self.perf(PERF_WARP_INSTRS)
        if report is not None:
            text += "\n  " + (await report(instrs, views)).replace("\n", "\n  ")
        elif views:
            text += "\n  RTL debug view, one line per resident warp:\n    " + "\n    ".join(rtl_lines(views))
        return Watchdog(text, views)

    async def _progress(self, st: int) -> str:
        text = (
            f"STATUS 0x{st:x}, blocks dispatched {await self.read(REG_BLOCKS_DISPATCHED)}, "
            f"done {await self.read(REG_BLOCKS_DONE)}, memory responses {await self.read(REG_MEM_RSPS)}, "
            f"outstanding {await self.read(REG_MEM_OUTSTANDING)}"
        )
        return await self._loader_note(st) + text

    async def warps(self) -> list[WarpView]:
        """Every resident warp slot of every SM through the debug view (docs/gpu.md): DBG_SEL, then
        DBG_WARP, and for a resident slot DBG_BLOCK, DBG_PC and DBG_LAST_PC. CONFIG gives the SMs;
        slots are read up to the first SM's 32 (an empty slot costs one write and one read)."""
        views = []
        sms = await self.read(REG_CONFIG) >> 24
        for sm in range(sms):
            for slot in range(32):
                await self.write(REG_DBG_SEL, sm << 5 | slot)
                reg = await self.read(REG_DBG_WARP)
                if reg & 7 == 0:
                    continue
                regs = [await self.read(r) for r in (REG_DBG_BLOCK, REG_DBG_PC, REG_DBG_LAST_PC)]
                views.append(WarpView.from_registers(sm, slot, reg, *regs))
        return views

    async def _loader_note(self, st: int) -> str:
        """'the loader is waiting for word N ...; ' when STATUS shows it mid-image ('' otherwise)."""
        state = st >> 4 & 0xF
        if not st & ST_LOADING or state not in (1, 2, 3, 4, 5):
            return ""
        n = await self.read(REG_IMG_WORDS)
        return (
            f"the loader is waiting for word {n} of the launch image ({LOADER_STATES[state]}): the image "
            f"sent was cut short, send the rest or ABORT; "
        )

    async def error(self) -> GpuError:
        regs = [await self.read(r) for r in range(REG_ERR_KIND, REG_IMG_WORDS + 1)]
        return GpuError(*regs)

    async def perf(self, counter: int, sm: int = PERF_ALL_SMS) -> int:
        await self.write(REG_PERF_SEL, (sm << 5) | counter)
        lo = await self.read(REG_PERF_LO)
        hi = await self.read(REG_PERF_HI)
        return hi << 32 | lo


class HostMonitor(BusMonitor):
    """Publishes every completed host access as a :class:`RegAccess` (reads with their data).

    Sleeps on ``host_valid`` between accesses, so an idle host interface costs nothing per cycle.
    Starts at the first reset (:func:`tb.agents.observers.reset_applied`): before it ``host_ready``
    and ``host_rvalid`` are whatever the simulator starts the registers with.
    """

    _signals = HOST_SIGNALS

    def __init__(self, dut: Any, clock: Any, callback: Callable[[RegAccess], None] | None = None) -> None:
        super().__init__(dut, "host", clock, callback=callback)

    async def _monitor_recv(self) -> None:
        b = self.bus
        await reset_applied(self.clock, self.entity.rst)
        while True:
            await next_handshake(self.clock, b.valid, b.ready)
            acc = RegAccess(int(b.addr.value), bool(int(b.write.value)), int(b.wdata.value))
            if not acc.write:
                await wait_high(self.clock, b.rvalid, what="host monitor: read data", bound=16)
                acc.data = int(b.rdata.value)
                await RisingEdge(self.clock)
            self._recv(acc)


def check_irq(irq: Any, st: int) -> None:
    """With the GPU idle (STATUS ``st`` read without BUSY or LOADING), irq must be high exactly when DONE
    or ERROR is set: the host's waits only sleep on irq (polling STATUS finds the end regardless), so
    nothing else would notice an irq that is missing, or raised without a launch end (e.g. after ABORT)."""
    if bool(int(irq.value)) != bool(st & (ST_DONE | ST_ERROR)):
        raise AssertionError(
            f"irq is {int(irq.value)} at the launch end, but STATUS is 0x{st:x} (irq must be high "
            "exactly when DONE or ERROR is set and BUSY and LOADING are low)"
        )
