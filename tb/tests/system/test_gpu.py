"""System tests of the GPU top (rtl/top/simt_gpu.v) through its host register interface only.

A kernel is loaded word by word through the IMAGE register (DATA records reach global memory through
the external memory port), started with CTRL.START and awaited by polling STATUS. Every retired
warp-instruction of every SM is checked in lockstep against the golden model (the block scheduler's
dispatch tells the model which SM runs each block); at the end, global memory and the exact
performance counters (summed over SMs) must equal the model's.
"""

from __future__ import annotations

import os
import random

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

from tb import rtlsim
from tb.agents.gmem_responder import GmemResponder
from tb.agents.host_driver import ST_DONE, ST_ERROR, HostDriver
from tb.agents.sm_driver import retire_monitor
from tb.kernel_library import ERROR_KERNELS, KERNELS, image_of
from tb.reference.asm import assemble
from tb.reference.config import GpuConfig
from tb.reference.image import LaunchImage
from tb.reference.model import ERROR_CODES, PERF_COUNTERS, TIMING_COUNTERS, KernelError, Model
from tb.scoreboards.retire import RetireScoreboard

SOURCES = sorted(str(p.relative_to(rtlsim.RTL)) for d in ("sm", "top") for p in (rtlsim.RTL / d).glob("simt_*.v"))
GLOBAL_WORDS = 8192


def gpu_parameters(cfg: GpuConfig) -> dict[str, int]:
    return {
        "NUM_SMS": cfg.num_sms, "WARP_SIZE": cfg.warp_size, "NUM_LANES": cfg.num_lanes,
        "NUM_WARPS": cfg.num_warps, "NUM_BLOCKS": cfg.num_blocks, "RF_DEPTH": cfg.rf_depth,
        "SHARED_WORDS": cfg.shared_words, "NUM_BANKS": cfg.num_banks, "CONST_WORDS": cfg.const_words,
        "IMEM_WORDS": cfg.imem_words, "STACK_DEPTH": cfg.stack_depth, "SEG_WORDS": cfg.seg_words,
        "GLOBAL_WORDS": cfg.global_words,
    }  # fmt: skip


class Launch:
    """One kernel launch checked in lockstep: model, scoreboard, dispatch tracking."""

    def __init__(self, dut, cfg: GpuConfig, image: LaunchImage) -> None:
        self.dut, self.cfg, self.image = dut, cfg, image
        self.model = Model(cfg, image)
        self.board = RetireScoreboard(self.model)
        self.failures: list[BaseException] = []
        self.per_sm = [0] * cfg.num_sms

    def on_retire(self, rec, sm: int) -> None:
        if self.failures:
            return
        self.board.sm = sm
        try:
            self.board.check(rec)
            self.per_sm[sm] += 1
        except AssertionError as exc:
            self.failures.append(exc)

    async def track_dispatch(self) -> None:
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)  # sampled at the edge: the handshake of this edge
            valid = int(dut.dispatch_valid.value)
            if valid:
                sm = (valid & -valid).bit_length() - 1
                self.model.start_block(int(dut.dispatch_block.value), sm=sm)


async def setup(dut, cfg: GpuConfig, mem: np.ndarray, rng: random.Random) -> HostDriver:
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    host = HostDriver(dut)
    host.idle()
    dut.rst.value = 1
    host.responder = GmemResponder(dut, dut.clk, mem, reset=dut.rst, req_ready_prob=0.7, latency=(2, 40),
                                   out_of_order=True, rsp_valid_prob=0.8, rng=rng)  # fmt: skip
    host.responder.start()
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    return host


