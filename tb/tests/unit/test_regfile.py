"""Unit bench of rtl/sm/simt_regfile.v: per-lane register-file partitions with 3 registered read ports.

Checked against a Python model of the documented behaviour (docs/sm.md, "simt_regfile"):

* ``random_traffic``: every cycle random addresses on all three read ports and a random write (random
  row, random lane enables, random data); each read is compared the cycle after its address with the
  model's row *before* that cycle's write (a same-cycle write is invisible: old value).
* ``same_row``: directed read-during-write of one row on all three ports, full and partial lane enables.
* ``warp_tiling``: the address formula ``base(s) + r*ROWS + k`` with ``base(s) = s*regs*ROWS`` tiles the
  partition: every register of every usable warp slot gets its own row, written and read back.

The launchers run several (NUM_LANES, RF_DEPTH) configurations, and prove that illegal parameters stop
both simulators at time 0 with the module's message.
"""

from __future__ import annotations

import os
import random

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from tb import benchutil, rtlsim

M32 = 0xFFFF_FFFF
TESTS = ["random_traffic", "same_row", "warp_tiling"]


# ---------------------------------------------------------------------------------------------
# Reference model and helpers
# ---------------------------------------------------------------------------------------------
class RegfileModel:
    """rows[row] is the packed NUM_LANES*32-bit value of the row (lane i in bits [i*32 +: 32])."""

    def __init__(self, lanes: int, depth: int) -> None:
        self.lanes, self.depth = lanes, depth
        self.rows = [0] * depth

    def write(self, row: int, we: int, data: int) -> None:
        keep = self.rows[row]
        for lane in range(self.lanes):
            if we >> lane & 1:
                sh = lane * 32
                keep = (keep & ~(M32 << sh)) | (data & (M32 << sh))
        self.rows[row] = keep


def _params(dut) -> tuple[int, int]:
    return len(dut.we), 1 << len(dut.waddr)


def _lanes_str(v: int, lanes: int) -> str:
    return " ".join(f"{v >> (32 * i) & M32:08x}" for i in range(lanes))


async def _start(dut, test: str) -> tuple[RegfileModel, int, int]:
    """Start the clock, idle the ports, and write every row (so Icarus reads no X) with random data."""
    lanes, depth = _params(dut)
    dut._log.info(
        "SEED=%d reruns %s: NUM_LANES=%d RF_DEPTH=%d",
        benchutil.rerun_seed(__name__, test),
        test,
        lanes,
        depth,
    )
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    model = RegfileModel(lanes, depth)
    full = (1 << lanes) - 1
    dut.raddr_a.value = dut.raddr_b.value = dut.raddr_c.value = 0
    for row in range(depth):
        await RisingEdge(dut.clk)
        data = random.getrandbits(32 * lanes)
        dut.we.value, dut.waddr.value, dut.wdata.value = full, row, data
        model.write(row, full, data)
    await RisingEdge(dut.clk)
    dut.we.value = 0
    return model, lanes, depth


def _check_ports(dut, expect: tuple[int, int, int], what: str) -> int:
    """Compare rdata_a/b/c (sampled in ReadOnly) with expect; return the number of port reads checked."""
    lanes = len(dut.we)
    for port, exp in zip("abc", expect):
        got = int(getattr(dut, f"rdata_{port}").value)
        assert got == exp, (
            f"{what}: rdata_{port} = [{_lanes_str(got, lanes)}], expected [{_lanes_str(exp, lanes)}] (lane 0 first)"
        )
    return 3


