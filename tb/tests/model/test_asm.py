"""Assembler: language features, every error class (with line and column), the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from spec import isa
from spec.asm import AsmError, AsmErrors, Program, assemble, assemble_file, main
from spec.config import GpuConfig
from spec.image import LaunchImage

E = isa.encode
ROOT = Path(__file__).resolve().parents[3]


def code(src: str) -> list[int]:
    return assemble(src).image.code


def errors(src: str, **kw) -> list[AsmError]:
    with pytest.raises(AsmErrors) as exc:
        assemble(src, "k.s", **kw)
    return exc.value.errors


def one_error(src: str, **kw) -> AsmError:
    errs = errors(src, **kw)
    assert len(errs) == 1, "\n".join(map(str, errs))
    return errs[0]


def check(src: str, line: int, col: int, phrase: str, **kw) -> None:
    e = one_error(src, **kw)
    assert (e.line, e.col) == (line, col), str(e)
    assert phrase in e.message, str(e)
    assert str(e) == f"k.s:{line}:{col}: error: {e.message}"


# ---- the example kernel --------------------------------------------------------------------------
VECADD = """\
; c[i] = a[i] + b[i] for i < n
        .grid   4
        .block  64
        .param  a, 0x1000
        .param  b, 0x2000
        .param  c, 0x3000
        .param  n, 200
        .alias  i r4

        LDS     r1, %tid.x
        LDS     r2, %ntid.x
        LDS     r3, %ctaid.x
        MAD     i, r3, r2, r1       // i = ctaid.x * ntid.x + tid.x
        LDS     r5, %n
        SLT     r6, i, r5
        SSY     done
        BEQ     r6, done            # threads past the end skip the body
        LDS     r7, %a
        ADD     r7, r7, i
        LDG     r8, [r7]
        LDS     r7, %param1
        ADD     r7, r7, i
        LDG     r9, [r7 + 0]
        ADD     r8, r8, r9
        LDS     r7, %c
        ADD     r7, r7, i
        STG     [r7], r8
