"""Memory references: subscripts, pointers, ``*p``, loads and stores (a mixin of
:class:`cudac.lower.Lowerer`).

A constant part of a subscript rides in the load or store offset (16 bits for loads, 11 for stores);
``p[i * n + k]`` is one ``MAD`` and an offset; ``__shared__``/``__constant__`` arrays are word ranges
of their space and local arrays are registers (constant subscripts only).
"""

from __future__ import annotations

from pycparser import c_ast

from cudac.base import LowerBase
from cudac.ir import imm_fits
from cudac.types import MASK, UINT, Array, Int, MemRef, Ptr, RegRef, Val


class MemoryMixin(LowerBase):
    def split_node(self, e: c_ast.Node) -> tuple[c_ast.Node | None, int]:
        """``e`` as (expression, constant) with ``e = expression + constant`` (no code emitted)."""
        if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
            if isinstance(e.right, c_ast.Constant) and e.right.type in ("int", "unsigned int"):
                n, c = self.split_node(e.left)
                k = self.constant(e.right).signed_const()
                return n, c + (k if e.op == "+" else -k)
            if e.op == "+" and isinstance(e.left, c_ast.Constant) and e.left.type == "int":
                n, c = self.split_node(e.right)
                return n, c + self.constant(e.left).signed_const()
        if isinstance(e, c_ast.Constant) and e.type in ("int", "unsigned int"):
            return None, self.constant(e).signed_const()
        return e, 0

    def split(self, e: c_ast.Node) -> tuple[Val | None, int]:
        """``e`` as (value, constant) with ``e = value + constant``: constant offsets go in immediates."""
        n, c = self.split_node(e)
        if n is None:
            return None, c
        v = self.rv(n)
        if v.is_const:
            return None, c + v.signed_const()
        return v, c

    def index(self, base: Val, sub: c_ast.Node) -> tuple[Val, int]:
        """``base + sub`` for a pointer ``base``: (register value, constant offset); ``p[i * n + k]``
        is one MAD and an immediate offset."""
        n, c = self.split_node(sub)
        if n is None:
            return base, c
        if isinstance(n, c_ast.BinaryOp) and n.op == "*" and not base.is_const:
            a, b = self.rv(n.left), self.rv(n.right)
            if not a.is_const and not b.is_const and isinstance(a.ctype, Int) and isinstance(b.ctype, Int):
                r = self.vreg()
                self.emit("MAD", r, (a.reg, b.reg, base.reg))
                return Val(base.ctype, reg=r), c
            iv = self.binop("*", a, b, n)
        else:
            iv = self.rv(n)
        if isinstance(iv.ctype, Ptr):
            raise self.err(sub, "a subscript must be an integer")
        if iv.is_const:
            return base, c + iv.signed_const()
        return self.binop_raw("+", base, iv, base.ctype), c

    def mem_ref(self, e: c_ast.Node) -> MemRef | RegRef:  # noqa: C901
        """The memory word (or local array element) that lvalue ``e`` names."""
        if isinstance(e, c_ast.UnaryOp) and e.op == "*":
            pv, c = self.split(e.expr)
            if pv is None or not isinstance(pv.ctype, Ptr):
                raise self.err(e, "'*' needs a pointer")
            return MemRef(pv.ctype.space, pv.ctype.elem, pv, c)
        assert isinstance(e, c_ast.ArrayRef)
        subs: list[c_ast.Node] = []
        root: c_ast.Node = e
        while isinstance(root, c_ast.ArrayRef):
            subs.insert(0, root.subscript)
            root = root.name
        if isinstance(root, c_ast.ID):
            sym = self.lookup(root.name, root)
            if isinstance(sym, Array):
                return self.array_ref(sym, subs, e, root.name)
        if len(subs) != 1:
            raise self.err(e, "only arrays declared with two dimensions take two subscripts")
        pv, c = self.split(root)
        if pv is None or not isinstance(pv.ctype, Ptr):
            raise self.err(e, "subscript of something that is not an array or a pointer")
        base, ic = self.index(pv, subs[0])
        return MemRef(pv.ctype.space, pv.ctype.elem, base, c + ic)

    def array_ref(self, sym: Array, subs: list[c_ast.Node], e: c_ast.Node, name: str) -> MemRef | RegRef:
        if len(subs) != len(sym.dims):
            raise self.err(
                e, f"'{name}' has {len(sym.dims)} dimension(s); index it with {len(sym.dims)} subscript(s)"
            )
        parts = [self.split(s) for s in subs]
        if sym.space == "local":
            if any(v is not None for v, _ in parts):
                raise self.err(
                    subs[0],
                    f"local array '{name}' needs constant subscripts (its elements are registers); use a __shared__ array for a computed index",
                )
            flat = 0
            for (_, c), n, s in zip(parts, sym.dims, subs, strict=True):
                if not 0 <= c < n:
                    raise self.err(s, f"subscript {c} is outside '{name}' (0..{n - 1})")
                flat = flat * n + c
            assert sym.regs is not None
            return RegRef(sym.regs[flat], sym.elem)
        off = sym.base
        reg: Val | None = None
        stride = 1
        for n in sym.dims[1:]:
            stride *= n
        for k, (v, c) in enumerate(parts):
            off += c * stride
            if v is not None:
                term = v if stride == 1 else self.binop("*", v, self.const(stride, UINT), e)
                reg = term if reg is None else self.binop("+", reg, term, e)
            if k + 1 < len(sym.dims):
                stride //= sym.dims[k + 1]
        base = reg if reg is not None else self.const(0, UINT)
        return MemRef(sym.space, sym.elem, base, off)

    def address(self, ref: MemRef, store: bool) -> tuple[int, int]:
        op = "STG" if store else "LDG"
        off = ref.off
        if ref.base.is_const:
            r = self.vreg()
            self.emit(
                "LI",
                r,
                imm=(ref.base.const + off) & MASK
                if ((ref.base.const + off) & MASK) < 0x80000000
                else ((ref.base.const + off) & MASK) - (1 << 32),
            )
            return r, 0
        if not imm_fits(op if store else "ADDI", off) or store and off not in range(-1024, 1024):
            r = self.vreg()
            self.emit_ri("ADD", r, ref.base.reg, off)
            return r, 0
        return ref.base.reg, off

    def load(self, ref: MemRef | RegRef) -> Val:
        if isinstance(ref, RegRef):
            return Val(ref.ctype, reg=ref.reg)
        base, off = self.address(ref, store=False)
        r = self.vreg()
        self.emit({"global": "LDG", "shared": "LD", "const": "LDC"}[ref.space], r, (base,), imm=off)
        return Val(ref.elem, reg=r)

    def store(self, ref: MemRef, value: Val, e: c_ast.Node) -> None:
        if ref.space == "const":
            raise self.err(e, "__constant__ memory is read-only")
        base, off = self.address(ref, store=True)
        self.emit("STG" if ref.space == "global" else "ST", None, (base, self.reg_of(value)), imm=off)
