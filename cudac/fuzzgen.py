"""The fuzzer's random programs (Csmith-style): generation from a seed and rendering as CUDA C.

``generate(seed)`` gives one program and its launch (reproducible: ``random.Random(seed)``): a
``__device__`` function with loops and an early return, thread-dependent and uniform branches, nested
loops with thread-dependent trip counts, ``break``/``continue``, shared-memory exchanges between
barriers that every thread reaches, every C integer operator, and every thread storing its variables
at the end (or before an early ``return``). One program in eight (``Program.extra``) keeps more values
live than the 32 registers hold, so the compiler's spill path runs. cudac/fuzz.py checks them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

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
