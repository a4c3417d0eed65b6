"""Statement lowering: a kernel's C body to IR, with divergence laid out per docs/isa.md §4.

Control flow is structured: each construct whose condition is varying (cudac/uniform.py) gets an
``SSY`` to its end, so the threads that took different ways rejoin there; a uniform one gets none.
``break``/``continue``/``return`` that would leave an SSY region early set a per-thread flag, go to the
region's end and branch on from there to the next enclosing end (docs/kernels-c.md, "Divergence").
A kernel ``return`` is ``EXIT``, which needs no reconvergence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from cudac.errors import CompileError
from cudac.exprs import Array, ExprMixin, MemRef, RegRef, Var
from cudac.frontend import Positions
from cudac.ir import Ins
from cudac.types import INT, UINT, CType, Int, Ptr, Val
from cudac.uniform import LOOPS, Analysis, Analyzer

INT_NAMES = {("int",): INT, ("signed",): INT, ("signed", "int"): INT, ("unsigned",): UINT,
             ("unsigned", "int"): UINT, ("int32_t",): INT, ("uint32_t",): UINT}  # fmt: skip


@dataclass
class Region:
    """An entry of the lowering's region stack: an SSY region (``join`` is its reconvergence point),
    a loop (break/continue targets) or an inlined function (return target)."""

    kind: str
    join: str = ""
    cont: str = ""
    flags: dict[str, int] = field(default_factory=dict)  # "break"/"continue"/"return" -> flag vreg
    checks: list[tuple[int, str]] = field(default_factory=list)  # after join: BNE flag, target
    ret: int | None = None
    ret_type: CType | None = None


class Lowerer(ExprMixin):
    def __init__(self, file: str, positions: Positions, funcs: dict[str, c_ast.FuncDef], fault: str) -> None:
        self.file, self.positions, self.funcs, self.fault = file, positions, funcs, fault
        self.analyzer = Analyzer(funcs, fault)
        self.code: list[Ins] = []
        self.prologue: list[Ins] = []
        self.nreg = 0
        self.nlabel = 0
        self.scopes: list[dict[str, Var | Array]] = [{}]
        self.regions: list[Region] = []
        self.analyses: list[Analysis] = []
        self.ctl: list[tuple[c_ast.Node, bool]] = []  # enclosing constructs (for __syncthreads)
        self.loc: tuple[str, int] = (file, 0)
        self.sregs: dict[str, int] = {}
        self.inlining: list[str] = []
        self.params: list[tuple[str, CType]] = []
        self.shared_words = 0
        self.consts: list[int] = []

    # -- infrastructure -------------------------------------------------------------------------
    def err(self, node: c_ast.Node | None, msg: str) -> CompileError:
        coord = getattr(node, "coord", None)
        if coord is None or coord.line is None:
            return CompileError(self.file, self.loc[1], 0, msg)
        col = self.positions.column(coord.file, coord.line, coord.column or 1)
        return CompileError(coord.file, coord.line, col, msg)

    def at(self, node: c_ast.Node) -> None:
        coord = getattr(node, "coord", None)
        if coord is not None and coord.line:
            self.loc = (coord.file, coord.line)

    def emit(self, op: str, dst=None, srcs=(), imm=None, target=None) -> None:  # type: ignore[no-untyped-def]
        self.code.append(Ins(op, dst, tuple(srcs), imm, target, self.loc))

    def vreg(self) -> int:
        self.nreg += 1
        return self.nreg

    def label(self, hint: str) -> str:
        self.nlabel += 1
        return f"{hint}{self.nlabel}"

    def place(self, label: str) -> None:
        self.code.append(Ins("LABEL", target=label, loc=self.loc))

    def sreg(self, name: str) -> int:
        if name not in self.sregs:
            self.sregs[name] = r = self.vreg()
            self.prologue.append(Ins("LDS", r, target=name, loc=self.loc))
        return self.sregs[name]

    def lookup(self, name: str, node: c_ast.Node) -> Var | Array:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        if name in SREG_BARE:
            raise self.err(node, f"'{name}' needs a field: {name}.x, {name}.y or {name}.z")
        raise self.err(node, f"'{name}' is not declared")

    def declare(self, name: str, sym: Var | Array, node: c_ast.Node) -> None:
        if name in self.scopes[-1]:
            raise self.err(node, f"'{name}' is declared twice in the same scope")
        self.scopes[-1][name] = sym

    @property
    def analysis(self) -> Analysis:
        return self.analyses[-1]

    def varying(self, node: c_ast.Node) -> bool:
        return self.analysis.node_varying.get(id(node), True)

    # -- types ----------------------------------------------------------------------------------
    def base_type(self, t: c_ast.Node, node: c_ast.Node) -> Int:
        if isinstance(t, c_ast.TypeDecl):
            t = t.type
        if isinstance(t, c_ast.IdentifierType):
            key = tuple(n for n in t.names)
            if key in INT_NAMES:
                return INT_NAMES[key]
            words = " ".join(t.names)
            if any(w in ("float", "double") for w in t.names):
                raise self.err(
                    node, f"'{words}': floating point is not supported (the GPU computes on 32-bit integers)"
                )
            if any(w in ("long", "short", "char", "_Bool") for w in t.names):
                raise self.err(node, f"'{words}' is not supported: use int or unsigned (32 bits)")
            if t.names == ["void"]:
                raise self.err(node, "'void' is not a value type here")
            raise self.err(node, f"type '{words}' is not supported: use int or unsigned")
        if isinstance(t, (c_ast.Struct, c_ast.Union, c_ast.Enum)):
            raise self.err(node, f"{type(t).__name__.lower()} types are not supported")
        raise self.err(node, "this type is not supported: use int, unsigned or a pointer to them")

    def decl_type(self, t: c_ast.Node, node: c_ast.Node, space: str = "global") -> CType:
        if isinstance(t, c_ast.PtrDecl):
            if isinstance(t.type, c_ast.PtrDecl):
                raise self.err(node, "pointers to pointers are not supported")
            if isinstance(t.type, c_ast.FuncDecl):
                raise self.err(node, "function pointers are not supported")
            return Ptr(self.base_type(t.type, node), space)
        return self.base_type(t, node)

    def type_name(self, t: c_ast.Typename) -> CType:
        return self.decl_type(t.type, t)

    # -- kernel ---------------------------------------------------------------------------------
    def kernel(self, fdef: c_ast.FuncDef) -> None:
        decl = fdef.decl
        self.at(decl)
        ret = decl.type.type
        if not (isinstance(ret, c_ast.TypeDecl) and getattr(ret.type, "names", None) == ["void"]):
            raise self.err(decl, f"kernel '{decl.name}' must return void")
        scope: dict[str, Var | Array] = {}
        for k, p in enumerate(_params(fdef)):
            if not p.name:
                raise self.err(p, "every kernel parameter needs a name (the launch fills parameters by name)")
            t = self.decl_type(p.type, p)
            if isinstance(p.type, c_ast.ArrayDecl):
                raise self.err(p, "array parameters are not supported: declare a pointer")
            r = self.vreg()
            self.prologue.append(Ins("LDS", r, target=f"param{k}", loc=self.loc))
            scope[p.name] = Var(r, t)
            self.params.append((p.name, t))
        if len(self.params) > 16:
            raise self.err(
                decl, f"kernel '{decl.name}' has {len(self.params)} parameters; the GPU takes at most 16"
            )
        self.scopes.append(scope)
        self.analyses.append(self.analyzer.analyse(fdef, (False,) * len(self.params)))
        self.stmt(fdef.body)
        self.emit("EXIT")

    # -- statements -----------------------------------------------------------------------------
    def stmt(self, s: c_ast.Node | None) -> None:  # noqa: C901, PLR0912
        if s is None or isinstance(s, c_ast.EmptyStatement):
            return
        self.at(s)
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            for item in s.block_items or []:
                self.stmt(item)
            self.scopes.pop()
        elif isinstance(s, c_ast.Decl):
            self.local_decl(s)
        elif isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.stmt(d)
        elif isinstance(s, c_ast.If):
            self.if_stmt(s)
        elif isinstance(s, LOOPS):
            self.loop(s)
        elif isinstance(s, c_ast.Break):
            self.jump("break", s)
        elif isinstance(s, c_ast.Continue):
            self.jump("continue", s)
        elif isinstance(s, c_ast.Return):
            self.return_stmt(s)
        elif isinstance(s, c_ast.FuncCall):
            self.call(s, want_value=False)
        elif isinstance(s, c_ast.Goto):
            raise self.err(
                s, "goto is not supported: use structured control flow (if, loops, break, continue)"
            )
        elif isinstance(s, c_ast.Label):
            raise self.err(s, "labels are not supported (goto is not): use structured control flow")
        elif isinstance(s, (c_ast.Switch, c_ast.Case, c_ast.Default)):
            raise self.err(s, "switch is not supported: use if / else if")
        elif isinstance(s, c_ast.Pragma):
            return
        elif isinstance(s, (c_ast.Typedef,)):
            raise self.err(s, "typedef inside a function is not supported: put it at file scope")
        else:
            self.rv(s)

    def local_decl(self, d: c_ast.Decl) -> None:
        if "register" in d.storage:
            self.shared_decl(d)
            return
        if "auto" in d.storage:
            raise self.err(d, "__constant__ arrays are declared at file scope")
        if "static" in d.storage or "extern" in d.storage:
            raise self.err(d, f"'{d.storage[0]}' locals are not supported")
        if isinstance(d.type, c_ast.ArrayDecl):
            dims, elem = self.array_shape(d)
            n = 1
            for x in dims:
                n *= x
            if n > 64:
                raise self.err(
                    d,
                    f"local array '{d.name}' has {n} elements; at most 64 (its elements are registers): use a __shared__ array",
                )
            regs = [self.vreg() for _ in range(n)]
            arr = Array("local", elem, dims, regs=regs)
            if isinstance(d.init, c_ast.InitList):
                flat = _flatten(d.init)
                if len(flat) > n:
                    raise self.err(
                        d.init, f"too many initialisers for '{d.name}' ({len(flat)} for {n} elements)"
                    )
                for r, x in zip(regs, flat + [None] * (n - len(flat)), strict=True):
                    v = self.rv(x) if x is not None else self.const(0)
                    self.set_reg(r, v)
            elif d.init is not None:
                raise self.err(d.init, "an array is initialised with { ... }")
            self.declare(d.name, arr, d)
            return
        if isinstance(d.type, c_ast.FuncDecl):
            raise self.err(d, "declare functions at file scope")
        t = self.decl_type(d.type, d)
        r = self.vreg()
        if d.init is not None:
            if isinstance(d.init, c_ast.InitList):
                raise self.err(d.init, "a scalar is initialised with an expression, not { ... }")
            v = self.rv(d.init)
            t = self.check_assign_type(t, v, d.init)
            self.set_reg(r, v)
        elif isinstance(t, Ptr):
            raise self.err(
                d, f"pointer '{d.name}' must be initialised (its memory space is taken from its value)"
            )
        self.declare(d.name, Var(r, t), d)

    def check_assign_type(self, t: CType, v: Val, node: c_ast.Node) -> CType:
        if isinstance(t, Ptr) != isinstance(v.ctype, Ptr):
            raise self.err(
                node, f"assigning {v.ctype} to {t}: pointers and integers do not mix (no casts between them)"
            )
        if isinstance(t, Ptr) and isinstance(v.ctype, Ptr):
            if t.space == "global" and v.ctype.space != "global":
                return Ptr(t.elem, v.ctype.space)
            if t.space != v.ctype.space:
                raise self.err(
                    node, f"a pointer into {t.space} memory cannot point into {v.ctype.space} memory"
                )
        return t

    def set_reg(self, r: int, v: Val) -> None:
        if v.is_const:
            self.emit("LI", r, imm=v.signed_const())
        elif v.reg != r:
            self.emit("MV", r, (v.reg,))

    def array_shape(self, d: c_ast.Decl) -> tuple[tuple[int, ...], Int]:
        dims: list[int] = []
        t = d.type
        while isinstance(t, c_ast.ArrayDecl):
            if t.dim is None:
                raise self.err(d, f"array '{d.name}' needs a size")
            v = self.rv(t.dim)
            if not v.is_const:
                raise self.err(t.dim, f"the size of '{d.name}' must be a constant")
            if not 0 < v.signed_const() <= 65536:
                raise self.err(t.dim, f"the size of '{d.name}' must be in 1..65536")
            dims.append(v.signed_const())
            t = t.type
        if len(dims) > 2:
            raise self.err(d, f"'{d.name}' has {len(dims)} dimensions; at most 2 are supported")
        if isinstance(t, c_ast.PtrDecl):
            raise self.err(d, "arrays of pointers are not supported")
        return tuple(dims), self.base_type(t, d)

    def shared_decl(self, d: c_ast.Decl) -> None:
        if not isinstance(d.type, c_ast.ArrayDecl):
            raise self.err(d, f"__shared__ '{d.name}' must be an array (a shared scalar: declare it [1])")
        if d.init is not None:
            raise self.err(
                d.init, "__shared__ arrays cannot be initialised (shared memory is zero when a block starts)"
            )
        dims, elem = self.array_shape(d)
        n = 1
        for x in dims:
            n *= x
        self.declare(d.name, Array("shared", elem, dims, base=self.shared_words), d)
        self.shared_words += n

    def const_decl(self, d: c_ast.Decl) -> None:
        if not isinstance(d.type, c_ast.ArrayDecl):
            raise self.err(d, f"__constant__ '{d.name}' must be an array")
        dims, elem = self.array_shape(d)
        n = 1
        for x in dims:
            n *= x
        words = [0] * n
        if isinstance(d.init, c_ast.InitList):
            flat = _flatten(d.init)
            if len(flat) > n:
                raise self.err(d.init, f"too many initialisers for '{d.name}' ({len(flat)} for {n} elements)")
            for k, x in enumerate(flat):
                v = self.rv(x)
                if not v.is_const:
                    raise self.err(x, "a __constant__ initialiser must be a constant")
                words[k] = v.const
        elif d.init is not None:
            raise self.err(d.init, "an array is initialised with { ... }")
        self.scopes[0][d.name] = Array("const", elem, dims, base=len(self.consts))
        self.consts.extend(words)

    # -- control flow ---------------------------------------------------------------------------
    def open_region(self, join: str) -> Region:
        self.emit("SSY", target=join)
        r = Region("ssy", join=join)
        self.regions.append(r)
        return r

    def close_region(self, r: Region) -> None:
        """Place the region's end (its reconvergence point) and the early-leave checks after it."""
        assert self.regions[-1] is r
        self.regions.pop()
        self.place(r.join)
        for flag, target in r.checks:
            self.emit("BNE", None, (flag,), target=target)

    def if_stmt(self, s: c_ast.If) -> None:
        varying = self.varying(s)
        body = s.iftrue.block_items if isinstance(s.iftrue, c_ast.Compound) else [s.iftrue]
        if (
            s.iffalse is None
            and body
            and len(body) == 1
            and isinstance(body[0], (c_ast.Break, c_ast.Continue))
        ):
            kind = "break" if isinstance(body[0], c_ast.Break) else "continue"
            target = self.direct_target(kind, body[0])
            if target is not None:  # if (c) break; -> one branch to the loop's end (its reconvergence point)
                self.branch(s.cond, target, True)
                return
        end = self.label("endif")
        region = self.open_region(end) if varying else None
        other = self.label("else") if s.iffalse is not None else end
        self.branch(s.cond, other, False)
        self.ctl.append((s, varying))
        self.stmt(s.iftrue)
        if s.iffalse is not None:
            self.emit("BRA", target=end)
            self.place(other)
            self.stmt(s.iffalse)
        self.ctl.pop()
        if region is not None:
            self.close_region(region)
        else:
            self.place(end)

    def loop(self, s: c_ast.For | c_ast.While | c_ast.DoWhile) -> None:  # noqa: C901
        self.scopes.append({})
        if isinstance(s, c_ast.For) and s.init is not None:
            if isinstance(s.init, c_ast.DeclList):
                self.stmt(s.init)
            else:
                self.rv(s.init)
        varying = self.varying(s)
        body_ssy = id(s) in self.analysis.body_ssy
        exit_, top, latch = self.label("done"), self.label("loop"), self.label("next")
        entry_at = len(self.code)
        outer = self.open_region(exit_) if varying else None
        loop = Region("loop", join=exit_, cont=latch)
        self.regions.append(loop)
        cond = s.cond
        always = cond is None or (isinstance(cond, c_ast.Constant) and self.rv(cond).const != 0)
        if not isinstance(s, c_ast.DoWhile) and not always:
            self.branch(cond, exit_, False)
        self.place(top)
        body_at = len(self.code)
        inner = self.open_region(latch) if body_ssy else None
        self.ctl.append((s, varying or body_ssy))
        self.stmt(s.stmt)
        self.ctl.pop()
        if inner is not None:
            self.close_region(inner)
        else:
            self.place(latch)
        if isinstance(s, c_ast.For) and s.next is not None:
            self.at(s.next)
            self.rv(s.next)
        if always:
            self.emit("BRA", target=top)
        else:
            self.branch(cond, top, True)
        self.regions.pop()
        if outer is not None:
            self.close_region(outer)
        else:
            self.place(exit_)
        # flags reset where the loop starts (break) and where each iteration's body starts (continue)
        if "continue" in loop.flags:
            self.code.insert(
                body_at + (1 if inner is not None else 0),
                Ins("LI", loop.flags["continue"], imm=0, loc=self.loc),
            )
        if "break" in loop.flags:
            self.code.insert(entry_at, Ins("LI", loop.flags["break"], imm=0, loc=self.loc))
        self.scopes.pop()

    def target_region(self, kind: str, node: c_ast.Node) -> int:
        want = "func" if kind == "return" else "loop"
        for i in range(len(self.regions) - 1, -1, -1):
            if self.regions[i].kind == want:
                return i
        raise self.err(node, f"'{kind}' outside a loop")

    def _target(self, kind: str, region: Region) -> str:
        return region.cont if kind == "continue" else region.join

    def direct_target(self, kind: str, node: c_ast.Node) -> str | None:
        """The label a jump can branch to directly (no SSY region in between), else None."""
        i = self.target_region(kind, node)
        target = self._target(kind, self.regions[i])
        between = [r for r in self.regions[i + 1 :] if r.kind == "ssy" and r.join != target]
        return None if between else target

    def jump(self, kind: str, node: c_ast.Node) -> None:
        """break / continue / return out of the enclosing loop or inlined function."""
        i = self.target_region(kind, node)
        region = self.regions[i]
        target = self._target(kind, region)
        between = [r for r in self.regions[i + 1 :] if r.kind == "ssy" and r.join != target]
        if not between:
            self.emit("BRA", target=target)
            return
        if kind not in region.flags:
            region.flags[kind] = self.vreg()
        flag = region.flags[kind]
        self.emit("LI", flag, imm=1)
        self.emit("BRA", target=between[-1].join)
        for inner, outer_r in zip(between[::-1], [*between[::-1][1:], None], strict=True):
            nxt = outer_r.join if outer_r is not None else target
            if (flag, nxt) not in inner.checks:
                inner.checks.append((flag, nxt))

    def return_stmt(self, s: c_ast.Return) -> None:
        funcs = [r for r in self.regions if r.kind == "func"]
        if not funcs:
            if s.expr is not None:
                raise self.err(s.expr, "a kernel returns void")
            self.emit("EXIT")
            return
        f = funcs[-1]
        if s.expr is not None:
            if f.ret is None:
                raise self.err(s.expr, "this function returns void")
            v = self.rv(s.expr)
            self.check_assign_type(f.ret_type, v, s.expr)  # type: ignore[arg-type]
            self.set_reg(f.ret, v)
        elif f.ret is not None:
            raise self.err(s, "return needs a value here")
        self.jump("return", s)

    # -- conditions -----------------------------------------------------------------------------
    def branch(self, e: c_ast.Node, target: str, when: bool) -> None:  # noqa: C901
        """Branch to ``target`` when ``e``'s truth is ``when``; fall through otherwise."""
        if isinstance(e, c_ast.UnaryOp) and e.op == "!":
            self.branch(e.expr, target, not when)
            return
        if isinstance(e, c_ast.BinaryOp) and e.op in ("&&", "||"):
            if (e.op == "&&") == when:  # a && b true / a || b false: both must hold
                skip = self.label("sc")
                self.branch(e.left, skip, not when)
                self.branch(e.right, target, when)
                self.place(skip)
            else:
                self.branch(e.left, target, when)
                self.branch(e.right, target, when)
            return
        if isinstance(e, c_ast.BinaryOp) and e.op in ("<", ">", "<=", ">=", "==", "!="):
            a, b = self.rv(e.left), self.rv(e.right)
            mixed = isinstance(a.ctype, Ptr) != isinstance(b.ctype, Ptr)
            if not (a.is_const and b.is_const) and not mixed:
                reg, neg = self.compare(e.op, a, b, _cmp_type(a, b), branch=True)
                self.emit("BNE" if when != neg else "BEQ", None, (reg,), target=target)
                return
            v = self.binop(e.op, a, b, e)
        else:
            v = self.rv(e)
        if isinstance(v.ctype, Ptr) and not v.is_const:
            pass
        if v.is_const:
            if (v.const != 0) == when:
                self.emit("BRA", target=target)
            return
        self.emit("BNE" if when else "BEQ", None, (v.reg,), target=target)

    # -- inlined calls --------------------------------------------------------------------------
    def call(self, node: c_ast.FuncCall, want_value: bool) -> Val | None:  # noqa: C901
        self.at(node)
        if not isinstance(node.name, c_ast.ID):
            raise self.err(node, "only direct calls of named functions are supported")
        name = node.name.name
        args = node.args.exprs if node.args else []
        if name == "__syncthreads":
            if args:
                raise self.err(node, "__syncthreads() takes no arguments")
            under = [n for n, v in self.ctl if v]
            if under:
                line = under[-1].coord.line if under[-1].coord else 0
                raise self.err(
                    node,
                    f"__syncthreads() under a thread-dependent condition (line {line}): every thread of the block must reach the barrier; move it out of the branch or loop",
                )
            self.emit("BAR")
            return self.const(0) if want_value else None
        if name not in self.funcs:
            raise self.err(
                node.name,
                f"unknown function '{name}' (functions must be defined in the file, before or after the kernel)",
            )
        if name in self.inlining:
            raise self.err(
                node, f"recursion ('{name}' calls itself): device functions are inlined; write a loop instead"
            )
        if len(self.inlining) > 32:
            raise self.err(node, "calls nested more than 32 deep")
        fdef = self.funcs[name]
        params = _params(fdef)
        if len(args) != len(params):
            raise self.err(node, f"'{name}' takes {len(params)} argument(s), {len(args)} given")
        rtype_node = fdef.decl.type.type
        is_void = isinstance(rtype_node, c_ast.TypeDecl) and getattr(rtype_node.type, "names", None) == [
            "void"
        ]
        rtype = None if is_void else self.decl_type(rtype_node, fdef.decl)
        if want_value and rtype is None:
            raise self.err(node, f"'{name}' returns void; its value cannot be used")
        vals = [self.rv(a) for a in args]
        scope: dict[str, Var | Array] = {}
        for p, v, a in zip(params, vals, args, strict=True):
            t = self.decl_type(p.type, p)
            t = self.check_assign_type(t, v, a)
            r = self.vreg()
            self.set_reg(r, v)
            if p.name:
                scope[p.name] = Var(r, t)
        arg_flags = self.analysis.call_args.get(id(node), (True,) * len(args))
        an = self.analyzer.analyse(fdef, arg_flags)
        saved_scopes = self.scopes
        self.scopes = [self.scopes[0], scope]
        self.analyses.append(an)
        self.inlining.append(name)
        ret = self.vreg() if rtype is not None else None
        end = self.label(f"ret_{name}_")
        f = Region("func", join=end, ret=ret, ret_type=rtype)
        self.regions.append(f)
        call_start = len(self.code)
        inner = self.open_region(end) if an.ret_ssy else None
        self.stmt(fdef.body)
        if inner is not None:
            self.close_region(inner)
        else:
            self.place(end)
        self.regions.pop()
        self.inlining.pop()
        self.analyses.pop()
        self.scopes = saved_scopes
        if "return" in f.flags:
            self.code.insert(call_start, Ins("LI", f.flags["return"], imm=0, loc=self.loc))
        return Val(rtype, reg=ret) if ret is not None and rtype is not None else None

    # -- assignments ----------------------------------------------------------------------------
    def lref(self, e: c_ast.Node) -> MemRef | RegRef:
        if isinstance(e, c_ast.ID):
            sym = self.lookup(e.name, e)
            if isinstance(sym, Array):
                raise self.err(e, f"cannot assign to array '{e.name}'; assign its elements")
            return RegRef(sym.reg, sym.ctype)
        if isinstance(e, c_ast.ArrayRef) or isinstance(e, c_ast.UnaryOp) and e.op == "*":
            return self.mem_ref(e)
        if isinstance(e, c_ast.StructRef):
            raise self.err(e, f"{getattr(e.name, 'name', 'this')} is read-only")
        raise self.err(e, "this expression cannot be assigned to")

    def write(self, ref: MemRef | RegRef, v: Val, node: c_ast.Node) -> None:
        if isinstance(ref, RegRef):
            self.set_reg(ref.reg, v)
        else:
            self.store(ref, v, node)

    def assign(self, e: c_ast.Assignment) -> Val:
        ref = self.lref(e.lvalue)
        if e.op == "=":
            v = self.rv(e.rvalue)
        elif e.op == "+=" and isinstance(e.rvalue, c_ast.BinaryOp) and e.rvalue.op == "*":
            old = self.load(ref)  # acc += a * b: one MAD
            v = self.mad_vals(self.rv(e.rvalue.left), self.rv(e.rvalue.right), old, e)
        else:
            old = self.load(ref)
            v = self.binop(e.op[:-1], old, self.rv(e.rvalue), e)
        ctype = ref.ctype if isinstance(ref, RegRef) else ref.elem
        self.check_assign_type(ctype, v, e)
        if (
            isinstance(ref, RegRef)
            and isinstance(ctype, Ptr)
            and isinstance(v.ctype, Ptr)
            and ctype.space != v.ctype.space
        ):
            raise self.err(e, f"a pointer into {ctype.space} memory cannot point into {v.ctype.space} memory")
        self.write(ref, v, e)
        if isinstance(ref, RegRef):
            return Val(ctype, reg=ref.reg)
        return Val(ctype, reg=v.reg, const=v.const)

    def incdec(self, e: c_ast.UnaryOp) -> Val:
        ref = self.lref(e.expr)
        old = self.load(ref)
        post = e.op.startswith("p")
        saved = old
        if post and isinstance(ref, RegRef):
            saved = Val(old.ctype, reg=self.vreg())
            self.emit("MV", saved.reg, (old.reg,))
        new = self.binop("+" if "+" in e.op else "-", old, self.const(1, INT), e)
        self.write(ref, new, e)
        if post:
            return saved
        return Val(new.ctype, reg=ref.reg) if isinstance(ref, RegRef) else new

    # -- && || ?: as values ---------------------------------------------------------------------
    def logical(self, e: c_ast.BinaryOp) -> Val:
        if _simple(e.right):
            a, b = self.truth(e.left), self.truth(e.right)
            if a.is_const and b.is_const:
                return self.const(
                    int(bool(a.const) and bool(b.const))
                    if e.op == "&&"
                    else int(bool(a.const) or bool(b.const))
                )
            return self.binop("&" if e.op == "&&" else "|", a, b, e)
        r = self.vreg()
        end = self.label("sc")
        region = self.open_region(end) if self.varying(e) else None
        self.emit("LI", r, imm=0 if e.op == "&&" else 1)
        self.branch(e.left, end, e.op == "||")
        self.ctl.append((e, region is not None))
        b = self.truth(e.right)
        self.ctl.pop()
        self.set_reg(r, b)
        if region is not None:
            self.close_region(region)
        else:
            self.place(end)
        return Val(INT, reg=r)

    def truth(self, e: c_ast.Node) -> Val:
        v = self.rv(e)
        if v.is_const:
            return self.const(int(v.const != 0))
        if isinstance(e, c_ast.BinaryOp) and e.op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
            return v
        if isinstance(e, c_ast.UnaryOp) and e.op == "!":
            return v
        r = self.vreg()
        self.emit("SNEI", r, (v.reg,), imm=0)
        return Val(INT, reg=r)

    def ternary(self, e: c_ast.TernaryOp) -> Val:
        r = self.vreg()
        end, other = self.label("sel"), self.label("alt")
        region = self.open_region(end) if self.varying(e) else None
        self.branch(e.cond, other, False)
        self.ctl.append((e, region is not None))
        a = self.rv(e.iftrue)
        self.set_reg(r, a)
        self.emit("BRA", target=end)
        self.place(other)
        b = self.rv(e.iffalse)
        self.set_reg(r, b)
        self.ctl.pop()
        if region is not None:
            self.close_region(region)
        else:
            self.place(end)
        if isinstance(a.ctype, Ptr) or isinstance(b.ctype, Ptr):
            if a.ctype != b.ctype:
                raise self.err(e, "both arms of ?: must have the same pointer type")
            return Val(a.ctype, reg=r)
        return Val(_ternary_type(a, b), reg=r)


