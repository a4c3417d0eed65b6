"""The lanes' ALU-input events (ppa/aluactivity.py) follow the RTL's tokens: every row of a multi-row
instruction, one row of the others, r0 on an unused port, the immediate where the decoder puts it. Each
rule has a planted fault (the rule undone) that changes the count. Pure Python: well under 1 s."""

from __future__ import annotations

import numpy as np
import pytest

from ppa.activity import popcount
from ppa.aluactivity import NAMES, AluInputs
from spec.asm import assemble
from spec.model import _Instr

W, LANES = 4, 2  # 2 rows of 2 lanes


def _ins(text: str) -> _Instr:
    return _Instr(0, assemble(text + "\nEXIT").image.code[0], 8, W)


def _regs() -> np.ndarray:
    r = np.zeros((8, W), dtype=np.uint32)
    r[0] = [0x10, 0x20, 0x30, 0x40]  # r0: what unused ports read
    r[2] = [1, 2, 3, 4]
    r[3] = [0xF0, 0xF1, 0xF2, 0xF3]
    r[4] = [7, 7, 7, 7]
    return r


def _count(text: str, regs: np.ndarray | None = None, obs: AluInputs | None = None) -> dict[str, float]:
    obs = obs or AluInputs(W, LANES)
    ins = _ins(text)
    regs = _regs() if regs is None else regs
    obs.observe(ins, *(x.copy() for x in AluInputs.ports(ins, regs)))
    return obs.counts


def _flips(*rows: np.ndarray) -> int:
    """Flips of a per-lane bus that starts at 0 and carries *rows* in turn."""
    last, n = np.zeros(LANES, dtype=np.uint32), 0
    for r in rows:
        n += popcount(np.asarray(r, dtype=np.uint32) ^ last)
        last = np.asarray(r, dtype=np.uint32)
    return n


def test_every_row_of_a_multi_row_instruction_and_r0_on_the_unused_port(monkeypatch) -> None:
    r = _regs()
    c = dict(_count("ADD r1, r2, r3"))
    assert c["alu_a_hd"] == _flips(r[2][:2], r[2][2:])
    assert c["alu_b_hd"] == _flips(r[3][:2], r[3][2:])
    assert c["alu_c_hd"] == _flips(r[0][:2], r[0][2:]) > 0  # c unused: r0
    y = (r[2].astype(np.int64) + r[3]).astype(np.uint32)
    assert c["alu_y_hd"] == _flips(y[:2], y[2:])
    # planted: an unused port taken as silent (as ppa/activity.py's operand_hd does) changes the count
    real = AluInputs.ports
    monkeypatch.setattr(
        AluInputs, "ports", staticmethod(lambda i, g: (*real(i, g)[:2], np.zeros(W, np.uint32)))
    )
    assert _count("ADD r1, r2, r3")["alu_c_hd"] == 0 != c["alu_c_hd"]


def test_a_single_row_instruction_sends_row_0_only(monkeypatch) -> None:
    r = _regs()
    c = dict(_count("BRA end\nend: NOP"))  # BRA reads no register: a, b, c all r0, one token
    assert c["alu_a_hd"] == c["alu_b_hd"] == c["alu_c_hd"] == _flips(r[0][:2])
    # planted: every instruction sent as one token per row counts row 1 as well
    monkeypatch.setattr(AluInputs, "rows", lambda self, ins: W // LANES)
    assert _count("BRA end\nend: NOP")["alu_a_hd"] == _flips(r[0][:2], r[0][2:]) != c["alu_a_hd"]


def test_immediates_and_special_registers_follow_the_decoder() -> None:
    r = _regs()
    c = _count("ADDI r1, r2, 5")  # b is the immediate on every lane
    assert c["alu_b_hd"] == _flips([5, 5], [5, 5]) == 2 * LANES  # 0b101 on each lane, then held
    c = _count("LDS r1, %tid.x")  # f1 names a special register: every port reads r0
    assert c["alu_a_hd"] == _flips(r[0][:2], r[0][2:])
    c = _count("LDG r2, [r3 + 4]")  # the address adder: y = a + b
    y = (r[3].astype(np.int64) + 4).astype(np.uint32)
    assert c["alu_y_hd"] == _flips(y[:2], y[2:])


def test_consecutive_tokens_only_count_what_changes() -> None:
    obs = AluInputs(W, LANES)
    first = dict(_count("MAD r1, r2, r3, r4", obs=obs))
    again = _count("MAD r1, r2, r3, r4", obs=obs)  # row 1 -> row 0 -> row 1 again
    r = _regs()
    assert again["alu_c_hd"] == first["alu_c_hd"] == 3 * LANES  # r4 = 7 everywhere: 0 -> 7 once
    assert again["alu_a_hd"] - first["alu_a_hd"] == _flips(r[2][2:], r[2][:2], r[2][2:]) - _flips(r[2][2:])


def test_the_multiplier_weight_favours_low_bits() -> None:
    lo = np.zeros((8, W), dtype=np.uint32)
    hi = lo.copy()
    lo[2], hi[2] = 1, 1 << 31  # one bit flips on a per lane (then stays)
    c_lo, c_hi = _count("MUL r1, r2, r0", lo), _count("MUL r1, r2, r0", hi)
    assert c_lo["alu_a_hd"] == c_hi["alu_a_hd"] == LANES
    assert c_lo["alu_mul_hd"] == pytest.approx(LANES * 64 / 32)
    assert c_hi["alu_mul_hd"] == pytest.approx(LANES * 33 / 32)
    assert (c_lo["alu_a_lo_hd"], c_hi["alu_a_lo_hd"]) == (LANES, 0)  # bit 0 is low, bit 31 is not


def test_names_and_bad_lanes() -> None:
    assert set(AluInputs(W, LANES).counts) == set(NAMES)
    with pytest.raises(ValueError, match="not a multiple"):
        AluInputs(32, 12)


def test_rtl_ports_sums_each_port_of_the_lanes_alus() -> None:
    from ppa.aluactivity import rtl_ports

    bits = {"u_ex.lane[*].u_alu/a[0]": 3, "u_ex.lane[*].u_alu/a[31]": 4, "u_ex.lane[*].u_alu/b[1]": 5,
            "u_ex.lane[*].u_alu/prod[2]": 100, "u_ex.lane[*].addr[0]": 100}  # fmt: skip
    assert rtl_ports(bits) == {"alu_a_hd": 7, "alu_b_hd": 5, "alu_c_hd": 0, "alu_y_hd": 0}
