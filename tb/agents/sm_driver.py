"""Drive one SM (rtl/sm/simt_sm.v) through its test ports: program load, launch configuration and
block dispatch, plus a retire monitor that decodes the retire port into records.

The GPU top (rtl/top) will own launch and dispatch; until then this driver plays the host and the
block scheduler for SM-level tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from spec.config import GpuConfig
from spec.image import LaunchImage
from spec.retire_record import FIELDS, RtlRetire
from tb.agents.handshake import edge_when_high


@dataclass(frozen=True)
class SmLaunch:
    """The SM's launch configuration inputs (docs/sm.md), derived from a launch image."""

    wpb: int  # warps per block
    slots: int  # block slots this launch may use
    sh_stride: int  # shared words per block rounded up to NUM_BANKS

    @classmethod
    def of(cls, cfg: GpuConfig, image: LaunchImage) -> SmLaunch:
        wpb = image.warps_per_block(cfg.warp_size)
        stride = -(-image.shared_words // cfg.num_banks) * cfg.num_banks
        limits = [cfg.num_blocks, cfg.num_warps // wpb, cfg.rf_depth // (wpb * image.regs * cfg.warp_rows)]
        if stride:
            limits.append(cfg.shared_words // stride)
        slots = min(limits)
        if slots < 1:
            raise ValueError("launch does not fit one SM (LaunchImage.check should have refused it)")
        return cls(wpb, slots, stride)


def _pack(values: list[int], width: int) -> int:
    out = 0
    for i, v in enumerate(values):
        out |= (v & ((1 << width) - 1)) << (i * width)
    return out


class SmDriver:
    """Loads a launch image into the SM and dispatches its blocks in flat order."""

    def __init__(self, dut: Any, cfg: GpuConfig, image: LaunchImage) -> None:
        self.dut, self.cfg, self.image = dut, cfg, image
        self.launch = SmLaunch.of(cfg, image)
        self.dispatched: list[int] = []
        self.done: list[int] = []
        self.bound = 2_000_000  # cycles one block may wait for blk_ready (the SM runs earlier blocks)

    def idle_inputs(self) -> None:
        d = self.dut
        for name in ("imem_we", "cmem_we", "blk_valid", "perf_sel", "perf_clear", "dbg_warp"):
            getattr(d, name).value = 0
        d.perf_run.value = 1  # the SM bench counts every cycle
        d.sm_id.value = 0

    async def load(self) -> None:
        """Write instructions and constants, and set the launch configuration."""
        d, img = self.dut, self.image
        for i, w in enumerate(img.code):
            await RisingEdge(d.clk)
            d.imem_we.value, d.imem_waddr.value, d.imem_wdata.value = 1, i, w
        for i, w in enumerate(img.consts):
            await RisingEdge(d.clk)
            d.imem_we.value = 0
            d.cmem_we.value, d.cmem_waddr.value, d.cmem_wdata.value = 1, i, w & 0xFFFF_FFFF
        await RisingEdge(d.clk)
        d.imem_we.value = 0
        d.cmem_we.value = 0
        d.cfg_grid.value = _pack(list(img.grid), 16)
        d.cfg_block.value = _pack(list(img.block), 16)
        d.cfg_threads.value = img.threads_per_block
        d.cfg_regs.value = img.regs
        d.cfg_wpb.value = self.launch.wpb
        d.cfg_slots.value = self.launch.slots
        d.cfg_shared.value = img.shared_words
        d.cfg_sh_stride.value = self.launch.sh_stride
        d.cfg_nparams.value = len(img.params)
        d.cfg_params.value = _pack(list(img.params) + [0] * (16 - len(img.params)), 32)
        d.cfg_ninstr.value = len(img.code)
        d.cfg_nconst.value = len(img.consts)

    async def dispatch_all(self, on_dispatch: Any = None) -> None:
        """Offer blocks in flat order; ``on_dispatch(bid)`` runs when the SM accepts one."""
        d, img = self.dut, self.image
        gx, gy, _ = img.grid
        for bid in range(img.num_blocks):
            ctaid = (bid % gx, (bid // gx) % gy, bid // (gx * gy))
            d.blk_valid.value = 1
            d.blk_id.value = bid
            d.blk_ctaid.value = _pack(list(ctaid), 16)
            # Sampled at the edge, before registers update: the handshake of this edge. A block waits
            # while the SM's slots are busy with running blocks: bounded by the longest kernel.
            await edge_when_high(d.clk, d.blk_ready, what=f"SM driver: block {bid} offered", bound=self.bound)
            self.dispatched.append(bid)
            if on_dispatch is not None:
                on_dispatch(bid)
        d.blk_valid.value = 0

    async def read_perf(self, index: int) -> int:
        self.dut.perf_sel.value = index
        await FallingEdge(self.dut.clk)
        await ReadOnly()
        value = int(self.dut.perf_value.value)
        await FallingEdge(self.dut.clk)
        return value


def _field(dut: Any, name: str, sm: int, width: int) -> str:
    """Bits of SM ``sm``'s slice of a (possibly packed) retire signal, as a binary string."""
    handle = getattr(dut, name)
    raw = getattr(handle, "_handle", None)
    # The simulator's bit string directly: building a LogicArray per field was a quarter of the
    # harness's time with every scoreboard on (tools/bench/check_overhead.py).
    bits = raw.get_signal_val_binstr() if raw is not None else str(handle.value)
    return bits[len(bits) - width * (sm + 1) : len(bits) - width * sm]


def sample_retire(dut: Any, warp_size: int, sm: int = 0, depth_w: int | None = None) -> RtlRetire:
    """Decode SM ``sm``'s retire record (call in ReadOnly when its rt_valid bit is high).

    Works on one SM's ports and on the GPU top, where every rt_* signal packs one slice per SM.
    Lanes holding X or Z (Icarus: never-written registers of inactive lanes) are flagged in
    ``xlanes`` (``record.lane(i)`` is None), so a scoreboard can tell "unknown" from any value.
    """
    dw = depth_w if depth_w is not None else len(dut.rt_pops) // len(dut.rt_valid)
    vals: list[Any] = []
    xlanes = 0
    for f in FIELDS:  # spec/retire_record.py: the one definition of the record
        bits = _field(dut, f.port, sm, f.bits(warp_size, dw))
        if f.kind is list:  # lanes packed as on the bus; an X/Z lane reads 0 and is flagged in xlanes
            value = 0
            for i in range(warp_size):
                chunk = bits[len(bits) - 32 * (i + 1) : len(bits) - 32 * i]
                if set(chunk) <= {"0", "1"}:
                    value |= int(chunk, 2) << (32 * i)
                else:
                    xlanes |= 1 << i
            vals.append(value)
        else:
            v = int(bits, 2)
            vals.append(bool(v) if f.kind is bool else v)
    return RtlRetire(*vals, xlanes)


async def retire_monitor(dut: Any, warp_size: int, sink: Any) -> None:
    """Forever: call ``sink(record, sm)`` for every retire pulse of every SM (one per SM per cycle)."""
    nsms = len(dut.rt_valid)
    while True:
        await RisingEdge(dut.clk)
        await ReadOnly()
        valid = int(dut.rt_valid.value)
        for sm in range(nsms):
            if valid >> sm & 1:
                sink(sample_retire(dut, warp_size, sm), sm)


__all__ = ["SmDriver", "SmLaunch", "RtlRetire", "retire_monitor", "cocotb"]
