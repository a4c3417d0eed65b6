"""The CUDA-C compiler's random programs on the RTL (cudac/fuzz.py): each compiled by cudac and run on
the GPU with every scoreboard on (every retire in lock-step with the golden model), its final memory
against the same program compiled by gcc (docs/kernels-c.md). The programs are the first that fit CI's
machine (256 instruction words, stack depth 8) from a fixed seed; ``CUDAC_FUZZ=start:count`` replaces
them; ``CUDAC_FUZZ=start:count:full`` runs the model campaign's full-size programs of those seeds on a
one-SM machine with room for them (cudac/fuzz.py ``rtl_machine``; a build of its own), e.g. seed 5631,
whose values spill to shared memory. The model-only campaign (300 programs) is
tb/tests/cudac/test_cudac_fuzz.py.
"""

from __future__ import annotations

import os

import pytest

from tb.gpurun import run_gpu

CONFIG = "sm2-l8"
SHARDS = 2  # two halves of the programs, so pytest -n spreads them over the cores
PER_SHARD = 25  # 50 programs per simulator


@pytest.mark.parametrize("shard", range(SHARDS))
def test_cudac_fuzz_programs_on_the_rtl(shard: int) -> None:
    cases = os.environ.get("CUDAC_FUZZ") or f"{10_000 + 1000 * shard}:{PER_SHARD}"
    if cases.strip().endswith(":full"):
        if shard:
            pytest.skip("CUDAC_FUZZ=…:full names its programs: shard 0 runs them")
        from cudac.fuzz import rtl_machine

        run_gpu("fuzz-full-l8", ["CudacFuzzTest"], cfg=rtl_machine(), CUDAC_FUZZ=cases)
        return
    run_gpu(CONFIG, ["CudacFuzzTest"], CUDAC_FUZZ=cases)
