"""SM-level smoke tests: small kernels run to completion on one simt_sm.

Each kernel is loaded through the SM's test ports, its blocks are dispatched in flat order, global
memory is answered by the out-of-order responder with random latency, and **every retired
warp-instruction is checked in lockstep against the golden model** (tb/scoreboards/retire.py). At
the end every global word and every exact performance counter must equal the model's.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

from tb import rtlsim
from tb.agents.gmem_responder import GmemResponder
from tb.agents.sm_driver import SmDriver, retire_monitor, sm_parameters
from tb.reference.asm import assemble
from tb.reference.config import GpuConfig
from tb.reference.model import ERROR_CODES, PERF_COUNTERS, TIMING_COUNTERS, KernelError, Model
from tb.scoreboards.retire import RetireScoreboard

SM_SOURCES = sorted(str(p.relative_to(rtlsim.RTL)) for p in (rtlsim.RTL / "sm").glob("simt_*.v"))
GLOBAL_WORDS = 4096

# ------------------------------------------------------------------------------------------------
# Kernels (docs/assembler.md). Each sets its own launch shape; the test fills the data.
# ------------------------------------------------------------------------------------------------
KERNELS: dict[str, str] = {}

KERNELS["vecadd"] = """
; c[i] = a[i] + b[i] for i < n; uneven last block (n = 100, 4 blocks of 32)
.grid 4
.block 32
.param A, 0
.param B, 512
.param C, 1024
.param N, 100
        LDS  r1, %ctaid.x
        LDS  r2, %ntid.x
        LDS  r3, %tid.x
        MAD  r4, r1, r2, r3
        LDS  r5, %N
        SLT  r6, r4, r5
        SSY  ok
        BNE  r6, ok
        EXIT
ok:     LDS  r7, %A
        ADD  r7, r7, r4
        LDG  r8, [r7]
        LDS  r7, %B
        ADD  r7, r7, r4
        LDG  r9, [r7]
        ADD  r8, r8, r9
        LDS  r7, %C
        ADD  r7, r7, r4
        STG  [r7], r8
        EXIT
"""

KERNELS["alu"] = """
; every ALU operation on per-lane operands; results stored per thread
.grid 1
.block 64
.param OUT, 0
        LDS  r1, %tid
        MULI r2, r1, 0x1357
        LI   r3, 0x9E3779B9
        MUL  r4, r2, r3          ; scrambled per-lane values
        XOR  r5, r4, r1
        SRAI r6, r4, 3
        MAD  r7, r5, r6, r4
        SUB  r8, r7, r5
        SLT  r9, r8, r7
        SGTU r10, r8, r7
        MIN  r11, r4, r5
        MAXU r12, r4, r5
        SHL  r13, r5, r1          ; shift amounts 0..63: >= 32 gives 0
        SHR  r14, r4, r1
        SRA  r15, r4, r1
        MULHU r16, r4, r5
        NOT  r17, r16
        SEQ  r18, r9, r10
        SNEI r19, r1, 7
        ANDI r20, r4, 0xFF00
        ORI  r21, r20, 0x8001
        LUI  r22, 0xBEEF
        ADD  r23, r22, r21
        MINUI r24, r4, -1
        MAXI r25, r4, -5
        SLTUI r26, r4, 100
        SGTI r27, r5, -100
        MV   r28, r27
        NOP
        LDS  r29, %OUT
        MULI r30, r1, 4
        ADD  r29, r29, r30
        STG  [r29 + 0], r13
        STG  [r29 + 1], r15
        STG  [r29 + 2], r23
        STG  [r29 + 3], r28
        EXIT
"""

KERNELS["divergence"] = """
; nested if/else, a divergent loop and partial exit
.grid 2
.block 48
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 48
        ADD  r3, r3, r1          ; global thread index
        ANDI r4, r1, 1
        MVI  r10, 0
        SSY  join
        BNE  r4, odd
        ; even threads
        ANDI r5, r1, 2
        SSY  join2
        BEQ  r5, e0
        ADDI r10, r10, 100
        BRA  join2
