"""Opcode coverage: every instruction of isa.OPS (the docs/isa.md section 3 table) is executed by a
kernel whose effect is checked against the spec, and the set of mnemonics the model actually retired
(recorded by kit.TracingModel) is asserted to contain every one of them. A new opcode without a
check here fails `make model`.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from spec import isa
from tb.tests.model import kit
from tb.tests.model.kit import M32

A = [(0x9E37_79B9 * (t + 3)) & M32 for t in range(32)]
B = [(t * 7 + 1) % 45 for t in range(32)]  # includes shift amounts >= 32
C = [(0x0101_0101 * t + 5) & M32 for t in range(32)]
IMM = 0x8123  # negative when sign-extended, large when zero-extended


def alu_check(mn: str) -> set[str]:
    op = isa.BY_MNEMONIC[mn]
    if op.fmt is isa.Fmt.NONE:
        line = "NOP"
    elif mn == "MAD":
        line = "MAD r4, r1, r2, r3"
    elif op.fmt in (isa.Fmt.RNOT, isa.Fmt.MV):
        line = f"{mn} r4, r1"
    elif op.fmt is isa.Fmt.IMM:
        line = f"{mn} r4, {kit.sext16(IMM) if mn == 'MVI' else IMM}"
    elif op.fmt is isa.Fmt.RI:
        line = f"{mn} r4, r1, {kit.imm_asm(mn, IMM)}"
    else:
        line = f"{mn} r4, r1, r2"
    src = f"""
        .regs 8
        LDS r0, %tid
        LDG r1, [r0 + 0]
        LDG r2, [r0 + 32]
        LDG r3, [r0 + 64]
        MVI r4, 0x55
    op: {line}
        STG [r0 + 96], r4
        EXIT
    """
    m, res = kit.run_model(src, data=[(0, A), (32, B), (64, C)])
    if mn == "NOP":
        exp = [0x55] * 32
    else:
        exp = [kit.alu_ref(mn, A[t], B[t], C[t], imm16=IMM) for t in range(32)]
    assert kit.gmem(res, 96, 32) == exp, mn
    (rec,) = [r for r in m.log if r.pc == kit.labels(src)["op"]]
    assert rec.mnemonic == mn
    return m.executed()


def check_memory() -> set[str]:
    src = """
        .regs 8
        .shared 64
        LDS r0, %tid
        LDC r1, [r0 + 1]            ; const[t + 1]
        ST [r0 + 0], r1
        ADDI r2, r0, 1
        ANDI r2, r2, 31
        LD r3, [r2 + 0]             ; shared[(t + 1) % 32] = const[(t + 1) % 32 + 1]
        LDG r4, [r0 + 100]
        ADD r3, r3, r4
        STG [r0 + 200], r3
        EXIT
    """
    consts = [1000 + k for k in range(33)]
    m, res = kit.run_model(src, consts=consts, data=[(100, list(range(32)))])
    assert kit.gmem(res, 200, 32) == [consts[(t + 1) % 32 + 1] + t for t in range(32)]
    return m.executed()


def check_control() -> set[str]:
    src = """
        .regs 4
        LDS r0, %tid
        ANDI r1, r0, 3
        SSY j
        BEQ r1, zero            ; t % 4 == 0
        BNE r1, nz              ; everybody else: uniform taken
        NOP
zero:   MVI r2, 1
        BRA j
nz:     MVI r2, 2
j:      BAR
        STG [r0 + 0], r2
        EXIT
    """
    m, res = kit.run_model(src, block=64)
    assert kit.gmem(res, 0, 64) == [1 if t % 4 == 0 else 2 for t in range(64)]
    return m.executed()


def check_for(mn: str) -> Callable[[], set[str]]:
    op = isa.BY_MNEMONIC[mn]
    if op.unit is isa.Unit.ALU:
        return lambda: alu_check(mn)
    if mn in ("LD", "ST", "LDC", "LDG", "STG"):
        return check_memory
    if mn in ("LDS", "BEQ", "BNE", "BRA", "SSY", "BAR", "EXIT"):
        return check_control
    raise AssertionError(f"no spec check executes {mn}: add one to {__name__}")


@pytest.mark.parametrize("op", isa.OPS, ids=lambda op: op.mnemonic)
def test_opcode_is_executed_with_its_spec_effect(op: isa.Op) -> None:
    executed = check_for(op.mnemonic)()
    assert op.mnemonic in executed


def test_executed_set_covers_every_opcode() -> None:
    executed: set[str] = set()
    for op in isa.OPS:
        executed |= check_for(op.mnemonic)()
    assert {op.mnemonic for op in isa.OPS} <= executed
    assert {op.mnemonic for op in isa.OPS} <= kit.EXECUTED
