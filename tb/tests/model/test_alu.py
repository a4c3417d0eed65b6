"""ALU instructions (docs/isa.md sections 1, 2 "Immediate forms", 3 table and 3.1).

Expected values are computed by ``kit.alu_ref`` (plain Python ints written from the spec prose) or
written down by hand from the spec text. Every operand differs per lane so lanes cannot be mixed up.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spec import isa
from spec.config import GpuConfig
from tb.tests.model import kit
from tb.tests.model.kit import M32

A_BASE, B_BASE, C_BASE, OUT_BASE, STRIDE = 0, 1024, 2048, 3072, 1024


def op_line(mn: str, imm16: int | None = None) -> str:
    """Assembly of one ALU instruction writing r4 from r1 (a), r2 (b), r3 (c) or an immediate."""
    if mn in kit.R3_OPS:
        return f"{mn} r4, r1, r2"
    if mn == "MAD":
        return "MAD r4, r1, r2, r3"
    if mn == "NOT":
        return "NOT r4, r1"
    if mn == "MV":
        return "MV r4, r1"
    if mn == "MVI":
        return f"MVI r4, {kit.sext16(imm16 or 0)}"
    if mn == "LUI":
        return f"LUI r4, {(imm16 or 0) & 0xFFFF}"
    if mn in kit.IMM_FORMS:
        return f"{mn} r4, r1, {kit.imm_asm(mn, imm16 or 0)}"
    raise KeyError(mn)


def run_ops(
    ops: list[tuple[str, int | None]],
    a: list[int],
    b: list[int],
    c: list[int] | None = None,
    cfg: GpuConfig | None = None,
) -> list[list[int]]:
    """Run every (mnemonic, imm16) of ``ops`` on threads 0..n-1 with operands a[t], b[t], c[t].

    Returns, per op, the list of r4 per thread, read from global memory; also checks that each op's
    retire record reports the same per-lane values (docs/isa.md section 10)."""
    n = len(a)
    c = c if c is not None else [0] * n
    lines = [
        ".regs 8",
        "LDS r0, %tid",
        f"LDG r1, [r0 + {A_BASE}]",
        f"LDG r2, [r0 + {B_BASE}]",
        f"LDG r3, [r0 + {C_BASE}]",
        f"ADDI r5, r0, {OUT_BASE}",
    ]
    for k, (mn, imm) in enumerate(ops):
        lines += [f"op{k}: {op_line(mn, imm)}", "STG [r5 + 0], r4", f"ADDI r5, r5, {STRIDE}"]
    lines.append("EXIT")
    src = "\n".join(lines)
    cfg = cfg or GpuConfig()
    m, _ = kit.launch(src, cfg, block=(n, 1, 1), data=[(A_BASE, a), (B_BASE, b), (C_BASE, c)])
    res = m.run()
    lab = kit.labels(src)
    W = cfg.warp_size
    out = []
    for k in range(len(ops)):
        got = kit.gmem(res, OUT_BASE + k * STRIDE, n)
        out.append(got)
        recs = [r for r in m.log if r.pc == lab[f"op{k}"]]
        assert len(recs) == -(-n // W), "each warp retires the instruction once"
        for r in recs:
            assert r.rd == 4
            for lane in kit.lanes_of(r.mask):
                assert int(r.values[lane]) == got[r.warp * W + lane], (ops[k], r.warp, lane)
    return out


def check_ops(ops, a, b, c=None, cfg=None) -> None:
    results = run_ops(ops, a, b, c, cfg)
    c = c if c is not None else [0] * len(a)
    for (mn, imm), got in zip(ops, results):
        exp = [kit.alu_ref(mn, a[t], b[t], c[t], imm16=imm) for t in range(len(a))]
        bad = [(t, hex(a[t]), hex(b[t]), hex(got[t]), hex(exp[t])) for t in range(len(a)) if got[t] != exp[t]]
        assert not bad, f"{mn} imm={imm}: (thread, a, b, got, expected) {bad[:4]}"


# ---------------------------------------------------------------------------------------------
# Hand-written expectations (the spec sentence each one checks is quoted above it)
# ---------------------------------------------------------------------------------------------
# (mnemonic, a, b, c or imm16 for I forms, expected)
WRITTEN = [
    # "ADD, SUB, MUL, MAD wrap modulo 2^32; MUL/MAD keep the low 32 bits of the product."
    ("ADD", 0xFFFF_FFFF, 1, None, 0),
    ("ADD", 0x7FFF_FFFF, 1, None, 0x8000_0000),
    ("ADD", 0x8000_0000, 0x8000_0000, None, 0),
    ("SUB", 0, 1, None, 0xFFFF_FFFF),
    ("SUB", 0x8000_0000, 1, None, 0x7FFF_FFFF),
    ("SUB", 5, 7, None, 0xFFFF_FFFE),
    ("MUL", 0x1_0000, 0x1_0000, None, 0),
    ("MUL", 0xFFFF_FFFF, 0xFFFF_FFFF, None, 1),
    ("MUL", 0x8000_0000, 3, None, 0x8000_0000),
    ("MUL", 0x7FFF_FFFF, 2, None, 0xFFFF_FFFE),
    ("MAD", 0xFFFF_FFFF, 2, 3, 1),
    ("MAD", 3, 5, 7, 22),  # ra*rb + rc, not rc*rb + ra (38) or ra*rc + rb (26)
    ("MAD", 0x1_0000, 0x1_0000, 0xFFFF_FFFF, 0xFFFF_FFFF),
    # "MULHU returns bits 63...32 of the unsigned 64-bit product."
    ("MULHU", 0xFFFF_FFFF, 0xFFFF_FFFF, None, 0xFFFF_FFFE),
    ("MULHU", 0x8000_0000, 2, None, 1),
    ("MULHU", 0x1_0000, 0x1_0000, None, 1),
    ("MULHU", 0xFFFF_FFFF, 1, None, 0),
    ("MULHU", 0x8000_0000, 0x8000_0000, None, 0x4000_0000),  # unsigned: not the signed high half
    # "SLT/SGT/MIN/MAX compare as signed; SLTU/SGTU/MINU/MAXU as unsigned"
    ("SLT", 0x8000_0000, 1, None, 1),
    ("SLTU", 0x8000_0000, 1, None, 0),
    ("SLT", 0xFFFF_FFFF, 0, None, 1),
    ("SLTU", 0xFFFF_FFFF, 0, None, 0),
    ("SLT", 5, 5, None, 0),
    ("SGT", 0x7FFF_FFFF, 0x8000_0000, None, 1),
    ("SGTU", 0x7FFF_FFFF, 0x8000_0000, None, 0),
    ("SGT", 0, 0xFFFF_FFFF, None, 1),
    ("SGTU", 0, 0xFFFF_FFFF, None, 0),
    ("MIN", 0xFFFF_FFFF, 1, None, 0xFFFF_FFFF),
    ("MINU", 0xFFFF_FFFF, 1, None, 1),
    ("MAX", 0xFFFF_FFFF, 1, None, 1),
    ("MAXU", 0xFFFF_FFFF, 1, None, 0xFFFF_FFFF),
    ("MIN", 0x8000_0000, 0x7FFF_FFFF, None, 0x8000_0000),
    ("MAX", 0x8000_0000, 0x7FFF_FFFF, None, 0x7FFF_FFFF),
    ("MINU", 0x8000_0000, 0x7FFF_FFFF, None, 0x7FFF_FFFF),
    ("MAXU", 0x8000_0000, 0x7FFF_FFFF, None, 0x8000_0000),
    # "SEQ/SNE compare bit patterns. Compares write 1 (true) or 0 (false)."
    ("SEQ", 0xFFFF_FFFF, 0xFFFF_FFFF, None, 1),
    ("SEQ", 0x8000_0000, 0, None, 0),
    ("SNE", 0x8000_0000, 0, None, 1),
    ("SNE", 7, 7, None, 0),
    # "Shifts take the whole 32-bit shift amount (no masking to 5 bits)"
    ("SHL", 1, 0, None, 1),
    ("SHL", 1, 31, None, 0x8000_0000),
    ("SHL", 1, 32, None, 0),
    ("SHL", 1, 33, None, 0),  # masked to 5 bits this would be 2
    ("SHL", 0xFFFF_FFFF, 64, None, 0),  # masked: 0xFFFFFFFF
    ("SHL", 0xFFFF_FFFF, 0xFFFF_FFFF, None, 0),
    ("SHL", 3, 0x8000_0001, None, 0),
    ("SHL", 0x8000_0001, 1, None, 2),
    ("SHR", 0x8000_0000, 0, None, 0x8000_0000),
    ("SHR", 0x8000_0000, 31, None, 1),
    ("SHR", 0x8000_0000, 32, None, 0),
    ("SHR", 0xFFFF_FFFF, 33, None, 0),
    ("SHR", 0xFFFF_FFFF, 0xFFFF_FFFF, None, 0),
    ("SHR", 0xFFFF_FFFF, 0xFFFF_FFE0, None, 0),  # low 5 bits zero: masked would be 0xFFFFFFFF
    ("SHR", 0xF000_0000, 4, None, 0x0F00_0000),  # logical: zero fill
    ("SRA", 0x8000_0000, 0, None, 0x8000_0000),
    ("SRA", 0x8000_0000, 4, None, 0xF800_0000),
    ("SRA", 0x8000_0000, 31, None, 0xFFFF_FFFF),
    ("SRA", 0x8000_0000, 32, None, 0xFFFF_FFFF),
    ("SRA", 0x8000_0001, 33, None, 0xFFFF_FFFF),
    ("SRA", 0xFFFF_FFFE, 0xFFFF_FFFF, None, 0xFFFF_FFFF),
    ("SRA", 0x8000_0000, 64, None, 0xFFFF_FFFF),
    ("SRA", 0x7FFF_FFFF, 30, None, 1),
    ("SRA", 0x7FFF_FFFF, 31, None, 0),
    ("SRA", 0x7FFF_FFFF, 32, None, 0),
    ("SRA", 0x7FFF_FFFF, 0xFFFF_FFFF, None, 0),
    ("SRA", 0x4000_0000, 33, None, 0),
    # bitwise
    ("AND", 0xF0F0_F0F0, 0xFF00_FF00, None, 0xF000_F000),
    ("OR", 0xF0F0_F0F0, 0x0F0F_0000, None, 0xFFFF_F0F0),
    ("XOR", 0xFFFF_FFFF, 0x1234_5678, None, 0xEDCB_A987),
    ("NOT", 0, None, None, 0xFFFF_FFFF),
    ("NOT", 0x8000_0001, None, None, 0x7FFF_FFFE),
    ("MV", 0xDEAD_BEEF, None, None, 0xDEAD_BEEF),
    # Immediate forms: "sign-extended, except for AND, OR, XOR, SHL, SHR and SRA (zero-extended)"
    ("ANDI", 0xFFFF_FFFF, None, 0xFFFF, 0x0000_FFFF),
    ("ANDI", 0xFFFF_FFFF, None, 0x8000, 0x0000_8000),
    ("ORI", 0, None, 0x8000, 0x0000_8000),
    ("ORI", 0x1234_0000, None, 0xFFFF, 0x1234_FFFF),
    ("XORI", 0xFFFF_FFFF, None, 0xFFFF, 0xFFFF_0000),
    ("ADDI", 5, None, 0xFFFF, 4),  # -1 sign-extended
    ("ADDI", 0, None, 0xFFFF, 0xFFFF_FFFF),
    ("ADDI", 0x7FFF_FFFF, None, 1, 0x8000_0000),
    ("ADDI", 0, None, 0x8000, 0xFFFF_8000),
    ("SUBI", 0, None, 0xFFFF, 1),
    ("SUBI", 0, None, 1, 0xFFFF_FFFF),
    ("MULI", 3, None, 0xFFFE, 0xFFFF_FFFA),
    ("MULI", 0x8000_0000, None, 2, 0),
    ("SLTI", 0xFFFF_FFFE, None, 0xFFFF, 1),  # -2 < -1
    ("SLTI", 0, None, 0xFFFF, 0),  # 0 < -1 is false
    ("SGTI", 0, None, 0xFFFF, 1),
    ("SLTUI", 5, None, 0xFFFF, 1),  # 5 < 0xFFFFFFFF unsigned (sign-extended immediate)
    ("SLTUI", 0x1_0000, None, 0xFFFF, 1),  # zero-extended this would be 0
    ("SGTUI", 0xFFFF_FFFF, None, 0xFFFF, 0),
    ("SGTUI", 0x1_0000, None, 0xFFFF, 0),  # zero-extended this would be 1
    ("SEQI", 0xFFFF_FFFF, None, 0xFFFF, 1),
    ("SEQI", 0x0000_FFFF, None, 0xFFFF, 0),
    ("SNEI", 0x0000_FFFF, None, 0xFFFF, 1),
    ("MINI", 0, None, 0xFFFB, 0xFFFF_FFFB),  # min(0, -5)
    ("MAXI", 0, None, 0xFFFB, 0),
    ("MINUI", 0, None, 0xFFFB, 0),
    ("MAXUI", 0, None, 0xFFFB, 0xFFFF_FFFB),
    ("MAXUI", 0x1_0000, None, 0xFFFF, 0xFFFF_FFFF),
    ("SHLI", 1, None, 31, 0x8000_0000),
    ("SHLI", 1, None, 32, 0),
    ("SHLI", 1, None, 33, 0),
    ("SHLI", 7, None, 0, 7),
    ("SHRI", 0x8000_0000, None, 31, 1),
    ("SHRI", 0x8000_0000, None, 0xFFFF, 0),
    ("SRAI", 0x8000_0000, None, 0xFFFF, 0xFFFF_FFFF),
    ("SRAI", 0x8000_0000, None, 32, 0xFFFF_FFFF),
    ("SRAI", 0x8000_0000, None, 4, 0xF800_0000),
    ("SRAI", 0x7FFF_FFFF, None, 0xFFFF, 0),
    ("MULHUI", 2, None, 0xFFFF, 1),  # 2 * 0xFFFFFFFF >> 32 (zero-extended it would be 0)
    ("MULHUI", 0x8000_0000, None, 4, 2),
    # "MVI writes the sign-extended immediate, LUI writes imm16 << 16"
    ("MVI", None, None, 0xFFFF, 0xFFFF_FFFF),
    ("MVI", None, None, 0x8000, 0xFFFF_8000),
    ("MVI", None, None, 0x7FFF, 0x0000_7FFF),
    ("LUI", None, None, 0xFFFF, 0xFFFF_0000),
    ("LUI", None, None, 0x0001, 0x0001_0000),
    ("LUI", None, None, 0x8000, 0x8000_0000),
]


def test_written_down_values_from_spec() -> None:
    """One thread per case; the expected value is the one written in WRITTEN (not computed)."""
    ops, a, b, c = [], [], [], []
    for mn, _x, _y, z, _ in WRITTEN:
        imm = z if mn in kit.IMM_FORMS or mn in ("MVI", "LUI") else None
        ops.append((mn, imm))
    # All cases in one kernel would need one thread per case per op; instead run each case in its
    # own lane: lanes differ in operands, the kernel runs every case's op for every lane.
    n = len(WRITTEN)
    for mn, x, y, z, _ in WRITTEN:
        a.append(x or 0)
        b.append(y or 0)
        c.append(z if mn == "MAD" else 0)
    results = run_ops(ops, a, b, c)
    bad = []
    for k, (mn, x, y, z, exp) in enumerate(WRITTEN):
        got = results[k][k]  # case k's op in case k's thread
        if got != exp:
            bad.append(f"{mn} a={x!r} b={y!r} c/imm={z!r}: got 0x{got:08x}, spec says 0x{exp:08x}")
    assert not bad, "\n".join(bad)
    assert n == len(results)


def test_written_table_agrees_with_reference() -> None:
    """Guards the reference implementation in kit against the hand-written table."""
    for mn, x, y, z, exp in WRITTEN:
        imm = z if mn in kit.IMM_FORMS or mn in ("MVI", "LUI") else None
        assert kit.alu_ref(mn, x or 0, y or 0, z if mn == "MAD" else 0, imm16=imm) == exp, (mn, x, y, z)


ALL_BINARY = [(mn, None) for mn in kit.R3_OPS] + [("MAD", None), ("NOT", None), ("MV", None)]


def test_boundary_pairs_all_register_ops() -> None:
    """Every register ALU op on every pair of boundary values (0, 1, 0x7FFFFFFF, 0x80000000, ...)."""
    pairs = [(x, y) for x in kit.BOUNDARY for y in kit.BOUNDARY]
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    c = [(x * 7 + y) & M32 for x, y in pairs]
    check_ops(ALL_BINARY, a, b, c)


SHIFT_AMOUNTS = [0, 1, 4, 30, 31, 32, 33, 63, 64, 0x100, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFE0, 0xFFFF_FFFF]
SHIFT_VALUES = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFF, 0xC000_0003]


def test_shift_amounts_whole_word() -> None:
    pairs = [(x, s) for x in SHIFT_VALUES for s in SHIFT_AMOUNTS]
    check_ops([("SHL", None), ("SHR", None), ("SRA", None)], [x for x, _ in pairs], [s for _, s in pairs])


def test_sra_of_negative_by_32_or_more_is_all_ones() -> None:
    amounts = [32, 33, 40, 63, 64, 1000, 0x8000_0000, 0xFFFF_FFFF]
    negatives = [0x8000_0000, 0xFFFF_FFFF, 0x8765_4321, 0xC000_0000]
    pairs = [(x, s) for x in negatives for s in amounts]
    (res,) = run_ops([("SRA", None)], [x for x, _ in pairs], [s for _, s in pairs])
    assert res == [0xFFFF_FFFF] * len(pairs)
    (res,) = run_ops([("SRA", None)], [x & 0x7FFF_FFFF for x, _ in pairs], [s for _, s in pairs])
    assert res == [0] * len(pairs)


@pytest.mark.parametrize("imm16", [0, 1, 31, 32, 33, 0x7FFF, 0x8000, 0xFFFF])
def test_immediate_forms_boundary(imm16: int) -> None:
    """Every immediate ALU form with one immediate against every boundary operand."""
    a = list(kit.BOUNDARY) * 2
    check_ops([(mn, imm16) for mn in kit.IMM_FORMS], a, [0] * len(a))


u32s = st.one_of(st.sampled_from(kit.BOUNDARY), st.integers(0, M32), st.integers(0, 70))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a=st.lists(u32s, min_size=32, max_size=32),
    b=st.lists(u32s, min_size=32, max_size=32),
    c=st.lists(u32s, min_size=32, max_size=32),
    imms=st.lists(
        st.integers(0, 0xFFFF) | st.sampled_from([0, 1, 31, 32, 33, 0x8000, 0xFFFF]),
        min_size=len(kit.IMM_FORMS) + 2,
        max_size=len(kit.IMM_FORMS) + 2,
    ),
)
def test_random_operands_every_alu_op(a, b, c, imms) -> None:
    """Property: every ALU op (register, immediate, MVI, LUI), 32 lanes with independent operands,
    equals the plain-int spec reference per lane."""
    ops = list(ALL_BINARY)
    ops += [(mn, imms[k]) for k, mn in enumerate(kit.IMM_FORMS)]
    ops += [("MVI", imms[-2]), ("LUI", imms[-1])]
    check_ops(ops, a, b, c)


@pytest.mark.parametrize(
    "value",
    [
        0,
        1,
        0x7FFF,
        0x8000,
        0xFFFF,
        0x1_0000,
        0x1234_5678,
        0x8000_0000,
        0xFFFF_8000,
        0xFFFF_FFFF,
        -1,
        -32768,
        -32769,
        0xDEAD_0000,
        0x0000_BEEF,
    ],
)
def test_li_pseudo_builds_any_constant(value: int) -> None:
    """ "LUI + ORI builds any 32-bit constant; the assembler's LI does this"."""
    res = kit.run(f"LI r1, {value}\nSTG [r0 + 8], r1\nEXIT", block=1)
    assert kit.gmem(res, 8, 1) == [value & M32]


def test_inactive_lanes_registers_unchanged() -> None:
    """ "All ALU instructions execute per active thread; inactive threads' registers are unchanged.\""""
    src = """
        .regs 8
        LDS r0, %tid
        ANDI r1, r0, 1
        MVI r4, 0x55
        SSY join
        BEQ r1, join        ; even threads wait at join
    alu: ADDI r4, r0, 1000  ; odd threads only
        NOT r5, r0
    join:
        STG [r0 + 0], r4
        STG [r0 + 64], r5
        EXIT
    """
    m, _ = kit.launch(src)
    res = m.run()
    odd = kit.mask_of(range(1, 32, 2))
    assert kit.gmem(res, 0, 32) == [1000 + t if t & 1 else 0x55 for t in range(32)]
    assert kit.gmem(res, 64, 32) == [~t & M32 if t & 1 else 0 for t in range(32)]
    (rec,) = [r for r in m.log if r.pc == kit.labels(src)["alu"]]
    assert rec.mask == odd
    assert [int(v) for v in rec.values] == [1000 + t if t & 1 else 0x55 for t in range(32)]


