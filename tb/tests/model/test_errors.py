"""Kernel errors (docs/isa.md section 7) and instruction legality (section 2 "Encoding", 3.4):
ILLEGAL_INSTRUCTION, PC_OUT_OF_RANGE, BAD_REGISTER, INSTRUCTION_BUDGET, each naming block, warp and pc
(lane only where one is responsible). Legality is judged against the format table and the opcode
table parsed from docs/isa.md itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spec import isa
from spec.model import ErrorKind, KernelError
from tb.tests.model import kit

SPEC = (Path(__file__).resolve().parents[3] / "docs" / "isa.md").read_text()

# Section 2 bit layout and format table, transcribed from the spec.
BITS = {
    "op": (26, 6),
    "rd": (21, 5),
    "f1": (16, 5),
    "f2": (11, 5),
    "f3": (6, 5),
    "func": (0, 6),
    "imm16": (0, 16),
    "imm11": (0, 11),
}
FORMAT_FIELDS = {
    "NONE": ("op", "func"),
    "R3": ("op", "rd", "f1", "f2", "func"),
    "RMUL": ("op", "rd", "f2", "f3", "func"),
    "RMAD": ("op", "rd", "f1", "f2", "f3", "func"),
    "RNOT": ("op", "rd", "f2", "func"),
    "MV": ("op", "rd", "f1"),
    "IMM": ("op", "rd", "imm16"),
    "RI": ("op", "rd", "f1", "imm16"),
    "LOAD": ("op", "rd", "f1", "imm16"),
    "SREG": ("op", "rd", "f1"),
    "BRANCH": ("op", "f1", "imm16"),
    "STORE": ("op", "f1", "f2", "imm11"),
    "TARGET": ("op", "imm16"),
    "CTRL": ("op",),
}
REG_FIELDS_USED = {"rd", "f1", "f2", "f3"}


def spec_opcode_table() -> dict[str, tuple[int, int | None, str, str]]:
    """mnemonic -> (opcode, func, format, class) from the section 3 table of docs/isa.md."""
    rows = {}
    for line in SPEC.splitlines():
        m = re.match(r"^\| (\w+) \| (0x[0-9a-f]+) \| (0x[0-9a-f]+)? ?\| (\w+) \| (\w+) \|", line)
        if m and m.group(1) != "mnemonic":
            rows[m.group(1)] = (
                int(m.group(2), 16),
                int(m.group(3), 16) if m.group(3) else None,
                m.group(4),
                m.group(5),
            )
    return rows


TABLE = spec_opcode_table()


def used_mask(fmt: str) -> int:
    m = 0
    for f in FORMAT_FIELDS[fmt]:
        lsb, w = BITS[f]
        m |= ((1 << w) - 1) << lsb
    return m


def spec_legal(word: int) -> str | None:
    """The mnemonic of a legal word per the spec, or None for an illegal instruction."""
    op, func = word >> 26, word & 0x3F
    for mn, (opcode, fn, fmt, _) in TABLE.items():
        if opcode == op and (opcode != 0 or fn == func):
            return mn if word & ~used_mask(fmt) & kit.M32 == 0 else None
    return None


def test_spec_table_lists_every_op_of_isa_py() -> None:
    assert set(TABLE) == {op.mnemonic for op in isa.OPS}
    for op in isa.OPS:
        opcode, func, fmt, cls = TABLE[op.mnemonic]
        assert (op.opcode, op.func, op.fmt.name, op.unit.value) == (opcode, func, fmt, cls)


def test_immediate_forms_are_0x20_or_func_with_the_spec_extension() -> None:
    """ "Immediate forms (opcode 0x20 | func) exist for the register ALU operations listed in section 3.
    Their 16-bit immediate is sign-extended, except for AND, OR, XOR, SHL, SHR and SRA (zero-extended).\""""
    imm_forms = [mn for mn, (_, _, fmt, _) in TABLE.items() if fmt == "RI"]
    assert sorted(imm_forms) == sorted(kit.IMM_FORMS)
    for mn in imm_forms:
        base = mn[:-1]
        assert TABLE[mn][0] == 0x20 | TABLE[base][1], mn
        ext = "zero" if base in kit.ZERO_EXT_IMM else "sign"
        assert (
            f"({ext}-extended imm16)"
            in [line for line in SPEC.splitlines() if line.startswith(f"| {mn} |")][0]
        )


words = st.one_of(
    st.integers(0, kit.M32),
    # a legal instruction with one random extra bit (often a reserved one)
    st.tuples(st.sampled_from(isa.OPS), st.integers(0, 31)).map(lambda t: t[0].fixed_bits | (1 << t[1])),
    st.tuples(st.integers(0, 63), st.integers(0, 63)).map(lambda t: (t[0] << 26) | t[1]),
)


@settings(max_examples=400, deadline=None)
@given(word=words)
def test_lookup_legality_matches_spec(word: int) -> None:
    mn = spec_legal(word)
    if mn is None:
        with pytest.raises(isa.IllegalInstruction):
            isa.lookup(word)
    else:
        assert isa.lookup(word).mnemonic == mn


def run_word(word: int, *, regs: int = 32):
    m, _ = kit.launch(
        "EXIT",
        code=[word, isa.encode("EXIT")],
        regs=regs,
        shared_words=16,
        params=[1],
        consts=[5],
        block=64,
        grid=2,
    )
    m.start_block(1)
    m.step(1, 1)
    return m


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=words)
def test_model_executes_exactly_the_spec_legal_words(word: int) -> None:
    """Executing an illegal word is ILLEGAL_INSTRUCTION at its pc; a legal word is never reported
    illegal (it may fail otherwise, e.g. a memory access out of range)."""
    mn = spec_legal(word)
    try:
        run_word(word)
    except KernelError as e:
        if mn is None:
            assert (e.kind, e.block, e.warp, e.pc, e.lane) == (ErrorKind.ILLEGAL_INSTRUCTION, 1, 1, 0, None)
        else:
            assert e.kind is not ErrorKind.ILLEGAL_INSTRUCTION, f"0x{word:08x} ({mn}) is legal"
        return
    assert mn is not None, f"0x{word:08x} is illegal per the spec but executed"


ILLEGAL_EXAMPLES = {
    "unassigned_opcode_0x0d": 0x0D << 26,
    "unassigned_opcode_0x1f": 0x1F << 26,
    "nop_immediate_0x20": 0x20 << 26,
    "mad_immediate_0x21": 0x21 << 26,
    "not_immediate_0x29": 0x29 << 26,
    "unassigned_opcode_0x37": 0x37 << 26,
    "unassigned_opcode_0x3c": 0x3C << 26,
    "unassigned_func_0x17": 0x17,
    "unassigned_func_0x3f": 0x3F,
    "nop_with_rd": isa.encode("NOP") | (1 << 21),
    "add_with_f3": isa.encode("ADD", rd=1, f1=2, f2=3) | (1 << 6),
    "mul_with_f1": isa.encode("MUL", rd=1, f2=2, f3=3) | (1 << 16),
    "not_with_f1": isa.encode("NOT", rd=1, f2=2) | (5 << 16),
    "not_with_f3": isa.encode("NOT", rd=1, f2=2) | (1 << 10),
    "mv_with_f2": isa.encode("MV", rd=1, f1=2) | (1 << 11),
    "mv_with_func": isa.encode("MV", rd=1, f1=2) | 1,
    "mvi_with_f1": isa.encode("MVI", rd=1, imm=5) | (1 << 16),
    "lds_with_low_bits": isa.encode("LDS", rd=1, f1=0) | 1,
    "beq_with_rd": isa.encode("BEQ", f1=1, imm=0) | (1 << 21),
    "st_with_rd": isa.encode("ST", f1=1, f2=2) | (1 << 25),
    "stg_with_rd": isa.encode("STG", f1=1, f2=2) | (1 << 21),
    "ldc_ok_but_lds_with_f2": isa.encode("LDS", rd=1, f1=3) | (1 << 11),
    "bra_with_f1": isa.encode("BRA", imm=1) | (1 << 16),
    "ssy_with_rd": isa.encode("SSY", imm=1) | (1 << 21),
    "exit_with_bit0": isa.encode("EXIT") | 1,
    "bar_with_rd": isa.encode("BAR") | (1 << 21),
}


@pytest.mark.parametrize("word", ILLEGAL_EXAMPLES.values(), ids=ILLEGAL_EXAMPLES.keys())
def test_illegal_instruction_examples(word: int) -> None:
    assert spec_legal(word) is None
    with pytest.raises(KernelError) as ei:
        run_word(word)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc, e.lane) == (ErrorKind.ILLEGAL_INSTRUCTION, 1, 1, 0, None)


def test_illegal_word_never_executed_is_no_error() -> None:
    """ "... is an illegal instruction (error ILLEGAL_INSTRUCTION when it is executed)"."""
    res = kit.run("MVI r1, 3\nSTG [r0 + 0], r1\nEXIT\n.illegal 0xFFFFFFFF\n.illegal 0x34000000", block=1)
    assert kit.gmem(res, 0, 1) == [3]


def test_illegal_in_a_divergent_path_reports_its_pc() -> None:
    src = """
            .regs 4
            LDS r0, %tid
            SLTI r1, r0, 3
            SSY j
            BEQ r1, j
    bad:    .illegal 0xFFFFFFFF
    j:      EXIT
    """
    with pytest.raises(KernelError) as ei:
        kit.run(src)
    assert (ei.value.kind, ei.value.pc) == (ErrorKind.ILLEGAL_INSTRUCTION, kit.labels(src)["bad"])


# ---------------------------------------------------------------------------------------------
# PC_OUT_OF_RANGE
# ---------------------------------------------------------------------------------------------
def test_falling_off_the_end() -> None:
    m, _ = kit.launch("LDS r1, %tid\nMVI r2, 1", block=40, grid=3)
    m.start_block(2)
    recs = []
    with pytest.raises(KernelError) as ei:
        recs += kit.run_warp(m, 2, 1)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc, e.lane) == (ErrorKind.PC_OUT_OF_RANGE, 2, 1, 2, None)
    assert [r.pc for r in m.log] == [0, 1]


@pytest.mark.parametrize("target", [2, 3, 100, 0xFFFF])
def test_branch_beyond_the_program(target: int) -> None:
    m, _ = kit.launch(f"BRA {target}\nEXIT")
    with pytest.raises(KernelError) as ei:
        m.run()
    assert (ei.value.kind, ei.value.pc) == (ErrorKind.PC_OUT_OF_RANGE, target)
    assert m.log[0].next_pc == target


def test_last_instruction_in_range() -> None:
    res = kit.run("BRA 2\nNOP\nEXIT")
    assert res.counters.warp_instrs == 2


# ---------------------------------------------------------------------------------------------
# BAD_REGISTER: "a register field >= registers per thread", in any field the format uses
# ---------------------------------------------------------------------------------------------
BAD_REG = [
    "MVI r4, 1",
    "LDS r4, %tid",
    "ADD r1, r4, r2",
    "ADD r1, r2, r5",
    "ADD r9, r2, r3",
    "MUL r1, r2, r7",
    "MUL r1, r7, r2",
    "MAD r1, r2, r3, r6",
    "NOT r1, r9",
    "MV r1, r31",
    "ADDI r1, r4, 3",
    "LD r1, [r4 + 0]",
    "LDG r4, [r0 + 0]",
    "LDC r1, [r4 + 0]",
    "ST [r0 + 0], r4",
    "STG [r5 + 0], r1",
    "BEQ r4, 0",
    "BNE r30, 0",
]


@pytest.mark.parametrize("line", BAD_REG)
def test_bad_register(line: str) -> None:
    src = f"LDS r0, %tid\nbad: {line}\nEXIT"
    m, _ = kit.launch(src, regs=4, block=64, shared_words=8, consts=[1])
    m.start_block(0)
    m.step(0, 1)
    with pytest.raises(KernelError) as ei:
        m.step(0, 1)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc, e.lane) == (ErrorKind.BAD_REGISTER, 0, 1, 1, None)


@pytest.mark.parametrize("line", ["LDS r1, %smid", "LDS r1, %param0", "LDS r1, %nctaid.z", "BRA 1", "SSY 1"])
def test_special_register_index_and_targets_are_not_registers(line: str) -> None:
    """SREG's f1 is a special-register index, not a register; target forms use no register."""
    src = f".param 9\n{line}\nEXIT"
    kit.run(src, regs=2)


