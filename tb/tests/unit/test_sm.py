"""SM-level smoke tests: small kernels run to completion on one simt_sm.

Each kernel is loaded through the SM's test ports, its blocks are dispatched in flat order, global
memory is answered by the out-of-order responder with random latency, and **every retired
warp-instruction is checked in lockstep against the golden model**: the retire scoreboard
(tb/scoreboards/retire.py: pc, mask, lane values, flags) and the divergence scoreboard
(tb/scoreboards/divergence.py: next pc and mask, stack events, depth and top). At the end every
global word and every exact performance counter must equal the model's.

The bench also checks ``idle`` (high before the first dispatch and after the last block, low in
between), the timing counters (idle cycles <= cycles, one per clock each once the SM is idle, both
frozen while ``perf_run`` is low), and the observation ports the retire scoreboard does not use
(:class:`PortChecks`):
the stack top after each instruction (rt_top_*) against the model's ``Warp.stack[-1]``, the block
slot (rt_slot) for consistency, shared passes and global transactions (rt_passes, rt_txns), a mirror of shared memory built only from the bank-write ports
(sh_obs_*) against the model's shared memory of the block after every shared store; every store
write must be attributed (sh_obs_warp) to the warp slot that retires the store.
"""

from __future__ import annotations

import os
import random
from typing import Any

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

from kernels.directed import ERROR_KERNELS, KERNELS, image_of, scenario_image
from spec.config import GpuConfig
from spec.error_names import error_kind_name
from spec.hang import WarpView, compare_hang, golden_run, rtl_lines, warp_report
from spec.image import LaunchImage
from spec.machines import SM_UNIT
from spec.model import DIV, ERROR_CODES, PERF_COUNTERS, TIMING_COUNTERS, KernelError, Model
from tb import benchenv, rtlsim
from tb.agents.gmem_responder import GmemResponder
from tb.agents.sm_driver import SmDriver, retire_monitor
from tb.scoreboards.divergence import DivergenceScoreboard
from tb.scoreboards.retire import RetireScoreboard

SM_SOURCES = sorted(str(p.relative_to(rtlsim.RTL)) for p in (rtlsim.RTL / "sm").glob("simt_*.v"))


