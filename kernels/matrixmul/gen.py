"""MatrixMul inputs: two random ``size`` x ``size`` matrices of words, row-major (kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup, SuiteError
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256]
ODD_SIZES = [100, 37, 5]  # partial last k-tile and edge blocks (37, 5: odd rows, unaligned segments)
CI_SIZES = [32, 37]
TILE = 16  # fixed in kernel.s (the unrolled k loop and the shared layout)
REGS = 16  # kernel.s uses r0..r15


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    threads, shared = TILE * TILE, 2 * TILE * TILE
    warps = -(-threads // cfg.warp_size)
    if (
        threads > cfg.num_warps * cfg.warp_size
        or shared > cfg.shared_words
        or warps * cfg.warp_rows * REGS > cfg.rf_depth
    ):
        raise SuiteError(
            f"matrixmul: a {TILE}x{TILE} block with {shared} shared words and {REGS} registers "
            f"does not fit this machine"
        )
    n = size
    tiles = -(-n // TILE)
    a = rng.integers(0, 1 << 32, n * n, dtype=np.uint32)
    b = rng.integers(0, 1 << 32, n * n, dtype=np.uint32)
    params = {"N": n, "LAST": TILE * (tiles - 1), "NT": tiles, "PART": n % TILE}
    return Setup(
        grid=(tiles, tiles, 1),
        block=(TILE, TILE, 1),
        params=params,
        shared_words=shared,
        inputs=[("A", a), ("B", b)],
        outputs=[("C", n * n)],
        args=[n],
    )
