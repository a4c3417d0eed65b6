"""Reduction input: one random vector of ``size`` words (kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup, SuiteError
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256, 512]
ODD_SIZES = [100, 777]  # a partial last tile; 777 also uses all four warps (uneven tiles per warp)
CI_SIZES = [100, 300]  # one warp; two warps with a barrier and a partial tile
MAX_WARPS = 4  # kernel.s gathers at most four warps' sums (shared[l + 32 * w], w < 4)
PER_WARP = 256  # words per warp aimed at: two tiles of 128, so a warp's loads overlap another's work


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    if cfg.warp_size != 32:
        raise SuiteError(f"reduction: kernel.s assumes 32-thread warps (warp_size is {cfg.warp_size})")
    warps = max(1, min(MAX_WARPS, cfg.num_warps, -(-size // PER_WARP)))
    x = rng.integers(0, 1 << 32, size, dtype=np.uint32)
    return Setup(
        grid=(1, 1, 1),
        block=(32 * warps, 1, 1),
        params={"N": size},
        inputs=[("X", x)],
        outputs=[("OUT", 1)],
        args=[size],
        shared_words=32 * MAX_WARPS if warps > 1 else 32,
    )
