"""Random-program fuzzer (Csmith-style): random structured kernels, gcc on the host vs cudac on the model.

Each seed gives one program and one launch (reproducible: ``random.Random(seed)``). The program has
thread-dependent and uniform branches, nested loops with thread-dependent trip counts, ``break`` and
``continue``, a ``__device__`` function with an early return, shared memory written and read between
barriers placed where every thread reaches them, every C integer operator, and every thread storing
its variables at the end (or before an early ``return``). The reference is the same source compiled by
gcc with cudac/host.h (threads of a block one after another, barrier phases in order); the subject is
the program compiled by cudac and run on the golden model (or the RTL, tb/). A failure shrinks to a
smaller program that still fails. The programs themselves are cudac/fuzzgen.py's.

    python -m cudac.fuzz -n 300                 # seeds 0..299
    python -m cudac.fuzz -n 10000 --shard 3/8   # shard 3 of 8 (1-based, as every --shard): seeds s % 8 == 2
    python -m cudac.fuzz --seed 1234 --show     # one program, its source and verdict
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cudac.fuzzgen import IN_WORDS, Node, Program, generate
from spec import cli

if TYPE_CHECKING:
    from cudac.host import HostUnit


# ------------------------------------------------------------------------------------------------
# checking
# ------------------------------------------------------------------------------------------------
@dataclass
class Verdict:
    ok: bool
    kind: str = ""  # "compile", "host", "model", "mismatch"
    detail: str = ""


def launch_memory(prog: Program) -> tuple[np.ndarray, int]:
    out_words = prog.threads * prog.blocks * prog.nvars
    mem = np.zeros(IN_WORDS + out_words, dtype=np.uint32)
    mem[:IN_WORDS] = prog.inputs
    return mem, out_words


def fuzz_config():  # type: ignore[no-untyped-def]
    """The model's machine for the fuzzer: the bench machine with room for the bigger programs (and
    their spill areas: up to 96 threads x ~25 words)."""
    from spec import machines

    return dataclasses.replace(machines.bench(8), imem_words=2048, shared_words=4096)


def compile_image(prog: Program, source: Path, fault: str | None = None):  # type: ignore[no-untyped-def]
    """The program compiled by cudac: its launch image (grid, block, parameters, inputs filled in)."""
    from cudac.compiler import compile_file

    k = compile_file(source, fault=fault, threads=prog.threads)
    image = k.program.image
    mem, _ = launch_memory(prog)
    image.grid = (prog.blocks, 1, 1)
    image.block = (prog.threads, 1, 1)
    image.params = [IN_WORDS, 0, prog.n, prog.u]  # out, in, n, u
    image.data = [(0, [int(x) for x in mem])]
    return image


def run_compiled(prog: Program, source: Path, fault: str | None, cfg: object = None) -> np.ndarray:
    """The program compiled by cudac, run on the golden model: global memory afterwards."""
    from spec.model import Model

    image = compile_image(prog, source, fault)
    result = Model(cfg or fuzz_config(), image, budget=2_000_000).run()  # type: ignore[arg-type]
    return np.asarray(result.gmem[: len(image.data[0][1])], dtype=np.uint32)


PARAMS = ["out", "in", "n", "u"]


def rtl_machine():  # type: ignore[no-untyped-def]
    """The RTL machine of the full-size programs (CUDAC_FUZZ=start:count:full): one SM of the CI
    machine with the instruction memory, stack and shared memory of the model campaign's programs."""
    from spec import machines

    return dataclasses.replace(
        machines.system(1, 8), imem_words=2048, stack_depth=16, shared_words=2048
    ).check()


