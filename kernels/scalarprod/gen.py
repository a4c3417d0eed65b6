"""ScalarProd inputs: V pairs of random vectors of ``size`` words, stored one after another
(kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup, SuiteError
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256]
ODD_SIZES = [45, 200]  # vectors not aligned to segments; 200 = a whole tile + a partial one
CI_SIZES = [45, 200]
PAIRS = 8  # V: blocks, two waves of four on the benchmark machine's one SM


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    if cfg.warp_size != 32:
        raise SuiteError(f"scalarprod: kernel.s assumes 32-thread warps (warp_size is {cfg.warp_size})")
    a = rng.integers(0, 1 << 32, PAIRS * size, dtype=np.uint32)
    b = rng.integers(0, 1 << 32, PAIRS * size, dtype=np.uint32)
    return Setup(
        grid=(PAIRS, 1, 1),
        block=(32, 1, 1),
        params={"N": size},
        inputs=[("A", a), ("B", b)],
        outputs=[("OUT", PAIRS)],
        args=[PAIRS, size],
        shared_words=32,
    )