class PortChecks:
    """Checks of rt_slot, rt_top_* and sh_obs_* (call :meth:`after_retire` after the model stepped)."""

    def __init__(self, dut, cfg: GpuConfig, model: Model, slots: int, sh_stride: int, wpb: int) -> None:
        self.dut, self.cfg, self.model = dut, cfg, model
        self.slots, self.stride, self.wpb = slots, sh_stride, wpb
        # warp slot -> words its store rows wrote since its last retire
        self.written: dict[int, set[int]] = {}
        self.aw = (cfg.shared_words - 1).bit_length()
        self.mirror: list[int | None] = [None] * cfg.shared_words  # None: never written
        self.slot_of: dict[int, int] = {}  # resident block -> slot
        self.tops = self.stores = self.clears = 0

    async def watch_shared(self) -> None:
        """Forever: apply every bank write shown on sh_obs_* to the mirror (written at the next edge)."""
        d, nb, aw = self.dut, self.cfg.num_banks, self.aw
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            we = int(d.sh_obs_we.value)
            if not we:
                continue
            addr, data, clr = int(d.sh_obs_addr.value), int(d.sh_obs_data.value), int(d.sh_obs_clr.value)
            writer = self.written.setdefault(int(d.sh_obs_warp.value), set()) if not clr else set()
            if clr:
                assert we == (1 << nb) - 1, f"a line clear writes banks 0x{we:x}, not all {nb}"
                self.clears += 1
            for b in range(nb):
                if we >> b & 1:
                    a, v = addr >> (b * aw) & ((1 << aw) - 1), data >> (32 * b) & 0xFFFF_FFFF
                    assert a % nb == b, f"bank {b} reports a write to word {a} (bank {a % nb})"
                    assert not clr or v == 0, f"line clear writes 0x{v:x} to word {a}"
                    self.mirror[a] = v
                    writer.add(a)

    def after_retire(self, rec, exp) -> None:
        # Block slot: in range, the same for every retire of a block, never shared by two resident blocks.
        assert rec.slot < self.slots, f"rt_slot {rec.slot} >= usable slots {self.slots}"
        owner = next((b for b, s in self.slot_of.items() if s == rec.slot), rec.block)
        assert owner == rec.block, f"block {rec.block} retires in slot {rec.slot}, held by block {owner}"
        held = self.slot_of.setdefault(rec.block, rec.slot)
        assert held == rec.slot, f"block {rec.block} moved from slot {held} to {rec.slot}"
        mem = exp.mem
        if mem is not None and mem.space == "shared":
            assert rec.passes == mem.passes, (
                f"pc {rec.pc}: shared passes RTL {rec.passes}, model {mem.passes}"
            )
        if mem is not None and mem.space == "global":
            want_t = len(mem.transactions)
            assert rec.txns == want_t, f"pc {rec.pc}: global transactions RTL {rec.txns}, model {want_t}"
        # Stack top after the instruction, encoded as the model's [kind, pc, mask] (0 when empty).
        stack = self.model.warp(rec.block, rec.warp).stack
        want = (1 if stack[-1][0] is DIV else 0, stack[-1][1], stack[-1][2]) if stack else (0, 0, 0)
        got = (rec.top_kind, rec.top_pc, rec.top_mask)
        assert got == want, (
            f"block {rec.block} warp {rec.warp} pc {rec.pc}: stack top (kind, pc, mask) "
            f"RTL {got}, model {want} (stack {stack})"
        )
        self.tops += bool(stack)
        # Shared store: the words it wrote, seen through the bank-write ports, equal the model's and
        # were written by this warp's slot; any other instruction wrote nothing.
        written = self.written.pop(rec.slot * self.wpb + rec.warp, set())
        if mem is not None and mem.space == "shared" and mem.store:
            shared = self.model.blocks[rec.block].shared
            for lane in range(self.cfg.warp_size):
                if exp.mask >> lane & 1:
                    a = int(mem.addrs[lane])
                    p = rec.slot * self.stride + a
                    got_w, want_w = self.mirror[p], int(shared[a])
                    assert got_w == want_w, (
                        f"block {rec.block} pc {rec.pc} lane {lane}: shared word {a} "
                        f"(slot {rec.slot}) seen on sh_obs_* as {got_w}, model 0x{want_w:x}"
                    )
                    assert p in written, (
                        f"block {rec.block} pc {rec.pc}: word {p} not written by this warp's slot"
                    )
            self.stores += 1
        else:
            assert not written, (
                f"block {rec.block} pc {rec.pc} retired, but its warp slot wrote shared words {sorted(written)}"
            )
        if self.model.blocks[rec.block].done:
            self.slot_of.pop(rec.block, None)

    def report(self) -> str:
        return f"{self.tops} stack tops, {self.stores} shared stores, {self.clears} line clears checked"


class SmHang(AssertionError):
    """The SM bench's watchdog fired: ``views`` is the SM's debug view of its resident warps, ``problems``
    where it disagrees with the golden model (docs/verification.md "Hang report")."""

    def __init__(self, text: str, views: list[WarpView], problems: list[str]) -> None:
        super().__init__(text)
        self.views, self.problems = views, problems


async def sm_warps(dut, cfg: GpuConfig) -> list[WarpView]:
    """Every resident warp slot through the SM's debug ports (dbg_warp in, dbg_* out; docs/sm.md)."""
    views = []
    for slot in range(cfg.num_warps):
        dut.dbg_warp.value = slot
        await FallingEdge(dut.clk)
        await ReadOnly()
        retired = int(dut.dbg_retired.value)
        v = WarpView(
            0,
            slot,
            int(dut.dbg_state.value),
            int(dut.dbg_block.value),
            int(dut.dbg_wib.value),
            int(dut.dbg_pc.value),
            int(dut.dbg_last_pc.value) if retired else None,
        )
        if v.resident:
            views.append(v)
        await RisingEdge(dut.clk)  # out of the read-only phase before the next write
    return views


