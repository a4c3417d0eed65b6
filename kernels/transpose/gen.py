"""Transpose inputs: a random N x N matrix of words, N = ``size`` (kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup, SuiteError
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256]
ODD_SIZES = [100, 33]  # edge tiles: 100 = 6 * 16 + 4, 33 = 2 * 16 + 1 (a one-word-wide strip)
CI_SIZES = [33]  # 9 blocks, 5 of them edge tiles
TILE = 16
SHARED = TILE * (TILE + 1)  # rows padded to 17 words: a tile column lies in 8 different banks


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    if cfg.warp_size != 32:  # the 8 x 4 block must be one warp: the kernel has no barrier
        raise SuiteError(f"transpose: a block of 8 x 4 threads must be one warp, not {cfg.warp_size} threads")
    tiles = -(-size // TILE)
    a = rng.integers(0, 1 << 32, size * size, dtype=np.uint32)
    return Setup(
        grid=(tiles, tiles, 1),
        block=(8, 4, 1),
        params={"N": size},
        inputs=[("A", a)],
        outputs=[("B", size * size)],
        args=[size],
        shared_words=SHARED,
    )