def test_nop_retires_with_mask_counts_as_alu_and_writes_nothing() -> None:
    """ "NOP does nothing but still retires (with its active mask) and counts as an ALU instruction.\""""
    src = """
        .regs 4
        LDS r0, %tid
        MVI r1, 77
        SSY j
        SLTI r2, r0, 5
        BEQ r2, j
    nop: NOP
    j:  STG [r0 + 0], r1
        STG [r0 + 32], r2
        STG [r0 + 64], r3
        EXIT
    """
    m, _ = kit.launch(src, block=20)
    res = m.run()
    (rec,) = [r for r in m.log if r.pc == kit.labels(src)["nop"]]
    assert rec.mnemonic == "NOP"
    assert rec.mask == kit.full(5)
    assert rec.rd is None and rec.mem is None
    # the NOP's next pc is the rpc: the SYNC is popped after it (rule 3) and all 20 threads rejoin
    assert [(e.action, e.kind, e.pc, e.mask) for e in rec.stack] == [
        ("pop", "SYNC", kit.labels(src)["j"], kit.full(20))
    ]
    assert rec.next_pc == kit.labels(src)["j"] and rec.next_mask == kit.full(20)
    assert kit.gmem(res, 0, 20) == [77] * 20
    assert kit.gmem(res, 32, 20) == [int(t < 5) for t in range(20)]
    assert kit.gmem(res, 64, 20) == [0] * 20
    c = res.counters
    # ALU class: MVI, SLTI, NOP
    assert c.warp_by_class["alu"] == 3
    assert c.thread_by_class["alu"] == 20 + 20 + 5