def test_bad_register_only_when_executed() -> None:
    kit.run("EXIT\nMVI r20, 1\nADD r1, r25, r26", regs=2)


# ---------------------------------------------------------------------------------------------
# INSTRUCTION_BUDGET
# ---------------------------------------------------------------------------------------------
def test_infinite_loop_hits_budget() -> None:
    src = """
            .regs 2
            LDS r1, %tid
    loop:   ADDI r1, r1, 1
            BRA loop
    """
    m, _ = kit.launch(src, budget=51, block=64)
    m.start_block(0)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 0, 1)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.lane) == (ErrorKind.INSTRUCTION_BUDGET, 0, 1, None)
    assert len(m.log) == 51  # "exceeded": the 52nd warp-instruction is refused
    assert e.pc == 1  # LDS, then 25 x (ADDI, BRA): the 52nd would be the ADDI at pc 1


@pytest.mark.parametrize("budget,ok", [(7, True), (6, False)])
def test_budget_is_per_warp_and_exact(budget: int, ok: bool) -> None:
    src = ".regs 2\nNOP\nNOP\nNOP\nNOP\nNOP\nNOP\nEXIT"  # 7 warp-instructions per warp
    m, _ = kit.launch(src, budget=budget, block=96, grid=2)
    if ok:
        assert m.run().counters.warp_instrs == 7 * 3 * 2
    else:
        with pytest.raises(KernelError) as ei:
            m.run()
        assert (ei.value.kind, ei.value.pc) == (ErrorKind.INSTRUCTION_BUDGET, 6)