e0:     ADDI r10, r10, 200
join2:  BRA  join
odd:    ADDI r10, r10, 1
join:   ; divergent loop: thread runs (tid % 5) iterations
        MVI  r6, 5
        MVI  r7, 0
        ANDI r8, r1, 7
        SSY  done
loop:   BEQ  r8, done
        ADD  r7, r7, r8
        SUBI r8, r8, 1
        BRA  loop
done:   ADD  r10, r10, r7
        ; partial exit: threads with tid % 4 == 0 leave without storing
        SSY  store
        ANDI r11, r1, 3
        BNE  r11, store
        EXIT
store:  LDS  r12, %OUT
        ADD  r12, r12, r3
        STG  [r12], r10
        EXIT
"""

KERNELS["shared_barrier"] = """
; reverse a 96-word array through shared memory, with a barrier and bank conflicts
.grid 2
.block 96
.shared 128
.param IN, 0
.param OUT, 256
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 96
        ADD  r3, r3, r1
        LDS  r4, %IN
        ADD  r4, r4, r3
        LDG  r5, [r4]
        ST   [r1], r5
        MULI r6, r1, 4           ; 4-way conflict pattern on 8 banks
        ANDI r6, r6, 127
        BAR
        MVI  r7, 95
        SUB  r7, r7, r1
        LD   r8, [r7]
        LD   r9, [r6]            ; conflicting reads
        LD   r13, [r0 + 5]       ; broadcast
        ADD  r8, r8, r9
        ADD  r8, r8, r13
        LDS  r10, %OUT
        ADD  r10, r10, r3
        STG  [r10], r8
        EXIT
"""

KERNELS["const_sregs"] = """
; constant memory and 3-D special registers
.grid 2 2 1
.block 4 2 3
.param OUT, 0
        LDS  r1, %tid.x
        LDS  r2, %tid.y
        LDS  r3, %tid.z
        LDS  r4, %ntid.x
        LDS  r5, %ctaid.y
        LDS  r6, %nctaid.x
        LDS  r7, %laneid
        LDS  r8, %warpid
        LDS  r9, %tid
        LDS  r10, %smid
        LDC  r11, [r1 + 1]
        ADD  r12, r1, r2
        MULI r12, r12, 10
        ADD  r12, r12, r3
        ADD  r12, r12, r11
        ADD  r12, r12, r5
        ADD  r12, r12, r10
        LDS  r13, %ctaid.x
        LDS  r14, %ctaid.y
        MAD  r13, r14, r6, r13   ; flat block index
        MULI r13, r13, 24
        ADD  r13, r13, r9
        LDS  r15, %OUT
        ADD  r15, r15, r13
        STG  [r15], r12
        EXIT
.const
        .word 7, 11, 13, 17, 19, 23
