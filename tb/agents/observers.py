"""Passive monitors of the GPU's observation ports (docs/gpu.md, docs/sm.md "Retire port").

* :class:`RetireMonitor` publishes every retire record ``(RtlRetire, sm)`` of every SM and every
  block dispatch ``(block, sm)`` (the model must know which SM runs a block before its first retire).
* :class:`SharedMonitor` publishes each cycle's shared-memory bank writes of each SM as
  ``(sm, clear, [(physical address, data), ...], warp slot)``.

Both sleep on a value change of their valid signals, so a quiet port costs nothing per cycle; while
it is busy they sample once per cycle in the ReadOnly phase (settled values, no race with drivers).
Neither looks at its port before the first reset has reached the registers (:func:`reset_applied`).
"""

from __future__ import annotations

from typing import Any

import pyuvm
from cocotb.triggers import FallingEdge, First, ReadOnly, RisingEdge, ValueChange

from tb.agents.sm_driver import sample_retire


def _int(handle: Any) -> int:
    v = handle.value
    return int(v) if v.is_resolvable else 0


def _slice(bits: str, i: int, width: int) -> int:
    """Field ``i`` of width ``width`` of a packed value given as an MSB-first bit string."""
    chunk = bits[len(bits) - width * (i + 1) : len(bits) - width * i]
    try:
        return int(chunk, 2)
    except ValueError:
        raise AssertionError(f"shared-memory observation port carries X/Z in a written bank: {chunk}") from None


async def reset_applied(clk: Any, rst: Any) -> None:
    """Return at the first rising clock edge with ``rst`` high (seen at the falling edge before it).

    Until then every register holds what the simulator starts it with: X on Icarus, random bits on
    Verilator (tb/rtlsim.py), so an observation port's valid may be 1 with garbage behind it.
    """
    while True:
        await FallingEdge(clk)
        if _int(rst):
            await RisingEdge(clk)
            return


class RetireMonitor(pyuvm.uvm_component):
    def build_phase(self) -> None:
        self.dut = pyuvm.ConfigDB().get(self, "", "DUT")
        self.cfg = pyuvm.ConfigDB().get(self, "", "GPU_CFG")
        self.retire_ap = pyuvm.uvm_analysis_port("retire_ap", self)
        self.dispatch_ap = pyuvm.uvm_analysis_port("dispatch_ap", self)
        # end-only checking watches dispatches alone (the model needs the SM of each block)
        self.watch_retires = pyuvm.ConfigDB().get(self, "", "CHECK_MODE") == "full"

    async def run_phase(self) -> None:
        dut, ws, nsms = self.dut, self.cfg.warp_size, self.cfg.num_sms
        disp = dut.dispatch_valid
        rt_valid = dut.rt_valid if self.watch_retires else None
        await reset_applied(dut.clk, dut.rst)
        while True:
            await ReadOnly()
            d = _int(disp)
            if d:  # dispatched at the coming edge: before that block can retire anything
                self.dispatch_ap.write((int(dut.dispatch_block.value), (d & -d).bit_length() - 1))
            v = _int(rt_valid) if rt_valid is not None else 0
            for sm in range(nsms):
                if v >> sm & 1:
                    self.retire_ap.write((sample_retire(dut, ws, sm), sm))
            if d or v:
                await RisingEdge(dut.clk)
            elif rt_valid is None:
                await ValueChange(disp)
            else:
                await First(ValueChange(rt_valid), ValueChange(disp))


class SharedMonitor(pyuvm.uvm_component):
    def build_phase(self) -> None:
        self.dut = pyuvm.ConfigDB().get(self, "", "DUT")
        self.cfg = pyuvm.ConfigDB().get(self, "", "GPU_CFG")
        self.ap = pyuvm.uvm_analysis_port("ap", self)

    async def run_phase(self) -> None:
        dut, cfg = self.dut, self.cfg
        nb = cfg.num_banks
        aw = (cfg.shared_words - 1).bit_length()
        we_sig = dut.sh_obs_we
        await reset_applied(dut.clk, dut.rst)
        while True:
            await ReadOnly()
            we = _int(we_sig)
            if not we:
                await ValueChange(we_sig)
                continue
            # bit strings, MSB first: banks not written may hold X on Icarus, so slice before int()
            addrs, datas, clr = str(dut.sh_obs_addr.value), str(dut.sh_obs_data.value), _int(dut.sh_obs_clr)
            warps = str(dut.sh_obs_warp.value)
            for sm in range(cfg.num_sms):
                bits = we >> (sm * nb) & ((1 << nb) - 1)
                if not bits:
                    continue
                writes = []
                for b in range(nb):
                    if bits >> b & 1:
                        i = sm * nb + b
                        writes.append((_slice(addrs, i, aw), _slice(datas, i, 32)))
                self.ap.write((sm, bool(clr >> sm & 1), writes, _slice(warps, sm, 5)))
            await RisingEdge(dut.clk)
