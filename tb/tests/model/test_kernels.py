"""The benchmark kernels (kernels/) on the golden model, every size, against their C references.

The RTL runs the same cases in tb/tests/system/test_kernels.py (a few sizes) and `make bench` (all);
here the model proves each kernel and its C program agree at every size, before any simulator runs.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kernels import suite
from spec.image import LaunchError
from spec.machines import BENCH_LANES, CI_MACHINE, SYSTEM
from spec.machines import bench as bench_config

# Cases too slow for the model stage of `make test` (they run in `make bench` on the RTL and the model).
SLOW = {("matrixmul", 256)}
CASES = [(k, n) for k in suite.names() for n in suite.sizes(k) if (k, n) not in SLOW]
# The C versions (name.cu) beside the hand-written assembly: the smallest size and the unusual ones
# here (the edges: partial warps, tiles, k-tiles); every size runs on the model and the RTL in `make bench`
# (tools/bench/cudac_bench.py; `--model --all-sizes` on the model alone: a minute more than make model
# should pay for kernels already checked in assembly)
CU_SIZES = {k: sorted({suite.generator(k).SIZES[0], *suite.generator(k).ODD_SIZES}) for k in suite.variants()}
CASES += [
    (k, n)
    for k in suite.variants()
    if k.endswith(".cu")
    for n in CU_SIZES[k]
    if (k, n) != ("matrixmul.cu", 100)
]


@pytest.mark.parametrize(("kernel", "size"), CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_kernel_matches_c(kernel: str, size: int) -> None:
    cfg = bench_config(8)
    case = suite.prepare(kernel, size, seed=size, cfg=cfg)
    mem, counts = suite.run_on_model(case, cfg)
    compared, diffs = case.mismatches(mem)
    assert not diffs, f"{case.label}: the model's output differs from golden.c: " + "; ".join(diffs)
    assert compared == sum(n for _, n in case.setup.outputs) > 0
    assert counts["warp_instrs"] > 0


@pytest.mark.parametrize("lanes", BENCH_LANES[1:])
@pytest.mark.parametrize("kernel", suite.names())
def test_kernel_on_wider_machines(kernel: str, lanes: int) -> None:
    """Bank counts follow the lanes: the results must not depend on them (passes do)."""
    cfg = bench_config(lanes)
    case = suite.prepare(kernel, suite.generator(kernel).ODD_SIZES[0], seed=3, cfg=cfg)
    compared, diffs = case.mismatches(suite.run_on_model(case, cfg)[0])
    assert not diffs and compared


CI_CASES = [(k, n) for k in suite.variants() for n in suite.generator(k).CI_SIZES]


@pytest.mark.parametrize(("kernel", "size"), CI_CASES, ids=[f"{k}-{n}" for k, n in CI_CASES])
def test_kernel_fits_and_matches_c_on_the_ci_machine(kernel: str, size: int) -> None:
    """The RTL regression runs CI_SIZES on CI's machine (smaller memories than the bench machine): a
    kernel that only fits the bench machine fails here, before any simulator runs."""
    cfg = SYSTEM[CI_MACHINE]
    case = suite.prepare(kernel, size, seed=size, cfg=cfg)
    compared, diffs = case.mismatches(suite.run_on_model(case, cfg)[0])
    assert not diffs and compared


def test_a_launch_error_names_the_kernel_and_size() -> None:
    """A kernel too big for the machine is refused with its name and size, not a bare LaunchError."""
    tiny = dataclasses.replace(SYSTEM[CI_MACHINE], imem_words=16)
    with pytest.raises(LaunchError, match=r"^kernel matrixmul size 16: .*instruction memory \(16 words\)"):
        suite.prepare("matrixmul", 16, seed=1, cfg=tiny)


def test_a_wrong_output_word_is_reported() -> None:
    """Meta-test: the comparison names the array, index and both values of a planted difference."""
    cfg = bench_config(8)
    case = suite.prepare("vecadd", 100, seed=1, cfg=cfg)
    mem, _ = suite.run_on_model(case, cfg)
    assert case.mismatches(mem) == (100, [])
    mem[case.outputs[0].base + 42] ^= 1 << 31
    compared, diffs = case.mismatches(mem)
    assert compared == 100 and len(diffs) == 1 and diffs[0].startswith("C[42] ")


def test_inputs_depend_on_the_seed_and_repeat() -> None:
    cfg = bench_config(8)
    a, b, c = (suite.prepare("vecadd", 64, seed=s, cfg=cfg) for s in (1, 1, 2))
    assert a.image.data == b.image.data and a.image.data != c.image.data
    assert np.array_equal(a.outputs[0].expected, b.outputs[0].expected)


def test_arrays_that_do_not_fit_are_refused() -> None:
    small = dataclasses.replace(bench_config(8), global_words=1024)
    with pytest.raises(suite.SuiteError, match="global_words"):
        suite.prepare("vecadd", 1000, seed=1, cfg=small)


def test_every_kernel_folder_is_complete() -> None:
    assert "vecadd" in suite.names()
    for name in suite.names():
        mod = suite.generator(name)  # raises naming a missing file or attribute
        assert mod.SIZES and mod.CI_SIZES and mod.ODD_SIZES
        assert any(n & (n - 1) or n % 32 for n in mod.ODD_SIZES), f"{name}: no unusual size"
