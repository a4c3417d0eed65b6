"""Statement lowering: a kernel's C body to IR, declarations and inlined calls (docs/kernels-c.md).

:class:`Lowerer` is the whole lowering, one mixin per job over :class:`cudac.base.LowerBase`:
control flow and divergence (cudac/control.py), expressions and assignments (cudac/exprs.py), memory
references (cudac/memory.py) and division (cudac/divide.py); this module has the kernel, statements,
declarations, types and the inlining of device functions.
"""

from __future__ import annotations

from pycparser import c_ast

from cudac.base import Region
from cudac.control import ControlMixin
from cudac.divide import DivMixin
from cudac.exprs import ExprMixin
from cudac.ir import Ins
from cudac.memory import MemoryMixin
from cudac.types import INT, UINT, Array, CType, Int, Ptr, Val, Var
from cudac.uniform import LOOPS

INT_NAMES = {("int",): INT, ("signed",): INT, ("signed", "int"): INT, ("unsigned",): UINT,
             ("unsigned", "int"): UINT, ("int32_t",): INT, ("uint32_t",): UINT}  # fmt: skip


class Lowerer(ControlMixin, ExprMixin, MemoryMixin, DivMixin):
    """One kernel's lowering: ``Lowerer(file, positions, funcs, fault)``, then ``shared_decl`` /
    ``const_decl`` for file-scope arrays and ``kernel(fdef)``; the IR is ``prologue + code``."""

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
