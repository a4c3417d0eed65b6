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
from tools import simenv

CONFIG = "sm2-l8"
# (first program, count) per pytest test and simulator, so pytest -n spreads them over the cores. A
# program costs Icarus 2-6 s of CPU (by its cycles) and Verilator well under 1 s: Verilator runs 88
# programs, Icarus 50 of them (issue 30's floor: at least 50 programs per simulator in make test), the
# 50 that cost it least: 10000:25 and the first 25 of 12000:38 (measured on Icarus: 10000:25 84 s,
# 11000:25 141 s, about twice the cycles per program); 11000:25 and 12025:13 run on Verilator only.
PROGRAMS_BY_SIM = {
    "verilator": [(10_000, 25), (11_000, 25), (12_000, 38)],
    "icarus": [(10_000, 25), (12_000, 25)],
}
PROGRAMS = PROGRAMS_BY_SIM[simenv.sim_from_env()]


@pytest.mark.parametrize("start,count", PROGRAMS, ids=[f"{s}:{n}" for s, n in PROGRAMS])
def test_cudac_fuzz_programs_on_the_rtl(start: int, count: int) -> None:
    cases = os.environ.get("CUDAC_FUZZ") or f"{start}:{count}"
    if cases.strip().endswith(":full"):
        if (start, count) != PROGRAMS[0]:
            pytest.skip("CUDAC_FUZZ=…:full names its programs: the first test runs them")
        from cudac.fuzz import rtl_machine

        run_gpu("fuzz-full-l8", ["CudacFuzzTest"], cfg=rtl_machine(), CUDAC_FUZZ=cases)
        return
    run_gpu(CONFIG, ["CudacFuzzTest"], CUDAC_FUZZ=cases)
