"""Bitonic sort inputs: ``size`` random unsigned keys (kernels/README.md)."""

from __future__ import annotations

import numpy as np

from kernels.suite import Setup, SuiteError
from spec.config import GpuConfig

SIZES = [16, 32, 64, 128, 256]
ODD_SIZES = [100, 33]  # padded to 128 and 64 keys: a partly real last warp, pads in the sort
CI_SIZES = [33, 100]  # one warp; two warps with the cross-warp stage k = 128
MIN_KEYS = 16  # the kernel's unrolled stages run up to k = 16 before its first exit test, so P >= 16


def setup(size: int, rng: np.random.Generator, cfg: GpuConfig) -> Setup:
    p = max(MIN_KEYS, 1 << max(size - 1, 0).bit_length())  # keys sorted in shared memory, pads included
    threads = p // 2  # one comparator per thread
    if size <= MIN_KEYS // 2:  # key t (t < P/2) is loaded and stored unguarded: it must be a real key
        raise SuiteError(f"bitonic/{size}: the kernel sorts at least {MIN_KEYS // 2 + 1} keys")
    if cfg.warp_size != 32:
        raise SuiteError(f"bitonic: the warp-local steps need 32-thread warps, not {cfg.warp_size}")
    if threads > cfg.num_warps * cfg.warp_size or p > cfg.shared_words:
        raise SuiteError(
            f"bitonic/{size}: {p} keys need {threads} threads and {p} shared words; the machine "
            f"has {cfg.num_warps * cfg.warp_size} threads per block and {cfg.shared_words} words"
        )
    keys = rng.integers(0, 1 << 32, size, dtype=np.uint32)
    return Setup(
        grid=(1, 1, 1),
        block=(threads, 1, 1),
        params={"N": size},
        inputs=[("KEYS", keys)],
        outputs=[("SORTED", size)],
        args=[size],
        shared_words=p,
    )
