"""The machine the benchmark suite is measured on (``make bench``) and checked against C on the model.

One SM, as in FlexGrip's Table 4 (Merchant 2013, seed 001; docs/references.md), with NUM_LANES = 8,
16 or 32 and as many shared-memory banks as lanes; everything else fixed. The system regression runs
the suite's small sizes on its own configurations (tb/tests/system/test_gpu.py).
"""

from __future__ import annotations

from tb.reference.config import GpuConfig

BENCH_LANES = (8, 16, 32)


def bench_config(lanes: int = 8, num_sms: int = 1) -> GpuConfig:
    """The benchmark machine with ``lanes`` integer lanes (and banks) per SM."""
    return GpuConfig(warp_size=32, num_lanes=lanes, num_warps=16, num_blocks=4, num_sms=num_sms,
                     rf_depth=1024, shared_words=2048, num_banks=lanes, const_words=64, imem_words=512,
                     stack_depth=16, seg_words=8, global_words=1 << 18).check()  # fmt: skip
