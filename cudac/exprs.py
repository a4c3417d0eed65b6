"""Expression lowering: C expressions to IR over virtual registers (a mixin of :class:`lower.Lowerer`).

Constants fold with C's rules; a constant operand becomes the ISA's immediate where it fits; ``a * b + c``
becomes ``MAD``; conditions become jumping code (``&&``/``||`` short-circuit), values of ``&&``, ``||``
and ``?:`` are computed without branches when their operands cannot fault or write.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from cudac import divide
from cudac.ir import STORES, imm_fits
from cudac.types import INT, MASK, UINT, CType, Int, Ptr, Val, arith, fold

SREGS = {"threadIdx": "tid", "blockDim": "ntid", "blockIdx": "ctaid", "gridDim": "nctaid"}
REG_OPS = {"+": "ADD", "-": "SUB", "*": "MUL", "&": "AND", "|": "OR", "^": "XOR", "<<": "SHL"}
COMMUTATIVE = {"+", "*", "&", "|", "^", "==", "!="}
SWAP_CMP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


@dataclass
class Var:
    reg: int
    ctype: CType


@dataclass
class Array:
    """A shared, constant or local array: ``base`` word address (shared/const) or ``regs`` (local)."""

    space: str
    elem: Int
    dims: tuple[int, ...]
    base: int = 0
    regs: list[int] | None = None


@dataclass
class MemRef:
    space: str
    elem: Int
    base: Val
    off: int


@dataclass
class RegRef:
    """A scalar variable or a local array element: assignments write the register."""

    reg: int
    ctype: CType


class ExprMixin:
    # provided by Lowerer
    def err(self, node: c_ast.Node, msg: str) -> Exception: ...  # type: ignore[empty-body]
    def emit(self, op: str, dst=None, srcs=(), imm=None, target=None) -> None: ...  # type: ignore[no-untyped-def]
    def vreg(self) -> int: ...  # type: ignore[empty-body]
    def label(self, hint: str) -> str: ...  # type: ignore[empty-body]
    def place(self, label: str) -> None: ...
    def lookup(self, name: str, node: c_ast.Node) -> Var | Array: ...  # type: ignore[empty-body]
    def sreg(self, name: str) -> int: ...  # type: ignore[empty-body]
    def call(self, node: c_ast.FuncCall, want_value: bool) -> Val | None: ...
    def open_cond_region(self, node: c_ast.Node) -> str | None: ...
    def close_cond_region(self, join: str | None) -> None: ...

    # -- values -------------------------------------------------------------------------------
    def reg_of(self, v: Val) -> int:
        """A register holding ``v`` (constants materialised with LI)."""
        if v.reg is not None:
            return v.reg
        r = self.vreg()
        self.emit("LI", r, imm=v.signed_const())
        return r

    def const(self, value: int, ctype: CType = INT) -> Val:
        return Val(ctype, const=value & MASK)

    def rv(self, e: c_ast.Node) -> Val:  # noqa: C901, PLR0911, PLR0912
        """The value of expression ``e``."""
        if isinstance(e, c_ast.Constant):
            return self.constant(e)
        if isinstance(e, c_ast.ID):
            sym = self.lookup(e.name, e)
            if isinstance(sym, Array):
                if sym.space == "local":
                    raise self.err(e, f"local array '{e.name}' used as a value; index it with a constant")
                return Val(Ptr(sym.elem, sym.space), const=sym.base)
            return Val(sym.ctype, reg=sym.reg)
        if isinstance(e, c_ast.StructRef):
            return self.builtin(e)
        if isinstance(e, c_ast.Cast):
            return self.cast(e)
        if isinstance(e, c_ast.UnaryOp):
            return self.unary(e)
        if isinstance(e, c_ast.BinaryOp):
            if e.op in ("&&", "||"):
                return self.logical(e)
            if e.op == "+" and self._mad_shape(e):
                return self.mad(e)
            a = self.rv(e.left)
            b = self.rv(e.right)
            return self.binop(e.op, a, b, e)
        if isinstance(e, (c_ast.ArrayRef,)):
            return self.load(self.mem_ref(e))
        if isinstance(e, c_ast.Assignment):
            return self.assign(e)
        if isinstance(e, c_ast.TernaryOp):
            return self.ternary(e)
        if isinstance(e, c_ast.ExprList):
            v = None
            for x in e.exprs:
                v = self.rv(x)
            assert v is not None
            return v
        if isinstance(e, c_ast.FuncCall):
            v = self.call(e, want_value=True)
            assert v is not None
            return v
        raise self.err(e, f"{type(e).__name__} expressions are not supported")

    def constant(self, e: c_ast.Constant) -> Val:
        text = e.value
        if e.type in ("float", "double") or (e.type == "int" and "." in text):
            raise self.err(
                e, f"floating point ({text}) is not supported: the GPU computes on 32-bit integers"
            )
        if e.type == "char":
            body = text[1:-1]
            esc = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34}
            if len(body) == 1:
                return self.const(ord(body))
            if body.startswith("\\") and body[1:] in esc:
                return self.const(esc[body[1:]])
            raise self.err(e, f"character constant {text} is not supported")
        if e.type == "string":
            raise self.err(e, "string literals are not supported")
        low = text.lower()
        suffix = low.rstrip("ul")
        tail = low[len(suffix) :]
        if "l" in tail:
            raise self.err(
                e, f"'{text}': long constants are not supported (int and unsigned are 32 bits); drop the L"
            )
        try:
            value = (
                int(suffix, 0) if not (suffix.startswith("0") and suffix[1:].isdigit()) else int(suffix, 8)
            )
        except ValueError:
            raise self.err(e, f"bad integer constant '{text}'") from None
        unsigned = "u" in tail
        if value > MASK:
            raise self.err(e, f"constant {text} does not fit 32 bits")
        if not unsigned and value > 0x7FFFFFFF:
            if suffix.startswith("0"):  # hex/octal: C makes it unsigned int
                unsigned = True
            else:
                raise self.err(e, f"constant {text} does not fit int; write {text}u for an unsigned constant")
        return self.const(value, UINT if unsigned else INT)

    def builtin(self, e: c_ast.StructRef) -> Val:
        if not (isinstance(e.name, c_ast.ID) and e.name.name in SREGS):
            raise self.err(
                e, "structures are not supported (only threadIdx, blockIdx, blockDim, gridDim have fields)"
            )
        field = e.field.name
        if e.type != "." or field not in ("x", "y", "z"):
            raise self.err(e.field, f"{e.name.name} has fields .x, .y and .z")
        return Val(UINT, reg=self.sreg(f"{SREGS[e.name.name]}.{field}"))

    def cast(self, e: c_ast.Cast) -> Val:
        t = self.type_name(e.to_type)
        v = self.rv(e.expr)
        if isinstance(t, Ptr) or isinstance(v.ctype, Ptr):
            raise self.err(e, "casts to or from pointers are not supported")
        return Val(t, reg=v.reg, const=v.const)

    # -- unary ----------------------------------------------------------------------------------
    def unary(self, e: c_ast.UnaryOp) -> Val:  # noqa: PLR0911
        op = e.op
        if op in ("++", "--", "p++", "p--"):
            return self.incdec(e)
        if op == "*":
            return self.load(self.mem_ref(e))
        if op == "&":
            if isinstance(e.expr, c_ast.ArrayRef):
                ref = self.mem_ref(e.expr)
                if ref.space == "local":
                    raise self.err(e, "taking the address of a local array element is not supported")
                return self.add_off(ref.base, ref.off, Ptr(ref.elem, ref.space))
            raise self.err(
                e, "taking the address of a variable is not supported; use an array element (&a[i])"
            )
        if op == "sizeof":
            raise self.err(e, "sizeof is not supported: every int and unsigned is one 32-bit word")
        v = self.rv(e.expr)
        if isinstance(v.ctype, Ptr):
            raise self.err(e, f"unary '{op}' on a pointer")
        if op == "+":
            return v
        if op == "-":
            return self.binop("-", self.const(0, v.ctype), v, e)
        if op == "~":
            if v.is_const:
                return self.const(~v.const, v.ctype)
            r = self.vreg()
            self.emit("NOT", r, (v.reg,))
            return Val(v.ctype, reg=r)
        if op == "!":
            return self.binop("==", v, self.const(0, v.ctype), e)
        raise self.err(e, f"unary '{op}' is not supported")

    def add_off(self, base: Val, off: int, ctype: CType) -> Val:
        if off == 0:
            return Val(ctype, reg=base.reg, const=base.const)
        if base.is_const:
            return Val(ctype, const=(base.const + off) & MASK)
        r = self.vreg()
        self.emit_ri("ADD", r, base.reg, off)
        return Val(ctype, reg=r)

    # -- binary ---------------------------------------------------------------------------------
    def binop(self, op: str, a: Val, b: Val, e: c_ast.Node) -> Val:  # noqa: C901, PLR0911, PLR0912
        pa, pb = isinstance(a.ctype, Ptr), isinstance(b.ctype, Ptr)
        if pa or pb:
            return self.ptr_binop(op, a, b, e)
        if op in ("<<", ">>"):
            t = a.ctype
        else:
            t = arith(a.ctype, b.ctype)
        assert isinstance(t, Int)
        if a.is_const and b.is_const:
            r = fold(op, a.const, b.const, t)
            if r is None:
                raise self.err(e, f"constant expression {op} divides by zero")
            return self.const(r, INT if op in SWAP_CMP else t)
        if op in SWAP_CMP:
            v, neg = self.compare(op, a, b, t)
            if neg:
                r = self.vreg()
                self.emit("XORI", r, (v,), imm=1)
                v = r
            return Val(INT, reg=v)
        if op in ("/", "%"):
            return self.divmod(op, a, b, t, e)
        if a.is_const and op in COMMUTATIVE:
            a, b = b, a
        dst = self.vreg()
        if b.is_const:
            c = b.const
            sc = b.signed_const()
            if op == "*":
                if c == 0:
                    return self.const(0, t)
                if c == 1:
                    return Val(t, reg=a.reg)
                if c & (c - 1) == 0:
                    self.emit("SHLI", dst, (a.reg,), imm=c.bit_length() - 1)
                    return Val(t, reg=dst)
            if op in ("<<", ">>"):
                opi = "SHLI" if op == "<<" else ("SRAI" if t.signed else "SHRI")
                self.emit(opi, dst, (a.reg,), imm=min(c, 32))
                return Val(t, reg=dst)
            if op == "+" and c == 0 or op == "-" and c == 0 or op in ("|", "^") and c == 0:
                return Val(t, reg=a.reg)
            ri = {"+": "ADD", "-": "SUB", "*": "MUL", "&": "AND", "|": "OR", "^": "XOR"}[op]
            self.emit_ri(ri, dst, a.reg, sc if ri in ("ADD", "SUB", "MUL") else c)
            return Val(t, reg=dst)
        if op == ">>":
            self.emit("SRA" if t.signed else "SHR", dst, (self.reg_of(a), b.reg))
            return Val(t, reg=dst)
        if op not in REG_OPS:
            raise self.err(e, f"operator '{op}' is not supported")
        self.emit(REG_OPS[op], dst, (self.reg_of(a), self.reg_of(b)))
        return Val(t, reg=dst)

    def emit_ri(self, op: str, dst: int, a: int, c: int) -> None:
        """``dst = a op c`` using the immediate form when ``c`` fits (else LI and the register form)."""
        c_signed = c - (1 << 32) if c & 0x80000000 and c > 0 else c
        if op == "ADD" and not imm_fits("ADDI", c_signed) and imm_fits("SUBI", -c_signed):
            op, c_signed = "SUB", -c_signed
        elif op == "SUB" and not imm_fits("SUBI", c_signed) and imm_fits("ADDI", -c_signed):
            op, c_signed = "ADD", -c_signed
        opi = op + "I"
        value = c & MASK if opi in ("ANDI", "ORI", "XORI") else c_signed
        if imm_fits(opi, value):
            self.emit(opi, dst, (a,), imm=value)
            return
        r = self.vreg()
        self.emit("LI", r, imm=c_signed)
        self.emit(op, dst, (a, r))

    def compare(self, op: str, a: Val, b: Val, t: Int, branch: bool = False) -> tuple[int, bool]:
        """A register holding the compare's result, or its negation (then the flag is True)."""
        u = "" if t.signed and getattr(self, "fault", "") != "cmp-unsigned" else "U"  # (a planted fault)
        if a.is_const:
            a, b, op = b, a, SWAP_CMP[op]
        if b.is_const:
            c = b.signed_const() if t.signed else b.const
            lo, hi = (-(1 << 31), (1 << 31) - 1) if t.signed else (0, MASK)
            # a <= c is a < c + 1; a >= c is a > c - 1 (when c + 1 / c - 1 stay in the type's range)
            if op == "<=" and c < hi:
                op, c = "<", c + 1
            elif op == ">=" and c > lo:
                op, c = ">", c - 1
            r = self.vreg()
            if op in ("==", "!="):
                if c == 0 and branch:  # a branch tests the register itself
                    return a.reg, op == "=="
                self.emit_cmp_i("SEQ" if op == "==" else "SNE", r, a.reg, c)
                return r, False
            if op in ("<", ">"):
                self.emit_cmp_i(("SLT" if op == "<" else "SGT") + u, r, a.reg, c)
                return r, False
            # <= hi or >= lo: always true
            self.emit("LI", r, imm=1)
            return r, False
        r = self.vreg()
        ra, rb = a.reg, b.reg
        if op in ("==", "!="):
            self.emit("SEQ" if op == "==" else "SNE", r, (ra, rb))
            return r, False
        base = {"<": ("SLT", False), ">": ("SGT", False), "<=": ("SGT", True), ">=": ("SLT", True)}[op]
        self.emit(base[0] + u, r, (ra, rb))
        return r, base[1]

    def emit_cmp_i(self, op: str, dst: int, a: int, c: int) -> None:
        v = c & MASK
        sv = v - (1 << 32) if v & 0x80000000 else v
        if imm_fits(op + "I", sv):
            self.emit(op + "I", dst, (a,), imm=sv)
        else:
            r = self.vreg()
            self.emit("LI", r, imm=sv)
            self.emit(op, dst, (a, r))

    def ptr_binop(self, op: str, a: Val, b: Val, e: c_ast.Node) -> Val:
        pa, pb = isinstance(a.ctype, Ptr), isinstance(b.ctype, Ptr)
        if op == "+" and pa != pb:
            p, i = (a, b) if pa else (b, a)
            return self.binop_raw("+", p, i, p.ctype)
        if op == "-" and pa and not pb:
            return self.binop_raw("-", a, b, a.ctype)
        if op == "-" and pa and pb:
            return self.binop_raw("-", a, b, INT)
        if op in SWAP_CMP and pa and pb:  # word addresses are < 2^30: signed compares are exact, and a
            # pointer computed a little before an array (p - 127) still compares below it
            return self.binop(op, Val(INT, a.reg, a.const), Val(INT, b.reg, b.const), e)
        raise self.err(e, f"operator '{op}' on a pointer is not supported")

    def binop_raw(self, op: str, a: Val, b: Val, t: CType) -> Val:
        v = self.binop(op, Val(UINT, a.reg, a.const), Val(UINT, b.reg, b.const), c_ast.Constant("int", "0"))
        return Val(t, reg=v.reg, const=v.const)

    def _mad_shape(self, e: c_ast.BinaryOp) -> bool:
        return any(isinstance(x, c_ast.BinaryOp) and x.op == "*" for x in (e.left, e.right))

    def mad(self, e: c_ast.BinaryOp) -> Val:
        """``a * b + c`` as one MAD when a, b are registers (else the plain instructions)."""
        if isinstance(e.left, c_ast.BinaryOp) and e.left.op == "*":
            a, b = self.rv(e.left.left), self.rv(e.left.right)
            return self.mad_vals(a, b, self.rv(e.right), e)
        c = self.rv(e.left)
        assert isinstance(e.right, c_ast.BinaryOp)
        return self.mad_vals(self.rv(e.right.left), self.rv(e.right.right), c, e)

    def mad_vals(self, a: Val, b: Val, c: Val, e: c_ast.Node) -> Val:
        if any(isinstance(v.ctype, Ptr) for v in (a, b)) or a.is_const or b.is_const or c.is_const:
            return self.binop("+", self.binop("*", a, b, e), c, e)
        t = arith(arith(a.ctype, b.ctype), c.ctype) if isinstance(c.ctype, Int) else c.ctype
        r = self.vreg()
        self.emit("MAD", r, (a.reg, b.reg, c.reg))
        return Val(t, reg=r)

    # -- division -----------------------------------------------------------------------------
    def divmod(self, op: str, a: Val, b: Val, t: Int, e: c_ast.Node) -> Val:
        if b.is_const:
            d = b.signed_const() if t.signed else b.const
            if d == 0:
                raise self.err(e, "division by zero")
            q = self.div_const(self.reg_of(a), d, t)
        else:
            q, r = self.div_var(self.reg_of(a), b.reg, t)
            return Val(t, reg=q if op == "/" else r)
        if op == "/":
            return Val(t, reg=q)
        # x % d = x - q * d
        m = self.vreg()
        self.emit_ri("MUL", m, q, b.const)
        r = self.vreg()
        self.emit("SUB", r, (a.reg if a.reg is not None else self.reg_of(a), m))
        return Val(t, reg=r)

    def div_const(self, x: int, d: int, t: Int) -> int:
        if not t.signed:
            return self.udiv_const(x, d)
        ad = abs(d)
        if ad == 1:
            if d > 0:
                return x
            r = self.vreg()
            self.emit("MULI", r, (x,), imm=-1)
            return r
        s = self.vreg()
        self.emit("SRAI", s, (x,), imm=31)
        if ad & (ad - 1) == 0 and d > 0:  # (x + (x < 0 ? d - 1 : 0)) >> k
            k = ad.bit_length() - 1
            bias, tmp, q = self.vreg(), self.vreg(), self.vreg()
            self.emit("SHRI", bias, (s,), imm=32 - k)
            self.emit("ADD", tmp, (x, bias))
            self.emit("SRAI", q, (tmp,), imm=k)
            return q
        ax1, ax = self.vreg(), self.vreg()
        self.emit("XOR", ax1, (x, s))
        self.emit("SUB", ax, (ax1, s))
        uq = self.udiv_const(ax, ad)
        sign = s
        if d < 0:
            sign = self.vreg()
            self.emit("NOT", sign, (s,))
        q1, q = self.vreg(), self.vreg()
        self.emit("XOR", q1, (uq, sign))
        self.emit("SUB", q, (q1, sign))
        return q

    def udiv_const(self, x: int, d: int) -> int:
        q = self.vreg()
        if d == 1:
            return x
        if d & (d - 1) == 0:
            self.emit("SHRI", q, (x,), imm=d.bit_length() - 1)
            return q
        if d > 0x7FFFFFFF:  # quotient is 0 or 1
            self.emit_cmp_i("SGTU", q, x, d - 1)
            return q
        m, p = divide.magic(d)
        t = self.vreg()
        if m < 1 << 32:
            self.emit_mulhu(t, x, m)
            if p == 32:
                return t
            self.emit("SHRI", q, (t,), imm=p - 32)
            return q
        self.emit_mulhu(t, x, m - (1 << 32))
        d1, d2, d3 = self.vreg(), self.vreg(), self.vreg()
        self.emit("SUB", d1, (x, t))
        self.emit("SHRI", d2, (d1,), imm=1)
        self.emit("ADD", d3, (d2, t))
        self.emit("SHRI", q, (d3,), imm=p - 33)
        return q

    def emit_mulhu(self, dst: int, x: int, m: int) -> None:
        sm = m - (1 << 32) if m & 0x80000000 else m
        if imm_fits("MULHUI", sm) and sm >= 0:
            self.emit("MULHUI", dst, (x,), imm=sm)
        else:
            r = self.vreg()
            self.emit("LI", r, imm=sm)
            self.emit("MULHU", dst, (x, r))

    def div_var(self, x: int, d: int, t: Int) -> tuple[int, int]:
        """Quotient and remainder by a register: a 32-step shift-subtract loop (uniform: no divergence)."""
        if t.signed:
            sx, sd, ax, ad, t1, t2 = (self.vreg() for _ in range(6))
            self.emit("SRAI", sx, (x,), imm=31)
            self.emit("SRAI", sd, (d,), imm=31)
            self.emit("XOR", t1, (x, sx))
            self.emit("SUB", ax, (t1, sx))
            self.emit("XOR", t2, (d, sd))
            self.emit("SUB", ad, (t2, sd))
            uq, ur = self.udiv_var(ax, ad)
            sq, q1, q, r1, r = (self.vreg() for _ in range(5))
            self.emit("XOR", sq, (sx, sd))
            self.emit("XOR", q1, (uq, sq))
            self.emit("SUB", q, (q1, sq))
            self.emit("XOR", r1, (ur, sx))
            self.emit("SUB", r, (r1, sx))
            return q, r
        return self.udiv_var(x, d)

    def udiv_var(self, x0: int, d: int) -> tuple[int, int]:
        x, q, i = self.vreg(), self.vreg(), self.vreg()
        self.emit("MV", x, (x0,))
        self.emit("LI", q, imm=0)
        self.emit("LI", i, imm=31)
        top = self.label("div")
        self.place(top)
        t, g, m, s, s2, g2, c = (self.vreg() for _ in range(7))
        self.emit("SHR", t, (x, i))  # x >> i >= d: subtract d << i, set quotient bit i
        self.emit("SLTU", g, (t, d))
        self.emit("XORI", g, (g,), imm=1)
        self.emit("MULI", m, (g,), imm=-1)
        self.emit("SHL", s, (d, i))
        self.emit("AND", s2, (s, m))
        self.emit("SUB", x, (x, s2))
        self.emit("SHL", g2, (g, i))
        self.emit("OR", q, (q, g2))
        self.emit("SUBI", i, (i,), imm=1)
        self.emit("SGTI", c, (i,), imm=-1)
        self.emit("BNE", None, (c,), target=top)
        return q, x

    # -- memory ---------------------------------------------------------------------------------
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
                if reg is None:
                    reg = term
                elif term is v and reg is not None and False:
                    pass
                else:
                    reg = self.binop("+", reg, term, e)
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
        assert any(op == ("STG" if ref.space == "global" else "ST") for op in STORES)
        self.emit("STG" if ref.space == "global" else "ST", None, (base, self.reg_of(value)), imm=off)
