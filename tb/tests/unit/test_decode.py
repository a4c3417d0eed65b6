"""Unit bench of ``rtl/sm/simt_decode.v`` (docs/sm.md "simt_decode").

Every expectation is computed from the ISA tables (``spec.isa``: ``decode``, ``lookup``,
``Fmt.fields``, ``CLASS_CODES``, ``ALU_FUNCS``) and the model's operand map (``model.OPERANDS``);
``bad_reg`` is also cross-checked against the model's own predecode (``BAD_REGISTER``).

Tests:
  * ``legal_ops``      — for every op of ``isa.OPS``, random legal words (fields drawn from
                         ``isa.legal_field_values``) with random ``regs`` 1..32, every output checked;
  * ``reserved_bits``  — for every op, each reserved bit of its format set alone in a legal word;
  * ``code_space``     — every opcode (and every func of opcode 0) with all fields zero and with
                         random fields, plus random reserved bits;
  * ``random_words``   — uniformly random 32-bit words (``illegal`` only, full check when legal).
"""

from __future__ import annotations

import random
from collections import Counter

import cocotb
from cocotb.triggers import Timer

from spec import decoded, isa, model
from tb import benchutil, rtlsim

# Fields of the decoder's one output bus `dec` (spec/decoded.py), in the order they are read.
OUTPUTS = tuple(f.name for f in decoded.FIELDS)

LOADS = {isa.OP_LD, isa.OP_LDC, isa.OP_LDG}
STORES = {isa.OP_ST, isa.OP_STG}
FLAG_OPS = {"is_beq": isa.OP_BEQ, "is_bne": isa.OP_BNE, "is_bra": isa.OP_BRA, "is_ssy": isa.OP_SSY,
            "is_bar": isa.OP_BAR, "is_exit": isa.OP_EXIT, "is_lds": isa.OP_LDS}  # fmt: skip
REG_FIELDS = ("rd", "f1", "f2", "f3")


def is_illegal(word: int) -> bool:
    try:
        isa.lookup(word)
    except isa.IllegalInstruction:
        return True
    return False


def expect(word: int, regs: int) -> dict[str, int | None]:
    """Expected outputs for a legal ``word``; None = don't-care."""
    d = isa.decode(word)
    op = d.op
    fields = {"rd": d.rd, "f1": d.f1, "f2": d.f2, "f3": d.f3}
    # Register fields the format uses; LDS's f1 is a special-register index (docs/isa.md 3.2).
    regf = [f for f in REG_FIELDS if f in op.fmt.fields and not (op.fmt is isa.Fmt.SREG and f == "f1")]
    bad = any(fields[f] >= regs for f in regf)
    # Cross-check the documented rule with the golden model's predecode.
    ins = model._Instr(0, word, regs, 1)
    model_bad = ins.error is not None and ins.error[0] is model.ErrorKind.BAD_REGISTER
    assert bad == model_bad, f"bench rule and model disagree on BAD_REGISTER for 0x{word:08x} regs={regs}"

    e: dict[str, int | None] = {name: None for name in OUTPUTS}
    e["illegal"] = 0
    e["bad_reg"] = int(bad)
    e["cls"] = isa.CLASS_CODES[op.unit.name]
    if op.unit is isa.Unit.ALU:
        e["alu_fn"] = isa.ALU_FN_MV if op.alu == "MV" else isa.ALU_FUNCS[op.alu or "NOP"]
    elif op.opcode in LOADS | STORES:
        e["alu_fn"] = isa.ALU_FUNCS["ADD"]  # RTL extra (not in docs/sm.md): address = A + B

    src = model.OPERANDS[op.fmt]
    if op.fmt is isa.Fmt.SREG:
        src = (None, None, None)  # no register is read: f1 is the special-register index
    any_imm = False
    for port, s in zip("abc", src):
        e[f"use_{port}"] = int(s in fields)
        if s in fields:
            e[f"r{port}"] = fields[s]
        if port != "c":
            e[f"{port}_imm"] = int(s == "imm")
        else:
            assert s != "imm"
        any_imm |= s == "imm"
    if any_imm:
        e["imm"] = d.operand
    e["wr"] = int(op.writes_rd)
    if op.writes_rd:
        e["rd"] = d.rd
    e["is_load"] = int(op.opcode in LOADS)
    e["is_store"] = int(op.opcode in STORES)
    for flag, opcode in FLAG_OPS.items():
        e[flag] = int(op.opcode == opcode)
    if op.opcode == isa.OP_LDS:
        e["sreg"] = d.f1
    if op.fmt in (isa.Fmt.BRANCH, isa.Fmt.TARGET):
        e["target"] = d.imm
    return e


def random_legal(op: isa.Op, rng: random.Random) -> int:
    """A random legal word of ``op``: every variable field drawn over its whole range."""
    word = op.fixed_bits
    for name, count in isa.legal_field_values(op).items():
        word |= isa.put_field(name, rng.randrange(count))
    assert isa.lookup(word) is op
    return word


