"""Expression lowering: C expressions and assignments to IR over virtual registers (a mixin of
:class:`cudac.lower.Lowerer`).

Constants fold with C's rules; a constant operand becomes the ISA's immediate where it fits; ``a * b + c``
becomes ``MAD``; compares become ``SLT``/``SGT``/``SEQ``/``SNE`` (a flipped sense instead of a negation
where the user is a branch). ``&&``, ``||`` and ``?:`` are cudac/control.py's, ``/`` and ``%``
cudac/divide.py's, subscripts, loads and stores cudac/memory.py's.
"""

from __future__ import annotations

from pycparser import c_ast

from cudac.base import LowerBase
from cudac.ir import imm_fits
from cudac.types import INT, MASK, UINT, Array, CType, Int, MemRef, Ptr, RegRef, Val, arith, fold

SREGS = {"threadIdx": "tid", "blockDim": "ntid", "blockIdx": "ctaid", "gridDim": "nctaid"}
REG_OPS = {"+": "ADD", "-": "SUB", "*": "MUL", "&": "AND", "|": "OR", "^": "XOR", "<<": "SHL"}
COMMUTATIVE = {"+", "*", "&", "|", "^", "==", "!="}
SWAP_CMP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


class ExprMixin(LowerBase):
    # -- values ---------------------------------------------------------------------------------
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