"""

KERNELS["matmul"] = (Path(__file__).resolve().parents[2] / "bench" / "matmul.s").read_text()


# Kernels that must stop with an error (docs/isa.md section 7). Each runs one 32-thread block; the
# SM's error status must equal the KernelError the model raises stepping that warp.
NEST = "\n".join("        SSY  far" for _ in range(9))
ERROR_KERNELS: dict[str, str] = {
    "ILLEGAL_INSTRUCTION": "        MVI r1, 1\n        .illegal 0x00000017\n        EXIT\n",
    "PC_OUT_OF_RANGE": "        MVI r1, 1\n        ADDI r1, r1, 2\n",
    "BAD_REGISTER": ".regs 8\n        MVI r1, 1\n        ADD r7, r1, r1\n        EXIT\n",  # launched with regs=4
    "BAD_PARAM": ".param 5\n        LDS r1, %param0\n        LDS r2, %param1\n        EXIT\n",
    "SHARED_OUT_OF_RANGE": ".shared 16\n        LDS r1, %tid\n        ST [r1 + 10], r1\n        EXIT\n",
    "CONST_OUT_OF_RANGE": "        LDS r1, %tid\n        LDC r2, [r1 + 0]\n        EXIT\n.const\n        .word 1, 2, 3, 4\n",
    "GLOBAL_OUT_OF_RANGE": "        LDS r1, %tid\n        LI r2, 4090\n        ADD r2, r2, r1\n        LDG r3, [r2]\n        EXIT\n",
    "STACK_OVERFLOW": NEST + "\n        EXIT\nfar:    EXIT\n",
    "DIVERGENT_WITHOUT_SSY": "        LDS r1, %tid\n        ANDI r2, r1, 1\n        BNE r2, skip\n        NOP\nskip:   EXIT\n",
    "BARRIER_DIVERGENCE": "        LDS r1, %tid\n        ANDI r2, r1, 1\n        SSY j\n        BNE r2, j\n        BAR\nj:      EXIT\n",
}


def fill(name: str, image, rng: random.Random) -> None:
    """Give each kernel its input data."""
    if name == "vecadd":
        image.data = [(0, [rng.getrandbits(32) for _ in range(100)]), (512, [rng.getrandbits(32) for _ in range(100)])]
    elif name == "shared_barrier":
        image.data = [(0, [rng.getrandbits(32) for _ in range(192)])]
    elif name == "matmul":
        n = 16
        image.grid, image.block = (2, 4, 1), (8, 4, 1)
        image.params = [0, n * n, 2 * n * n, n]
        image.data = [(0, [rng.getrandbits(16) for _ in range(2 * n * n)])]


async def run_kernel(dut, name: str, cfg: GpuConfig) -> None:
    rng = random.Random(cocotb.RANDOM_SEED)
    error = name in ERROR_KERNELS
    image = assemble(ERROR_KERNELS[name] if error else KERNELS[name], f"{name}.s").image
    fill(name, image, rng)
    if name == "BAD_REGISTER":
        image.regs = 4  # the kernel uses r7: the decoder must refuse it at run time
    image.check(cfg)
    model = Model(cfg, image)
    mem = np.zeros(cfg.global_words, np.uint32)
    for base, words in image.data:
        mem[base : base + len(words)] = np.array(words, dtype=np.uint64).astype(np.uint32)

    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    drv = SmDriver(dut, cfg, image)
    drv.idle_inputs()
    dut.rst.value = 1
    GmemResponder(dut, dut.clk, mem, reset=dut.rst, req_ready_prob=0.7, latency=(2, 30),
                  out_of_order=True, rsp_valid_prob=0.8, rng=rng).start()  # fmt: skip
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    await drv.load()

    board = RetireScoreboard(model)
    failures: list[BaseException] = []

    def on_retire(rec) -> None:
        if failures:
            return
        try:
            board.check(rec)
        except AssertionError as exc:
            failures.append(exc)

    done_blocks: list[int] = []
    cocotb.start_soon(retire_monitor(dut, cfg.warp_size, on_retire))
    cocotb.start_soon(drv.dispatch_all(on_dispatch=lambda bid: model.start_block(bid, sm=0)))

    budget = 200_000
    for _ in range(budget):
        await RisingEdge(dut.clk)
        if int(dut.blk_done.value):
            done_blocks.append(int(dut.blk_done_id.value))
        if failures or int(dut.err_valid.value):
            break
        if len(done_blocks) == image.num_blocks:
            break
        if error and int(dut.err_valid.value):
            break
    else:
        raise AssertionError(f"watchdog: {name} did not finish in {budget} cycles "
                             f"({len(done_blocks)}/{image.num_blocks} blocks done, {board.compared} retires)")  # fmt: skip
    if failures:
        raise failures[0]
    if error:
        await check_error(dut, model, name)
        dut._log.info(f"{name}: {board.compared} retires matched, then the expected error")
        return
    if int(dut.err_valid.value):
        raise AssertionError(f"SM reported error kind {int(dut.err_kind.value)} at pc {int(dut.err_pc.value)}")
    assert sorted(done_blocks) == list(range(image.num_blocks))
    assert all(b.done for b in model.blocks.values()), "RTL finished blocks the model has not finished"
    await ClockCycles(dut.clk, 5)
    bad = np.flatnonzero(mem != model.gmem)
    assert len(bad) == 0, f"global memory differs at {len(bad)} words, first {bad[0]}: RTL 0x{int(mem[bad[0]]):x} model 0x{int(model.gmem[bad[0]]):x}"
    exact = model.counters.as_dict()
    checked = 0
    for idx, cname in enumerate(PERF_COUNTERS):
        value = await drv.read_perf(idx)
        if cname in TIMING_COUNTERS:
            continue
        assert value == exact[cname], f"counter {cname}: RTL {value}, model {exact[cname]}"
        checked += 1
    cycles = await drv.read_perf(PERF_COUNTERS.index("cycles"))
    dut._log.info(f"{name}: {board.report()}; {checked} counters and {len(mem)} global words match; "
                  f"{cycles} cycles")  # fmt: skip


async def check_error(dut, model: Model, name: str) -> None:
    """The SM stopped with an error: it must be the one the model raises for that warp."""
    assert int(dut.err_valid.value), f"{name}: the kernel finished without the expected error"
    block, warp = int(dut.err_block.value), int(dut.err_warp.value)
    try:
        model.step(block, warp)
    except KernelError as exc:
        expected = exc
    else:
        raise AssertionError(f"{name}: SM reports an error at block {block} warp {warp}; the model steps it fine")
    got = (int(dut.err_kind.value), int(dut.err_pc.value), int(dut.err_lane.value))
    want = (ERROR_CODES[expected.kind], expected.pc, 63 if expected.lane is None else expected.lane)
    assert expected.kind.name == name, f"kernel {name} raised {expected.kind.name} in the model"
    assert got == want, f"{name}: SM error (kind, pc, lane) = {got}, model {want}: {expected}"


def _cfg_from_env() -> GpuConfig:
    return GpuConfig(**{k: int(v) for k, v in (kv.split("=") for kv in os.environ["SM_CFG"].split(","))})


@cocotb.test()
async def sm_kernel(dut) -> None:
    await run_kernel(dut, os.environ["SM_KERNEL"], _cfg_from_env())


CONFIGS = {
    "w32l8": GpuConfig(warp_size=32, num_lanes=8, num_warps=8, num_blocks=4, rf_depth=512,
                       shared_words=512, num_banks=8, global_words=GLOBAL_WORDS, imem_words=256,
                       const_words=64, stack_depth=8, seg_words=8),
    "w32l32": GpuConfig(warp_size=32, num_lanes=32, num_warps=4, num_blocks=2, rf_depth=128,
                        shared_words=256, num_banks=16, global_words=GLOBAL_WORDS, imem_words=256,
                        const_words=64, stack_depth=8, seg_words=4),
    "w16l4": GpuConfig(warp_size=16, num_lanes=4, num_warps=8, num_blocks=3, rf_depth=1024,
                       shared_words=512, num_banks=4, global_words=GLOBAL_WORDS, imem_words=256,
                       const_words=64, stack_depth=8, seg_words=16),
}  # fmt: skip


@pytest.mark.parametrize("cfg_name", list(CONFIGS))
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_sm(kernel: str, cfg_name: str) -> None:
    cfg = CONFIGS[cfg_name]
    env = {"SM_KERNEL": kernel, "SM_CFG": ",".join(f"{k}={v}" for k, v in cfg.as_dict().items())}
    rtlsim.run("simt_sm", SM_SOURCES, __name__, parameters=sm_parameters(cfg), extra_env=env,
               testcase="sm_kernel", tag=cfg_name)  # fmt: skip


@pytest.mark.parametrize("kind", list(ERROR_KERNELS))
def test_sm_error(kind: str) -> None:
    """Every kernel error kind stops the SM with the model's kind, block, warp, pc and lane."""
    cfg = CONFIGS["w32l8"]
    env = {"SM_KERNEL": kind, "SM_CFG": ",".join(f"{k}={v}" for k, v in cfg.as_dict().items())}
    rtlsim.run("simt_sm", SM_SOURCES, __name__, parameters=sm_parameters(cfg), extra_env=env,
               testcase="sm_kernel", tag="w32l8")  # fmt: skip
