"""Launch sequences for the host agent: lists of :class:`~tb.env.items.LaunchItem` run in order.

Each helper returns the items of one kind of test (directed kernels, kernel errors, impossible
launches, interrupted kernels, random kernels); :class:`LaunchSequence` plays any list of them back to
back on one GPU without a reset in between.
"""

from __future__ import annotations

import random

import pyuvm

from tb.env.items import LaunchItem
from tb.kernel_library import ERROR_KERNELS, GPU_KERNELS, KERNELS, image_of
from tb.reference.asm import assemble
from tb.reference.config import GpuConfig


class LaunchSequence(pyuvm.uvm_sequence):
    def __init__(self, name: str, items: list[LaunchItem]) -> None:
        super().__init__(name)
        self.items = items

    async def body(self) -> None:
        for item in self.items:
            await self.start_item(item)
            await self.finish_item(item)


def directed(rng: random.Random, names: list[str] | None = None) -> list[LaunchItem]:
    """Every directed kernel (or ``names``), then the multi-block 3-D grid."""
    names = names if names is not None else [*KERNELS, *GPU_KERNELS]
    return [LaunchItem(n, image_of(n, rng)) for n in names]


# A kernel error raised only by the last warp of blocks on SM 1 and up (blocks go round-robin over
# the SMs, so one of the four lands there): the error registers must report that SM's error fields
# (warp included), not SM 0's.
OTHER_SM_ERROR = """
.grid 4
.block 128
        LDS  r1, %smid
        BEQ  r1, ok              ; uniform in a warp: blocks on SM 0 just leave
        LDS  r2, %warpid
        SEQI r3, r2, 3
        BEQ  r3, ok              ; warps 0..2 leave too
        .illegal 0x00000017
ok:     EXIT
"""

# A kernel error raised only by warp 3 of block 3, on any number of SMs: ERR_BLOCK and ERR_WARP are
# not 0 (the error kernels above all fail in warp 0 of block 0).
LATE_WARP_ERROR = """
.grid 4
.block 128
        LDS  r1, %ctaid.x
        SEQI r1, r1, 3
        LDS  r2, %warpid
        SEQI r2, r2, 3
        AND  r3, r1, r2
        BEQ  r3, ok              ; uniform in a warp
        .illegal 0x00000017
ok:     EXIT
"""


def kernel_errors(rng: random.Random, cfg: GpuConfig | None = None) -> list[LaunchItem]:
    """Each kernel error kind, each followed by an ABORT; one raised by a later warp of a later block;
    with several SMs (``cfg``) also an error that only SM 1 and up raise; then a clean launch proves
    recovery."""
    items = [LaunchItem(n, image_of(n, rng), expect_error=n) for n in ERROR_KERNELS]
    image = assemble(LATE_WARP_ERROR, "late_warp_error.s").image
    items.append(LaunchItem("ILLEGAL_INSTRUCTION in warp 3 of block 3", image, expect_error="ILLEGAL_INSTRUCTION"))
    if cfg is not None and cfg.num_sms > 1:
        image = assemble(OTHER_SM_ERROR, "other_sm_error.s").image
        items.append(LaunchItem("ILLEGAL_INSTRUCTION on SM 1+", image, expect_error="ILLEGAL_INSTRUCTION"))
    return [*items, LaunchItem("vecadd after errors", image_of("vecadd", rng))]


def launch_errors(cfg: GpuConfig, rng: random.Random) -> list[LaunchItem]:
    """Impossible launches end with a launch error, never a hang; then a clean launch."""
    too_big = image_of("vecadd", rng)
    too_big.block = ((cfg.num_warps + 1) * cfg.warp_size, 1, 1)  # one warp more than an SM holds
    bad = image_of("vecadd", rng).to_words()
    bad[1] = 7  # unknown image version
    return [
        LaunchItem("start without image", None, words=[], expect_launch_error=0x13),
        LaunchItem("block too big", too_big, expect_launch_error=0x11),
        LaunchItem("bad image version", None, words=bad, start=False, expect_launch_error=0x10),
        LaunchItem("vecadd after launch errors", image_of("vecadd", rng)),
    ]


def interrupted(rng: random.Random) -> list[LaunchItem]:
    """rst, then ABORT, in the middle of a kernel; each followed by an exact launch."""
    return [
        LaunchItem("matmul reset mid-kernel", image_of("matmul", rng), interrupt="reset", interrupt_after=300),
        LaunchItem("matmul after reset", image_of("matmul", rng)),
        LaunchItem("matmul aborted mid-kernel", image_of("matmul", rng), interrupt="abort", interrupt_after=400),
        LaunchItem("matmul after abort", image_of("matmul", rng)),
    ]


def random_kernels(cfg: GpuConfig, seeds: list[int]) -> list[LaunchItem]:
    from tb.sequences.random_kernel import generate

    items = []
    for seed in seeds:
        k = generate(seed, cfg)
        items.append(LaunchItem(f"random kernel {seed}", k.image, seed=seed))
    return items
