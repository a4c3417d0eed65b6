"""The mutation operators and the mutants of rtl/sm/*.v and rtl/top/*.v.

Every mutant is one splice of one file: ``text[start:end]`` replaced by ``replacement``. Its id is
derived from the source alone, ``<file>:<line>:<col>:<operator>:<detail>``, e.g.
``simt_sm.v:123:17:op-swap:==→!=``: the same sources always give the same mutants in the same order,
so a report, a seeded sample and the equivalence list (docs/mutants-equivalent.toml) can name one.

Operators (docs/verification.md "Mutation testing"):

==============  =====================================================================================
``op-swap``     a binary operator replaced: + -, == !=, < <=, > >=, && ||, & |, ^ → |, << >>, >>> → >>
``cond-invert``  ``if (c)`` → ``if (!(c))``; ``c ? a : b`` → ``!(c) ? a : b``
``arm-swap``    ``c ? a : b`` → ``c ? b : a``
``const``       a number in an expression ±1 (``1'b1`` → ``1'b0``, ``3'd4`` → ``3'd5`` and ``3'd3``)
``stuck-bit``   an assignment to a ``*mask*`` signal gets bit 0 stuck at 1 (``| 1'b1``) or 0 (``& ~1'b1``)
==============  =====================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from tools.mutants.lexer import Source

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"
FOLDERS = ("sm", "top")  # rtl/include holds macros and checks only

OPERATORS = ("op-swap", "cond-invert", "arm-swap", "const", "stuck-bit")
SWAPS: dict[str, tuple[str, ...]] = {
    "+": ("-",), "-": ("+",), "==": ("!=",), "!=": ("==",), "===": ("!==",), "!==": ("===",),
    "<": ("<=",), "<=": ("<",), ">": (">=",), ">=": (">",), "&&": ("||",), "||": ("&&",),
    "&": ("|",), "|": ("&",), "^": ("|",), "<<": (">>",), ">>": ("<<",), ">>>": (">>",),
}  # fmt: skip
_BASED = re.compile(r"^(?P<size>\d[\d_]*)?'(?P<signed>[sS]?)(?P<base>[bBoOdDhH])(?P<digits>[0-9a-fA-F_]+)$")
_RADIX = {"b": 2, "o": 8, "d": 10, "h": 16}


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str  # relative to rtl/, e.g. "sm/simt_sm.v"
    line: int
    col: int
    operator: str
    detail: str
    start: int  # the replaced text: [start, end) of the file
    end: int
    replacement: str

    def apply(self, text: str) -> str:
        return text[: self.start] + self.replacement + text[self.end :]

    def lines(self, text: str) -> tuple[str, str]:
        """The source line(s) holding the mutation, before and after (stripped)."""
        first = text.rfind("\n", 0, self.start) + 1
        last = text.find("\n", self.end)
        last = len(text) if last < 0 else last
        before = text[first:last]
        after = before[: self.start - first] + self.replacement + before[self.end - first :]
        return " ".join(before.split()), " ".join(after.split())

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _operand_end(src: Source, i: int) -> bool:
    """Can code token ``i`` end an operand (so that the operator after it is binary)?"""
    if i < 0:
        return False
    t = src.code[i]
    return t.kind in ("ident", "number", "directive", "string") or (
        t.kind == "op" and t.text in (")", "]", "}")
    )


def _constants(text: str) -> Iterator[tuple[str, str]]:
    """(detail, new text) for a number ±1, keeping its size and base; nothing for x/z or reals."""
    m = _BASED.match(text)
    if m is None:
        if not re.fullmatch(r"\d[\d_]*", text):
            return
        value = int(text.replace("_", ""))
        for new in (value + 1, value - 1):
            if new >= 0:
                yield f"{text}→{new}", str(new)
        return
    base = m["base"].lower()
    value = int(m["digits"].replace("_", ""), _RADIX[base])
    size = int(m["size"].replace("_", "")) if m["size"] else 32
    prefix = f"{m['size'] or ''}'{m['signed']}{m['base']}"
    for new in (value + 1, value - 1):
        if not 0 <= new < (1 << size):
            continue
        if base == "d":
            digits = str(new)
        else:
            digits = format(new, {"b": "b", "o": "o", "h": "x"}[base])
            width = len(m["digits"].replace("_", ""))
            digits = digits.zfill(width) if len(digits) <= width else digits
            if m["digits"].isupper():
                digits = digits.upper()
        yield f"{text}→{prefix}{digits}", prefix + digits


def _constant_bit0(rhs: str) -> int | None:
    """Bit 0 of a constant right-hand side (``1'b1``, ``{N{1'b0}}``), None if it is not one."""
    m = re.fullmatch(r"\{[^{}]*\{(\d*'[bBdDhH][0-9a-fA-F_]+)\}\}|(\d*'[bBdDhH][0-9a-fA-F_]+)", rhs.strip())
    if m is None:
        return None
    lit = _BASED.match(m.group(1) or m.group(2))
    return int(lit["digits"].replace("_", ""), _RADIX[lit["base"].lower()]) & 1 if lit else None


def mutants_of(name: str, text: str) -> list[Mutant]:
    """Every mutant of one file (``name`` relative to rtl/), in source order."""
    src = Source(text)
    code, out = src.code, []
    base = Path(name).name

    def add(anchor: int, operator: str, detail: str, first: int, last: int, replacement: str) -> None:
        t = code[anchor]
        out.append(
            Mutant(
                f"{base}:{t.line}:{t.col}:{operator}:{detail}",
                name,
                t.line,
                t.col,
                operator,
                detail,
                code[first].start,
                code[last].end,
                replacement,
            )
        )

    def span(first: int, last: int) -> str:
        return text[code[first].start : code[last].end]

    def movable(anchor: int, first: int, last: int) -> bool:
        return src.mutable[anchor] and first <= last and all(src.movable[first : last + 1])

    for i, t in enumerate(code):
        if not src.mutable[i]:
            continue
        if t.kind == "op" and t.text in SWAPS and _operand_end(src, i - 1):
            if t.text == "<=" and i in src.assign_le:
                continue  # a non-blocking assignment, not a comparison
            for new in SWAPS[t.text]:
                add(i, "op-swap", f"{t.text}→{new}", i, i, new)
        elif t.kind == "number":
            for detail, new in _constants(t.text):
                add(i, "const", detail, i, i, new)

    for if_tok, lp, rp in src.ifs:
        if movable(if_tok, lp, rp) and rp > lp + 1:
            add(if_tok, "cond-invert", "if", lp + 1, rp - 1, f"!({span(lp + 1, rp - 1)})")

    for tern in src.ternaries:
        (c0, c1), q, (a0, a1), (b0, b1) = tern.cond, tern.qmark, tern.true_arm, tern.false_arm
        if not movable(q, c0, b1) or c0 > c1 or a0 > a1 or b0 > b1:
            continue
        add(q, "cond-invert", "?", c0, c1, f"!({span(c0, c1)})")
        true_text, false_text = span(a0, a1), span(b0, b1)
        # A true arm may hold an unbracketed ?: of its own; bracket it before it moves to the end.
        if any(code[k].text == "?" for k in range(a0, a1 + 1)):
            true_text = f"({true_text})"
        middle = text[code[a1].end : code[b0].start]  # " : "
        add(q, "arm-swap", "?:", a0, b1, false_text + middle + true_text)

    for asg in src.assignments:
        first, last = asg.op + 1, asg.rhs_end
        if "mask" not in code[asg.lhs].text.lower() or not movable(first, first, last):
            continue
        rhs = span(first, last)
        known = _constant_bit0(rhs)  # a constant: only the stuck value that differs from it
        if known != 1:
            add(first, "stuck-bit", "bit0=1", first, last, f"({rhs}) | 1'b1")
        if known != 0:
            add(first, "stuck-bit", "bit0=0", first, last, f"({rhs}) & ~1'b1")

    out.sort(key=lambda m: (m.line, m.col, OPERATORS.index(m.operator), m.detail))
    return out


# Files left out, with why (none today: the AXI top's files have their own stage, runner.py ``axi``).
NOT_MUTATED: dict[str, str] = {}


def rtl_files(rtl: Path = RTL) -> list[str]:
    """The mutated files, relative to ``rtl``, in a fixed order (all but :data:`NOT_MUTATED`)."""
    return sorted(
        name
        for d in FOLDERS
        for p in (rtl / d).glob("*.v")
        if (name := str(p.relative_to(rtl))) not in NOT_MUTATED
    )


def all_mutants(rtl: Path = RTL, files: Iterable[str] | None = None) -> list[Mutant]:
    """Every mutant of rtl/sm/*.v and rtl/top/*.v (or of ``files``), in a stable order."""
    out: list[Mutant] = []
    for name in files if files is not None else rtl_files(rtl):
        out += mutants_of(name, (rtl / name).read_text())
    return out