SREG_BARE = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


def _ternary_type(a: Val, b: Val) -> Int:
    return INT if a.ctype == INT and b.ctype == INT else UINT


def _cmp_type(a: Val, b: Val) -> Int:
    if isinstance(a.ctype, Ptr) and isinstance(b.ctype, Ptr):
        return INT  # see ExprMixin.ptr_binop
    return INT if a.ctype == INT and b.ctype == INT else UINT


def _params(fdef: c_ast.FuncDef) -> list[c_ast.Decl]:
    args = fdef.decl.type.args
    if args is None:
        return []
    out = []
    for p in args.params:
        if isinstance(p, c_ast.Typename) and getattr(getattr(p.type, "type", None), "names", None) == [
            "void"
        ]:
            continue  # (void)
        out.append(p)
    return out


def _flatten(init: c_ast.InitList) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    for x in init.exprs:
        out.extend(_flatten(x) if isinstance(x, c_ast.InitList) else [x])
    return out


def _simple(e: c_ast.Node) -> bool:
    """No side effects, loads or calls: safe to evaluate whether or not C would."""
    if isinstance(e, (c_ast.Constant, c_ast.ID)):
        return True
    if isinstance(e, c_ast.StructRef):
        return True
    if isinstance(e, c_ast.Cast):
        return _simple(e.expr)
    if isinstance(e, c_ast.UnaryOp):
        return e.op in ("-", "~", "!", "+") and _simple(e.expr)
    if isinstance(e, c_ast.BinaryOp):
        return e.op not in ("&&", "||") and _simple(e.left) and _simple(e.right)
    return False
