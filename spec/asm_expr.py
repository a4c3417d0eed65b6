"""The assembler's expressions: trees (Num, Sym, Unary, Binary, Call) and their parser, with the
nesting and size limits that turn a pathological expression into a located error, not a crash.

Part of the assembler (spec/asm.py), which evaluates the trees (labels, .equ symbols).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .asm_lex import Tok, _Err

FUNCTIONS: dict[str, Callable[[int], int]] = {
    "hi": lambda x: (x >> 16) & 0xFFFF,
    "lo": lambda x: x & 0xFFFF,
}


# ---------------------------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Num:
    value: int
    col: int


@dataclass(frozen=True)
class Sym:
    name: str
    col: int


@dataclass(frozen=True)
class Unary:
    op: str
    arg: Expr
    col: int


@dataclass(frozen=True)
class Binary:
    op: str
    left: Expr
    right: Expr
    col: int  # start of the left operand
    op_col: int


@dataclass(frozen=True)
class Call:
    name: str
    arg: Expr
    col: int


Expr = Num | Sym | Unary | Binary | Call

# Binary operators by C precedence, loosest first.
_LEVELS = (("|",), ("^",), ("&",), ("<<", ">>"), ("+", "-"), ("*", "/", "%"))


def _symbols_in(e: Expr) -> list[Sym]:
    if isinstance(e, Sym):
        return [e]
    if isinstance(e, (Unary, Call)):
        return _symbols_in(e.arg)
    if isinstance(e, Binary):
        return _symbols_in(e.left) + _symbols_in(e.right)
    return []


# Limits that keep parsing and evaluation far from Python's recursion limit (docs/assembler.md).
MAX_NESTING = 32  # parentheses, unary operators and hi()/lo() nested in one expression
MAX_OPERATORS = 256  # binary operators in one expression


class _Parser:
    """Recursive descent over one operand's tokens."""

    def __init__(self, toks: list[Tok], end_col: int) -> None:
        self.toks, self.i, self.end_col = toks, 0, end_col
        self.depth = self.operators = 0

    def nest(self, t: Tok) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Err(
                t.col,
                f"expression nested more than {MAX_NESTING} levels deep (parentheses, unary "
                "operators, hi/lo); split it into .equ steps",
            )

    def peek(self) -> Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def peek_op(self, *ops: str) -> Tok | None:
        t = self.peek()
        return t if t is not None and t.kind == "op" and t.text in ops else None

    def expr(self, level: int = 0) -> Expr:
        if level == len(_LEVELS):
            return self.unary()
        left = self.expr(level + 1)
        while t := self.peek_op(*_LEVELS[level]):
            self.i += 1
            self.operators += 1
            if self.operators > MAX_OPERATORS:
                raise _Err(
                    t.col, f"expression with more than {MAX_OPERATORS} operators; split it into .equ steps"
                )
            left = Binary(t.text, left, self.expr(level + 1), left.col, t.col)
        return left

    def unary(self) -> Expr:
        if t := self.peek_op("-", "+", "~"):
            self.i += 1
            self.nest(t)
            e = Unary(t.text, self.unary(), t.col)
            self.depth -= 1
            return e
        return self.primary()

    def primary(self) -> Expr:
        t = self.peek()
        if t is None:
            raise _Err(self.end_col, "missing value: expected a number, a symbol or '('")
        self.i += 1
        if t.kind == "num":
            return Num(t.value, t.col)
        if t.kind == "id":
            if self.peek_op("("):
                if t.text.lower() not in FUNCTIONS:
                    raise _Err(t.col, f"unknown function '{t.text}': the functions are hi(x) and lo(x)")
                self.i += 1
                self.nest(t)
                arg = self.expr()
                self.close(t)
                self.depth -= 1
                return Call(t.text.lower(), arg, t.col)
            return Sym(t.text, t.col)
        if t.text == "(":
            self.nest(t)
            e = self.expr()
            self.close(t)
            self.depth -= 1
            return e
        if t.text == "%":
            raise _Err(t.col, "special registers are read only with LDS, e.g. LDS r1, %tid.x")
        raise _Err(t.col, f"expected a value, found '{t.text}'")

    def close(self, opener: Tok) -> None:
        if not self.peek_op(")"):
            t = self.peek()
            raise _Err(t.col if t else self.end_col, f"missing ')' for the '(' at column {opener.col}")
        self.i += 1


def parse_expr(toks: list[Tok], end_col: int) -> Expr:
    p = _Parser(toks, end_col)
    e = p.expr()
    if (t := p.peek()) is not None:
        raise _Err(t.col, f"unexpected '{t.text}' after the expression")
    return e


def parse_list(toks: list[Tok], end_col: int, commas: bool) -> list[Expr]:
    """Expressions separated by commas (or, unless ``commas``, by spaces too)."""
    if not commas and not any(t.text == "," for t in toks):
        for prev, t, nxt in zip(toks, toks[1:], toks[2:]):
            if t.kind == "op" and t.text in "+-" and prev.end < t.col and nxt.col == t.end:
                raise _Err(
                    t.col,
                    f"ambiguous '{t.text}{nxt.text}': with spaces between values it would be read "
                    f"as '{prev.text} {t.text} {nxt.text}'; separate the values with ',' or write "
                    f"'{t.text} {nxt.text}'",
                )
    p = _Parser(toks, end_col)
    out = [p.expr()]
    while (t := p.peek()) is not None:
        if t.kind == "op" and t.text == ",":
            p.i += 1
        elif commas:
            raise _Err(t.col, f"expected ',' between values, found '{t.text}'")
        out.append(p.expr())
    return out


_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
    "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y,
    "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
}  # fmt: skip


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q
