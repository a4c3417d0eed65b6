"""The benchmark kernel suite: find the kernels, build a launch from a size and a seed, get the C answer.

Each kernel lives in ``kernels/<name>/``:

- ``kernel.s``  the assembly kernel (docs/assembler.md); its named ``.param``s are filled by the harness
- ``kernel.cu`` the kernel in CUDA C (docs/kernels-c.md), compiled by cudac; its parameter names play the
                role of the ``.param`` names. A folder may have either or both: with both, the name
                ``<name>`` runs the assembly and ``<name>.cu`` the C (the suite runs both)
- ``gen.py``    the input generator: ``SIZES``, ``ODD_SIZES``, ``CI_SIZES`` and ``setup(size, rng, cfg)``
                returning a :class:`Setup` (launch shape, scalar parameters, input arrays, outputs)
- ``golden.c``  the C reference: ``golden ARGS... < inputs > outputs``, words little-endian uint32,
                inputs and outputs concatenated in the order ``setup`` lists them. Optional beside a
                ``kernel.cu``: without it the kernel.cu is its own reference (compiled by gcc with
                cudac/host.h, threads of a block one after another, barrier phases in order)
- ``README.md`` what it computes, its launch shape, the divergence and memory behaviour it exercises

:func:`prepare` lays the arrays out in global memory, passes their base addresses to the ``.param`` of
the same name, assembles the kernel, compiles ``golden.c`` with gcc (cached under ``build/kernels/``
by the source's hash: never a checked-in answer) and runs it on the same inputs. The result is a
:class:`Case`: the launch image and, per output array, its base address and the C program's words.

    python -m kernels.suite                       # list the kernels and their sizes
    python -m kernels.suite vecadd --size 100     # run one case on the golden model, compare with C
    python -m kernels.suite vecadd --size 100 --lanes 32 --rtl verilator
                                                  # run it on the GPU RTL and print its cycles
    python -m kernels.suite vecadd --size 100 --machine system/sm2-l8 --rtl icarus

On the RTL every scoreboard checks every retire and the outputs are compared with C; without --seed
each RTL run draws a new inputs seed (printed, so a run can be repeated with --seed).
"""

from __future__ import annotations

import argparse
import difflib
import fcntl
import hashlib
import importlib
import importlib.util
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from kernels import launch
from spec import cli
from spec.config import ConfigError, GpuConfig
from spec.image import LaunchError, LaunchImage

ROOT = Path(__file__).resolve().parent.parent
KERNELS = Path(__file__).resolve().parent
BUILD = ROOT / "build" / "kernels"
ALIGN = 64  # each array starts on a 64-word boundary (a whole number of segments for SEG_WORDS <= 32)
GCC_FLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror"]


class SuiteError(cli.InputError):
    """A kernel folder, its generator or its C reference is broken; the message says which and how."""


@dataclass
class Setup:
    """What a kernel's ``gen.setup`` returns for one size.

    ``params``: scalar kernel parameters by ``.param`` name; ``inputs``: the arrays the kernel reads, in
    the order golden.c reads them; ``outputs``: (name, words) of the arrays it writes, in the order
    golden.c writes them; ``args``: golden.c's command-line integers.
    """

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    params: dict[str, int]
    inputs: list[tuple[str, np.ndarray]]
    outputs: list[tuple[str, int]]
    args: list[int]
    shared_words: int = 0


@dataclass
class Output:
    name: str
    base: int
    expected: np.ndarray  # the C program's words


@dataclass
class Case:
    kernel: str
    size: int
    seed: int
    image: LaunchImage
    outputs: list[Output]
    setup: Setup = field(repr=False)

    @property
    def label(self) -> str:
        return f"{self.kernel}/{self.size}"

    def mismatches(self, mem: np.ndarray, limit: int = 5) -> tuple[int, list[str]]:
        """(words compared, descriptions of the first ``limit`` words of ``mem`` that differ from C)."""
        compared, diffs = 0, []
        for out in self.outputs:
            got = mem[out.base : out.base + len(out.expected)]
            compared += len(out.expected)
            for i in np.flatnonzero(got != out.expected)[: max(0, limit - len(diffs))]:
                diffs.append(
                    f"{out.name}[{i}] (global {out.base + i}): C 0x{int(out.expected[i]):08x}, "
                    f"GPU 0x{int(got[i]):08x}"
                )
            if len(diffs) < limit and len(got) < len(out.expected):
                diffs.append(f"{out.name}: only {len(got)} of {len(out.expected)} words fit global memory")
        return compared, diffs


def names() -> list[str]:
    """Every kernel folder (one with a kernel.s or a kernel.cu), sorted."""
    return sorted({p.parent.name for pat in ("*/kernel.s", "*/kernel.cu") for p in KERNELS.glob(pat)})