async def run_kernel(
    dut,
    name: str,
    cfg: GpuConfig,
    image: LaunchImage | None = None,
    retire_log: list[tuple[int, Any]] | None = None,
    stall: int = 20_000,
    max_instrs: int | None = None,
    deaf: bool = False,
) -> None:
    """Run kernel ``name`` (or ``image``) to completion, checked in lock-step; ``retire_log`` gets
    (cycle, record) of every retire (the pipeline bench, tb/tests/unit/test_sm_pipeline.py). The
    watchdog raises :class:`SmHang` after ``stall`` cycles without progress (no retire, no memory
    response), past ``max_instrs`` retires, or after 200,000 cycles; ``deaf``: the memory never answers."""
    rng = random.Random(cocotb.RANDOM_SEED)
    error = name in ERROR_KERNELS
    image = image or image_of(name, rng)
    image.check(cfg)
    model = Model(cfg, image)
    mem = np.zeros(cfg.global_words, np.uint32)
    for base, words in image.data:
        mem[base : base + len(words)] = np.array(words, dtype=np.uint64).astype(np.uint32)

    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    drv = SmDriver(dut, cfg, image)
    drv.idle_inputs()
    dut.rst.value = 1
    gmem = GmemResponder(
        dut,
        dut.clk,
        mem,
        reset=dut.rst,
        req_ready_prob=0.7,
        latency=(2, 30),
        out_of_order=True,
        rsp_valid_prob=0.0 if deaf else 0.8,
        rng=rng,
    )
    gmem.start()
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    await drv.load()
    assert int(dut.idle.value) == 1, (
        "idle is low before any block was dispatched (docs/sm.md: no block resident)"
    )

    board = RetireScoreboard(model)
    divergence = DivergenceScoreboard(model)
    ports = PortChecks(dut, cfg, model, drv.launch.slots, drv.launch.sh_stride, drv.launch.wpb)
    failures: list[BaseException] = []

    edges = [0, -1]  # rising edges so far; the edge after which err_valid was first seen high (-1: not yet)

    async def count_edges() -> None:
        while True:
            await RisingEdge(dut.clk)
            edges[0] += 1
            await ReadOnly()
            if edges[1] < 0 and int(dut.err_valid.value):
                edges[1] = edges[0]

    def on_retire(rec, sm: int) -> None:
        if retire_log is not None:
            retire_log.append((edges[0], rec))
        # An older instruction may retire on the edge that raises the error, none on a later one.
        if 0 <= edges[1] < edges[0]:
            failures.append(
                AssertionError(
                    f"retire of block {rec.block} warp {rec.warp} pc {rec.pc} after the "
                    "error was raised (docs/isa.md §7: nothing retires after it)"
                )
            )
        if failures:
            return
        try:
            exp = board.check(rec)
            diffs = divergence.check(rec, exp)
            if diffs:
                board.fail(rec, "; ".join(diffs), "divergence")
            ports.after_retire(rec, exp)
        except AssertionError as exc:
            failures.append(exc)

    async def watch_shared() -> None:
        try:
            await ports.watch_shared()
        except AssertionError as exc:
            failures.append(exc)

    done_blocks: list[int] = []
    busy_cycles = 0  # cycles with idle low
    cocotb.start_soon(count_edges())
    cocotb.start_soon(retire_monitor(dut, cfg.warp_size, on_retire))
    cocotb.start_soon(watch_shared())
    cocotb.start_soon(drv.dispatch_all(on_dispatch=lambda bid: model.start_block(bid, sm=0)))

    budget = 200_000  # cycles in all

    async def hang(what: str) -> SmHang:
        """The watchdog's report: the SM's debug view of every resident warp next to the lock-step
        model's warps (as the RTL's retires left them) and where a fresh model run of the launch ends
        (spec/hang.py), and their comparison."""
        views = await sm_warps(dut, cfg)
        last = {k: d[-1][0] for k, d in board._last.items() if d}
        recent = {k: [pc for pc, _, _ in d] for k, d in board._last.items()}
        text, stop = golden_run(cfg, image, min(max(board.compared, 1000), 50_000))
        problems = compare_hang(views, model, recent, stop)
        verdict = ("DISAGREE: " + "; ".join(problems)) if problems else "the RTL and the golden model agree"
        rtl = "\n    ".join(rtl_lines(views, image.code)) or "none resident"
        warps = "\n    ".join(warp_report(model, last, limit=64)) or "none resident"
        return SmHang(
            f"watchdog: {name}: {what} ({len(done_blocks)}/{image.num_blocks} blocks done, {board.compared} "
            f"retires)\n  RTL debug view (dbg_* ports):\n    {rtl}\n  warps as the RTL's retires left "
            f"them:\n    {warps}\n  {text}\n  {verdict}",
            views,
            problems,
        )

    def progress() -> tuple[int, int]:
        """Retires and memory responses so far (answered = accepted - still pending)."""
        return board.compared, len(gmem.transactions) - len(gmem._pending)

    last_progress, progress_at = progress(), 0
    for cycle in range(budget):
        await RisingEdge(dut.clk)
        if board.compared != last_progress[0] or progress() != last_progress:
            last_progress, progress_at = progress(), cycle
        elif cycle - progress_at >= stall:
            raise await hang(f"no retire and no memory response in {stall} cycles (stopped at cycle {cycle})")
        if max_instrs is not None and board.compared > max_instrs:
            raise await hang(
                f"ran past its budget of {max_instrs} warp-instructions ({board.compared} after "
                f"{cycle} cycles)"
            )
        busy_cycles += not int(dut.idle.value)
        if int(dut.blk_done.value):
            done_blocks.append(int(dut.blk_done_id.value))
        if failures or int(dut.err_valid.value):
            break
        if len(done_blocks) == image.num_blocks:
            break
        if error and int(dut.err_valid.value):
            break
    else:
        raise await hang(f"did not finish in {budget} cycles")
    if error and not failures:
        await ClockCycles(dut.clk, 50)  # the pipeline is flushed: any late retire fails above
    if failures:
        raise failures[0]
    if error:
        await check_error(dut, model, name)
        dut._log.info(f"{name}: {board.compared} retires matched, then the expected error")
        return
    if int(dut.err_valid.value):
        raise AssertionError(
            f"SM reported {error_kind_name(int(dut.err_kind.value))} at pc {int(dut.err_pc.value)}"
        )
    assert sorted(done_blocks) == list(range(image.num_blocks))
    assert all(b.done for b in model.blocks.values()), "RTL finished blocks the model has not finished"
    await ClockCycles(dut.clk, 5)
    bad = np.flatnonzero(mem != model.gmem)
    assert len(bad) == 0, (
        f"global memory differs at {len(bad)} words, first {bad[0]}: RTL 0x{int(mem[bad[0]]):x} model 0x{int(model.gmem[bad[0]]):x}"
    )
    checked = await check_counters(drv, model)
    assert int(dut.idle.value) == 1 and busy_cycles > 0, (
        f"idle must be low while blocks are resident and high once all are done: low for {busy_cycles} cycles, "
        f"now {int(dut.idle.value)}"
    )
    cycles = await check_timing_counters(dut, drv)
    dut._log.info(
        f"{name}: {board.report()}; {divergence.report()}; {ports.report()}; {checked} counters and {len(mem)} global "
        f"words match; {cycles} cycles"
    )