def test_registers_read_zero_at_block_start() -> None:
    """ "Every register of every thread reads as 0 when its block starts." Blocks run one after the
    other on one SM slot; a register leaking from the previous block would show."""
    src = """
        .regs 32
        ADD r3, r2, r31
        OR r3, r3, r30
        LDS r1, %ctaid.x
        STG [r1 + 0], r3
        LI r2, 0x1111
        LI r31, 0x2222
        LI r30, 0x4444
        EXIT
    """
    cfg = GpuConfig(num_blocks=1)
    res = kit.run(src, cfg, grid=6, block=40, data=[(0, [0xDEAD] * 6)])
    assert kit.gmem(res, 0, 6) == [0] * 6


def test_all_32_registers_zero_and_distinct() -> None:
    """With 32 registers per thread, r0..r31 read 0 at start and are 32 distinct registers."""
    lines = [".regs 32"]
    lines += [f"STG [r0 + {100 + k}], r{k}" for k in range(32)]  # r0 is 0, so the base is 0
    lines += [f"ADDI r{k}, r{k}, {k + 1}" for k in range(32)]
    lines += [f"STG [r0 + {200 + k - 1}], r{k}" for k in range(32)]  # r0 is now 1
    lines.append("EXIT")
    res = kit.run("\n".join(lines), block=1, data=[(100, [0xBAD] * 32)])
    assert kit.gmem(res, 100, 32) == [0] * 32
    assert kit.gmem(res, 200, 32) == [k + 1 for k in range(32)]


