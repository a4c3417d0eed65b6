"""Division by a constant through a high multiply (MULHU), and the magic numbers it needs.

For an unsigned divisor ``d`` (not a power of two) :func:`magic` finds ``m = ceil(2^p / d)`` with
``m·d − 2^p ≤ 2^(p−32)``, which makes ``floor(x·m / 2^p) = floor(x / d)`` for every 32-bit ``x``
(Granlund & Montgomery 1994, "Division by invariant integers using multiplication", Theorem 4.2).
When ``m`` needs 33 bits the quotient is ``((x − t) >> 1) + t) >> (p − 33)`` with ``t = MULHU(x, m − 2^32)``.
Signed division divides the magnitudes and restores the sign (C truncates toward zero).

:class:`DivMixin` (a part of :class:`cudac.lower.Lowerer`) emits ``/`` and ``%``: by a constant through
:func:`magic`, by a register through an inline 32-step shift-subtract loop.
"""

from __future__ import annotations

from pycparser import c_ast

from cudac.base import LowerBase
from cudac.ir import imm_fits
from cudac.types import Int, Val


def magic(d: int) -> tuple[int, int]:
    """(m, p) for 2 <= d < 2^32, d not a power of two: floor(x / d) = (x * m) >> p for x < 2^32."""
    for p in range(32, 65):
        m = -(-(1 << p) // d)
        if m * d - (1 << p) <= 1 << (p - 32):
            return m, p
    raise AssertionError(f"no magic number for {d}")  # unreachable: p = 32 + ceil(log2 d) always works


def udiv_by_magic(x: int, d: int) -> int:
    """The instruction sequence's result, in Python (the unit tests compare it with x // d)."""
    m, p = magic(d)
    if m < 1 << 32:
        return (x * m >> 32) >> (p - 32)
    t = x * (m - (1 << 32)) >> 32
    return (((x - t) >> 1) + t) >> (p - 33)


class DivMixin(LowerBase):
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
        m, p = magic(d)
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