# ---------------------------------------------------------------------------------------------
# cocotb tests
# ---------------------------------------------------------------------------------------------
@cocotb.test()
async def random_traffic(dut):
    model, lanes, depth = await _start(dut, "random_traffic")
    cycles = int(os.environ.get("RF_CYCLES", "3000"))
    checked = 0
    pending = None  # expected data of the reads issued in the previous cycle
    hot = [random.randrange(depth) for _ in range(4)]  # a few rows hit often: read/write collisions
    collisions = 0
    for cyc in range(cycles + 1):
        await RisingEdge(dut.clk)
        if cyc < cycles:

            def pick() -> int:
                return random.choice(hot) if random.random() < 0.3 else random.randrange(depth)

            ra, rb, rc, wa = pick(), pick(), pick(), pick()
            mode = random.random()
            we = 0 if mode < 0.15 else (1 << lanes) - 1 if mode < 0.35 else random.getrandbits(lanes)
            wd = random.getrandbits(32 * lanes)
            dut.raddr_a.value, dut.raddr_b.value, dut.raddr_c.value = ra, rb, rc
            dut.we.value, dut.waddr.value, dut.wdata.value = we, wa, wd
            nxt = (model.rows[ra], model.rows[rb], model.rows[rc])  # old values: read before the write
            collisions += we != 0 and wa in (ra, rb, rc)
            model.write(wa, we, wd)
        await ReadOnly()
        if pending is not None:
            checked += _check_ports(dut, pending[1], f"cycle {pending[0]} reads {pending[2]}")
        pending = (cyc, nxt, (ra, rb, rc)) if cyc < cycles else None
    assert collisions > 0, "no same-cycle read/write of one row was generated"
    # Final sweep: every row on port A, B and C.
    for row in range(depth + 1):
        await RisingEdge(dut.clk)
        dut.we.value = 0
        if row < depth:
            dut.raddr_a.value = row
            dut.raddr_b.value = (row + 1) % depth
            dut.raddr_c.value = depth - 1 - row
        await ReadOnly()
        if row > 0:
            r = row - 1
            exp = (model.rows[r], model.rows[(r + 1) % depth], model.rows[depth - 1 - r])
            checked += _check_ports(dut, exp, f"final sweep row {r}")
    dut._log.info("checked %d port reads (%d cycles, %d read/write collisions)", checked, cycles, collisions)
    assert checked > 0


@cocotb.test()
async def same_row(dut):
    model, lanes, depth = await _start(dut, "same_row")
    checked = 0
    full = (1 << lanes) - 1
    patterns = [full, 1, 1 << (lanes - 1), 0x5555_5555 & full, 0xAAAA_AAAA & full, 0]
    for we in patterns:
        for row in (0, depth - 1, random.randrange(depth)):
            old = model.rows[row]
            data = random.getrandbits(32 * lanes)
            # Cycle 1: write `row` and read it on all three ports: old value.
            await RisingEdge(dut.clk)
            dut.raddr_a.value = dut.raddr_b.value = dut.raddr_c.value = row
            dut.we.value, dut.waddr.value, dut.wdata.value = we, row, data
            model.write(row, we, data)
            # Cycle 2: keep reading it, no write: the new value (only the enabled lanes changed).
            await RisingEdge(dut.clk)
            dut.we.value = 0
            await ReadOnly()
            checked += _check_ports(dut, (old,) * 3, f"read of row {row} during a write (we={we:#x})")
            await RisingEdge(dut.clk)
            await ReadOnly()
            checked += _check_ports(
                dut, (model.rows[row],) * 3, f"read of row {row} after a write (we={we:#x})"
            )
    # Back-to-back writes of one row while reading it: each read sees the previous cycle's write.
    row = random.randrange(depth)
    await RisingEdge(dut.clk)
    dut.raddr_a.value = dut.raddr_b.value = dut.raddr_c.value = row
    expect = None
    for _ in range(8):
        await RisingEdge(dut.clk)
        we, data = random.getrandbits(lanes), random.getrandbits(32 * lanes)
        dut.we.value, dut.waddr.value, dut.wdata.value = we, row, data
        nxt = model.rows[row]
        model.write(row, we, data)
        await ReadOnly()
        if expect is not None:
            checked += _check_ports(dut, (expect,) * 3, f"back-to-back writes of row {row}")
        expect = nxt
    dut._log.info("checked %d port reads", checked)
    assert checked > 0