def variants() -> list[str]:
    """Every runnable kernel: ``<name>`` (its kernel.s, else its kernel.cu) and ``<name>.cu`` when a
    folder has both (the C beside the hand-written assembly)."""
    out = []
    for n in names():
        out.append(n)
        if (KERNELS / n / "kernel.s").is_file() and (KERNELS / n / "kernel.cu").is_file():
            out.append(f"{n}.cu")
    return out


def folder_and_source(name: str) -> tuple[str, Path]:
    """(folder name, kernel source) of a kernel name: ``x.cu`` is folder x's kernel.cu."""
    if name.endswith(".cu"):
        return name[:-3], KERNELS / name[:-3] / "kernel.cu"
    asm = KERNELS / name / "kernel.s"
    return name, asm if asm.is_file() else KERNELS / name / "kernel.cu"


@cache
def generator(name: str) -> ModuleType:
    name = folder_and_source(name)[0]
    folder = KERNELS / name
    needed = (
        ("gen.py", "README.md") if (folder / "kernel.cu").is_file() else ("gen.py", "golden.c", "README.md")
    )
    missing = [f for f in needed if not (folder / f).is_file()]
    if not (folder / "kernel.s").is_file() and not (folder / "kernel.cu").is_file():
        missing.insert(0, "kernel.s or kernel.cu")
    if missing:
        raise SuiteError(f"kernels/{name}: missing {', '.join(missing)} (see kernels/README.md)")
    if folder.parent == Path(__file__).resolve().parent:
        mod = importlib.import_module(f"kernels.{name}.gen")
    else:  # a kernels folder elsewhere (KERNELS moved: tests of the suite's rules)
        spec = importlib.util.spec_from_file_location(f"_kernels_{name}_gen", folder / "gen.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    for attr in ("SIZES", "ODD_SIZES", "CI_SIZES", "setup"):
        if not hasattr(mod, attr):
            raise SuiteError(f"kernels/{name}/gen.py: define {attr} (see kernels/README.md)")
    return mod


def sizes(name: str) -> list[int]:
    """FlexGrip's sizes and the kernel's unusual ones."""
    mod = generator(name)
    return [*mod.SIZES, *mod.ODD_SIZES]


# ------------------------------------------------------------------------------------------------
# C reference
# ------------------------------------------------------------------------------------------------
def golden_binary(name: str) -> Path:
    """Compile kernels/<name>/golden.c with gcc once per source version (safe under pytest -n)."""
    name = folder_and_source(name)[0]
    src = KERNELS / name / "golden.c"
    header = KERNELS / "golden_io.h"
    digest = hashlib.sha1(src.read_bytes() + header.read_bytes() + " ".join(GCC_FLAGS).encode()).hexdigest()[
        :12
    ]
    exe = BUILD / name / f"golden-{digest}"
    if exe.exists():
        return exe
    gcc = shutil.which("gcc")
    if gcc is None:
        raise SuiteError(
            "gcc not found: the C reference programs are compiled at test time; "
            "install it (Debian: sudo apt-get install gcc)"
        )
    exe.parent.mkdir(parents=True, exist_ok=True)
    with open(exe.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not exe.exists():
            tmp = exe.with_suffix(".tmp")
            proc = subprocess.run(
                [gcc, *GCC_FLAGS, f"-I{KERNELS}", "-o", str(tmp), str(src)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                raise SuiteError(f"gcc failed on kernels/{name}/golden.c:\n{proc.stderr.strip()}")
            tmp.rename(exe)
    return exe


def run_golden(name: str, setup: Setup) -> list[np.ndarray]:
    """The C reference's outputs for ``setup``'s inputs, one array per output."""
    exe = golden_binary(name)
    data = b"".join(np.asarray(a, dtype="<u4").tobytes() for _, a in setup.inputs)
    proc = subprocess.run([str(exe), *map(str, setup.args)], input=data, capture_output=True, check=False)
    if proc.returncode != 0:
        raise SuiteError(f"kernels/{name}/golden.c exited {proc.returncode}: {proc.stderr.decode().strip()}")
    want = sum(n for _, n in setup.outputs)
    words = np.frombuffer(proc.stdout, dtype="<u4").astype(np.uint32)
    if len(proc.stdout) != 4 * want:
        raise SuiteError(
            f"kernels/{name}/golden.c wrote {len(proc.stdout)} bytes; the outputs "
            f"{setup.outputs} are {4 * want}"
        )
    out, at = [], 0
    for _, n in setup.outputs:
        out.append(words[at : at + n])
        at += n
    return out


def run_self_reference(
    folder: str, setup: Setup, bases: dict[str, int], values: dict[str, int], words: int, cfg: GpuConfig
) -> list[np.ndarray]:
    """The outputs of kernels/<folder>/kernel.cu compiled by gcc with cudac/host.h and run on the host on
    ``setup``'s inputs laid out as on the GPU (a kernel.cu as its own reference: no golden.c to keep in step)."""
    from cudac.host import HostError, host_binary, run_host

    source = KERNELS / folder / "kernel.cu"
    if not source.is_file():
        raise SuiteError(f"kernels/{folder}: no golden.c and no kernel.cu to be its own reference")
    threads = setup.block[0] * setup.block[1] * setup.block[2]
    compiled = compiled_kernel(source, register_budget(setup, cfg), threads)
    mem = np.zeros(words, dtype=np.uint32)
    for n, a in setup.inputs:
        mem[bases[n] : bases[n] + len(a)] = np.asarray(a, dtype=np.uint32)
    try:
        exe = host_binary(source, compiled.kernel, compiled.params, compiled.pointer_params)
        after = run_host(exe, setup.grid, setup.block, [values[p] for p in compiled.params], mem, timeout=120)
    except HostError as exc:
        raise SuiteError(f"kernels/{folder}/kernel.cu as its own reference: {exc}") from None
    return [after[bases[n] : bases[n] + length].copy() for n, length in setup.outputs]


# ------------------------------------------------------------------------------------------------
# One case
# ------------------------------------------------------------------------------------------------
def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def prepare(name: str, size: int, seed: int, cfg: GpuConfig, reference: str = "auto") -> Case:
    """Kernel ``name`` at ``size`` with inputs from ``seed``: launch image (inputs in DATA records) and
    the C reference's outputs. Raises :class:`SuiteError` if the arrays do not fit ``cfg``'s memory.
    ``reference``: ``golden`` (golden.c), ``self`` (the folder's kernel.cu on the host, cudac/host.py)
    or ``auto`` (golden.c when the folder has one)."""
    mod = generator(name)
    setup: Setup = mod.setup(size, np.random.default_rng([seed, size]), cfg)
    folder, source = folder_and_source(name)
    shared_words = setup.shared_words
    if source.suffix == ".cu":
        threads = setup.block[0] * setup.block[1] * setup.block[2]
        compiled = compiled_kernel(source, register_budget(setup, cfg), threads)
        prog = compiled.program
        if compiled.spill is not None:  # the per-thread spill area follows the __shared__ arrays
            shared_words = max(shared_words, compiled.shared_words(threads))
    else:
        prog = launch.assemble_kernel(source)
    bases: dict[str, int] = {}
    at = 0
    for arr_name, length in [*((n, len(a)) for n, a in setup.inputs), *setup.outputs]:
        bases[arr_name] = at
        at += _aligned(max(length, 1))
    if at > cfg.global_words:
        raise SuiteError(
            f"{name}/{size}: the arrays need {at} words of global memory; the configuration "
            f"has {cfg.global_words} (global_words): use a smaller size or a bigger memory"
        )
    values = {**bases, **setup.params}  # arrays the kernel does not name are allowed (golden-only)
    if set(setup.params) - set(prog.param_names):
        raise SuiteError(
            f"kernels/{name}/gen.py sets {sorted(set(setup.params) - set(prog.param_names))}, "
            f"which {source.name} does not declare (.param or a kernel parameter)"
        )
    missing = set(prog.param_names) - set(values)
    if missing:
        raise SuiteError(
            f"kernels/{folder}/{source.name} declares {sorted(missing)}; gen.py sets no value "
            f"and no array has that name"
        )
    data = [(bases[n], [int(x) for x in np.asarray(a, dtype=np.uint32)]) for n, a in setup.inputs if len(a)]
    image = launch.build(
        prog,
        name,
        grid=setup.grid,
        block=setup.block,
        shared_words=shared_words,
        params={p: values[p] for p in prog.param_names},
        data=data,
        cfg=cfg,
        size=size,
    )
    if reference == "golden" or (reference == "auto" and (KERNELS / folder / "golden.c").is_file()):
        expected = run_golden(name, setup)
    else:
        expected = run_self_reference(folder, setup, bases, values, at, cfg)
    outputs = [Output(n, bases[n], e) for (n, _), e in zip(setup.outputs, expected, strict=True)]
    return Case(name, size, seed, image, outputs, setup)


def register_budget(setup: Setup, cfg: GpuConfig) -> int:
    """Registers per thread the launch can have: 32, or fewer when the block's warps would overflow a
    lane's register file (docs/isa.md 8.1: warps x rows x regs <= RF_DEPTH)."""
    threads = setup.block[0] * setup.block[1] * setup.block[2]
    warps = -(-threads // cfg.warp_size)
    rows = cfg.warp_size // cfg.num_lanes
    return max(1, min(32, cfg.rf_depth // max(1, warps * rows)))


def compiled_kernel(source: Path, budget: int, threads: int):  # type: ignore[no-untyped-def]
    """kernel.cu compiled by cudac for blocks of ``threads`` threads (cached per source text, budget
    and block; a fresh copy each call, since launch.build fills the image in place)."""
    import copy

    return copy.deepcopy(_compiled(source.read_text(), str(source), budget, threads))


@cache
def _compiled(text: str, path: str, budget: int, threads: int):  # type: ignore[no-untyped-def]
    from cudac import CompileError, compile_file

    del text  # the cache key: a changed source compiles again
    try:
        return compile_file(path, max_regs=budget, threads=threads)
    except CompileError as exc:
        raise SuiteError(str(exc)) from None


def run_on_model(case: Case, cfg: GpuConfig) -> tuple[np.ndarray, dict[str, int]]:
    """Run ``case`` on the golden model alone: (final global memory, event counts)."""
    from spec.model import Model

    result = Model(cfg, case.image).run()
    return result.gmem, result.counters.as_dict()


def run_on_rtl(
    name: str, sizes: list[int], seed: int | None, cfg: GpuConfig, tag: str, sim: str
) -> list[dict]:
    """Run cases on the GPU RTL (the system bench, every scoreboard on, outputs against C); return each
    case's record: ``cycles`` (the launch's, its busiest SM's), ``cycles_per_sm`` and the counters."""
    import json
    import os
    import tempfile

    from tb.gpurun import run_gpu

    cases = ",".join(f"{name}:{n}" + (f":{seed}" if seed is not None else "") for n in sizes)
    fd, path = tempfile.mkstemp(prefix=f"{name}-", suffix=".jsonl")
    os.close(fd)
    try:
        run_gpu(tag, ["KernelTest"], cfg=cfg, sim=sim, KERNEL_CASES=cases, SIMT_BENCH=path)
        return [json.loads(line) for line in Path(path).read_text().splitlines() if line]
    finally:
        Path(path).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(
        prog="python -m kernels.suite",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("kernel", nargs="?", help="kernel folder name (omit to list them)")
    ap.add_argument(
        "--size", type=cli.positive_int, action="append", help="size (repeatable; default: every size)"
    )
    ap.add_argument(
        "--seed",
        type=cli.int_range(0, 2**32 - 1),
        help="inputs seed, 0..2**32-1 (default: 1 on the model; a new one per RTL run)",
    )
    ap.add_argument("--lanes", type=int, default=8, help="NUM_LANES of the bench machine (default 8)")
    ap.add_argument("--machine", help="a named machine of spec/machines.py instead, e.g. system/sm2-l8")
    ap.add_argument(
        "--rtl",
        metavar="SIM",
        choices=["icarus", "verilator"],
        help="run on the GPU RTL with this simulator and print its cycles (default: the model)",
    )
    args = ap.parse_args(argv)
    if args.kernel is None:
        for n in names():
            mod = generator(n)
            print(f"{n:<12} sizes {mod.SIZES} unusual {mod.ODD_SIZES} make test {mod.CI_SIZES}")
        return 0
    if args.kernel not in names():
        close = difflib.get_close_matches(args.kernel, names(), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        ap.error(f"no kernel {args.kernel!r}: {hint}kernels: {', '.join(names())}")
    try:
        return _run(args, ap)
    except (SuiteError, LaunchError, ConfigError) as err:
        raise cli.UsageError(f"{ap.prog}: error: {err}") from None


def _run(args: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    from spec import machines

    if args.machine:
        table = machines.named()
        if args.machine not in table:
            ap.error(f"unknown machine {args.machine!r}; machines: {', '.join(table)}")
        cfg, tag = table[args.machine], args.machine.replace("/", "-")
    else:
        cfg, tag = machines.bench(args.lanes), f"bench-l{args.lanes}"
    sizes_run = args.size or sizes(args.kernel)
    if args.rtl:
        for r in run_on_rtl(args.kernel, sizes_run, args.seed, cfg, tag, args.rtl):
            print(
                f"{r['kernel']}/{r['size']} on {tag} ({args.rtl}, inputs seed {r['seed']}): {r['cycles']} cycles "
                f"(per SM {r['cycles_per_sm']}), {r['warp_instrs']} warp-instructions, "
                f"{r['cycles'] / max(r['warp_instrs'], 1):.2f} cycles each; outputs match C"
            )
        return 0
    status = 0
    for size in sizes_run:
        case = prepare(args.kernel, size, 1 if args.seed is None else args.seed, cfg)
        mem, counts = run_on_model(case, cfg)
        compared, diffs = case.mismatches(mem)
        verdict = "matches C" if not diffs else "DIFFERS from C: " + "; ".join(diffs)
        print(f"{case.label:<16} {compared:>7} words {verdict}  ({counts['warp_instrs']} warp-instructions)")
        status |= bool(diffs)
    return status


if __name__ == "__main__":
    cli.run(main)