def rtl_cases(start: int, count: int, cfg, small: bool = True) -> list[tuple[Program, object, np.ndarray]]:  # type: ignore[no-untyped-def]
    """``count`` programs from seed ``start`` on that fit machine ``cfg`` (its instruction memory, stack
    depth, registers): (program, launch image, gcc's final global memory) for the RTL's lock-step run.
    A program the machine refuses, or that overflows its stack on the model, is passed over (it is
    not a compiler fault); the list is the same on every run. ``small``: the RTL's small programs
    (``generate(seed, small=True)``); else the model campaign's programs of the same seeds."""
    from spec.image import LaunchError
    from spec.model import Model
    from spec.records import KernelError

    out: list[tuple[Program, object, np.ndarray]] = []
    seed = start
    with tempfile.TemporaryDirectory(prefix="cudac-rtl-") as tmp:
        while len(out) < count and seed < start + 20 * count:
            prog = generate(seed, small=small)
            seed += 1
            src = Path(tmp) / f"fuzz{prog.seed}.cu"
            src.write_text(prog.source())
            image = compile_image(prog, src)
            try:
                image.check(cfg)
                Model(cfg, image, budget=2_000_000).run()
            except (LaunchError, KernelError):
                continue
            out.append((prog, image, np.zeros(0, dtype=np.uint32)))
        exe = host_batch([p for p, _, _ in out]) if out else None
        return [(p, im, run_reference(p, exe, k)) for k, (p, im, _) in enumerate(out)]


def host_unit(prog: Program) -> HostUnit:
    from cudac.host import HostUnit

    renames = {"fuzz": f"fuzz_{prog.seed}", "f0": f"f0_{prog.seed}", "NT": "NT"}
    return HostUnit(prog.source(), f"fuzz{prog.seed}.cu", "fuzz", PARAMS, ["out", "in"], renames)


def host_batch(progs: list[Program]) -> Path:
    """One gcc run for many programs (gcc is the slow part of a check)."""
    from cudac.host import build_host

    return build_host([host_unit(p) for p in progs])


def run_reference(prog: Program, exe: Path | None = None, unit: int = 0) -> np.ndarray:
    from cudac.host import run_host

    exe = exe or host_batch([prog])
    mem, _ = launch_memory(prog)
    return run_host(
        exe, (prog.blocks, 1, 1), (prog.threads, 1, 1), [IN_WORDS, 0, prog.n, prog.u], mem, unit=unit
    )


def check_program(prog: Program, fault: str | None = None, exe: Path | None = None, unit: int = 0) -> Verdict:
    """Compile and run ``prog`` both ways; the verdict says where they part."""
    from cudac.errors import CompileError
    from cudac.host import HostError

    with tempfile.TemporaryDirectory(prefix="cudac-fuzz-") as tmp:
        src = Path(tmp) / f"fuzz{prog.seed}.cu"
        src.write_text(prog.source())
        try:
            want = run_reference(prog, exe, unit)
        except (HostError, subprocess.TimeoutExpired) as exc:
            return Verdict(False, "host", str(exc))
        try:
            got = run_compiled(prog, src, fault)
        except CompileError as exc:
            return Verdict(False, "compile", str(exc))
        except Exception as exc:  # noqa: BLE001 (a KernelError of the model, or a compiler crash)
            return Verdict(False, "model", f"{type(exc).__name__}: {exc}")
    diff = np.flatnonzero(got != want)
    if len(diff):
        i = int(diff[0])
        return Verdict(
            False,
            "mismatch",
            f"{len(diff)} words differ; first global[{i}]: gcc 0x{int(want[i]):08x}, cudac 0x{int(got[i]):08x}",
        )
    return Verdict(True)


# ------------------------------------------------------------------------------------------------
# shrinking
# ------------------------------------------------------------------------------------------------
def _lists(prog: Program) -> list[list[Node]]:
    out: list[list[Node]] = []

    def walk(nodes: list[Node]) -> None:
        out.append(nodes)
        for s in nodes:
            for kid in s.kids:
                walk(kid)

    walk(prog.body)
    if prog.func is not None:
        walk(prog.func.kids[0])
    return out