@cocotb.test()
async def warp_tiling(dut):
    """Register r of row k of warp slot s at base(s) + r*ROWS + k, base(s) = s*regs*ROWS (docs/sm.md)."""
    model, lanes, depth = await _start(dut, "warp_tiling")
    checked = 0
    warp_size = 32  # the register file has no warp-size parameter: tile 32-thread warps
    num_warps = 16
    rows = warp_size // lanes
    for regs in sorted({1, 3, 8, 32, random.randint(1, 32)}):
        if regs * rows > depth:
            continue  # not even one warp fits; the launch would be refused
        slots = min(num_warps, depth // (regs * rows))
        addr = {}
        for s in range(slots):
            for r in range(regs):
                for k in range(rows):
                    a = s * regs * rows + r * rows + k
                    assert a < depth and a not in addr.values(), (
                        f"formula gives row {a} twice or out of range"
                    )
                    addr[(s, r, k)] = a

        def value(s: int, r: int, k: int, regs: int = regs) -> int:
            # lane i of row k holds thread k*NUM_LANES + i; tag every word with (slot, reg, thread)
            return sum(((s << 24 | r << 16 | (k * lanes + i)) ^ regs << 8) << (32 * i) for i in range(lanes))

        items = list(addr.items())
        random.shuffle(items)
        for (s, r, k), a in items:
            await RisingEdge(dut.clk)
            dut.we.value, dut.waddr.value, dut.wdata.value = (1 << lanes) - 1, a, value(s, r, k)
            model.write(a, (1 << lanes) - 1, value(s, r, k))
        await RisingEdge(dut.clk)
        dut.we.value = 0
        random.shuffle(items)
        pending = None
        for idx in range(len(items) + 1):
            if idx < len(items):
                (s, r, k), a = items[idx]
                dut.raddr_a.value = a
                # port B and C read the neighbours in the formula, to show they differ
                (s2, r2, k2) = (s, (r + 1) % regs, k)
                dut.raddr_b.value = addr[(s2, r2, k2)]
                dut.raddr_c.value = addr[((s + 1) % slots, r, k)]
            await ReadOnly()
            if pending is not None:
                ps, pr, pk = pending
                exp = (value(ps, pr, pk), value(ps, (pr + 1) % regs, pk), value((ps + 1) % slots, pr, pk))
                checked += _check_ports(dut, exp, f"regs={regs} slot {ps} r{pr} row {pk}")
            pending = (s, r, k) if idx < len(items) else None
            await RisingEdge(dut.clk)
        dut._log.info(
            "regs=%d ROWS=%d: %d warp slots, %d rows used of %d", regs, rows, slots, len(addr), depth
        )
    dut._log.info("checked %d port reads", checked)
    assert checked > 0


# ---------------------------------------------------------------------------------------------
# pytest launchers
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lanes,depth", [(4, 64), (8, 128), (32, 64)])
def test_regfile(lanes, depth):
    rtlsim.run(
        "simt_regfile",
        ["sm/simt_regfile.v"],
        __name__,
        parameters={"NUM_LANES": lanes, "RF_DEPTH": depth},
        testcase=TESTS,
    )


@pytest.mark.parametrize(
    "params,message",
    [
        (
            {"NUM_LANES": 12, "RF_DEPTH": 64},
            "simt_regfile: illegal parameter NUM_LANES=12 (must be one of 4, 8, 16, 32)",
        ),
        (
            {"NUM_LANES": 8, "RF_DEPTH": 96},
            "simt_regfile: illegal parameter RF_DEPTH=96 (must be a power of two in 32..4096)",
        ),
    ],
)
def test_regfile_illegal_parameter(params, message):
    rtlsim.expect_fatal("simt_regfile", ["sm/simt_regfile.v"], params, message)
