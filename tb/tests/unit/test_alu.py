"""Unit bench of ``rtl/sm/simt_alu.v`` (docs/sm.md "simt_alu", docs/isa.md 3.1).

Expected results come from the golden model's ``ALU_FN[name](a, b, c)`` evaluated on numpy uint32
arrays of operands (one array per op), compared element by element with the DUT's ``y``.

Tests:
  * ``corners``  — for every op (every register ALU func except NOP, plus SIMT_FN_MV), every pair of
                   corner operands a, b (0, 1, 2, 31, 32, 33, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF and
                   random words) with c drawn from the same set;
  * ``random``   — thousands of random (op, a, b, c) triples: uniform words, small shift amounts,
                   near-equal operands (compare boundaries) and sign-boundary values.
"""

from __future__ import annotations

import random
from collections import Counter

import cocotb
import numpy as np
from cocotb.triggers import Timer

from spec import isa, model
from tb import benchutil, rtlsim

U32 = np.uint32
# Every operation the lane implements: the register ALU funcs (NOP has no result) and MV (y = a).
OPS: dict[str, int] = {name: code for name, code in isa.ALU_FUNCS.items() if name != "NOP"}
OPS["MV"] = isa.ALU_FN_MV
CORNERS = (0, 1, 2, 31, 32, 33, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF)


def _rng(dut, test: str) -> random.Random:
    dut._log.info(
        "test seed %d (rerun with SEED=%d)", cocotb.RANDOM_SEED, benchutil.rerun_seed(__name__, test)
    )
    return random.Random(random.getrandbits(64))


async def drive(dut, name: str, a: list[int], b: list[int], c: list[int]) -> int:
    """Apply every (a, b, c) of one op, compare y with model.ALU_FN[name]; return vectors checked."""
    av, bv, cv = (np.array(x, dtype=U32) for x in (a, b, c))
    expected = np.asarray(model.ALU_FN[name](av, bv, cv), dtype=U32)
    assert expected.shape == av.shape
    dut.fn.value = OPS[name]
    for i in range(len(a)):
        dut.a.value = a[i]
        dut.b.value = b[i]
        dut.c.value = c[i]
        await Timer(1, unit="ns")
        got = int(dut.y.value)
        if got != int(expected[i]):
            raise AssertionError(
                f"{name} (fn 0x{OPS[name]:02x}) a=0x{a[i]:08x} b=0x{b[i]:08x} c=0x{c[i]:08x}: "
                f"y=0x{got:08x}, model 0x{int(expected[i]):08x}"
            )
    return len(a)


@cocotb.test()
async def corners(dut):
    """Every op x every pair of corner operands (c from the same set)."""
    rng = _rng(dut, "corners")
    values = list(CORNERS) + [rng.getrandbits(32) for _ in range(3)]
    checked = Counter()
    for name in OPS:
        a = [x for x in values for _ in values]
        b = [y for _ in values for y in values]
        c = [rng.choice(values) for _ in a]
        checked[name] += await drive(dut, name, a, b, c)
    dut._log.info("per-op corner vectors: %s", " ".join(f"{k}={v}" for k, v in checked.items()))
    total = sum(checked.values())
    dut._log.info("checked %d corner vectors over %d ops", total, len(checked))
    assert len(checked) == len(OPS) and total > 0


def _operand(rng: random.Random) -> int:
    kind = rng.random()
    if kind < 0.5:
        return rng.getrandbits(32)
    if kind < 0.7:
        return rng.randrange(64)  # small: shift amounts around 32, tiny compares
    if kind < 0.85:
        return (0x8000_0000 + rng.randrange(-4, 4)) & isa.WORD_MASK  # sign boundary
    return (rng.randrange(-4, 4)) & isa.WORD_MASK  # around zero / all ones


@cocotb.test()
async def random_triples(dut):
    """Thousands of random triples per simulator, grouped by op."""
    rng = _rng(dut, "random_triples")
    n = 1000
    checked = Counter()
    for name in OPS:
        a = [_operand(rng) for _ in range(n)]
        b = [_operand(rng) for _ in range(n)]
        c = [_operand(rng) for _ in range(n)]
        for i in range(0, n, 4):  # a quarter of them compare equal / near-equal operands
            b[i] = (a[i] + rng.randrange(-1, 2)) & isa.WORD_MASK
        checked[name] += await drive(dut, name, a, b, c)
    total = sum(checked.values())
    dut._log.info("checked %d random vectors over %d ops", total, len(checked))
    assert len(checked) == len(OPS) and total > 0


def test_alu():
    rtlsim.run("simt_alu", ["sm/simt_alu.v"], __name__)
