"""Assembler: kernel source text -> LaunchImage (the language is described in docs/assembler.md).

Pass 1 lexes and parses every line, binds labels and sizes every statement; pass 2 evaluates the
operands and encodes through ``isa.encode``. Operand order and kinds come from ``isa.Fmt.syntax``
(via ``disasm.operand_syntax``): this module holds no encoding table. It holds the statements
(directives, instructions, symbols) and the two passes; the lexer and the errors are in
``asm_lex.py``, the expression trees and their parser in ``asm_expr.py``.

CLI: ``python -m spec.asm kernel.s -o kernel.hex [--listing]``.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import cli, isa, reachability
from .asm_expr import (  # noqa: F401 (MAX_NESTING, MAX_OPERATORS: the limits, named here too)
    _BINARY,
    FUNCTIONS,
    MAX_NESTING,
    MAX_OPERATORS,
    Call,
    Expr,
    Num,
    Sym,
    Unary,
    _c_div,
    _symbols_in,
    parse_expr,
    parse_list,
)
from .asm_lex import _REG, AsmError, AsmErrors, Tok, _did_you_mean, _Err, _Unknown, lex
from .config import GpuConfig
from .disasm import IMM, MEM, REG_ITEMS, SREG, disassemble, operand_syntax
from .image import MAX_COUNT, MAX_DIM, LaunchError, LaunchImage
from .image_rules import MAGIC

MAX_ERRORS = 50
WORD_MIN = -(1 << 31)  # values of .word/.param/LI: [-2**31, 2**32), stored modulo 2**32
WORD_LIMIT = 1 << 32

DIRECTIVES = (
    ".text", ".const", ".data", ".word", ".space", ".zero", ".equ", ".alias",
    ".grid", ".block", ".regs", ".shared", ".param", ".illegal",
)  # fmt: skip
LAUNCH_DIRECTIVES = (".grid", ".block", ".regs", ".shared")
PSEUDO = ("LI",)


# ---------------------------------------------------------------------------------------------
# Program
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SourceLine:
    file: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text.strip()}"


@dataclass
class Program:
    image: LaunchImage
    symbols: dict[str, tuple[str, int]]  # name -> (section: "text"/"const"/"data"/"equ", value)
    source: list[SourceLine]  # indexed by pc
    regs_used: frozenset[int]  # register indices the code names
    param_names: dict[str, int] = field(default_factory=dict)  # named .param -> parameter index
    warnings: list[str] = field(default_factory=list)  # "file:line:col: warning: ..." (legal but suspicious)

    def source_of(self, pc: int) -> str:
        """``file:line: text`` of the instruction at ``pc`` (for failure messages)."""
        if 0 <= pc < len(self.source):
            return str(self.source[pc])
        return f"pc {pc} is outside the program (0..{len(self.source) - 1})"

    def text_labels(self) -> dict[int, str]:
        """pc -> the first label defined there."""
        labels: dict[int, str] = {}
        for name, (section, value) in self.symbols.items():
            if section == "text":
                labels.setdefault(value, name)
        return labels

    def listing(self) -> list[str]:
        """``pc: word  disassembly  ; source`` for each instruction."""
        labels = self.text_labels()
        rows = [(pc, w, disassemble(w, labels)) for pc, w in enumerate(self.image.code)]
        width = max((len(d) for _, _, d in rows), default=0) + 2
        return [f"{pc:5d}: {w:08x}  {d:<{width}}; {self.source[pc].text.strip()}" for pc, w, d in rows]


# ---------------------------------------------------------------------------------------------
# Statements gathered by pass 1
# ---------------------------------------------------------------------------------------------
@dataclass
class _Operand:
    toks: list[Tok]
    end_col: int  # column just after the operand (its comma or the end of the line)

    @property
    def col(self) -> int:
        return self.toks[0].col

    @property
    def text(self) -> str:
        return " ".join(t.text for t in self.toks)


@dataclass
class _Instr:
    line: int
    head: Tok
    mnemonic: str  # upper case; "LI" or ".illegal" for the non-ISA forms
    op: isa.Op | None
    operands: list[_Operand]
    pc: int
    size: int
    expr: Expr | None = None  # the value of LI / .illegal
    li_form: str = ""  # "MVI", "LUI" or "PAIR"


@dataclass
class _Symbol:
    name: str
    section: str
    value: int | None
    line: int
    expr: Expr | None = None  # .equ awaiting evaluation


@dataclass
class _Chunk:
    base: int
    words: list[int]
    line: int
    col: int
    ok: bool = True


@dataclass
class _Words:
    line: int
    exprs: list[Expr]
    target: list[int]
    offset: int


@dataclass
class _Directive:
    name: str
    line: int
    col: int
    exprs: list[Expr]


def _split_operands(toks: list[Tok], end_col: int) -> list[_Operand]:
    if not toks:
        return []
    out: list[_Operand] = []
    cur: list[Tok] = []
    depth = 0
    for t in toks:
        if t.kind == "op" and t.text in ("(", "["):
            depth += 1
        elif t.kind == "op" and t.text in (")", "]"):
            depth -= 1
        if t.kind == "op" and t.text == "," and depth <= 0:
            if not cur:
                raise _Err(t.col, "missing operand before ','")
            out.append(_Operand(cur, t.col))
            cur = []
        else:
            cur.append(t)
    if not cur:
        raise _Err(end_col, "missing operand after ','")
    out.append(_Operand(cur, end_col))
    return out


def usage(op: isa.Op) -> str:
    """The operand list for messages, e.g. ``MAD rd, ra, rb, rc``."""
    names = iter(("ra", "rb", "rc"))
    parts = []
    for item in operand_syntax(op):
        if item == "rd":
            parts.append("rd")
        elif item in REG_ITEMS:
            parts.append(next(names))
        elif item == MEM:
            parts.append(f"[{next(names)} + offset]")
        elif item == SREG:
            parts.append("%sreg")
        else:
            parts.append(item)
    return f"{op.mnemonic} {', '.join(parts)}".strip()


def _li_form(value: int) -> str:
    v = value & isa.WORD_MASK
    if -(1 << 15) <= isa.sext(v, 32) < (1 << 15):
        return "MVI"
    return "LUI" if v & 0xFFFF == 0 else "PAIR"


# ---------------------------------------------------------------------------------------------
# The assembler
# ---------------------------------------------------------------------------------------------
class _Assembler:
    def __init__(self, text: str, filename: str) -> None:
        self.file = filename
        self.lines = text.splitlines()
        self.line = 0
        self.errors: list[AsmError] = []
        self.symbols: dict[str, _Symbol] = {}
        self.aliases: dict[str, tuple[int, int]] = {}  # name -> (register, line)
        self.param_exprs: list[tuple[int, Expr]] = []  # (line, value)
        self.param_names: dict[str, int] = {}
        self.launch: dict[str, _Directive] = {}
        self.first_use: dict[str, tuple[int, int]] = {}  # ".const"/".data" -> (line, col)
        self.section = "text"
        self.pc = 0
        self.code: list[_Instr] = []
        self.consts: list[int] = []
        self.chunks: list[_Chunk] = []
        self.word_dirs: list[_Words] = []
        self.reg_uses: list[tuple[int, int, int, str]] = []  # (register, line, col, as written)

    # ---- helpers ------------------------------------------------------------------------------
    def error(self, col: int, message: str, line: int | None = None) -> None:
        self.errors.append(AsmError(self.file, line or self.line or 1, col, message))

    def fail(self, e: _Err) -> None:
        self.error(e.col, e.message, e.line)

    def end_col(self, toks: list[Tok]) -> int:
        return toks[-1].end if toks else 1

    def here(self) -> int:
        if self.section == "text":
            return self.pc
        if self.section == "const":
            return len(self.consts)
        chunk = self.chunks[-1]
        return chunk.base + len(chunk.words)

    def define(self, tok: Tok, section: str, value: int | None, expr: Expr | None = None) -> None:
        name = tok.text
        if _REG.fullmatch(name):
            raise _Err(tok.col, f"'{name}' is a register name; choose another symbol name")
        if name in self.symbols:
            first = self.symbols[name].line
            raise _Err(tok.col, f"duplicate symbol '{name}' (first defined at line {first}); rename one")
        self.symbols[name] = _Symbol(name, section, value, self.line, expr)

    # ---- values -------------------------------------------------------------------------------
    def value(self, e: Expr, final: bool = True) -> int:
        """Evaluate; in pass 1 (not final) an unknown symbol raises _Unknown."""
        if isinstance(e, Num):
            return e.value
        if isinstance(e, Sym):
            return self.symbol_value(e, final)
        if isinstance(e, Unary):
            v = self.value(e.arg, final)
            return -v if e.op == "-" else ~v if e.op == "~" else v
        if isinstance(e, Call):
            return FUNCTIONS[e.name](self.value(e.arg, final))
        a, b = self.value(e.left, final), self.value(e.right, final)
        if e.op in ("/", "%") and b == 0:
            raise _Err(e.op_col, "division by zero")
        if e.op in ("<<", ">>") and not 0 <= b < 64:
            raise _Err(e.op_col, f"shift count {b} out of range 0..63")
        if e.op == "/":
            return _c_div(a, b)
        if e.op == "%":
            return a - b * _c_div(a, b)
        return _BINARY[e.op](a, b)

    def symbol_value(self, s: Sym, final: bool) -> int:
        sym = self.symbols.get(s.name)
        if sym is None:
            if not final:
                raise _Unknown
            if self.register_index(s.name, s.col) is not None:
                raise _Err(s.col, f"register '{s.name}' cannot be used as a value")
            hint = _did_you_mean(s.name, list(self.symbols))
            raise _Err(s.col, f"undefined symbol '{s.name}'{hint or '; define it as a label or with .equ'}")
        if sym.value is None:
            if sym.expr is None:  # being resolved: a cycle
                if not final:
                    raise _Unknown
                raise _Err(s.col, f"circular definition: '{s.name}' depends on itself through this value")
            if final:
                self.resolve_equ(sym)
            else:
                expr, sym.expr = sym.expr, None
                try:
                    sym.value = self.value(expr, final=False)
                except (_Unknown, _Err):
                    raise _Unknown from None
                finally:
                    if sym.value is None:
                        sym.expr = expr
        assert sym.value is not None
        return sym.value

    def resolve_equ(self, sym: _Symbol) -> None:
        """Evaluate a pending .equ; its errors are reported at its own line (value 0 then)."""
        expr, sym.expr = sym.expr, None
        assert expr is not None
        try:
            sym.value = self.value(expr)
        except _Err as e:
            self.error(e.col, e.message, e.line or sym.line)
            sym.value = 0

    def known_now(self, e: Expr, what: str) -> int:
        """A pass-1 value that must not depend on later definitions."""
        try:
            return self.value(e, final=False)
        except _Unknown:
            names = ", ".join(f"'{s.name}'" for s in _symbols_in(e) if s.name not in self.symbols)
            raise _Err(
                e.col, f"{what} must be known here: define {names or 'its symbols'} above this line"
            ) from None

    # ---- registers ----------------------------------------------------------------------------
    def register_index(self, name: str, col: int = 0) -> int | None:
        if m := _REG.fullmatch(name):
            n = int(m.group(1))
            if n >= isa.NUM_REG_FIELD:
                raise _Err(col, f"register {name} out of range: registers are r0..r{isa.NUM_REG_FIELD - 1}")
            return n
        alias = self.aliases.get(name)
        return alias[0] if alias else None

    def use_reg(self, tok: Tok) -> int:
        n = self.register_index(tok.text, tok.col)
        assert n is not None
        self.reg_uses.append((n, self.line, tok.col, tok.text))
        return n

    def reg(self, opnd: _Operand, mnemonic: str) -> int:
        t = opnd.toks[0]
        if len(opnd.toks) == 1 and t.kind == "id":
            if self.register_index(t.text, t.col) is not None:
                return self.use_reg(t)
            if t.text in self.symbols:
                raise _Err(t.col, f"expected a register, found symbol '{t.text}'")
            raise _Err(
                t.col,
                f"unknown register '{t.text}': use r0..r{isa.NUM_REG_FIELD - 1} "
                "or a name defined with .alias",
            )
        if t.text == "%":
            raise _Err(t.col, "special registers are read only with LDS, e.g. LDS r1, %tid.x")
        if t.text == "[":
            raise _Err(
                t.col, f"expected a register, found a memory operand; {mnemonic} takes no memory operand"
            )
        if t.kind == "id" and (t.text in ("r", "R") or self.register_index(t.text, t.col) is not None):
            raise _Err(
                t.col,
                f"'{''.join(x.text for x in opnd.toks)}' is not a register: registers are written r0..r{isa.NUM_REG_FIELD - 1} "
                "(a plain number, no sign or expression)",
            )
        hint = f"; use {mnemonic}I for an immediate operand" if mnemonic + "I" in isa.BY_MNEMONIC else ""
        raise _Err(t.col, f"expected a register (r0..r{isa.NUM_REG_FIELD - 1}), found '{opnd.text}'{hint}")

    def not_a_register(self, opnd: _Operand, mnemonic: str, op: isa.Op | None) -> None:
        """Refuse a register where a value belongs, with a hint to the register form."""
        t = opnd.toks[0]
        if len(opnd.toks) == 1 and t.kind == "id" and t.text not in self.symbols:
            if self.register_index(t.text, t.col) is not None:
                if mnemonic in ("LI", "MVI"):
                    hint = "; use MV to copy a register"
                elif op is not None and op.fmt is isa.Fmt.RI and op.alu in isa.BY_MNEMONIC:
                    hint = f"; use {op.alu} for a register operand"
                else:
                    hint = ""
                raise _Err(t.col, f"expected a value, found register '{t.text}'{hint}")

    # ---- pass 1 -------------------------------------------------------------------------------
    def pass1(self) -> None:
        for number, text in enumerate(self.lines, 1):
            self.line = number
            try:
                self.pass1_line(lex(text))
            except _Err as e:
                self.fail(e)
            except RecursionError:  # the parser's limits should make this unreachable
                self.error(1, "expression nested too deeply; split it into .equ steps")

    def pass1_line(self, toks: list[Tok]) -> None:
        i = 0
        while i + 1 < len(toks) and toks[i].kind == "id" and toks[i + 1].text == ":":
            try:
                self.define(toks[i], self.section, self.here())
            except _Err as e:
                self.fail(e)  # keep going: the statement after the label still takes its place
            i += 2
        rest = toks[i:]
        if not rest:
            return
        head = rest[0]
        if head.kind != "id":
            raise _Err(head.col, f"expected an instruction, a directive or a label, found '{head.text}'")
        if head.text.startswith("."):
            self.directive(head, rest[1:], self.end_col(rest))
        else:
            self.instruction(head, rest[1:], self.end_col(rest))

    def instruction(self, head: Tok, toks: list[Tok], end_col: int) -> None:
        mnemonic = head.text.upper()
        op = isa.BY_MNEMONIC.get(mnemonic)
        ins = _Instr(self.line, head, mnemonic, op, [], self.pc, 1)
        if self.section != "text":
            if op is None and mnemonic not in PSEUDO:
                self.unknown_instruction(head)
            raise _Err(
                head.col, f"instruction {mnemonic} in the .{self.section} section; put code after .text"
            )
        self.code.append(ins)
        self.pc += 1
        try:
            self.instruction_operands(ins, toks, end_col)
        except _Err:
            ins.mnemonic = ""  # reported now; nothing to encode in pass 2
            raise

    def instruction_operands(self, ins: _Instr, toks: list[Tok], end_col: int) -> None:
        head, mnemonic, op = ins.head, ins.mnemonic, ins.op
        if op is None and mnemonic not in PSEUDO:
            self.unknown_instruction(head)
        ins.operands = _split_operands(toks, end_col)
        expected = ("rd", IMM) if op is None else operand_syntax(op)
        shape = "LI rd, value" if op is None else usage(op)
        if len(ins.operands) != len(expected):
            col = ins.operands[len(expected)].col if len(ins.operands) > len(expected) else head.col
            spaced = len(ins.operands) < len(expected) and any(len(o.toks) > 1 for o in ins.operands)
            hint = "; separate operands with ','" if spaced else ""
            raise _Err(
                col,
                f"{mnemonic} takes {len(expected)} operand(s), got {len(ins.operands)}: write {shape}{hint}",
            )
        if mnemonic == "LI":
            value_opnd = ins.operands[1]
            ins.li_form, ins.size = "PAIR", 2
            self.pc += 1
            ins.expr = parse_expr(value_opnd.toks, value_opnd.end_col)
            try:
                value = self.value(ins.expr, final=False)
            except (_Unknown, _Err):
                return  # forward reference (or an error pass 2 reports): two words
            if WORD_MIN <= value < WORD_LIMIT and _li_form(value) != "PAIR":
                ins.li_form, ins.size = _li_form(value), 1
                self.pc -= 1

    def unknown_instruction(self, head: Tok) -> None:
        hint = _did_you_mean(head.text.upper(), [*isa.BY_MNEMONIC, *PSEUDO])
        raise _Err(head.col, f"unknown instruction '{head.text}'{hint or '; a label needs a trailing colon'}")

    def directive(self, head: Tok, toks: list[Tok], end_col: int) -> None:
        name = head.text.lower()
        if name not in DIRECTIVES:
            raise _Err(head.col, f"unknown directive '{head.text}'{_did_you_mean(name, list(DIRECTIVES))}")
        if name in (".text", ".const"):
            if toks:
                raise _Err(toks[0].col, f"{name} takes no operands")
            self.section = name[1:]
            self.first_use.setdefault(name, (self.line, head.col))
        elif name == ".data":
            self.data_directive(head, toks, end_col)
        elif name == ".word":
            target = self.data_target(name, head)
            exprs = parse_list(toks, end_col, commas=True) if toks else []
            if not exprs:
                raise _Err(head.col, ".word needs at least one value: .word expr, expr, ...")
            self.word_dirs.append(_Words(self.line, exprs, target, len(target)))
            target.extend([0] * len(exprs))
        elif name in (".space", ".zero"):
            target = self.data_target(name, head)
            (e,) = self.exactly(head, toks, end_col, 1, f"{name} n")
            n = self.known_now(e, f"the size of {name}")
            if not 0 <= n <= MAX_COUNT:
                raise _Err(e.col, f"{name} {n}: the size must be in 0..{MAX_COUNT}")
            target.extend([0] * n)
        elif name == ".equ":
            self.equ(head, toks, end_col)
        elif name == ".alias":
            self.alias(head, toks)
        elif name in LAUNCH_DIRECTIVES:
            self.launch_directive(name, head, toks, end_col)
        elif name == ".param":
            self.param(head, toks, end_col)
        else:  # .illegal
            if self.section != "text":
                raise _Err(head.col, ".illegal belongs in the .text section")
            ins = _Instr(self.line, head, "", None, [], self.pc, 1)
            self.code.append(ins)
            self.pc += 1
            (e,) = self.exactly(head, toks, end_col, 1, ".illegal 0xWORD")
            ins.mnemonic, ins.expr = ".illegal", e

    def exactly(self, head: Tok, toks: list[Tok], end_col: int, n: int, shape: str) -> list[Expr]:
        if not toks:
            raise _Err(head.col, f"{head.text} needs {n} value(s): write {shape}")
        exprs = parse_list(toks, end_col, commas=True)
        if len(exprs) != n:
            raise _Err(
                exprs[n].col if len(exprs) > n else head.col,
                f"{head.text} takes {n} value(s), got {len(exprs)}: write {shape}",
            )
        return exprs

    def data_target(self, name: str, head: Tok) -> list[int]:
        if self.section == "const":
            return self.consts
        if self.section == "data":
            return self.chunks[-1].words
        raise _Err(
            head.col,
            f"{name} is not allowed in .text (code holds instructions only); "
            "switch to .const or .data BASE first",
        )

    def data_directive(self, head: Tok, toks: list[Tok], end_col: int) -> None:
        self.first_use.setdefault(".data", (self.line, head.col))
        self.section = "data"
        chunk = _Chunk(0, [], self.line, head.col, ok=False)
        self.chunks.append(chunk)
        (e,) = self.exactly(head, toks, end_col, 1, ".data BASE (a global word address)")
        base = self.known_now(e, "the .data base address")
        if not 0 <= base < WORD_LIMIT:
            raise _Err(
                e.col, f".data base {base} out of range: global word addresses are 0..{WORD_LIMIT - 1}"
            )
        chunk.base, chunk.ok = base, True

    def equ(self, head: Tok, toks: list[Tok], end_col: int) -> None:
        if not toks or toks[0].kind != "id":
            raise _Err(toks[0].col if toks else head.col, ".equ needs a name: write .equ NAME, value")
        rest = toks[1:]
        if rest and rest[0].text == ",":
            rest = rest[1:]
        expr = parse_expr(rest, end_col) if rest else None
        if expr is None:
            raise _Err(end_col, f".equ {toks[0].text} needs a value: write .equ NAME, value")
        self.define(toks[0], "equ", None, expr)
        try:
            self.symbols[toks[0].text].value = self.value(expr, final=False)
            self.symbols[toks[0].text].expr = None
        except (_Unknown, _Err):
            pass  # resolved (and its errors reported) after pass 1

    def alias(self, head: Tok, toks: list[Tok]) -> None:
        parts = [t for t in toks if t.text != ","]
        if len(parts) != 2 or parts[0].kind != "id" or parts[1].kind != "id":
            raise _Err(toks[0].col if toks else head.col, "write .alias NAME rN")
        name, reg = parts
        upper = name.text.upper()
        if upper in isa.BY_MNEMONIC or upper in PSEUDO:
            raise _Err(
                name.col, f"alias '{name.text}' would shadow the instruction {upper}; choose another name"
            )
        if _REG.fullmatch(name.text):
            raise _Err(name.col, f"alias '{name.text}' would shadow a register name; choose another name")
        if name.text in self.aliases:
            first = self.aliases[name.text][1]
            raise _Err(name.col, f"duplicate alias '{name.text}' (first defined at line {first})")
        m = _REG.fullmatch(reg.text)
        if not m:
            raise _Err(reg.col, f"an alias names a register r0..r{isa.NUM_REG_FIELD - 1}, not '{reg.text}'")
        n = self.register_index(reg.text, reg.col)
        assert n is not None
        self.aliases[name.text] = (n, self.line)

    def launch_directive(self, name: str, head: Tok, toks: list[Tok], end_col: int) -> None:
        if name in self.launch:
            first = self.launch[name].line
            raise _Err(head.col, f"duplicate {name} (first at line {first}); give each launch directive once")
        if name in (".grid", ".block"):
            shape = f"{name} x [y [z]]"
            if not toks:
                raise _Err(head.col, f"{name} needs 1 to 3 dimensions: write {shape}")
            exprs = parse_list(toks, end_col, commas=False)
            if len(exprs) > 3:
                raise _Err(exprs[3].col, f"{name} takes at most 3 dimensions: write {shape}")
        else:
            exprs = self.exactly(head, toks, end_col, 1, f"{name} n")
        self.launch[name] = _Directive(name, self.line, head.col, exprs)

    def param(self, head: Tok, toks: list[Tok], end_col: int) -> None:
        index = len(self.param_exprs)
        if index >= isa.NUM_PARAMS:
            raise _Err(head.col, f"too many .param: a kernel has at most {isa.NUM_PARAMS} parameters")
        opnds = _split_operands(toks, end_col)
        if len(opnds) == 2 and len(opnds[0].toks) == 1 and opnds[0].toks[0].kind == "id":
            name = opnds[0].toks[0]
            if name.text.lower() in isa.SREGS:
                raise _Err(
                    name.col,
                    f"parameter name '{name.text}' would shadow the special register "
                    f"%{name.text.lower()}; choose another name",
                )
            if name.text in self.param_names:
                raise _Err(name.col, f"duplicate parameter name '{name.text}'")
            self.param_names[name.text] = index
            opnds = opnds[1:]
        if len(opnds) != 1:
            raise _Err(opnds[-1].col if opnds else head.col, "write .param value or .param name, value")
        self.param_exprs.append((self.line, parse_expr(opnds[0].toks, opnds[0].end_col)))

    # ---- between the passes -------------------------------------------------------------------
    def resolve_all(self) -> None:
        for sym in self.symbols.values():
            if sym.value is None and sym.expr is not None:
                self.line = sym.line
                self.resolve_equ(sym)
        for a in range(len(self.chunks)):
            ca = self.chunks[a]
            if ca.ok and ca.base + len(ca.words) > WORD_LIMIT:
                self.error(
                    ca.col,
                    f".data at {ca.base} with {len(ca.words)} words passes the end of the "
                    "32-bit address space",
                    ca.line,
                )
            for b in range(a):
                cb = self.chunks[b]
                if (
                    ca.ok
                    and cb.ok
                    and ca.words
                    and cb.words
                    and ca.base < cb.base + len(cb.words)
                    and cb.base < ca.base + len(ca.words)
                ):
                    self.error(
                        ca.col,
                        f"data at [{ca.base}, {ca.base + len(ca.words)}) overlaps data at "
                        f"[{cb.base}, {cb.base + len(cb.words)}) from line {cb.line}; "
                        "move one .data base",
                        ca.line,
                    )

    def launch_values(self) -> tuple[tuple[int, int, int], tuple[int, int, int], int | None, int, list[int]]:
        dims: dict[str, tuple[int, int, int]] = {".grid": (1, 1, 1), ".block": (32, 1, 1)}
        scalars: dict[str, int | None] = {".regs": None, ".shared": 0}
        limits = {".regs": (1, isa.NUM_REG_FIELD), ".shared": (0, WORD_LIMIT - 1)}
        for name, d in self.launch.items():
            self.line = d.line
            try:
                values = [self.value(e) for e in d.exprs]
                for e, v in zip(d.exprs, values):
                    lo, hi = (1, MAX_DIM) if name in dims else limits[name]
                    if not lo <= v <= hi:
                        raise _Err(e.col, f"{name} {v} out of range: must be in {lo}..{hi}")
                if name in dims:
                    x, y, z = [*values, 1, 1][:3]
                    dims[name] = (x, y, z)
                else:
                    scalars[name] = values[0]
            except _Err as e:
                self.fail(e)
        params = []
        for line, e in self.param_exprs:
            self.line = line
            try:
                params.append(self.word_value(e))
            except _Err as err:
                self.fail(err)
                params.append(0)
        shared = scalars[".shared"]
        assert shared is not None
        return dims[".grid"], dims[".block"], scalars[".regs"], shared, params

    def word_value(self, e: Expr) -> int:
        v = self.value(e)
        if not WORD_MIN <= v < WORD_LIMIT:
            raise _Err(e.col, f"value {v} does not fit 32 bits (allowed {WORD_MIN}..{WORD_LIMIT - 1})")
        return v & isa.WORD_MASK

    # ---- pass 2 -------------------------------------------------------------------------------
    def pass2(self) -> list[int]:
        code = [0] * self.pc
        for ins in self.code:
            self.line = ins.line
            if not ins.mnemonic:
                continue  # pass 1 already reported it
            try:
                words = self.encode(ins)
                code[ins.pc : ins.pc + len(words)] = words
            except _Err as e:
                self.fail(e)
        for wd in self.word_dirs:
            self.line = wd.line
            for k, e in enumerate(wd.exprs):
                try:
                    wd.target[wd.offset + k] = self.word_value(e)
                except _Err as err:
                    self.fail(err)
        return code

    def encode(self, ins: _Instr) -> list[int]:
        if ins.mnemonic == ".illegal":
            assert ins.expr is not None
            return [self.illegal_word(ins.expr)]
        if ins.mnemonic == "LI":
            return self.encode_li(ins)
        op = ins.op
        assert op is not None
        fields: dict[str, int] = {}
        for item, opnd in zip(operand_syntax(op), ins.operands):
            if item in REG_ITEMS:
                fields[item] = self.reg(opnd, op.mnemonic)
            elif item == IMM:
                self.not_a_register(opnd, op.mnemonic, op)
                fields["imm"] = self.immediate(op, parse_expr(opnd.toks, opnd.end_col), opnd.col)
            elif item == MEM:
                fields["f1"], fields["imm"] = self.memory(op, opnd)
            elif item == SREG:
                fields["f1"] = self.sreg(opnd)
            else:  # TARGET
                fields["imm"] = self.target(opnd)
        try:
            return [isa.encode(op.mnemonic, **fields)]
        except ValueError as e:  # the checks above should make this unreachable
            raise _Err(ins.head.col, f"cannot encode {op.mnemonic}: {e}") from None

    def immediate(self, op: isa.Op, e: Expr, col: int) -> int:
        v = self.value(e)
        lo, hi = isa.imm_range(op)
        if not lo <= v <= hi:
            raise _Err(
                col,
                f"immediate {v} out of range for {op.mnemonic}: must be in {lo}..{hi}; "
                "for a 32-bit constant use LI rd, value",
            )
        return v

    def memory(self, op: isa.Op, opnd: _Operand) -> tuple[int, int]:
        toks = opnd.toks
        if toks[0].text != "[":
            raise _Err(
                opnd.col, f"expected a memory operand like [r1 + 4], found '{opnd.text}': write {usage(op)}"
            )
        if toks[-1].text != "]" or len(toks) < 2:
            raise _Err(opnd.end_col, "missing ']' at the end of the memory operand")
        inner = toks[1:-1]
        if not inner:
            raise _Err(toks[0].col, "empty memory operand: write [rA] or [rA + offset]")
        base = inner[0]
        if base.kind != "id" or self.register_index(base.text, base.col) is None:
            raise _Err(
                base.col, "memory operand without a base register: use a register base, e.g. [r0 + addr]"
            )
        f1 = self.use_reg(base)
        rest = inner[1:]
        if not rest:
            return f1, 0
        if rest[0].text not in ("+", "-"):
            raise _Err(rest[0].col, "expected '+', '-' or ']' after the base register")
        if len(rest) == 2 and rest[1].kind == "id" and rest[1].text not in self.symbols:
            if self.register_index(rest[1].text, rest[1].col) is not None:
                raise _Err(
                    rest[1].col,
                    "the offset must be a constant, not a register: add the registers "
                    "first (e.g. ADD r3, r2, r3) and use [r3]",
                )
        # The offset is the expression starting at the sign: [r1 - 4 + 1] means offset -3.
        return f1, self.immediate(op, parse_expr(rest, toks[-1].col), rest[0].col)

    def sreg(self, opnd: _Operand) -> int:
        toks = opnd.toks
        if toks[0].text != "%":
            raise _Err(opnd.col, f"LDS reads a special register, e.g. LDS r1, %tid.x; found '{opnd.text}'")
        if len(toks) != 2 or toks[1].kind != "id":
            raise _Err(toks[0].col, "expected a special-register name after '%', e.g. %tid.x")
        name = toks[1].text
        if name in self.param_names:
            return isa.SREG_PARAM_BASE + self.param_names[name]
        if name.lower() in isa.SREGS:
            return isa.SREGS[name.lower()]
        if (m := re.fullmatch(r"param(\d+)", name.lower())) and int(m.group(1)) >= isa.NUM_PARAMS:
            raise _Err(
                toks[0].col,
                f"no parameter '%{name}': the kernel parameters are %param0..%param{isa.NUM_PARAMS - 1} "
                "(or the names .param gives them)",
            )
        hint = _did_you_mean(name.lower(), [*isa.SREGS, *self.param_names])
        raise _Err(toks[0].col, f"unknown special register '%{name}'{hint or '; see docs/isa.md'}")

    def target(self, opnd: _Operand) -> int:
        e = parse_expr(opnd.toks, opnd.end_col)
        self.not_a_register(opnd, "", None)
        v = self.value(e)
        if not 0 <= v <= 0xFFFF:
            raise _Err(opnd.col, f"branch target {v} out of range: instruction addresses are 0..65535")
        if isinstance(e, Sym) and (sym := self.symbols.get(e.name)) and sym.section in ("const", "data"):
            raise _Err(opnd.col, f"'{e.name}' is a .{sym.section} label, not a code address")
        if _symbols_in(e) and v >= self.pc:
            raise _Err(
                opnd.col,
                f"branch target {v} is beyond the end of the code ({self.pc} instructions); "
                "add an instruction (e.g. EXIT) after the label",
            )
        return v

    def encode_li(self, ins: _Instr) -> list[int]:
        rd = self.reg(ins.operands[0], "LI")
        self.not_a_register(ins.operands[1], "LI", None)
        assert ins.expr is not None
        v = self.value(ins.expr)
        if not WORD_MIN <= v < WORD_LIMIT:
            raise _Err(
                ins.operands[1].col,
                f"LI value {v} does not fit 32 bits (allowed {WORD_MIN}..{WORD_LIMIT - 1})",
            )
        v &= isa.WORD_MASK
        if ins.li_form == "MVI":
            return [isa.encode("MVI", rd=rd, imm=isa.sext(v, 32))]
        if ins.li_form == "LUI":
            return [isa.encode("LUI", rd=rd, imm=v >> 16)]
        return [isa.encode("LUI", rd=rd, imm=v >> 16), isa.encode("ORI", rd=rd, f1=rd, imm=v & 0xFFFF)]

    def illegal_word(self, e: Expr) -> int:
        v = self.value(e)
        if not 0 <= v <= isa.WORD_MASK:
            raise _Err(e.col, f".illegal {v}: a word is 0..0x{isa.WORD_MASK:x}")
        try:
            isa.lookup(v)
        except isa.IllegalInstruction:
            return v
        raise _Err(
            e.col,
            f".illegal 0x{v:08x} is a legal instruction; write it as '{' '.join(disassemble(v).split())}'",
        )

    # ---- after pass 2 -------------------------------------------------------------------------
    def check_regs(self, regs: int | None) -> None:
        if regs is None:
            return
        for n, line, col, text in self.reg_uses:
            if n >= regs:
                shown = f"r{n}" if text.lower() == f"r{n}" else f"r{n} (alias '{text}')"
                self.error(col, f"{shown} used but .regs {regs}: raise .regs or use r0..r{regs - 1}", line)

    def run(self, cfg: GpuConfig | None) -> Program:
        self.pass1()
        self.resolve_all()
        grid, block, regs, shared, params = self.launch_values()
        code = self.pass2()
        self.check_regs(regs)
        if not self.code and not self.errors:
            self.error(1, "the program has no instructions: add code (at least EXIT) in the .text section", 1)
        self.raise_errors()
        used = frozenset(n for n, *_ in self.reg_uses)
        image = LaunchImage(
            code=code,
            grid=grid,
            block=block,
            regs=regs if regs is not None else max(used, default=0) + 1,
            shared_words=shared,
            params=params,
            consts=self.consts,
            data=[(c.base, c.words) for c in self.chunks if c.words],
        )
        if cfg is not None:
            try:
                image.check(cfg)
            except LaunchError as e:
                line, col = self.launch_location(str(e))
                self.error(col, f"{e}; change the directive or the configuration", line)
                self.raise_errors()
        source = []
        for ins in self.code:
            source += [SourceLine(self.file, ins.line, self.lines[ins.line - 1])] * ins.size
        symbols = {s.name: (s.section, s.value) for s in self.symbols.values() if s.value is not None}
        return Program(image, symbols, source, used, dict(self.param_names), self.exit_warnings(code))

    def exit_warnings(self, code: list[int]) -> list[str]:
        """A warning when no EXIT is reachable from pc 0 (reachability.exit_reachable)."""
        if reachability.exit_reachable(code):
            return []
        exits = [ins for ins in self.code if ins.mnemonic == "EXIT"]
        if exits:
            ins = exits[0]
            why = "this EXIT (and every other) is not reachable from pc 0"
        else:
            ins = self.code[-1]
            why = "the program has no EXIT"
        return [
            f"{self.file}:{ins.line}:{ins.head.col}: warning: {why}: the kernel can only end by an error "
            "or the instruction budget; add an EXIT on every path"
        ]

    def launch_location(self, message: str) -> tuple[int, int]:
        keys = (
            ("grid dimensions", ".grid"),
            ("block dimensions", ".block"),
            ("register rows", ".regs"),
            ("registers per thread", ".regs"),
            ("warps", ".block"),
            ("shared words", ".shared"),
            ("constants exceed", ".const"),
            ("data at", ".data"),
        )
        for phrase, name in keys:
            if phrase in message:
                if name in self.launch:
                    return self.launch[name].line, self.launch[name].col
                if name in self.first_use:
                    return self.first_use[name]
                if name == ".regs" and ".block" in self.launch:
                    return self.launch[".block"].line, self.launch[".block"].col
        return 1, 1

    def raise_errors(self) -> None:
        if not self.errors:
            return
        ordered = sorted(self.errors, key=lambda e: (e.line, e.col))
        raise AsmErrors(ordered[:MAX_ERRORS], max(0, len(ordered) - MAX_ERRORS))


# ---------------------------------------------------------------------------------------------
# API and CLI
# ---------------------------------------------------------------------------------------------
def assemble(text: str, filename: str = "<string>", cfg: GpuConfig | None = None) -> Program:
    """Assemble a source; raise AsmErrors listing every error (at most MAX_ERRORS shown)."""
    if (problem := _not_source(text, filename)) is not None:
        raise AsmErrors([AsmError(filename, 1, 1, problem)])
    asm = _Assembler(text, filename)
    try:
        return asm.run(cfg)
    except RecursionError:  # e.g. a chain of hundreds of .equ each naming the next
        line = asm.line or 1
        raise AsmErrors(
            [
                AsmError(
                    filename,
                    line,
                    1,
                    "definitions nested too deeply to evaluate (a long chain "
                    "of .equ symbols naming each other?); shorten the chain",
                )
            ]
        ) from None


def _not_source(text: str, filename: str) -> str | None:
    """Why ``text`` is not assembly source at all (one message instead of an error per line)."""
    if text.startswith("\ufeff"):
        return (
            "the file starts with a UTF-8 byte-order mark (U+FEFF, bytes ef bb bf); save it as UTF-8 "
            "without a BOM (the editor's 'UTF-8' rather than 'UTF-8 with BOM')"
        )
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if first.startswith("// SIMT launch image") or first.lower() == f"{MAGIC:08x}":
        return (
            f"{filename} is a launch image (.hex, the assembler's output), not assembly source; "
            f"read it with: python -m spec.disasm {filename}"
        )
    return None


def read_source(path: str | Path) -> str:
    """The source as text; a non-UTF-8 byte is an AsmError at its line and column."""
    raw = Path(path).read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise AsmErrors(
            [
                AsmError(
                    str(path),
                    line,
                    col,
                    f"byte 0x{raw[e.start]:02x} (file offset {e.start}) is "
                    "not UTF-8 text; save the source as UTF-8",
                )
            ]
        ) from None


def assemble_file(path: str | Path, cfg: GpuConfig | None = None) -> Program:
    return assemble(read_source(path), str(path), cfg)


def write_hex_atomic(image: LaunchImage, path: str | Path) -> None:
    """Write the image at ``path`` (spec/cli.py write_output): a regular file is written next to its
    target and renamed into place (never a partial file; a symbolic link is written through); a
    character device or FIFO (``/dev/null``, ``/dev/stdout``) is written into, never replaced."""
    cli.write_output(path, image.to_hex(), "image")


def output_problem(output: str, source: str) -> str | None:
    """Why ``-o output`` must be refused before anything is written (None when it is fine)."""
    if not output.strip():
        return "-o needs a file name (got an empty string); write e.g. -o kernel.hex"
    out, src = Path(output), Path(source)
    try:
        same = out.exists() and src.exists() and out.samefile(src)
    except OSError:
        same = False
    if same or os.path.realpath(output) == os.path.realpath(source):
        return (
            f"-o {output} names the source file; refusing to overwrite it with the image (use e.g. -o "
            f"{src.with_suffix('.hex').name if src.suffix != '.hex' else src.stem + '.out.hex'})"
        )
    if out.is_dir():
        return f"-o {output} is a directory; name the .hex file to write"
    if cli.output_kind(output) not in ("regular", "stream"):
        return f"-o {output} is a block device or other special file; name the .hex file to write"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(
        prog="python -m spec.asm",
        description="Assemble a SIMT kernel into a $readmemh launch image (docs/assembler.md).",
    )
    parser.add_argument("source", help="assembly source file")
    parser.add_argument("-o", "--output", help="launch image to write (.hex); written only on success")
    parser.add_argument("--listing", action="store_true", help="print pc: word  disassembly  ; source")
    args = parser.parse_args(argv)
    if args.output is not None and (problem := output_problem(args.output, args.source)):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        text = read_source(args.source)
    except OSError as e:
        print(f"{args.source}: error: cannot read the source: {e.strerror}", file=sys.stderr)
        return 2
    except AsmError as e:
        print(e, file=sys.stderr)
        return 1
    try:
        program = assemble(text, args.source)
    except AsmError as e:
        print(e, file=sys.stderr)
        return 1
    for warning in program.warnings:
        print(warning, file=sys.stderr)
    if args.output is not None:
        try:
            write_hex_atomic(program.image, args.output)
        except OSError as e:
            print(f"{args.output}: error: cannot write the image: {e.strerror}", file=sys.stderr)
            return 1
    if args.listing:
        print("\n".join(program.listing()))
    return 0


if __name__ == "__main__":
    cli.run(main)
