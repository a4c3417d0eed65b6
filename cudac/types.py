"""The compiler's types and values: 32-bit ``int``/``unsigned``, pointers into a memory space, arrays."""

from __future__ import annotations

from dataclasses import dataclass

MASK = 0xFFFFFFFF


@dataclass(frozen=True)
class Int:
    """``int`` (signed) or ``unsigned``: 32 bits, wrapping like the GPU."""

    signed: bool

    def __str__(self) -> str:
        return "int" if self.signed else "unsigned"


INT = Int(True)
UINT = Int(False)


@dataclass(frozen=True)
class Ptr:
    """A pointer to 32-bit words in ``space`` (global, shared or const); word-addressed."""

    elem: Int
    space: str

    def __str__(self) -> str:
        return f"{self.elem} * ({self.space})"


CType = Int | Ptr


@dataclass
class Val:
    """An rvalue: a virtual register, or a constant (folded, emitted only where an operand needs it)."""

    ctype: CType
    reg: int | None = None
    const: int | None = None

    @property
    def is_const(self) -> bool:
        return self.const is not None

    def signed_const(self) -> int:
        assert self.const is not None
        c = self.const & MASK
        return c - (1 << 32) if c & 0x80000000 else c


def arith(a: CType, b: CType) -> Int:
    """C's usual arithmetic conversions for two 32-bit operands: unsigned wins."""
    assert isinstance(a, Int) and isinstance(b, Int)
    return INT if a.signed and b.signed else UINT


def to_signed(x: int) -> int:
    x &= MASK
    return x - (1 << 32) if x & 0x80000000 else x


def fold(op: str, a: int, b: int, t: Int) -> int | None:
    """C's result of ``a op b`` for operands of type ``t`` (None: not a constant, e.g. division by 0)."""
    a &= MASK
    b &= MASK
    sa, sb = (to_signed(a), to_signed(b)) if t.signed else (a, b)
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op in ("/", "%"):
        if b == 0:
            return None
        q = abs(sa) // abs(sb)
        if (sa < 0) != (sb < 0):
            q = -q
        r = q if op == "/" else sa - q * sb
    elif op == "&":
        r = a & b
    elif op == "|":
        r = a | b
    elif op == "^":
        r = a ^ b
    elif op == "<<":
        r = a << b if b < 32 else 0
    elif op == ">>":
        r = (sa >> b if b < 32 else (-1 if sa < 0 else 0)) if t.signed else (a >> b if b < 32 else 0)
    elif op in ("<", ">", "<=", ">=", "==", "!="):
        r = int({"<": sa < sb, ">": sa > sb, "<=": sa <= sb, ">=": sa >= sb, "==": a == b, "!=": a != b}[op])
    else:
        return None
    return r & MASK


# -- symbols: what a name or an lvalue stands for ------------------------------------------------
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
