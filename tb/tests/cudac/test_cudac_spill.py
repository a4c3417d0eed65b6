"""Register spilling (cudac/spill.py, docs/kernels-c.md "Registers and spilling"): a kernel with more
live values than the budget runs correctly with its values in a per-thread shared-memory area, under
divergence and in loops, at budgets down to 3; what cannot fit is a located error; a launch with more
threads than the area was sized for stops with SHARED_OUT_OF_RANGE instead of corrupting memory.

The random programs that spill (one in eight of the fuzzer's, ``Program.extra``) and the planted
spill-slot fault are in test_cudac_fuzz.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from cudac import CompileError, compile_file, compile_source
from cudac.host import host_binary, run_host
from spec import machines
from spec.model import Model
from spec.records import KernelError

LIVE = 40  # values live at once: more than the ISA's 32 registers
THREADS = 64


def pressure_source() -> str:
    """40 values loaded per thread, some rewritten under thread-dependent branches and in a loop with a
    thread-dependent trip count, all stored at the end."""
    lines = ["__global__ void k(int *out, const int *in, int n) {", "    int t = threadIdx.x;"]
    lines += [f"    int v{k} = in[(t + {k}) & 63] * {k + 1};" for k in range(LIVE)]
    lines += [
        "    if (t & 1) {",
        "        v3 = v3 + n; v17 ^= t;",
        "        if (t & 2) v30 -= v31;",
        "    } else {",
        "        v5 = v6 * v7;",
        "    }",
        "    for (int i = 0; i < (t & 3); i++) {",
        "        v9 += v10 ^ i;",
        "        if (v9 & 4) continue;",
        "        v11 = v11 * 3 + v39;",
        "    }",
        f"    int *o = out + t * {2 * LIVE};",
    ]
    lines += [f"    o[{k}] = v{k};" for k in range(LIVE)]
    # a second phase: 40 more values, never live together with the first ones (they share slots)
    lines += ["    {"] + [f"        int w{k} = in[(t + {k} + 7) & 63] ^ {k};" for k in range(LIVE)]
    lines += [f"        o[{LIVE + k}] = w{k};" for k in range(LIVE)] + ["    }"]
    return "\n".join([*lines, "}"]) + "\n"


def _model_run(k, threads: int, mem: np.ndarray, out_base: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    image = k.program.image
    image.block, image.params, image.data = (threads, 1, 1), [out_base, 0, 5], [(0, [int(v) for v in mem])]
    cfg = dataclasses.replace(machines.bench(8), shared_words=4096, imem_words=2048)  # 64 x ~43 slots
    return Model(cfg, image).run().gmem[: len(mem)]


@pytest.fixture(scope="module")
def pressure(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, np.ndarray, int]:
    """The source, its input memory and gcc's answer (host/threads as the GPU runs them)."""
    src = tmp_path_factory.mktemp("spill") / "k.cu"
    src.write_text(pressure_source())
    out_base = 64
    mem = np.zeros(out_base + THREADS * 2 * LIVE, dtype=np.uint32)
    mem[:64] = np.random.default_rng(5).integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    exe = host_binary(src, "k", ["out", "in", "n"], ["out", "in"])
    want = run_host(exe, (1, 1, 1), (THREADS, 1, 1), [out_base, 0, 5], mem)
    return src, mem, want, out_base


@pytest.mark.parametrize("budget", [32, 12, 5, 3])
def test_values_beyond_the_budget_spill_and_the_kernel_still_matches_gcc(
    pressure: tuple[Path, np.ndarray, np.ndarray, int], budget: int
) -> None:
    src, mem, want, out_base = pressure
    k = compile_file(src, max_regs=budget, threads=THREADS)
    assert k.spill is not None and k.spill.stored > 0 and k.regs <= budget
    assert k.spill.slots % 2 == 1, "an even slot count would put a row's threads in the same banks"
    assert k.program.image.shared_words == k.spill.words(THREADS) == k.shared_words(THREADS)
    assert "spill to shared memory" in k.asm and "LDS r" in k.asm and "%tid" in k.asm
    got = _model_run(k, THREADS, mem, out_base)
    bad = np.flatnonzero(got != want)
    assert not len(bad), f"budget {budget}: {len(bad)} words differ, first global[{bad[0]}]"