done:   EXIT
"""


def test_vector_add_kernel() -> None:
    p = assemble(VECADD, "vecadd.s")
    s = isa.SREGS
    expected = [
        E("LDS", rd=1, f1=s["tid.x"]),
        E("LDS", rd=2, f1=s["ntid.x"]),
        E("LDS", rd=3, f1=s["ctaid.x"]),
        E("MAD", rd=4, f2=3, f3=2, f1=1),
        E("LDS", rd=5, f1=s["param3"]),
        E("SLT", rd=6, f1=4, f2=5),
        E("SSY", imm=18),
        E("BEQ", f1=6, imm=18),
        E("LDS", rd=7, f1=s["param0"]),
        E("ADD", rd=7, f1=7, f2=4),
        E("LDG", rd=8, f1=7, imm=0),
        E("LDS", rd=7, f1=s["param1"]),
        E("ADD", rd=7, f1=7, f2=4),
        E("LDG", rd=9, f1=7, imm=0),
        E("ADD", rd=8, f1=8, f2=9),
        E("LDS", rd=7, f1=s["param2"]),
        E("ADD", rd=7, f1=7, f2=4),
        E("STG", f1=7, f2=8, imm=0),
        E("EXIT"),
    ]
    assert p.image.code == expected
    assert p.image.grid == (4, 1, 1) and p.image.block == (64, 1, 1)
    assert p.image.params == [0x1000, 0x2000, 0x3000, 200]
    assert p.image.regs == 10 and p.regs_used == frozenset(range(1, 10))
    assert p.symbols["done"] == ("text", 18)
    assert p.source[3].line == 13 and "MAD" in p.source[3].text
    assert p.source_of(18).startswith("vecadd.s:28: done:")
    p.image.check(GpuConfig())
    listing = p.listing()
    assert len(listing) == 19 and "SSY    done" in listing[6] and listing[6].rstrip().endswith("SSY     done")


# ---- syntax ---------------------------------------------------------------------------------------
def test_comments_case_and_labels() -> None:
    src = """
    ; full-line comment
    # hash comment
    // slash comment
    start: add R1, r2, R3 ; trailing
    a: b:                 // two labels, no statement
    Nop
    .TEXT
    exit # done
    """
    p = assemble(src)
    assert p.image.code == [E("ADD", rd=1, f1=2, f2=3), E("NOP"), E("EXIT")]
    assert p.symbols["start"] == ("text", 0) and p.symbols["a"] == p.symbols["b"] == ("text", 1)
    assert code("L: BRA L\nl: BRA l\nEXIT") == [E("BRA", imm=0), E("BRA", imm=1), E("EXIT")]
    assert code("._x$1.y: BRA ._x$1.y") == [E("BRA", imm=0)]


def test_numeric_literals_and_expressions() -> None:
    cases = {
        "42": 42, "0x2A": 42, "0X2a": 42, "0b101010": 42, "0o52": 42, "4_2": 42, "0x7F_FF": 0x7FFF,
        "'A'": 65, "'\\n'": 10, "'\\''": 39, "'\\\\'": 92, "'\\x41'": 65, "';'": 59, "'#'": 35,
        "-5": -5, "~0 & 0xFF": 255, "1 + 2 * 3": 7, "(1 + 2) * 3": 9, "7 / 2": 3, "-7 / 2": -3,
        "-7 % 3": -1, "1 << 4 | 1": 17, "0xF0 ^ 0xFF": 15, "6 & 3": 2, "256 >> 4": 16, "- -3": 3,
        "hi(0x12345678)": 0x1234, "lo(0x12345678)": 0x5678, "HI(0x7FFF0000)": 0x7FFF, "N * 2 + 1": 9, "N - M": -3,
        "1 + 2 << 1": 6, "1 | 2 ^ 3 & 1": 3,
    }  # fmt: skip
    for text, value in cases.items():
        src = f".equ N, 4\n.equ M, 7\nMVI r1, {text}"
        assert code(src) == [E("MVI", rd=1, imm=value)], text


def test_memory_operands() -> None:
    assert code("LD r1, [r2]") == [E("LD", rd=1, f1=2, imm=0)]
    assert code("LD r1, [ r2 + 8 ]") == [E("LD", rd=1, f1=2, imm=8)]
    assert code("LD r1, [r2 - 8]") == [E("LD", rd=1, f1=2, imm=-8)]
    assert code("LD r1, [r2 - 4 + 1]") == [E("LD", rd=1, f1=2, imm=-3)]
    assert code("LDC r1, [r2 + -3]") == [E("LDC", rd=1, f1=2, imm=-3)]
    assert code("ST [r1 + -1024], r2") == [E("ST", f1=1, f2=2, imm=-1024)]
    assert code("STG [r3 + (2 * 3)], r4") == [E("STG", f1=3, f2=4, imm=6)]


def test_operand_order_comes_from_the_syntax() -> None:
    assert code("MAD r1, r2, r3, r4") == [E("MAD", rd=1, f2=2, f3=3, f1=4)]
    assert code("MUL r1, r2, r3") == [E("MUL", rd=1, f2=2, f3=3)]
    assert code("NOT r1, r2") == [E("NOT", rd=1, f2=2)]
    assert code("MV r1, r2") == [E("MV", rd=1, f1=2)]
    assert code("BNE r5, 0") == [E("BNE", f1=5, imm=0)]


def test_aliases() -> None:
    src = ".alias acc r7\n.alias Acc r8\nADD acc, Acc, acc\nMVI tmp, 1\n.alias tmp, r9"
    p = assemble(src)
    assert p.image.code == [E("ADD", rd=7, f1=8, f2=7), E("MVI", rd=9, imm=1)]
    assert p.image.regs == 10


def test_li_pseudo_instruction() -> None:
    assert code("LI r1, 5") == [E("MVI", rd=1, imm=5)]
    assert code("LI r1, -32768") == [E("MVI", rd=1, imm=-32768)]
    assert code("LI r1, 0xFFFFFFFF") == [E("MVI", rd=1, imm=-1)]
    assert code("LI r1, 0x7FFF0000") == [E("LUI", rd=1, imm=0x7FFF)]
    assert code("LI r1, 0x8000") == [E("LUI", rd=1, imm=0), E("ORI", rd=1, f1=1, imm=0x8000)]
    assert code("LI r1, 0x12345678") == [E("LUI", rd=1, imm=0x1234), E("ORI", rd=1, f1=1, imm=0x5678)]
    assert code("LI r1, -2147483648") == [E("LUI", rd=1, imm=0x8000)]
    # forward references take two words even when the value is small
    p = assemble("LI r2, later\nlater: EXIT\nLI r3, K\n.equ K, 3")
    assert p.image.code == [
        E("LUI", rd=2, imm=0),
        E("ORI", rd=2, f1=2, imm=2),
        E("EXIT"),
        E("LUI", rd=3, imm=0),
        E("ORI", rd=3, f1=3, imm=3),
    ]
    assert p.symbols["later"] == ("text", 2)
    assert [s.line for s in p.source] == [1, 1, 2, 3, 3]
    # backward references are known in pass 1
    assert assemble(".equ K, 3\nLI r3, K\nx: LI r4, x").image.code == [
        E("MVI", rd=3, imm=3),
        E("MVI", rd=4, imm=1),
    ]


def test_sections_and_data() -> None:
    src = """
        .const
    tab: .word 1, -1, 'A', hi(0xABCD0000)
         .space 2
    end_tab:
        .data 0x100
    buf: .zero 3
    val: .word val, 0xFFFFFFFF
        .data 8
    one: .word 1
        .text
        MVI r1, tab
        MVI r2, end_tab - tab
        LI  r3, buf
        MVI r4, val
        EXIT
        .const
        .word 99
    """
    p = assemble(src)
    assert p.image.consts == [1, 0xFFFFFFFF, 65, 0xABCD, 0, 0, 99]
    assert p.image.data == [(0x100, [0, 0, 0, 0x103, 0xFFFFFFFF]), (8, [1])]
    assert p.symbols["tab"] == ("const", 0) and p.symbols["end_tab"] == ("const", 6)
    assert p.symbols["buf"] == ("data", 0x100) and p.symbols["val"] == ("data", 0x103)
    assert p.symbols["one"] == ("data", 8)
    assert p.image.code[:2] == [E("MVI", rd=1, imm=0), E("MVI", rd=2, imm=6)]
    assert p.image.code[2] == E("MVI", rd=3, imm=0x100)


def test_launch_directives_and_defaults() -> None:
    p = assemble("EXIT")
    img = p.image
    assert (img.grid, img.block, img.regs, img.shared_words, img.params) == ((1, 1, 1), (32, 1, 1), 1, 0, [])
    assert p.regs_used == frozenset()
    src = ".equ W, 16\n.grid 2, 3\n.block W 2 2\n.regs 12\n.shared W * 4\n.param -1\n.param p, 'x'\nEXIT"
    img = assemble(src).image
    assert (img.grid, img.block, img.regs, img.shared_words) == ((2, 3, 1), (16, 2, 2), 12, 64)
    assert img.params == [0xFFFFFFFF, ord("x")]
    assert assemble("ADD r5, r0, r0").image.regs == 6


def test_params_name_special_registers() -> None:
    src = ".param n, 10\n.param 20\n.param Out, 30\nLDS r1, %n\nLDS r2, %param1\nLDS r3, %Out\nLDS r4, %TID.X"
    assert code(src) == [
        E("LDS", rd=1, f1=16),
        E("LDS", rd=2, f1=17),
        E("LDS", rd=3, f1=18),
        E("LDS", rd=4, f1=0),
    ]


def test_illegal_directive_emits_the_word() -> None:
    assert code(".illegal 0xFFFFFFFF\nEXIT") == [0xFFFFFFFF, E("EXIT")]


def test_config_check_only_when_given() -> None:
    big = ".block 1024\nEXIT"
    assert assemble(big).image.block == (1024, 1, 1)
    check(big, 1, 1, "needs 32 warps", cfg=GpuConfig())
    check("EXIT\n.shared 4096", 2, 1, "shared words per block 4096", cfg=GpuConfig())
    check("EXIT\n.const\n" + ".word 0\n" * 20, 2, 1, "constants exceed", cfg=GpuConfig(const_words=16))
    check("EXIT\n" * 17, 1, 1, "exceed instruction memory", cfg=GpuConfig(imem_words=16))


# ---- errors: one test per class -------------------------------------------------------------------
def test_error_unknown_instruction() -> None:
    check("EXIT\n  ADDD r1, r2, r3", 2, 3, "did you mean 'ADD'")
    check("loop\nEXIT", 1, 1, "a label needs a trailing colon")
    check("EXIT\n.const\ntab .word 1", 3, 1, "unknown instruction 'tab'; a label needs a trailing colon")


def test_error_unknown_directive() -> None:
    check("EXIT\n.wrod 1", 2, 1, "unknown directive '.wrod'; did you mean '.word'")


def test_error_operand_count() -> None:
    check("ADD r1, r2", 1, 1, "ADD takes 3 operand(s), got 2: write ADD rd, ra, rb")
    check("MAD r1, r2, r3, r4, r5", 1, 21, "write MAD rd, ra, rb, rc")
    check("EXIT r1", 1, 6, "EXIT takes 0 operand(s)")
    check("ADD r1 r2 r3", 1, 1, "separate operands with ','")
    check("ADD r1, , r2", 1, 9, "missing operand before ','")
    check("ADD r1, r2,", 1, 12, "missing operand after ','")


def test_error_operand_kind() -> None:
    check("ADD r1, r2, 5", 1, 13, "use ADDI for an immediate operand")
    check("ADDI r1, r2, r3", 1, 14, "use ADD for a register operand")
    check("MVI r1, r2", 1, 9, "use MV to copy a register")
    check("ADD r1, r2, foo", 1, 13, "unknown register 'foo'")
    check("LD r1, r2", 1, 8, "expected a memory operand like [r1 + 4]")
    check("ADD r1, r2, [r3]", 1, 13, "found a memory operand")
    check("ADD r1, %tid.x, r2", 1, 9, "read only with LDS")
    check("MVI r1, %tid.x", 1, 9, "read only with LDS")
    check("LDS r1, r2", 1, 9, "LDS reads a special register")


def test_error_memory_operand_needs_base() -> None:
    check("LD r1, [100]", 1, 9, "use a register base, e.g. [r0 + addr]")
    check("LD r1, [r2 * 4]", 1, 12, "expected '+', '-' or ']'")
    check("LD r1, [r2 + 4", 1, 15, "missing ']'")
    check("LD r1, [r2 + r3]", 1, 14, "the offset must be a constant, not a register")


def test_error_undefined_symbol() -> None:
    check("MVI r1, lenght\nlength: EXIT", 1, 9, "undefined symbol 'lenght'; did you mean 'length'")
    check("BRA nowhere", 1, 5, "undefined symbol 'nowhere'")
    check("MVI r1, r2 + 1", 1, 9, "register 'r2' cannot be used as a value")


def test_error_duplicate_label() -> None:
    check("loop: NOP\n\nloop: EXIT", 3, 1, "duplicate symbol 'loop' (first defined at line 1)")
    check(".equ X, 1\nX: EXIT", 2, 1, "first defined at line 1")
    check("r3: EXIT", 1, 1, "is a register name")


def test_error_bad_literal() -> None:
    check("MVI r1, 12ab", 1, 9, "bad numeric literal '12ab'")
    check("MVI r1, 0x", 1, 9, "bad numeric literal '0x'")
    check("MVI r1, 0b102", 1, 9, "bad numeric literal")
    check("MVI r1, 1__0", 1, 9, "bad numeric literal")
    check("MVI r1, 1.5", 1, 9, "only integers")
    check("MVI r1, ''", 1, 9, "empty character literal")
    check("MVI r1, 'ab'", 1, 9, "unterminated character literal")
    check("MVI r1, '\\q'", 1, 10, "unknown escape")
    check("MVI r1, 1 @ 2", 1, 11, "unexpected character '@'")


def test_error_bad_expression() -> None:
    check("MVI r1, (1 + 2", 1, 15, "missing ')'")
    check("MVI r1, 1 +", 1, 12, "missing value")
    check("MVI r1, 1 2", 1, 11, "unexpected '2' after the expression")
    check("MVI r1, 1 / (2 - 2)", 1, 11, "division by zero")
    check("MVI r1, 1 << 64", 1, 11, "shift count 64")
    check("MVI r1, sqrt(4)", 1, 9, "unknown function 'sqrt'")
    check(".equ A, B + 1\n.equ B, A\nEXIT", 2, 9, "circular definition")
    check(".equ A, nothing\nEXIT", 1, 9, "undefined symbol 'nothing'")


def test_error_value_out_of_range() -> None:
    check("MVI r1, 32768", 1, 9, "must be in -32768..32767; for a 32-bit constant use LI")
    check("ANDI r1, r1, -1", 1, 14, "must be in 0..65535")
    check("ST [r1 + 1024], r2", 1, 8, "must be in -1024..1023")
    check("LD r1, [r2 - 32769]", 1, 12, "must be in -32768..32767")
    check("LI r1, 0x1_0000_0000", 1, 8, "does not fit 32 bits")
    check("EXIT\n.const\n.word 1, -2147483649", 3, 10, "does not fit 32 bits")
    check(".param 1 << 32\nEXIT", 1, 8, "does not fit 32 bits")
    check(".grid 70000\nEXIT", 1, 7, ".grid 70000 out of range: must be in 1..65535")
    check(".block 32 0\nEXIT", 1, 11, "out of range")
    check(".regs 0\nEXIT", 1, 7, "must be in 1..32")


def test_error_register_out_of_range() -> None:
    check("ADD r1, r32, r2", 1, 9, "register r32 out of range: registers are r0..r31")
    check(".alias big r40\nEXIT", 1, 12, "out of range")


def test_error_register_above_regs_directive() -> None:
    check(
        ".regs 8\nADD r1, r2, r3\n  ADD r1, r9, r2", 3, 11, "r9 used but .regs 8: raise .regs or use r0..r7"
    )
    check(".alias t r12\n.regs 4\nMV t, r0", 3, 4, "r12 (alias 't') used but .regs 4")
    check("LD r1, [r5]\n.regs 5", 1, 9, "r5 used but .regs 5")


def test_error_unknown_special_register() -> None:
    check("LDS r1, %tid.w", 1, 9, "unknown special register '%tid.w'")
    check("LDS r1, %ntidx", 1, 9, "did you mean 'ntid.x'")
    check(".param n, 1\nLDS r1, %N", 2, 9, "unknown special register '%N'")


def test_error_branch_target() -> None:
    check("BRA 65536", 1, 5, "out of range: instruction addresses are 0..65535")
    check("BRA -1", 1, 5, "out of range")
    check("SSY end\nEXIT\nend:", 1, 5, "beyond the end of the code (2 instructions)")
    check("BNE r1, tab\nEXIT\n.const\ntab: .word 0", 1, 9, "'tab' is a .const label, not a code address")
    check("BEQ r1, r2", 1, 9, "expected a value, found register 'r2'")
    # numeric targets (as the disassembler prints them) may lie beyond this program
    assert code("BRA 100") == [E("BRA", imm=100)]


def test_error_empty_program() -> None:
    check("", 1, 1, "no instructions")
    check("; only a comment\n.const\n.word 1", 1, 1, "no instructions")


def test_error_wrong_section() -> None:
    check(".data 0\nEXIT", 2, 1, "instruction EXIT in the .data section; put code after .text")
    check(".const\n  NOP\n.text\nEXIT", 2, 3, "in the .const section")
    check("EXIT\n.word 1", 2, 1, ".word is not allowed in .text")
    check("EXIT\n.space 1", 2, 1, ".space is not allowed in .text")
    check(".const\n.illegal 0xFFFFFFFF\n.text\nEXIT", 2, 1, ".illegal belongs in the .text section")
    check(".illegal 0\nEXIT", 1, 10, "is a legal instruction; write it as 'NOP'")


def test_error_directive_operands() -> None:
    check("EXIT\n.const 1", 2, 8, ".const takes no operands")
    check("EXIT\n.data", 2, 1, ".data needs 1 value(s)")
    check("EXIT\n.data fwd\n.equ fwd, 1", 2, 7, "must be known here: define 'fwd' above this line")
    check("EXIT\n.const\n.space -1", 3, 8, "size must be in 0..")
    check("EXIT\n.const\n.word 1 2", 3, 9, "expected ',' between values")
    check(".grid 1 2 3 4\nEXIT", 1, 13, "at most 3 dimensions")
    check(".regs 4, 5\nEXIT", 1, 10, ".regs takes 1 value(s), got 2")
    check(".equ\nEXIT", 1, 1, ".equ needs a name")
    check(".alias x\nEXIT", 1, 8, "write .alias NAME rN")
    check(".alias x, y\nEXIT", 1, 11, "an alias names a register")
    check(".param 1, 2\nEXIT", 1, 11, "write .param value or .param name, value")


def test_error_duplicate_launch_directive() -> None:
    check(".grid 2\nEXIT\n.grid 3", 3, 1, "duplicate .grid (first at line 1)")
    check(".regs 4\n.REGS 4\nEXIT", 2, 1, "duplicate .regs")


def test_error_overlapping_data() -> None:
    check("EXIT\n.data 10\n.word 1, 2, 3\n.data 12\n.word 4", 4, 1, "overlaps data at [10, 13) from line 2")
    assert assemble("EXIT\n.data 10\n.word 1\n.data 11\n.word 2\n.data 10").image.data == [
        (10, [1]),
        (11, [2]),
    ]


def test_error_alias_shadowing() -> None:
    check(".alias add r1\nEXIT", 1, 8, "would shadow the instruction ADD")
    check(".alias LI r1\nEXIT", 1, 8, "would shadow the instruction LI")
    check(".alias R2 r1\nEXIT", 1, 8, "would shadow a register name")
    check(".alias t r1\n.alias t r2\nEXIT", 2, 8, "duplicate alias 't' (first defined at line 1)")


def test_error_params() -> None:
    src = "".join(f".param {i}\n" for i in range(isa.NUM_PARAMS + 1)) + "EXIT"
    check(src, isa.NUM_PARAMS + 1, 1, "at most 16 parameters")
    check(".param tid, 1\nEXIT", 1, 8, "would shadow the special register %tid")
    check(".param n, 1\n.param n, 2\nEXIT", 2, 8, "duplicate parameter name 'n'")


def test_all_errors_are_collected_in_order_and_capped() -> None:
    errs = errors("ADD r1\nBOGUS\nEXIT\nMVI r1, 99999\n.grid 0")
    assert [(e.line, e.col) for e in errs] == [(1, 1), (2, 1), (4, 9), (5, 7)]
    with pytest.raises(AsmErrors) as exc:
        assemble("MVI r1, 99999\n" * 60, "k.s")
    assert len(exc.value.errors) == 50 and exc.value.suppressed == 10
    lines = str(exc.value).splitlines()
    assert len(lines) == 51 and lines[0].startswith("k.s:1:9: error:") and "10 more" in lines[-1]
    assert isinstance(exc.value, AsmError) and (exc.value.line, exc.value.col) == (1, 9)


def test_one_error_per_statement_keeps_addresses() -> None:
    # a bad statement still takes its place, so later labels stay where they belong
    errs = errors("BOGUS\nLI r1, 1/0\nBRA end\nend: EXIT")
    assert [e.line for e in errs] == [1, 2]


# ---- files and CLI --------------------------------------------------------------------------------
def test_assemble_file_and_hex_roundtrip(tmp_path: Path) -> None:
    src = tmp_path / "vecadd.s"
    src.write_text(VECADD)
    p = assemble_file(src)
    assert isinstance(p, Program) and p.source[0].file == str(src)
    out = tmp_path / "vecadd.hex"
    assert main([str(src), "-o", str(out)]) == 0
    assert LaunchImage.read_hex(out) == p.image
    assert sorted(f.name for f in tmp_path.iterdir()) == ["vecadd.hex", "vecadd.s"]  # no temp files left


def test_cli_writes_nothing_on_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.s"
    bad.write_text("EXIT\nADD r1, r2\nMVI r1, nope\n")
    out = tmp_path / "bad.hex"
    assert main([str(bad), "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{bad}:2:1: error: ADD takes 3") and err[1].startswith(f"{bad}:3:9: error:")
    out.write_text("stale but precious\n")
    assert main([str(bad), "-o", str(out)]) == 1
    assert out.read_text() == "stale but precious\n"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["bad.hex", "bad.s"]  # no temp files left


def test_cli_listing_and_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "k.s"
    src.write_text("top: LI r1, 0x12345678\n BRA top\n")
    assert main([str(src), "--listing"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3
    assert out[0].split()[:3] == ["0:", f"{E('LUI', rd=1, imm=0x1234):08x}", "LUI"]
    assert out[2].split()[:4] == ["2:", f"{E('BRA', imm=0):08x}", "BRA", "top"] and out[2].endswith(
        "; BRA top"
    )
    assert main([str(tmp_path / "missing.s")]) == 2
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


def test_cli_as_module(tmp_path: Path) -> None:
    src = tmp_path / "k.s"
    src.write_text("EXIT\n")
    out = tmp_path / "k.hex"
    run = subprocess.run(
        [sys.executable, "-m", "spec.asm", str(src), "-o", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert LaunchImage.read_hex(out).code == [E("EXIT")]
    src.write_text("EXIT r1\n")
    run = subprocess.run(
        [sys.executable, "-m", "spec.asm", str(src)], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 1 and "error: EXIT takes 0 operand(s)" in run.stderr


def test_docs_example_assembles() -> None:
    doc = (ROOT / "docs" / "assembler.md").read_text()
    example = doc.split("## Example")[1].split("```")[1]
    p = assemble(example, "docs/assembler.md")
    assert p.image.code == assemble(VECADD).image.code