async def check_counters(drv: SmDriver, model: Model) -> int:
    """Every timing-independent counter equals the model's; returns how many were compared."""
    exact = model.counters.as_dict()
    checked = 0
    for idx, cname in enumerate(PERF_COUNTERS):
        value = await drv.read_perf(idx)
        if cname in TIMING_COUNTERS:
            continue
        assert value == exact[cname], f"counter {cname}: RTL {value}, model {exact[cname]}"
        checked += 1
    return checked


async def check_timing_counters(dut, drv: SmDriver) -> int:
    """The timing counters the model cannot predict: idle cycles are some of the cycles; with every
    block done and perf_run high both grow by exactly one per clock; both stop while perf_run is low (a
    counter read after a launch still gives the launch's). Returns cycles."""
    cyc, idl = PERF_COUNTERS.index("cycles"), PERF_COUNTERS.index("idle_cycles")

    async def read() -> tuple[int, int]:
        return await drv.read_perf(cyc), await drv.read_perf(idl)

    async def growth(index: int, edges: int = 10) -> int:
        dut.perf_sel.value = index
        await FallingEdge(dut.clk)
        await ReadOnly()
        first = int(dut.perf_value.value)
        await ClockCycles(dut.clk, edges)
        await FallingEdge(dut.clk)
        await ReadOnly()
        grown = int(dut.perf_value.value) - first
        await FallingEdge(dut.clk)  # out of the read-only phase before the next write
        return grown

    cycles, idle = await read()
    assert idle <= cycles, f"idle_cycles {idle} > cycles {cycles}"
    rates = (await growth(cyc), await growth(idl))
    assert rates == (10, 10), f"over 10 idle clocks cycles / idle_cycles grew by {rates}, not by 10 each"
    dut.perf_run.value = 0
    await ClockCycles(dut.clk, 2)
    held = await read()
    await ClockCycles(dut.clk, 20)
    assert await read() == held, f"cycles / idle_cycles {held} kept counting with perf_run low"
    dut.perf_run.value = 1
    return cycles


