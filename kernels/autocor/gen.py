"""Autocorrelation input: one random vector of ``size`` words (kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup, SuiteError
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256]
ODD_SIZES = [100, 33]  # partial last warp; 33 is one lag into a second warp
CI_SIZES = [33, 100]
UNROLL = 16  # products per loop step in kernel.s; the shared copy of X has UNROLL zero words after it


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    ws = cfg.warp_size
    block = min(-(-size // ws) * ws, cfg.num_warps * ws)
    if size + UNROLL > cfg.shared_words:
        raise SuiteError(
            f"autocor/{size}: X and {UNROLL} zero words need {size + UNROLL} shared words; "
            f"the SM has {cfg.shared_words}"
        )
    x = rng.integers(0, 1 << 32, size, dtype=np.uint32)
    return Setup(
        grid=(-(-size // block), 1, 1),
        block=(block, 1, 1),
        params={"N": size},
        inputs=[("X", x)],
        outputs=[("R", size)],
        args=[size],
        shared_words=size + UNROLL,
    )
