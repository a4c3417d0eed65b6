"""A kernel folder with a kernel.cu and no golden.c: the kernel.cu is its own C reference (issue 30),
compiled by gcc with cudac/host.h (threads of a block one after another, barrier phases in order) and
run on the same inputs laid out as on the GPU (kernels/suite.py ``run_self_reference``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from kernels import suite
from spec.machines import bench as bench_config

CFG = bench_config(8)


@pytest.fixture
def own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """kernels/ replaced by one folder ``selfadd``: vecadd's kernel.cu, gen.py and README.md, no golden.c."""
    folder = tmp_path / "selfadd"
    folder.mkdir()
    for f in ("kernel.cu", "gen.py", "README.md"):
        shutil.copy(suite.KERNELS / "vecadd" / f, folder / f)
    monkeypatch.setattr(suite, "KERNELS", tmp_path)
    suite.generator.cache_clear()
    yield folder
    suite.generator.cache_clear()


def test_a_kernel_cu_without_golden_c_is_a_complete_kernel(own_folder: Path) -> None:
    assert suite.names() == ["selfadd"] and suite.variants() == ["selfadd"]
    case = suite.prepare("selfadd", 100, seed=3, cfg=CFG)
    a, b = (np.asarray(x, dtype=np.uint32) for _, x in case.setup.inputs[:2])
    assert np.array_equal(case.outputs[0].expected, a + b)  # the host run computed C = A + B
    mem, _ = suite.run_on_model(case, CFG)
    compared, diffs = case.mismatches(mem)
    assert compared == 100 and not diffs


def test_a_wrong_self_reference_word_is_caught(own_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the host run's answer has one word changed; the model's output no longer matches it."""
    from cudac import host

    real = host.run_host

    def planted(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = real(*args, **kwargs).copy()
        out[suite._aligned(100) * 2 + 7] ^= 1  # C[7] (A and B take 128 words each)
        return out

    monkeypatch.setattr(host, "run_host", planted)
    case = suite.prepare("selfadd", 100, seed=3, cfg=CFG)
    _, diffs = case.mismatches(suite.run_on_model(case, CFG)[0])
    assert len(diffs) == 1 and "C[7]" in diffs[0], diffs


def test_a_folder_without_any_reference_is_refused(own_folder: Path) -> None:
    (own_folder / "kernel.cu").rename(own_folder / "kernel.s")
    suite.generator.cache_clear()
    with pytest.raises(suite.SuiteError, match="missing golden.c"):
        suite.generator("selfadd")


# Barrier-correct benchmarks: their kernel.cu run on the host gives golden.c's answer. (bitonic,
# reduction, scalarprod and transpose read shared words other threads of their warp wrote without a
# __syncthreads(), warp-synchronously as docs/isa.md 6.4 allows; one-thread-at-a-time host emulation
# cannot run them, so they keep golden.c.)
@pytest.mark.parametrize(
    ("kernel", "size"), [("autocor", 33), ("matrixmul", 37), ("stencil3d", 37), ("alustream", 96)]
)
def test_own_reference_agrees_with_golden_c(kernel: str, size: int) -> None:
    g = suite.prepare(f"{kernel}.cu", size, seed=5, cfg=CFG, reference="golden")
    s = suite.prepare(f"{kernel}.cu", size, seed=5, cfg=CFG, reference="self")
    for a, b in zip(g.outputs, s.outputs, strict=True):
        assert np.array_equal(a.expected, b.expected), f"{kernel}/{size}: {a.name} differs"