async def run_launch(dut, host: HostDriver, cfg: GpuConfig, image: LaunchImage, mem: np.ndarray,
                     expect_error: str | None = None) -> Launch:  # fmt: skip
    launch = Launch(dut, cfg, image)
    mon = cocotb.start_soon(retire_monitor(dut, cfg.warp_size, launch.on_retire))
    disp = cocotb.start_soon(launch.track_dispatch())
    await host.load(image)
    await host.start()
    status = await host.wait_idle()
    mon.cancel()
    disp.cancel()
    if launch.failures:
        raise launch.failures[0]
    if expect_error is not None:
        assert status & ST_ERROR, f"{expect_error}: the launch finished without an error (STATUS 0x{status:x})"
        err = await host.error()
        try:
            launch.model.step(err.block, err.warp)
        except KernelError as exc:
            want = (ERROR_CODES[exc.kind], exc.pc, 63 if exc.lane is None else exc.lane)
            assert exc.kind.name == expect_error, f"model raised {exc.kind.name}, expected {expect_error}"
        else:
            raise AssertionError(f"GPU reports an error at block {err.block} warp {err.warp}; the model steps it")
        assert (err.kind, err.pc, err.lane) == want, f"GPU error {err}, model {want}"
        return launch
    if not status & ST_DONE or status & ST_ERROR:
        raise AssertionError(
            f"launch ended with STATUS 0x{status:x}: {await host.error()}; blocks dispatched "
            f"{await host.read(0x14)}, done {await host.read(0x13)} of {image.num_blocks}; "
            f"{launch.board.compared} retires matched"
        )
    await ClockCycles(dut.clk, 4)
    bad = np.flatnonzero(mem != launch.model.gmem)
    assert len(bad) == 0, f"global memory differs at {len(bad)} words, first {bad[0]}"
    assert all(b.done for b in launch.model.blocks.values()) and len(launch.model.blocks) == image.num_blocks
    exact = launch.model.counters.as_dict()
    for idx, name in enumerate(PERF_COUNTERS):
        if name not in TIMING_COUNTERS:
            value = await host.perf(idx)
            assert value == exact[name], f"counter {name}: GPU {value}, model {exact[name]}"
    busy_sms = sum(1 for n in launch.per_sm if n)
    dut._log.info(f"{launch.board.report()}; retires per SM {launch.per_sm} ({busy_sms} SMs used)")
    return launch


def fresh_memory(cfg: GpuConfig) -> np.ndarray:
    return np.zeros(cfg.global_words, np.uint32)


def _cfg() -> GpuConfig:
    return GpuConfig(**{k: int(v) for k, v in (kv.split("=") for kv in os.environ["GPU_CFG"].split(","))})


# ------------------------------------------------------------------------------------------------
# cocotb tests
# ------------------------------------------------------------------------------------------------
BIG_GRID = """
; more blocks than SMs x slots, 3-D grid and blocks, uneven sizes
.grid 3 2 2
.block 5 3 2
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        LDS  r3, %ctaid.y
        LDS  r4, %ctaid.z
        LDS  r5, %nctaid.x
        LDS  r6, %nctaid.y
        MAD  r7, r4, r6, r3
        MAD  r7, r7, r5, r2      ; flat block index
        MULI r8, r7, 30
        ADD  r8, r8, r1
        LDS  r9, %tid.z
        MULI r10, r9, 1000
        ADD  r10, r10, r7
        LDS  r11, %OUT
        ADD  r11, r11, r8
        STG  [r11], r10
        EXIT
"""


@cocotb.test()
async def kernels(dut) -> None:
    """Every directed kernel, back to back without reset, then the 3-D multi-block grid."""
    cfg = _cfg()
    rng = random.Random(cocotb.RANDOM_SEED)
    mem = fresh_memory(cfg)
    host = await setup(dut, cfg, mem, rng)
    for name in [*KERNELS, "big_grid"]:
        image = assemble(BIG_GRID, "big_grid.s").image if name == "big_grid" else image_of(name, rng)
        image.check(cfg)
        mem[:] = 0
        await run_launch(dut, host, cfg, image, mem)


@cocotb.test()
async def errors(dut) -> None:
    """Each kernel error is reported through the error registers; an ABORT then recovers the GPU."""
    cfg = _cfg()
    rng = random.Random(cocotb.RANDOM_SEED)
    mem = fresh_memory(cfg)
    host = await setup(dut, cfg, mem, rng)
    for name in ERROR_KERNELS:
        image = image_of(name, rng)
        await run_launch(dut, host, cfg, image, mem, expect_error=name)
        await host.abort()
    await run_launch(dut, host, cfg, image_of("vecadd", rng), mem)


