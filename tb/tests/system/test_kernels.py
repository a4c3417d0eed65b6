"""The benchmark kernels (kernels/) on the RTL, every scoreboard on, each output word against C.

``make test`` runs each kernel's CI_SIZES (kernels/<name>/gen.py) on the 2-SM, 8-lane configuration
under the default (randomly delayed, reordered) memory — the hand-written assembly and the C
(``kernel.cu``, compiled by cudac) share them (:func:`ci_cases`) — and one launch on Lies 2019 Table 5.1's
16 SMs; ``make bench`` runs every size on the benchmark machine (tools/bench/kernels_bench.py for the
assembly, tools/bench/cudac_bench.py for the C). ``KERNEL_CASES=name:size,...`` replaces a batch's cases.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from kernels import suite
from spec.machines import tesla
from tb.gpurun import CONFIGS, run_gpu

CONFIG = "sm2-l8"
# two batches, so pytest -n spreads them over the cores
BATCHES = {
    "vector": ["vecadd", "reduction", "scalarprod", "autocor", "alustream"],
    "matrix": ["bitonic", "transpose", "matrixmul", "stencil3d"],
}


def ci_cases(kernels: list[str]) -> str:
    """Each kernel's CI_SIZES. A folder with both sources runs its assembly at the first and its C at the
    last (the larger or odder case: two warps, a partial tile, edge blocks), both when it has one CI size;
    so the C joins ``make test`` for about the cost of one small case per such kernel (every size of both
    runs on both simulators in ``make bench``)."""
    cases = []
    for k in kernels:
        ci = suite.generator(k).CI_SIZES
        both = f"{k}.cu" in suite.variants()
        cases += [f"{k}:{n}" for n in (ci[:-1] or ci if both else ci)]
        cases += [f"{k}.cu:{ci[-1]}"] if both else []
    return ",".join(cases)


def test_every_kernel_is_in_a_batch() -> None:
    """A new kernel folder must join the RTL regression (kernels/README.md, "Adding a kernel"), its C
    (kernel.cu) beside its assembly too."""
    listed = sorted(k for ks in BATCHES.values() for k in ks)
    assert listed == suite.names(), f"kernels/ has {suite.names()}; BATCHES lists {listed}"
    ran = {c.split(":")[0] for b in BATCHES.values() for c in ci_cases(b).split(",")}
    assert ran == set(suite.variants()), f"make test runs {sorted(ran)}; the suite has {suite.variants()}"


# Every system test checks with the compiled fast path (tb/fastcheck, the default) but this batch, which
# keeps the Python checker (spec/ stepping every retire, SIMT_FAST_CHECK=0) tested end to end on each
# simulator: global memory under the random memory, barriers, shared stores and reductions.
# (SIMT_FAST_CHECK in the environment overrides both ways: tb/gpurun.py.)
PYTHON_BATCH = "vector"


@pytest.mark.parametrize("batch", list(BATCHES))
def test_kernels(batch: str) -> None:
    cases = os.environ.get("KERNEL_CASES") or ci_cases(BATCHES[batch])
    python = {"SIMT_FAST_CHECK": "0"} if batch == PYTHON_BATCH else {}
    run_gpu(CONFIG, ["KernelTest"], KERNEL_CASES=cases, **python)


def test_table51_machine() -> None:
    """Lies 2019 (seed 000) Table 5.1's 16 SMs of 8 lanes (spec/machines.py::tesla): one launch of 16
    blocks, one per SM, every retire checked and the output against C. Kept tiny (transpose 64: about
    1,000 warp-instructions); every kernel at size 256 on this machine runs in ``make bench``
    (tools/bench/kernels_bench.py, the same tag and machine). On Verilator the model of 16 SMs is
    compiled at -O0 (a build of its own): its C++ compile is almost all of this test's cost."""
    cases = os.environ.get("KERNEL_CASES") or "transpose:64"
    run_gpu("tesla-l8-s16", ["KernelTest"], cfg=tesla(), fast_build=True, KERNEL_CASES=cases)


# Posted stores (POST_STORES = 1, docs/isa.md 6.4): kernels that end in stores, under the default random
# memory, which holds requests back so a store retires before the port has taken all its transactions.
POSTED_CASES = "transpose:33,vecadd:100"


def test_posted_stores() -> None:
    """POST_STORES = 1 on CI's machine: every retire checked (a posted store's late transactions
    matched one for one), the launch ends only with every acknowledgement in, outputs against C."""
    cases = os.environ.get("KERNEL_CASES") or POSTED_CASES
    # SIMT_FAULT=0: clean, on the build of test_gpu.py's posted-stores meta-test (hooks inert), so make
    # test compiles one POST_STORES=1 machine per simulator, not two (a Verilator build ~50 CPU s).
    run_gpu(
        f"{CONFIG}-post",
        ["KernelTest"],
        cfg=replace(CONFIGS[CONFIG], post_stores=1),
        KERNEL_CASES=cases,
        SIMT_FAULT="0",
    )


def test_a_wrong_c_answer_is_caught() -> None:
    """Meta-test: one planted wrong word in a C reference's output fails the launch (GoldenMismatch)."""
    run_gpu(CONFIG, ["FaultTest"], SIMT_FAULT_EXPECT="GoldenMismatch")
