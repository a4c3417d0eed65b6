"""Stencil3D inputs: a random NX x NY x NZ volume of words, x fastest (kernels/README.md).

``size`` S gives an S x ceil(sqrt(S)) x ceil(sqrt(S)) volume: 16 x 4 x 4 ... 256 x 16 x 16 (65536 cells).
"""

from __future__ import annotations

import math

import numpy as np

from kernels.suite import Setup
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256]
ODD_SIZES = [100, 37]  # 100 x 10 x 10, 37 x 7 x 7: no dimension a multiple of the block's
CI_SIZES = [16, 37]
BLOCK = (8, 4, 4)  # 128 threads: a warp is an 8 x 4 patch of one z-plane


def dims(size: int) -> tuple[int, int, int]:
    side = math.isqrt(size - 1) + 1  # ceil(sqrt(size))
    return size, side, side


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    bx, by, bz = BLOCK
    while bx * by * bz > cfg.num_warps * cfg.warp_size and bz > 1:
        bz //= 2
    nx, ny, nz = dims(size)
    cells = nx * ny * nz
    vol = rng.integers(0, 1 << 32, cells, dtype=np.uint32)
    return Setup(
        grid=(-(-nx // bx), -(-ny // by), -(-nz // bz)),
        block=(bx, by, bz),
        params={"NX": nx, "NY": ny, "NZ": nz},
        inputs=[("IN", vol)],
        outputs=[("OUT", cells)],
        args=[nx, ny, nz],
    )