def test_slots_are_shared_by_values_that_are_never_live_together(
    pressure: tuple[Path, np.ndarray, np.ndarray, int],
) -> None:
    """Slot colouring: the second phase's values reuse the first phase's slots."""
    k = compile_file(pressure[0], max_regs=8, threads=THREADS)
    assert k.spill is not None and k.spill.stored > k.spill.slots


def test_a_kernel_that_fits_does_not_spill(pressure: tuple[Path, np.ndarray, np.ndarray, int]) -> None:
    k = compile_source("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n")
    assert k.spill is None and k.program.image.shared_words == 0


def test_what_cannot_fit_even_with_spills_is_a_located_error() -> None:
    src = "__global__ void k(int *a, int n) {\n int x = a[0], y = a[1], z = a[2];\n a[3] = x * y + z * x + y * z;\n}\n"
    assert compile_source(src, max_regs=3).spill is not None
    with pytest.raises(CompileError) as exc:
        compile_source(src, name="k.cu", max_regs=2)
    assert str(exc.value) == (
        "k.cu:3:2: error: kernel 'k' does not fit 2 registers even with spilling: this line needs its "
        "operands and the spill area's address in registers at once; give it more registers (--regs, max_regs)"
    )


def test_a_launch_bigger_than_the_spill_area_stops_with_a_shared_range_error(
    pressure: tuple[Path, np.ndarray, np.ndarray, int],
) -> None:
    """The area is sized for ``threads``; a bigger block's last threads address past it: the machine
    stops with SHARED_OUT_OF_RANGE (no thread's slot overlaps another's)."""
    src, mem, _, out_base = pressure
    k = compile_file(src, max_regs=12, threads=32)
    with pytest.raises(KernelError, match="SHARED_OUT_OF_RANGE"):
        _model_run(k, THREADS, mem, out_base)


@pytest.mark.parametrize("array_words", [900, 40000])
def test_an_area_beyond_the_store_offset_is_addressed_through_the_base_register(array_words: int) -> None:
    """After 900 words of arrays the slots pass ST's 11-bit offset, after 40000 ADDI's 16 bits: the
    base register gets ADDIs at entry (two for 40000) and every value still comes back right."""
    body = "".join(f"    int v{k} = in[(t + {k}) & 63] * {k + 1};\n" for k in range(40))
    body += "    big[t] = v3;\n    out[t * 41 + 40] = big[t];\n"
    body += "".join(f"    out[t * 41 + {k}] = v{k};\n" for k in range(40))
    src = f"__global__ void k(int *out, const int *in) {{\n    __shared__ int big[{array_words}];\n    int t = threadIdx.x;\n{body}}}\n"
    k = compile_source(src, threads=32, max_regs=8)
    assert k.spill is not None and k.spill.base == array_words
    image = k.program.image
    mem = np.zeros(64 + 32 * 41, dtype=np.uint32)
    mem[:64] = np.arange(64) * 7 + 1
    image.block, image.params, image.data = (32, 1, 1), [64, 0], [(0, [int(x) for x in mem])]
    cfg = dataclasses.replace(machines.bench(8), shared_words=65536, imem_words=2048)
    got = Model(cfg, image).run().gmem[64 : 64 + 32 * 41].reshape(32, 41)
    t, kk = np.arange(32)[:, None], np.arange(40)[None, :]
    want = ((((t + kk) & 63) * 7 + 1) * (kk + 1)).astype(np.uint32)
    assert (got[:, :40] == want).all() and (got[:, 40] == want[:, 3]).all()
