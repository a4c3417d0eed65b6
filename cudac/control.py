"""Control flow: ``if``, loops, ``break``/``continue``/``return``, conditions as jumping code, and the
values of ``&&``, ``||`` and ``?:`` (a mixin of :class:`cudac.lower.Lowerer`).

Control flow is structured: each construct whose condition is varying (cudac/uniform.py) gets an
``SSY`` to its end, so the threads that took different ways rejoin there; a uniform one gets none.
``break``/``continue``/``return`` that would leave an SSY region early set a per-thread flag, go to the
region's end and branch on from there to the next enclosing end (docs/kernels-c.md, "Divergence").
A kernel ``return`` is ``EXIT``, which needs no reconvergence.
"""

from __future__ import annotations

from pycparser import c_ast

from cudac.base import LowerBase, Region
from cudac.ir import Ins
from cudac.types import INT, UINT, Int, Ptr, Val


class ControlMixin(LowerBase):
    # -- regions --------------------------------------------------------------------------------
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

    # -- statements -----------------------------------------------------------------------------
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
        if v.is_const:
            if (v.const != 0) == when:
                self.emit("BRA", target=target)
            return
        self.emit("BNE" if when else "BEQ", None, (v.reg,), target=target)

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


def _ternary_type(a: Val, b: Val) -> Int:
    return INT if a.ctype == INT and b.ctype == INT else UINT


def _cmp_type(a: Val, b: Val) -> Int:
    if isinstance(a.ctype, Ptr) and isinstance(b.ctype, Ptr):
        return INT  # see ExprMixin.ptr_binop
    return INT if a.ctype == INT and b.ctype == INT else UINT


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