class Decoder:
    """Drives the combinational DUT and compares the fields of its output bus."""

    def __init__(self, dut) -> None:
        self.dut = dut
        assert len(dut.dec) == decoded.width(), (
            f"dec is {len(dut.dec)} bits, spec/decoded.py says {decoded.width()}"
        )
        self.checked = 0

    async def apply(self, word: int, regs: int) -> dict[str, int]:
        self.dut.instr.value = word
        self.dut.regs.value = regs
        await Timer(1, unit="ns")
        return decoded.unpack(int(self.dut.dec.value))

    async def check(self, word: int, regs: int, exp: dict[str, int | None]) -> dict[str, int]:
        got = await self.apply(word, regs)
        bad = {k: (got[k], v) for k, v in exp.items() if v is not None and got[k] != v}
        if bad:
            try:
                text = isa.decode(word).mnemonic
            except isa.IllegalInstruction:
                text = "illegal"
            diffs = ", ".join(f"{k}: got 0x{g:x} expected 0x{x:x}" for k, (g, x) in bad.items())
            raise AssertionError(f"instr 0x{word:08x} ({text}) regs={regs}: {diffs}")
        self.checked += 1
        return got

    async def check_word(self, word: int, regs: int) -> bool:
        """Full check if legal, else only ``illegal``. Returns whether the word is illegal."""
        if is_illegal(word):
            await self.check(word, regs, {"illegal": 1})
            return True
        await self.check(word, regs, expect(word, regs))
        return False


def _start(dut, test: str) -> tuple[Decoder, random.Random]:
    dut._log.info(
        "test seed %d (rerun with SEED=%d)", cocotb.RANDOM_SEED, benchutil.rerun_seed(__name__, test)
    )
    return Decoder(dut), random.Random(random.getrandbits(64))


def _done(dut, dec: Decoder, what: str) -> None:
    dut._log.info("checked %d %s", dec.checked, what)
    assert dec.checked > 0, "nothing checked"


@cocotb.test()
async def legal_ops(dut):
    """Every op: random legal words, random regs, every output against isa.decode + tables."""
    dec, rng = _start(dut, "legal_ops")
    per_op: Counter[str] = Counter()
    bad_regs = Counter()
    n = 400
    for op in isa.OPS:
        # Directed: all fields zero / all ones (within the format), with the extreme regs values.
        body = op.fmt.used_mask & ~(isa.field_mask("op") | isa.field_mask("func"))
        words = [op.fixed_bits, op.fixed_bits | body]
        words += [random_legal(op, rng) for _ in range(n)]
        for i, word in enumerate(words):
            regs = (1, 32)[i] if i < 2 else rng.randint(1, 32)
            got = await dec.check(word, regs, expect(word, regs))
            bad_regs[got["bad_reg"]] += 1
            per_op[op.mnemonic] += 1
    dut._log.info("per-op legal words: %s", " ".join(f"{k}={v}" for k, v in per_op.items()))
    assert len(per_op) == len(isa.OPS) == 58, f"{len(per_op)} ops checked"
    assert bad_regs[0] and bad_regs[1], f"bad_reg never exercised both ways: {bad_regs}"
    dut._log.info("bad_reg 0/1: %d/%d", bad_regs[0], bad_regs[1])
    _done(dut, dec, f"legal words over {len(per_op)} ops")


@cocotb.test()
async def reserved_bits(dut):
    """Every op: each bit its format reserves, set alone in a random legal word, is illegal."""
    dec, rng = _start(dut, "reserved_bits")
    per_fmt: Counter[str] = Counter()
    for op in isa.OPS:
        reserved = isa.WORD_MASK & ~op.fmt.used_mask
        for bit in range(32):
            if reserved >> bit & 1:
                word = random_legal(op, rng) | (1 << bit)
                assert is_illegal(word)
                await dec.check(word, rng.randint(1, 32), {"illegal": 1})
                per_fmt[op.fmt.name] += 1
    dut._log.info("reserved-bit words per format: %s", dict(per_fmt))
    _done(dut, dec, "reserved-bit words")


@cocotb.test()
async def code_space(dut):
    """Every opcode, and every func of opcode 0: fields zero, random fields, random reserved bits."""
    dec, rng = _start(dut, "code_space")
    illegal = Counter()
    codes = [(opc, None) for opc in range(64) if opc != isa.OP_ALU] + [(isa.OP_ALU, f) for f in range(64)]
    for opc, func in codes:
        base = isa.put_field("op", opc) | (isa.put_field("func", func) if func is not None else 0)
        fmask = isa.field_mask("func") if func is not None else 0
        words = [base]
        for _ in range(6):
            # random body, keeping the opcode (and func); then keep only a few random bits
            body = rng.getrandbits(32) & ~(isa.field_mask("op") | fmask)
            if rng.random() < 0.5:
                body &= rng.getrandbits(32) & rng.getrandbits(32)
            words.append(base | body)
        for word in words:
            illegal[await dec.check_word(word, rng.randint(1, 32))] += 1
    dut._log.info("legal/illegal: %d/%d", illegal[False], illegal[True])
    assert illegal[False] and illegal[True]
    _done(dut, dec, "code-space words")


@cocotb.test()
async def random_words(dut):
    """Uniformly random 32-bit words: illegal exactly when isa.lookup raises."""
    dec, rng = _start(dut, "random_words")
    illegal = Counter()
    for _ in range(10000):
        word = rng.getrandbits(32)
        illegal[await dec.check_word(word, rng.randint(1, 32))] += 1
    dut._log.info("legal/illegal: %d/%d", illegal[False], illegal[True])
    _done(dut, dec, "random words")


def test_decode():
    rtlsim.run("simt_decode", ["sm/simt_decode.v"], __name__)