async def check_error(dut, model: Model, name: str) -> None:
    """The SM stopped with an error: it must be the one the model raises for that warp."""
    assert int(dut.err_valid.value), f"{name}: the kernel finished without the expected error"
    block, warp = int(dut.err_block.value), int(dut.err_warp.value)
    try:
        model.step(block, warp)
    except KernelError as exc:
        expected = exc
    else:
        raise AssertionError(
            f"{name}: SM reports an error at block {block} warp {warp}; the model steps it fine"
        )
    got = (int(dut.err_kind.value), int(dut.err_pc.value), int(dut.err_lane.value))
    want = (ERROR_CODES[expected.kind], expected.pc, 63 if expected.lane is None else expected.lane)
    assert expected.kind.name == name, f"kernel {name} raised {expected.kind.name} in the model"
    assert got == want, f"{name}: SM error (kind, pc, lane) = {got}, model {want}: {expected}"


@cocotb.test()
async def sm_kernel(dut) -> None:
    await run_kernel(dut, os.environ["SM_KERNEL"], benchenv.machine())


# SM_HANG -> (scenario (kernels/directed/scenarios), run_kernel's watchdog arguments, texts the report must hold)
SM_HANGS = {
    "spin_loop": ("spin_loop", {"max_instrs": 2000},
                  ["ran past its budget of 2000", "slot 0: block 0 warp 0 pc ", "INSTRUCTION_BUDGET"]),
    "spin_at_barrier": ("spin_at_barrier", {"max_instrs": 3000},
                        ["SM 0 slot 0: block 0 warp 0 pc 3 `BRA    3` ",
                         "SM 0 slot 1: block 0 warp 1 pc 5 `EXIT` at barrier, last retired pc 4 `BAR`",
                         "stops at block 0 warp 0 pc 3 `BRA    3`: INSTRUCTION_BUDGET"]),
    "stuck_load": ("stuck_load", {"stall": 2000, "deaf": True},
                   ["no retire and no memory response in 2000 cycles",
                    "SM 0 slot 0: block 0 warp 0 pc 3 `LDG    r3, [r1]` waiting on memory, last retired pc 2"]),
}  # fmt: skip


@cocotb.test()
async def sm_hang(dut) -> None:
    """Issue 20's hangs on one SM: the watchdog ends each, and the SM's debug view names the same warps,
    pcs and states as the golden model."""
    source, kwargs, texts = SM_HANGS[os.environ["SM_HANG"]]
    image = scenario_image(source)
    try:
        await run_kernel(dut, os.environ["SM_HANG"], benchenv.machine(), image=image, **kwargs)
    except SmHang as hang:
        dut._log.info(str(hang))
        assert not hang.problems, f"the SM's debug view disagrees with the golden model:\n{hang}"
        missing = [t for t in texts if t not in str(hang)]
        assert not missing, f"the hang report lacks {missing}:\n{hang}"
    else:
        raise AssertionError("the kernel was expected to hang")


CONFIGS = SM_UNIT


def run_sm(cfg_name: str, testcase: str, **env: str) -> None:
    """Build simt_sm for machine ``cfg_name`` (one build per machine, shared with test_sm_pipeline.py) and run
    cocotb test ``testcase``."""
    rtlsim.run(
        "simt_sm",
        SM_SOURCES,
        __name__,
        machine=CONFIGS[cfg_name],
        extra_env=env,
        testcase=testcase,
        tag=cfg_name,
        fault=0,  # built with the fault hooks (inert): test_sm_pipeline.py's planted faults run on this build
    )


@pytest.mark.parametrize("cfg_name", list(CONFIGS))
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_sm(kernel: str, cfg_name: str) -> None:
    run_sm(cfg_name, "sm_kernel", SM_KERNEL=kernel)


@pytest.mark.parametrize("hang", list(SM_HANGS))
def test_sm_hang(hang: str) -> None:
    """A spinning warp, a spinning warp with another at a barrier, a warp waiting on a deaf memory."""
    run_sm("w32l8", "sm_hang", SM_HANG=hang)


@pytest.mark.parametrize("kind", list(ERROR_KERNELS))
def test_sm_error(kind: str) -> None:
    """Every kernel error kind stops the SM with the model's kind, block, warp, pc and lane."""
    run_sm("w32l8", "sm_kernel", SM_KERNEL=kind)
