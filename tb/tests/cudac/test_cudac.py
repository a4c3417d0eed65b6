"""The CUDA-C compiler (cudac/, docs/kernels-c.md): the bad-source corpus, the command line, the
divergence layout, division, the register budget, and C semantics checked against gcc on the host.

The random-program fuzzer's campaign is test_cudac_fuzz.py; the nine benchmarks compiled from C run
in test_kernels.py (``name.cu``).
"""

from __future__ import annotations

import contextlib
import io
import random
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cudac import CompileError, compile_file, compile_source
from cudac.__main__ import main as cudac_main
from cudac.divide import magic, udiv_by_magic
from cudac.host import host_binary, run_host
from spec import asm, machines
from spec.image import LaunchImage
from spec.model import Model

CORPUS = tomllib.loads((Path(__file__).parent / "corpus" / "cudac.toml").read_text())["case"]


def run_cli(argv: list[str]) -> tuple[int, list[str], str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = cudac_main(argv)
        except SystemExit as e:
            rc = int(e.code or 0)
    return rc, err.getvalue().splitlines(), out.getvalue()


def test_the_corpus_is_big_enough() -> None:
    assert len(CORPUS) >= 40
    assert len({c["name"] for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[c["name"] for c in CORPUS])
def test_bad_source(case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bad source gets its exact file:line:col message, exit 1 and no image (never a traceback)."""
    monkeypatch.chdir(tmp_path)
    Path("k.cu").write_text(case["source"] + "\n")
    rc, lines, _ = run_cli(["k.cu", "-o", "k.hex"])
    assert lines and lines[0] == case["expect"], f"{case['name']}: got {lines[:1]}"
    assert rc == 2 and not Path("k.hex").exists()


VECADD = """// c = a + b
__global__ void vecadd(const int *A, const int *B, int *C, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        C[i] = A[i] + B[i];
}
"""


def test_cli_writes_the_image_and_the_commented_assembly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("vecadd.cu").write_text(VECADD)
    rc, err, out = run_cli(["vecadd.cu", "-o", "vecadd.hex", "-S", "-"])
    assert rc == 0 and not err
    assert "MAD" in out and "; vecadd.cu:5: C[i] = A[i] + B[i];" in out
    image = LaunchImage.from_hex(Path("vecadd.hex").read_text()) if hasattr(LaunchImage, "from_hex") else None
    prog = asm.assemble(out, "vecadd.s")
    if image is not None:
        assert image.code == prog.image.code
    assert prog.param_names == {"A": 0, "B": 1, "C": 2, "N": 3}


def test_a_missing_file_and_a_bad_budget_are_refused(tmp_path: Path) -> None:
    rc, err, _ = run_cli([str(tmp_path / "nope.cu")])
    assert rc == 2 and err[0].endswith("error: no such file")
    rc, _, _ = run_cli([str(tmp_path / "nope.cu"), "--regs", "0"])
    assert rc == 2
    rc, err, _ = run_cli([str(tmp_path / "nope.cu"), "--threads", "0"])
    assert rc == 2 and "--threads must be in 1..65535" in err[-1]


def _run(k: Any, n: int, inputs: list[int], threads: int = 64, params: list[int] | None = None) -> np.ndarray:
    image = k.program.image
    image.block = (threads, 1, 1)
    image.params = params if params is not None else [0, n]
    image.data = [(0, inputs)]
    return Model(machines.bench(8), image).run().gmem


def test_uniform_branches_get_no_ssy_and_thread_dependent_ones_do() -> None:
    """docs/isa.md §4: reconvergence (SSY) only where the condition depends on the thread."""
    uniform = compile_source("__global__ void k(int *a, int n) {\n if (n > 3) a[0] = 1;\n}\n")
    assert "SSY" not in uniform.asm
    varying = compile_source(
        "__global__ void k(int *a, int n) {\n if (threadIdx.x > 3) a[threadIdx.x] = 1;\n}\n"
    )
    assert varying.asm.count("SSY") == 1
    # a variable assigned under a thread-dependent branch is thread-dependent afterwards
    tainted = compile_source(
        "__global__ void k(int *a, int n) {\n int v = n;\n if (threadIdx.x & 1) v = 0;\n"
        " for (int i = 0; i < v; i++) a[i] = i;\n}\n"
    )
    assert tainted.asm.count("SSY") == 2


def test_immediates_and_mad_are_used() -> None:
    k = compile_source(
        "__global__ void k(int *a, int n) {\n int i = threadIdx.x;\n a[i * n + 3] = i + 7;\n}\n"
    )
    body = [ln.split(";")[0].split() for ln in k.asm.splitlines() if ln.startswith("        ")]
    ops = [b[0] for b in body if b]
    assert "MAD" in ops and "ADDI" in ops
    assert any("+ 3]" in ln for ln in k.asm.splitlines())  # the constant offset rides in the store


def test_magic_numbers_divide_exactly() -> None:
    rng = random.Random(5)
    divisors = [3, 5, 6, 7, 10, 641, 1000, 12345, 0x7FFFFFFF, 0x80000001, 0xFFFFFFFF]
    divisors += [rng.randrange(3, 1 << 32) for _ in range(200)]
    for d in divisors:
        if d & (d - 1) == 0:
            continue
        m, p = magic(d)
        assert 32 <= p <= 64 and m < 1 << 33
        for x in [
            0,
            1,
            d - 1,
            d,
            d + 1,
            (1 << 32) - 1,
            1 << 31,
            *(rng.randrange(1 << 32) for _ in range(50)),
        ]:
            if x < 1 << 32:
                assert udiv_by_magic(x, d) == x // d, (x, d)


DIVIDE = """
__global__ void k(int *out, const int *in, int n, unsigned u) {
    int t = threadIdx.x;
    int x = in[t];
    unsigned ux = (unsigned) in[t + 64];
    int d = in[t + 128];
    unsigned ud = (unsigned) in[t + 192];
    int *o = out + t * 16;
    o[0] = x / 7; o[1] = x % 7; o[2] = x / -3; o[3] = x % -3;
    o[4] = x / 8; o[5] = x % 8; o[6] = ux / 10u; o[7] = ux % 641u;
    o[8] = ux / 0x80000001u; o[9] = x / 65536;
    o[10] = x / d; o[11] = x % d; o[12] = ux / ud; o[13] = ux % ud;
    o[14] = (x >> 3) + (ux >> 5) + (x < (int) ux) + (ux < (unsigned) x);
    o[15] = x / 1 + x % 1 + x / -1;
}
"""


def test_division_and_signedness_match_gcc(tmp_path: Path) -> None:
    """Division by constants (multiply-high) and by variables (the shift-subtract routine), signed and
    unsigned, and C's conversions: the model runs cudac's code, the host runs gcc's, same inputs."""
    src = tmp_path / "div.cu"
    src.write_text(DIVIDE)
    rng = np.random.default_rng(3)
    vals = rng.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32)
    vals[:8] = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 7, 0xFFFFFFF9, 65536]
    d = vals[128:192].copy()
    d[d == 0] = 3
    d[(d == 0xFFFFFFFF) & (vals[:64] == 0x80000000)] = 5  # INT_MIN / -1 traps in C
    vals[128:192] = d
    vals[192:] = np.where(vals[192:] == 0, 9, vals[192:])
    out_base = 256
    mem = np.zeros(out_base + 64 * 16, dtype=np.uint32)
    mem[:256] = vals
    k = compile_file(src)
    image = k.program.image
    image.block, image.params, image.data = (64, 1, 1), [out_base, 0, 0, 0], [(0, [int(v) for v in mem])]
    got = Model(machines.bench(8), image).run().gmem[: len(mem)]
    exe = host_binary(src, "k", ["out", "in", "n", "u"], ["out", "in"])
    want = run_host(exe, (1, 1, 1), (64, 1, 1), [out_base, 0, 0, 0], mem)
    bad = np.flatnonzero(got != want)
    assert not len(bad), f"{len(bad)} words differ, first out[{bad[0] - out_base}]"


def test_register_budget_is_a_clear_error() -> None:
    """Below what spilling can reach (an instruction's operands and the spill address): a located error
    (test_cudac_spill.py has the spilling itself)."""
    src = "__global__ void k(int *a, int n) {\n int x = a[0], y = a[1], z = a[2];\n a[3] = x * y + z * x + y * z;\n}\n"
    assert compile_source(src).regs <= 6
    with pytest.raises(CompileError, match=r"k.cu:3:2: .*does not fit 2 registers even with spilling"):
        compile_source(src, name="k.cu", max_regs=2)


def test_device_functions_inline_with_early_returns_and_loops_with_break(tmp_path: Path) -> None:
    src = tmp_path / "f.cu"
    src.write_text(
        "__device__ int f(int x, int lim) {\n"
        "    for (int i = 0; i < 10; i++) {\n"
        "        if (x > lim) return i;\n"
        "        if ((x & 3) == 1) continue;\n"
        "        x = x * 3 + 1;\n"
        "        if (x == 7) break;\n"
        "    }\n"
        "    return -x;\n"
        "}\n"
        "__global__ void k(int *out, int n) {\n"
        "    int t = threadIdx.x;\n"
        "    int s = 0, j = 0;\n"
        "    do { s += f(t + j, n); j++; if (s > 1000) break; } while (j < (t & 7));\n"
        "    out[t] = s + (t > 5 && f(t, 3) > 1) + (t < 3 || f(t, 9) < 0) + (t & 1 ? t : -t);\n"
        "}\n"
    )
    mem = np.zeros(64, dtype=np.uint32)
    k = compile_file(src)
    image = k.program.image
    image.block, image.params, image.data = (64, 1, 1), [0, 50], [(0, [0] * 64)]
    got = Model(machines.bench(8), image).run().gmem[:64]
    want = run_host(host_binary(src, "k", ["out", "n"], ["out"]), (1, 1, 1), (64, 1, 1), [0, 50], mem)
    assert np.array_equal(got, want)