def test_mad_operand_fields_follow_seed_layout() -> None:
    """RMAD: "ra in f2, rb in f3, rc in f1"; RMUL: "ra in f2, rb in f3"; RNOT: "ra in f2"; R3: ra in
    f1, rb in f2. Words built by field with isa.encode, executed, and checked against the spec."""
    code = [
        isa.encode("LDS", rd=0, f1=isa.SREGS["tid"]),
        isa.encode("ADDI", rd=1, f1=0, imm=3),  # r1 = tid + 3
        isa.encode("ADDI", rd=2, f1=0, imm=5),  # r2 = tid + 5
        isa.encode("ADDI", rd=3, f1=0, imm=100),  # r3 = tid + 100
        isa.encode("MAD", rd=4, f1=3, f2=1, f3=2),  # r4 = r1 * r2 + r3
        isa.encode("SUB", rd=5, f1=3, f2=1),  # r5 = r3 - r1
        isa.encode("NOT", rd=6, f2=2),  # r6 = ~r2
        isa.encode("MUL", rd=7, f2=1, f3=3),  # r7 = r1 * r3
        isa.encode("STG", f1=0, f2=4, imm=0),
        isa.encode("STG", f1=0, f2=5, imm=32),
        isa.encode("STG", f1=0, f2=6, imm=64),
        isa.encode("STG", f1=0, f2=7, imm=96),
        isa.encode("EXIT"),
    ]
    res = kit.make_model(kit.image_of("EXIT", code=code, regs=8)).run()
    t = range(32)
    assert kit.gmem(res, 0, 32) == [((i + 3) * (i + 5) + i + 100) & M32 for i in t]
    assert kit.gmem(res, 32, 32) == [97] * 32
    assert kit.gmem(res, 64, 32) == [~(i + 5) & M32 for i in t]
    assert kit.gmem(res, 96, 32) == [(i + 3) * (i + 100) for i in t]


def test_assembler_encodes_mad_operands_per_spec_layout() -> None:
    """The assembler writes `MAD rd, ra, rb, rc` with ra in f2, rb in f3, rc in f1 (section 2)."""
    (w,) = kit.program("MAD r4, r1, r2, r3").image.code
    assert (
        isa.get_field(w, "rd"),
        isa.get_field(w, "f2"),
        isa.get_field(w, "f3"),
        isa.get_field(w, "f1"),
    ) == (4, 1, 2, 3)


@pytest.mark.parametrize("warp_size,num_lanes", [(32, 4), (32, 16), (32, 32), (16, 8), (8, 8), (4, 4)])
def test_alu_independent_of_warp_and_lane_configuration(warp_size: int, num_lanes: int) -> None:
    cfg = GpuConfig(warp_size=warp_size, num_lanes=num_lanes)
    n = 40
    a = [(0x9E37_79B9 * (t + 1)) & M32 for t in range(n)]
    b = [(t * 5 + 29) % 40 for t in range(n)]
    check_ops(ALL_BINARY + [("SRAI", 33), ("ADDI", 0xFFFF)], a, b, [t * 3 for t in range(n)], cfg)
