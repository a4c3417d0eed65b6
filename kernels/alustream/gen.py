"""AluStream inputs: no arrays in, ``size`` words out; R rounds of the mix (kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup
from spec.config import GpuConfig

SIZES = [256, 1024]
ODD_SIZES = [96]  # not a multiple of the block: a last block of 3 warps
CI_SIZES = [64]
BLOCK = 256
ROUNDS = 8  # 8 x 17 loop instructions against 11 outside it: the loop is 93 % of the warp-instructions


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    block = min(BLOCK, cfg.num_warps * cfg.warp_size)
    assert size % cfg.warp_size == 0, f"alustream: size {size} must be a multiple of the warp size"
    seed = int(rng.integers(0, 1 << 16))
    return Setup(
        grid=(-(-size // block), 1, 1),
        block=(min(block, size), 1, 1),
        params={"N": size, "R": ROUNDS, "SEED": seed},
        inputs=[],
        outputs=[("OUT", size)],
        args=[size, ROUNDS, seed],
    )
