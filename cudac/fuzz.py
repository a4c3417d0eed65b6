"""Random-program fuzzer (Csmith-style): random structured kernels, gcc on the host vs cudac on the model.

Each seed gives one program and one launch (reproducible: ``random.Random(seed)``). The program has
thread-dependent and uniform branches, nested loops with thread-dependent trip counts, ``break`` and
``continue``, a ``__device__`` function with an early return, shared memory written and read between
barriers placed where every thread reaches them, every C integer operator, and every thread storing
its variables at the end (or before an early ``return``). The reference is the same source compiled by
gcc with cudac/host.h (threads of a block one after another, barrier phases in order); the subject is
the program compiled by cudac and run on the golden model (or the RTL, tb/). A failure shrinks to a
smaller program that still fails.

    python -m cudac.fuzz -n 300                 # seeds 0..299
    python -m cudac.fuzz -n 10000 --shard 3/8   # shard 3 of 8 (1-based, as every --shard): seeds s % 8 == 2
    python -m cudac.fuzz --seed 1234 --show     # one program, its source and verdict
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from spec import cli

if TYPE_CHECKING:
    from cudac.host import HostUnit

IN_WORDS = 64
PRESSURE_SHARE = 0.125  # programs with more live values than the 32 registers (spills; cudac/spill.py)
INTERESTING = [0, 1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 100, 255, 256, 1000, 4095, 32767, 32768, 65535, 65536,
               0x7FFFFFFF, -1, -2, -7, -100, -32768, -32769, -65536, 12345678, -0x7FFFFFFF]  # fmt: skip
BIN_OPS = ["+", "-", "*", "&", "|", "^", "<<", ">>", "/", "%", "<", ">", "<=", ">=", "==", "!=", "&&", "||"]


@dataclass
class Node:
    kind: str
    a: object = None
    b: object = None
    c: object = None
    kids: list = field(default_factory=list)  # statement bodies: [then, else] / [body]


@dataclass
class Program:
    seed: int
    threads: int
    blocks: int
    nvars: int
    func: Node | None
    body: list[Node]
    n: int
    u: int
    inputs: list[int]
    extra: int = 0  # high register pressure: h0..h{extra-1}, each live to the final stores

    @property
    def vars(self) -> list[str]:
        """The variables every thread stores at the end, in order (out[gid * nvars + j])."""
        return [*VARS, *(f"h{k}" for k in range(self.extra))]

    def source(self) -> str:
        return render(self)


# ------------------------------------------------------------------------------------------------
# generation
# ------------------------------------------------------------------------------------------------
class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.counter = 0
        self.in_func = False

    def const(self) -> str:
        r = self.r
        if r.random() < 0.7:
            v = r.choice(INTERESTING)
        else:
            v = r.randrange(-(1 << 31), 1 << 31)
        if r.random() < 0.2:
            return f"{v & 0xFFFFFFFF}u"
        if v < 0:
            return "(-2147483647 - 1)" if v == -(1 << 31) else f"({v})"
        return str(v)

    def atom(self, env: list[str], uniform: bool) -> str:
        r = self.r
        if uniform and self.in_func:
            return self.const()
        if uniform:
            choices = [
                "n",
                "u",
                "blockIdx.x",
                "blockDim.x",
                self.const(),
                *[v for v in env if v.startswith("k")],
            ]
            return r.choice(choices)
        if self.in_func:
            return r.choice([*env, "(int) threadIdx.x", "blockIdx.x", self.const()])
        pool = [*env, "tid", "n", "u", "blockIdx.x", self.const(), self.const()]
        if r.random() < 0.1:
            return f"in[({self.expr(env, 1, False)}) & {IN_WORDS - 1}]"
        return r.choice(pool)

    def expr(self, env: list[str], depth: int, uniform: bool = False, call: bool = False) -> str:  # noqa: PLR0911
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return self.atom(env, uniform)
        k = r.random()
        e = lambda: self.expr(env, depth - 1, uniform, call)  # noqa: E731
        if k < 0.55:
            op = r.choice(BIN_OPS)
            if op in ("<<", ">>"):
                return f"({e()} {op} ({e()} & 31))"
            if op in ("/", "%"):
                if r.random() < 0.5:
                    d = r.choice([2, 3, 4, 5, 7, 8, 10, 16, 100, 641, 1000, 65536, 0x7FFFFFFF, -3, -8, -10])
                    ds = f"({d})" if d < 0 else str(d)
                    if r.random() < 0.3:
                        ds = f"{d & 0xFFFFFFFF}u"
                    return f"({e()} {op} {ds})"
                return f"({e()} {op} (({e()} & 7) + 1))"
            return f"({e()} {op} {e()})"
        if k < 0.7:
            return f"({r.choice(['-', '~', '!'])}{e()})"
        if k < 0.8:
            return f"(({e()}) ? {e()} : {e()})"
        if k < 0.9:
            return f"(({r.choice(['unsigned', 'int'])}) {e()})"
        if call and not uniform:
            return f"f0({e()}, {e()})"
        return e()

    def cond(self, env: list[str], uniform: bool) -> str:
        if uniform or self.r.random() < 0.3:
            return self.expr(env, 2, True)
        return self.expr(env, 2, False, call=not self.in_func)

    def block(self, env: list[str], vars_: list[str], depth: int, ctx: dict) -> list[Node]:
        out = []
        for _ in range(self.r.randint(1, 3 if depth < 2 else 2)):
            out.append(self.stmt(env, vars_, depth, ctx))
        return out

    def stmt(self, env: list[str], vars_: list[str], depth: int, ctx: dict) -> Node:  # noqa: C901, PLR0911
        r = self.r
        k = r.random()
        in_loop = ctx.get("loop", False)
        if depth >= 3:
            k = k * 0.36
        if k < 0.3:
            op = r.choice(["=", "=", "+=", "-=", "*=", "^=", "|=", "&=", "<<=", ">>="])
            rhs = self.expr(env, 3, call=ctx.get("call", True))
            if op in ("<<=", ">>="):
                rhs = f"({rhs}) & 31"
            return Node("assign", r.choice(vars_), op, rhs)
        if k < 0.36:
            return Node("incdec", r.choice(vars_), r.choice(["++", "--"]), r.random() < 0.5)
        if k < 0.39 and in_loop:
            return Node(
                "if", self.cond(env, False), None, None, [[Node(r.choice(["break", "continue"]))], []]
            )
        if k < 0.55:
            uniform = r.random() < 0.35
            then = self.block(env, vars_, depth + 1, ctx)
            els = self.block(env, vars_, depth + 1, ctx) if r.random() < 0.5 else []
            return Node("if", self.cond(env, uniform), None, None, [then, els])
        if k < 0.75:
            self.counter += 1
            i = f"k{self.counter}" if r.random() < 0.5 else f"i{self.counter}"
            uniform = i.startswith("k")
            if uniform and self.in_func:
                bound = r.choice(["3", "2"])
            elif uniform:
                bound = r.choice(["3", "2", "(n & 3)", "(u % 4u)", "4"])
            else:
                bound = r.choice(["(tid % 5)", "((a0 & 3) + 1)", "(tid & 3)", "3", "((u0 >> 3) & 3)"])
                if self.in_func:
                    bound = "(p & 3)"
            kind = r.choice(["for", "for", "while", "do"])
            body = self.block([*env, i], vars_, depth + 1, {**ctx, "loop": True})
            return Node(kind, i, bound, None, [body])
        if k < 0.8 and ctx.get("may_return", False):
            return Node("if", self.cond(env, False), None, None, [[Node("return")], []])
        op = r.choice(["=", "+=", "^="])
        return Node("assign", r.choice(vars_), op, self.expr(env, 3, call=ctx.get("call", True)))

    def program(self, seed: int, small: bool = False) -> Program:
        r = self.r
        threads = r.choice([32, 40, 64, 96])
        blocks = r.choice([1, 1, 2])
        if small:  # the RTL's programs: one or two warps, one block (Icarus pays per thread)
            threads, blocks = r.choice([32, 40, 64]), 1
        # a share of the programs keep more values live than the registers hold (a separate stream,
        # so the other seeds' programs stay what they were)
        hp = random.Random(f"cudac-pressure-{seed}")
        extra = hp.randint(24, 36) if hp.random() < PRESSURE_SHARE else 0
        vars_ = [*VARS, *(f"h{k}" for k in range(extra))]
        self.in_func = True
        fbody = self.block(["p", "q"], ["p", "q"], 1, {"may_return": True, "call": False})
        func = Node("func", None, None, self.expr(["p", "q"], 3), [fbody])
        self.in_func = False
        body: list[Node] = []
        for _ in range(r.randint(1, 2)):  # phase 1: shared exchanges at the top level (uniform)
            body.extend(self.block(vars_, vars_, 1, {}))
            body.append(Node("shared", r.choice(vars_), self.expr(vars_, 2), r.randrange(1, threads)))
        body.extend(self.block(vars_, vars_, 0, {"may_return": True}))  # phase 2: returns allowed
        return Program(seed, threads, blocks, len(vars_), func, body, r.randrange(0, 40), r.getrandbits(32),
                       [r.getrandbits(32) for _ in range(IN_WORDS)], extra)  # fmt: skip


def generate(seed: int, small: bool = False) -> Program:
    """The program of ``seed`` (``small``: at most two warps in one block, for the RTL)."""
    return Gen(seed).program(seed, small)


# ------------------------------------------------------------------------------------------------
# rendering
# ------------------------------------------------------------------------------------------------
VARS = ["a0", "a1", "a2", "u0", "u1"]


def _stores(ind: str, prog: Program) -> list[str]:
    names = prog.vars
    if prog.extra:  # one STG per variable (a pointer to the thread's words): small enough for the RTL
        return [
            f"{ind}{{",
            f"{ind}    int *o = out + gid * {len(names)};",
            *(f"{ind}    o[{j}] = (int) {v};" for j, v in enumerate(names)),
            f"{ind}}}",
        ]
    return [f"{ind}out[gid * {len(names)} + {j}] = (int) {v};" for j, v in enumerate(names)]


def _render_block(nodes: list[Node], ind: str, prog: Program, in_func: bool) -> list[str]:  # noqa: C901
    out: list[str] = []
    for s in nodes:
        if s.kind == "assign":
            out.append(f"{ind}{s.a} {s.b} {s.c};")
        elif s.kind == "incdec":
            out.append(f"{ind}{s.b}{s.a};" if s.c else f"{ind}{s.a}{s.b};")
        elif s.kind in ("break", "continue"):
            out.append(f"{ind}{s.kind};")
        elif s.kind == "return":
            if in_func:
                out.append(f"{ind}return p ^ q;")
            else:
                out += [*_stores(ind, prog), f"{ind}return;"]
        elif s.kind == "if":
            out.append(f"{ind}if ({s.a}) {{")
            out += _render_block(s.kids[0], ind + "    ", prog, in_func)
            if len(s.kids) > 1 and s.kids[1]:
                out.append(f"{ind}}} else {{")
                out += _render_block(s.kids[1], ind + "    ", prog, in_func)
            out.append(f"{ind}}}")
        elif s.kind == "for":
            out.append(f"{ind}for (int {s.a} = 0; {s.a} < {s.b}; {s.a}++) {{")
            out += _render_block(s.kids[0], ind + "    ", prog, in_func)
            out.append(f"{ind}}}")
        elif s.kind == "while":
            out += [
                f"{ind}{{",
                f"{ind}    int {s.a} = 0;",
                f"{ind}    while ({s.a} < {s.b}) {{",
                f"{ind}        {s.a}++;",
            ]
            out += _render_block(s.kids[0], ind + "        ", prog, in_func)
            out += [f"{ind}    }}", f"{ind}}}"]
        elif s.kind == "do":
            out += [f"{ind}{{", f"{ind}    int {s.a} = 0;", f"{ind}    do {{", f"{ind}        {s.a}++;"]
            out += _render_block(s.kids[0], ind + "        ", prog, in_func)
            out += [f"{ind}    }} while ({s.a} < {s.b});", f"{ind}}}"]
        elif s.kind == "shared":
            out += [
                f"{ind}__syncthreads();",
                f"{ind}sh[tid] = {s.b};",
                f"{ind}__syncthreads();",
                f"{ind}{s.a} += sh[(tid + {s.c}) % NT];",
            ]
    return out


def render(prog: Program) -> str:
    lines = [f"// cudac fuzz program, seed {prog.seed}", f"#define NT {prog.threads}", ""]
    if prog.func is not None:
        lines.append("__device__ int f0(int p, unsigned q) {")
        lines += _render_block(prog.func.kids[0], "    ", prog, True)
        lines += [f"    return {prog.func.c};", "}", ""]
    else:
        lines += ["__device__ int f0(int p, unsigned q) { return p + (int) q; }", ""]
    lines += [
        "__global__ void fuzz(int *out, const int *in, int n, unsigned u) {",
        "    __shared__ int sh[NT];",
        "    int tid = threadIdx.x;",
        "    int gid = blockIdx.x * blockDim.x + tid;",
        f"    int a0 = in[tid & {IN_WORDS - 1}], a1 = tid * 3 - n, a2 = n;",
        "    unsigned u0 = u ^ (unsigned) tid, u1 = blockIdx.x;",
    ]
    for k in range(prog.extra):  # distinct per thread and per variable: no two can share a register
        lines.append(f"    int h{k} = a0 ^ {(k * 40503 & 0xFFFF) | 1};")
    lines += _render_block(prog.body, "    ", prog, False)
    lines += _stores("    ", prog)
    lines.append("}")
    return "\n".join(lines) + "\n"


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
