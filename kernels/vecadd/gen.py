"""VectorAdd inputs: two random vectors of ``size`` words (kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256]
ODD_SIZES = [100, 1000]  # not a multiple of the warp size; several uneven blocks
CI_SIZES = [100, 256]
BLOCK = 128


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    block = min(BLOCK, cfg.num_warps * cfg.warp_size)
    a = rng.integers(0, 1 << 32, size, dtype=np.uint32)
    b = rng.integers(0, 1 << 32, size, dtype=np.uint32)
    return Setup(
        grid=(-(-size // block), 1, 1),
        block=(block, 1, 1),
        params={"N": size},
        inputs=[("A", a), ("B", b)],
        outputs=[("C", size)],
        args=[size],
    )
