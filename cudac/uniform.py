"""Which values and branches depend on the thread (divergence analysis, docs/kernels-c.md).

A value is *varying* when it can differ between the threads of a block: ``threadIdx``, anything loaded
from memory, and any variable assigned a varying value or assigned under a varying branch that lies
inside the variable's scope (threads that skip the assignment keep the old value). ``blockIdx``,
``blockDim``, ``gridDim``, parameters and constants are uniform. A construct is varying when its
condition is; a loop also when a ``break`` leaves it from under a varying branch (threads leave at
different iterations). The analysis runs to a fixed point over one function body (loops feed values
back); a device function is analysed per call with its arguments' varying-ness.

The lowering reads: ``node_varying[id(construct)]`` (needs an SSY at its end), ``body_ssy`` (loops
whose ``continue`` is varying: an SSY at the loop's latch every iteration) and ``ret_ssy``/``ret_varying``
(device functions returning from under a varying branch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

THREAD_BUILTINS = {"threadIdx": True, "blockIdx": False, "blockDim": False, "gridDim": False}
LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


@dataclass
class Analysis:
    varying_decl: set[int] = field(default_factory=set)
    node_varying: dict[int, bool] = field(default_factory=dict)
    body_ssy: set[int] = field(default_factory=set)
    ret_ssy: bool = False
    ret_varying: bool = False
    call_args: dict[int, tuple[bool, ...]] = field(default_factory=dict)


class Analyzer:
    """Analyse one function body. ``params``: name -> varying for its parameters."""

    def __init__(self, funcs: dict[str, c_ast.FuncDef], fault: str = "") -> None:
        self.funcs = funcs
        self.fault = fault
        self._cache: dict[tuple[str, tuple[bool, ...]], Analysis] = {}
        self._active: list[str] = []

    def analyse(self, fdef: c_ast.FuncDef, args: tuple[bool, ...]) -> Analysis:
        key = (fdef.decl.name, args)
        if key in self._cache:
            return self._cache[key]
        if fdef.decl.name in self._active:  # recursion: the lowering refuses it
            return Analysis(ret_varying=True)
        self._active.append(fdef.decl.name)
        try:
            res = Analysis()
            params = _param_decls(fdef)
            for p, v in zip(params, args, strict=False):
                if v:
                    res.varying_decl.add(id(p))
            while True:
                before = (len(res.varying_decl), dict(res.node_varying), len(res.body_ssy), res.ret_ssy,
                          res.ret_varying)  # fmt: skip
                walker = _Walk(self, res)
                walker.scopes = [{p.name: (id(p), 0) for p in params if p.name}]
                walker.stmt(fdef.body)
                after = (len(res.varying_decl), dict(res.node_varying), len(res.body_ssy), res.ret_ssy,
                         res.ret_varying)  # fmt: skip
                if after == before:
                    break
            if self.fault == "no-ssy":  # planted compiler fault (tests): every branch taken as uniform
                res.node_varying = dict.fromkeys(res.node_varying, False)
                res.body_ssy.clear()
                res.ret_ssy = False
            self._cache[key] = res
            return res
        finally:
            self._active.pop()


def _param_decls(fdef: c_ast.FuncDef) -> list[c_ast.Decl]:
    args = fdef.decl.type.args
    if args is None:
        return []
    return [p for p in args.params if isinstance(p, c_ast.Decl)]


class _Walk:
    def __init__(self, an: Analyzer, res: Analysis) -> None:
        self.an, self.res = an, res
        self.scopes: list[dict[str, tuple[int, int]]] = []
        self.ctl: list[tuple[c_ast.Node, bool]] = []

    # -- helpers ------------------------------------------------------------------------------
    def _lookup(self, name: str) -> tuple[int, int] | None:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

    def _ctl_varying_from(self, depth: int) -> bool:
        return any(v for _, v in self.ctl[depth:])

    def _assign(self, target: c_ast.Node, varying: bool) -> None:
        if isinstance(target, c_ast.ID):
            found = self._lookup(target.name)
            if found is None:
                return
            decl_id, depth = found
            if varying or self._ctl_varying_from(depth):
                self.res.varying_decl.add(decl_id)
        else:
            self.expr(target)

    def _mark(self, node: c_ast.Node, varying: bool) -> bool:
        v = self.res.node_varying.get(id(node), False) or varying
        self.res.node_varying[id(node)] = v
        return v

    # -- expressions --------------------------------------------------------------------------
    def expr(self, e: c_ast.Node | None) -> bool:  # noqa: C901, PLR0911, PLR0912
        if e is None or isinstance(e, c_ast.Constant):
            return False
        if isinstance(e, c_ast.ID):
            found = self._lookup(e.name)
            return found is not None and found[0] in self.res.varying_decl
        if isinstance(e, c_ast.StructRef):
            if isinstance(e.name, c_ast.ID) and e.name.name in THREAD_BUILTINS:
                return THREAD_BUILTINS[e.name.name]
            return self.expr(e.name)
        if isinstance(e, c_ast.ArrayRef):
            self.expr(e.name)
            self.expr(e.subscript)
            return True
        if isinstance(e, c_ast.Cast):
            return self.expr(e.expr)
        if isinstance(e, c_ast.UnaryOp):
            if e.op in ("++", "--", "p++", "p--"):
                v = self.expr(e.expr)
                self._assign(e.expr, v)
                return v
            if e.op == "*":
                self.expr(e.expr)
                return True
            if e.op == "&" and isinstance(e.expr, c_ast.ArrayRef):
                return self.expr(e.expr.name) | self.expr(e.expr.subscript)
            return self.expr(e.expr)
        if isinstance(e, c_ast.BinaryOp):
            left = self.expr(e.left)
            if e.op in ("&&", "||"):
                self._mark(e, left)
                self.ctl.append((e, left))
                right = self.expr(e.right)
                self.ctl.pop()
                return left or right
            return self.expr(e.right) or left
        if isinstance(e, c_ast.TernaryOp):
            c = self._mark(e, self.expr(e.cond))
            self.ctl.append((e, c))
            a = self.expr(e.iftrue)
            b = self.expr(e.iffalse)
            self.ctl.pop()
            return a or b or c
        if isinstance(e, c_ast.Assignment):
            v = self.expr(e.rvalue)
            if e.op != "=":
                v = self.expr(e.lvalue) or v
            self._assign(e.lvalue, v)
            return v
        if isinstance(e, c_ast.ExprList):
            out = False
            for x in e.exprs:
                out = self.expr(x)
            return out
        if isinstance(e, c_ast.FuncCall):
            args = [self.expr(a) for a in (e.args.exprs if e.args else [])]
            prev = self.res.call_args.get(id(e), (False,) * len(args))
            self.res.call_args[id(e)] = tuple(a or p for a, p in zip(args, prev, strict=False))
            if isinstance(e.name, c_ast.ID) and e.name.name in self.an.funcs:
                callee = self.an.analyse(self.an.funcs[e.name.name], tuple(args))
                return callee.ret_varying
            return False
        return True

    # -- statements ---------------------------------------------------------------------------
    def stmt(self, s: c_ast.Node | None) -> None:  # noqa: C901, PLR0912
        if s is None:
            return
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            for item in s.block_items or []:
                self.stmt(item)
            self.scopes.pop()
        elif isinstance(s, c_ast.Decl):
            v = False
            if isinstance(s.init, c_ast.InitList):
                v = any([self.expr(x) for x in s.init.exprs])
            elif s.init is not None:
                v = self.expr(s.init)
            if v:
                self.res.varying_decl.add(id(s))
            if s.name:
                self.scopes[-1][s.name] = (id(s), len(self.ctl))
        elif isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.stmt(d)
        elif isinstance(s, c_ast.If):
            c = self._mark(s, self.expr(s.cond))
            self.ctl.append((s, c))
            self.stmt(s.iftrue)
            self.stmt(s.iffalse)
            self.ctl.pop()
        elif isinstance(s, LOOPS):
            self.scopes.append({})
            if isinstance(s, c_ast.For):
                if isinstance(s.init, c_ast.DeclList):
                    self.stmt(s.init)
                else:
                    self.expr(s.init)
            v = self.res.node_varying.get(id(s), False)
            self.ctl.append((s, v))
            v = self._mark(s, self.expr(s.cond))
            self.ctl[-1] = (s, v)
            self.stmt(s.stmt)
            if isinstance(s, c_ast.For):
                self.expr(s.next)
            self.expr(s.cond)
            self.ctl.pop()
            self.scopes.pop()
        elif isinstance(s, (c_ast.Break, c_ast.Continue)):
            loops = [i for i, (n, _) in enumerate(self.ctl) if isinstance(n, LOOPS)]
            loop_at = loops[-1] if loops else None
            if loop_at is not None and self._ctl_varying_from(loop_at + 1):
                loop = self.ctl[loop_at][0]
                if isinstance(s, c_ast.Break):
                    self._mark(loop, True)
                else:
                    self.res.body_ssy.add(id(loop))
        elif isinstance(s, c_ast.Return):
            v = self.expr(s.expr)
            if self._ctl_varying_from(0):
                self.res.ret_ssy = True
                v = True
            self.res.ret_varying |= v
        elif isinstance(s, c_ast.Node) and not isinstance(s, (c_ast.EmptyStatement,)):
            self.expr(s)