@cocotb.test()
async def launch_errors(dut) -> None:
    """Impossible launches end with a launch error, never a hang; START without an image too."""
    cfg = _cfg()
    rng = random.Random(cocotb.RANDOM_SEED)
    mem = fresh_memory(cfg)
    host = await setup(dut, cfg, mem, rng)
    await host.start()
    st = await host.wait_idle()
    assert st & ST_ERROR and (await host.error()).kind == 0x13, "START with no image must be error 0x13"
    await host.abort()
    image = image_of("vecadd", rng)
    image.block = ((cfg.num_warps + 1) * cfg.warp_size, 1, 1)  # one warp more than an SM holds
    await host.load(image)
    await host.start()
    st = await host.wait_idle()
    err = await host.error()
    assert st & ST_ERROR and err.kind == 0x11, f"a block that cannot fit must be error 0x11, got {err}"
    await host.abort()
    words = image_of("vecadd", rng).to_words()
    words[1] = 7  # bad version
    for w in words:
        await host.write(0x04, w)
    st = await host.wait_idle()
    err = await host.error()
    assert st & ST_ERROR and err.kind == 0x10, f"a bad image must be error 0x10, got {err}"
    await host.abort()
    await run_launch(dut, host, cfg, image_of("vecadd", rng), mem)


@cocotb.test()
async def reset_mid_kernel(dut) -> None:
    """rst, and then ABORT, in the middle of a kernel return to idle; the next launch is exact."""
    cfg = _cfg()
    rng = random.Random(cocotb.RANDOM_SEED)
    mem = fresh_memory(cfg)
    host = await setup(dut, cfg, mem, rng)
    image = image_of("matmul", rng)
    await host.load(image)
    await host.start()
    await ClockCycles(dut.clk, 300)
    await FallingEdge(dut.clk)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 50)  # let responses of the aborted kernel drain
    st = await host.status()
    assert st == 0, f"after reset STATUS must be idle, got 0x{st:x}"
    mem[:] = 0
    await run_launch(dut, host, cfg, image_of("matmul", rng), mem)
    # ABORT in the middle of a kernel with memory requests in flight: the GPU drains them itself
    # (the memory system does not see an ABORT), then the next launch must be exact.
    await host.load(image_of("matmul", rng))
    await host.start()
    await ClockCycles(dut.clk, 400)
    for _ in range(10_000):  # abort while responses are still owed, so the drain is exercised
        if host.responder.outstanding > 0:
            break
        await RisingEdge(dut.clk)
    assert host.responder.outstanding > 0, "no memory request in flight to abort"
    await host.abort()
    st = await host.wait_idle()
    assert not st & 1, f"after ABORT STATUS must not be busy, got 0x{st:x}"
    mem[:] = 0
    await run_launch(dut, host, cfg, image_of("matmul", rng), mem)


# ------------------------------------------------------------------------------------------------
# pytest launchers: the configurations of issue 4
# ------------------------------------------------------------------------------------------------
def _config(num_sms: int, lanes: int) -> GpuConfig:
    return GpuConfig(warp_size=32, num_lanes=lanes, num_warps=8, num_blocks=4, num_sms=num_sms,
                     rf_depth=512, shared_words=512, num_banks=lanes, global_words=GLOBAL_WORDS,
                     imem_words=256, const_words=64, stack_depth=8, seg_words=8)  # fmt: skip


CONFIGS = {"sm1-l8": _config(1, 8), "sm2-l8": _config(2, 8), "sm4-l16": _config(4, 16), "sm2-l32": _config(2, 32)}
TESTS = ["kernels", "errors", "launch_errors", "reset_mid_kernel"]


@pytest.mark.parametrize("name", list(CONFIGS))
def test_gpu(name: str) -> None:
    cfg = CONFIGS[name]
    env = {"GPU_CFG": ",".join(f"{k}={v}" for k, v in cfg.as_dict().items())}
    rtlsim.run("simt_gpu", SOURCES, __name__, parameters=gpu_parameters(cfg), extra_env=env,
               testcase=TESTS, tag=name)  # fmt: skip


@pytest.mark.parametrize(
    "params,message",
    [
        ({"NUM_SMS": 17}, "simt_gpu: illegal parameter NUM_SMS=17 (1..16)"),
        ({"NUM_LANES": 6}, "simt_sm: illegal parameter NUM_LANES=6 (4, 8, 16 or 32, <= WARP_SIZE)"),
        ({"NUM_LANES": 32, "WARP_SIZE": 16}, "simt_sm: illegal parameter NUM_LANES=32"),
    ],
)
def test_gpu_illegal_parameters(params: dict[str, int], message: str) -> None:
    """Illegal parameter combinations stop elaboration (Verilator) or time 0 (Icarus) with a message."""
    rtlsim.expect_fatal("simt_gpu", SOURCES, gpu_parameters(CONFIGS["sm1-l8"]) | params, message)