def shrink(
    prog: Program, verdict: Verdict, fault: str | None = None, budget: int = 400
) -> tuple[Program, Verdict]:
    """Remove statements and flatten constructs while the program still fails the same way."""
    import copy

    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for li in range(len(_lists(prog))):
            lst = _lists(prog)[li] if li < len(_lists(prog)) else None
            if lst is None:
                break
            i = 0
            while i < len(lst) and tries < budget:
                cand_variants = [[]]
                s = lst[i]
                if s.kind in ("if", "for", "while", "do"):
                    cand_variants.append(s.kids[0])
                    if s.kind == "if" and len(s.kids) > 1 and s.kids[1]:
                        cand_variants.append(s.kids[1])
                done = False
                for repl in cand_variants:
                    trial = copy.deepcopy(prog)
                    tl = _lists(trial)[li]
                    tl[i : i + 1] = copy.deepcopy(repl)
                    tries += 1
                    v = check_program(trial, fault)
                    if not v.ok and v.kind == verdict.kind:
                        prog, verdict, changed, done = trial, v, True, True
                        lst = _lists(prog)[li]
                        break
                if not done:
                    i += 1
    return prog, verdict


# ------------------------------------------------------------------------------------------------
# campaign
# ------------------------------------------------------------------------------------------------
def campaign(
    seeds: list[int], fault: str | None = None, do_shrink: bool = True, log=print, batch: int = 50
) -> list[tuple[int, Verdict, str]]:  # type: ignore[no-untyped-def]
    """Check each seed's program; failing ones are shrunk. Returns (seed, verdict, program source)."""
    failures = []
    for at in range(0, len(seeds), batch):
        failures += _campaign_batch(seeds[at : at + batch], fault, do_shrink, log)
    return failures


def _campaign_batch(
    seeds: list[int], fault: str | None, do_shrink: bool, log
) -> list[tuple[int, Verdict, str]]:  # type: ignore[no-untyped-def]
    from cudac.host import HostError

    progs = [generate(s) for s in seeds]
    try:
        exe: Path | None = host_batch(progs)
    except HostError:
        exe = None  # one program gcc refuses: build them one by one to say which
    failures = []
    for k, (seed, prog) in enumerate(zip(seeds, progs, strict=True)):
        v = check_program(prog, fault, exe, k) if exe else check_program(prog, fault)
        if not v.ok:
            small = prog
            if do_shrink:
                small, v = shrink(prog, v, fault)
            failures.append((seed, v, small.source()))
            log(f"seed {seed}: {v.kind}: {v.detail}")
    return failures


def shard_seeds(start: int, n: int, index: int, count: int) -> list[int]:
    """The seeds of shard ``index`` of ``count`` among start..start+n-1 (shards partition them)."""
    return [s for s in range(start, start + n) if s % count == index]


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(
        prog="python -m cudac.fuzz", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("-n", type=int, default=300, help="programs (seeds start..start+n-1)")
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--seed", type=int, help="one seed only")
    ap.add_argument(
        "--shard", default="1/1", help="I/N, 1 <= I <= N (as every --shard): seeds s with s %% N == I - 1"
    )
    ap.add_argument("--fault", help="plant a compiler fault (e.g. no-ssy) to see the fuzzer catch it")
    ap.add_argument("--show", action="store_true", help="print the program's source")
    ap.add_argument("--no-shrink", action="store_true")
    args = ap.parse_args(argv)
    try:
        si, sn = (int(x) for x in args.shard.split("/"))
        assert 1 <= si <= sn
    except (ValueError, AssertionError):
        ap.error(f"--shard {args.shard!r}: write I/N with 1 <= I <= N, e.g. 2/8")
    seeds = [args.seed] if args.seed is not None else shard_seeds(args.start, args.n, si - 1, sn)
    if args.show:
        for s in seeds:
            print(generate(s).source())
    t0 = time.time()
    fails = campaign(seeds, args.fault, not args.no_shrink)
    for seed, v, src in fails:
        print(f"--- seed {seed} ({v.kind}) shrunk program:\n{src}")
    print(
        f"cudac fuzz: {len(seeds)} programs, {len(fails)} failing, {time.time() - t0:.1f} s (shard {args.shard})"
    )
    return 1 if fails else 0


if __name__ == "__main__":
    cli.run(main)
