"""Instruction-set tables: the single source of every encoding in the project.

The assembler, the disassembler, the golden model and the RTL decoder (through the generated
header ``rtl/include/simt_isa.vh``) all read these tables. ``docs/isa.md`` is the prose of the same
specification; when the two disagree, fix whichever is wrong and say why in the commit.

Word layout (32 bits, Lies 2019 (seed 000) Table 4.1; docs/references.md)::

    31    26 25  21 20  16 15  11 10   6 5    0
    +-------+------+------+------+------+------+
    |  op   |  rd  |  f1  |  f2  |  f3  | func |   register forms
    +-------+------+------+------+------+------+
    |  op   |  rd  |  f1  |        imm16        |   immediate / branch forms
    +-------+------+------+------+-------------+
    |  op   |  --  |  f1  |  f2  |   simm11    |   stores (base f1, data f2)

Every bit a format does not use is reserved and must be zero; a word with a non-zero reserved bit,
an unassigned opcode or an unassigned function code is an illegal instruction.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

WORD_BITS = 32
WORD_MASK = 0xFFFF_FFFF
NUM_REG_FIELD = 32  # 5-bit register fields: at most 32 registers per thread

# Field positions: (lsb, width)
FIELD_OP = (26, 6)
FIELD_RD = (21, 5)
FIELD_F1 = (16, 5)
FIELD_F2 = (11, 5)
FIELD_F3 = (6, 5)
FIELD_FUNC = (0, 6)
FIELD_IMM16 = (0, 16)
FIELD_IMM11 = (0, 11)

FIELDS: dict[str, tuple[int, int]] = {
    "op": FIELD_OP,
    "rd": FIELD_RD,
    "f1": FIELD_F1,
    "f2": FIELD_F2,
    "f3": FIELD_F3,
    "func": FIELD_FUNC,
    "imm16": FIELD_IMM16,
    "imm11": FIELD_IMM11,
}


def field_mask(name: str) -> int:
    lsb, width = FIELDS[name]
    return ((1 << width) - 1) << lsb


def get_field(word: int, name: str) -> int:
    lsb, width = FIELDS[name]
    return (word >> lsb) & ((1 << width) - 1)


def put_field(name: str, value: int) -> int:
    lsb, width = FIELDS[name]
    if not 0 <= value < (1 << width):
        raise ValueError(f"value {value} does not fit field {name} ({width} bits)")
    return value << lsb


def sext(value: int, bits: int) -> int:
    """Sign-extend the low ``bits`` of ``value`` to a Python int."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


class Fmt(enum.Enum):
    """Operand formats: the fields an instruction uses and its assembly operand order.

    Each value is (fields used, assembly syntax). Bits outside the used fields are reserved (zero).
    In the syntax, ``f1``/``f2``/``f3`` name the register field an operand is encoded in, so
    ``MUL rd, ra, rb`` puts ``ra`` in f2 and ``rb`` in f3, exactly as Lies 2019 Table 4.1 lays it out.
    """

    NONE = (("op", "func"), "")  # NOP
    R3 = (("op", "rd", "f1", "f2", "func"), "rd, f1, f2")  # rd = f1 op f2
    RMUL = (("op", "rd", "f2", "f3", "func"), "rd, f2, f3")  # rd = f2 * f3
    RMAD = (("op", "rd", "f1", "f2", "f3", "func"), "rd, f2, f3, f1")  # rd = f2 * f3 + f1
    RNOT = (("op", "rd", "f2", "func"), "rd, f2")  # rd = ~f2
    MV = (("op", "rd", "f1"), "rd, f1")
    IMM = (("op", "rd", "imm16"), "rd, imm")  # MVI, LUI
    RI = (("op", "rd", "f1", "imm16"), "rd, f1, imm")  # rd = f1 op imm
    LOAD = (("op", "rd", "f1", "imm16"), "rd, [f1+imm]")  # address = f1 + simm16
    SREG = (("op", "rd", "f1"), "rd, %sreg")  # f1 holds the special-register index
    BRANCH = (("op", "f1", "imm16"), "f1, target")  # per-thread condition on f1
    STORE = (("op", "f1", "f2", "imm11"), "[f1+imm], f2")  # address = f1 + simm11, data f2
    TARGET = (("op", "imm16"), "target")  # BRA, SSY
    CTRL = (("op",), "")  # BAR, EXIT

    @property
    def fields(self) -> tuple[str, ...]:
        return self.value[0]

    @property
    def syntax(self) -> str:
        return self.value[1]

    @property
    def used_mask(self) -> int:
        m = 0
        for f in self.fields:
            m |= field_mask(f)
        return m


class Unit(enum.Enum):
    """Instruction classes: the granularity of the per-class performance counters."""

    ALU = "alu"  # integer lanes (includes MV, MVI, LUI, NOP)
    SREG = "sreg"  # special-register reads
    SHARED = "shared"  # shared-memory LD / ST
    CONST = "const"  # constant-memory LDC
    GLOBAL = "global"  # global-memory LDG / STG
    BRANCH = "branch"  # BEQ / BNE / BRA
    SYNC = "sync"  # SSY, BAR
    EXIT = "exit"  # EXIT


class Ext(enum.Enum):
    """How a 16-bit immediate becomes a 32-bit operand."""

    SIGN = "sign"
    ZERO = "zero"
    HIGH = "high"  # imm << 16 (LUI)


@dataclass(frozen=True)
class Op:
    """One instruction of the ISA."""

    mnemonic: str
    opcode: int
    fmt: Fmt
    unit: Unit
    func: int | None = None  # function code for opcode 0 (register ALU forms)
    alu: str | None = None  # ALU operation name (see ALU_OPS) for ALU-class instructions
    ext: Ext | None = None  # immediate extension, for forms with an immediate
    baseline: bool = False  # one of the 24 instructions of Lies 2019 Table 4.1
    summary: str = ""

    @property
    def writes_rd(self) -> bool:
        return "rd" in self.fmt.fields

    @property
    def fixed_bits(self) -> int:
        """Bits fixed by the opcode and function code."""
        word = put_field("op", self.opcode)
        if self.func is not None:
            word |= put_field("func", self.func)
        return word


# ---------------------------------------------------------------------------------------------
# Opcodes
# ---------------------------------------------------------------------------------------------
OP_ALU = 0x00  # register ALU forms, selected by func
OP_MV = 0x01
OP_MVI = 0x02
OP_LD = 0x03
OP_LDC = 0x04
OP_LDS = 0x05
OP_BEQ = 0x06
OP_BNE = 0x07
OP_ST = 0x08
OP_BRA = 0x09
OP_LDG = 0x0A
OP_STG = 0x0B
OP_LUI = 0x0C
OP_IMM_BASE = 0x20  # immediate ALU forms: opcode = 0x20 | func of the register form
OP_SSY = 0x3D
OP_BAR = 0x3E
OP_EXIT = 0x3F

# ALU operations: name -> (function code, summary). Codes 0..12 are Lies 2019 Table 4.1.
ALU_FUNCS: dict[str, int] = {
    "NOP": 0x00,
    "MAD": 0x01,
    "MUL": 0x02,
    "ADD": 0x03,
    "SUB": 0x04,
    "SLT": 0x05,
    "SGT": 0x06,
    "SHR": 0x07,
    "SHL": 0x08,
    "NOT": 0x09,
    "AND": 0x0A,
    "OR": 0x0B,
    "XOR": 0x0C,
    # extensions
    "SLTU": 0x0D,
    "SGTU": 0x0E,
    "SEQ": 0x0F,
    "SNE": 0x10,
    "MIN": 0x11,
    "MAX": 0x12,
    "MINU": 0x13,
    "MAXU": 0x14,
    "SRA": 0x15,
    "MULHU": 0x16,
}

ALU_SUMMARY: dict[str, str] = {
    "NOP": "no operation",
    "MAD": "rd = ra * rb + rc (low 32 bits)",
    "MUL": "rd = ra * rb (low 32 bits)",
    "ADD": "rd = ra + rb (wraps)",
    "SUB": "rd = ra - rb (wraps)",
    "SLT": "rd = (ra < rb) signed ? 1 : 0",
    "SGT": "rd = (ra > rb) signed ? 1 : 0",
    "SHR": "rd = ra >> rb logical; 0 when rb >= 32",
    "SHL": "rd = ra << rb; 0 when rb >= 32",
    "NOT": "rd = ~ra (bitwise)",
    "AND": "rd = ra & rb",
    "OR": "rd = ra | rb",
    "XOR": "rd = ra ^ rb",
    "SLTU": "rd = (ra < rb) unsigned ? 1 : 0",
    "SGTU": "rd = (ra > rb) unsigned ? 1 : 0",
    "SEQ": "rd = (ra == rb) ? 1 : 0",
    "SNE": "rd = (ra != rb) ? 1 : 0",
    "MIN": "rd = signed minimum of ra, rb",
    "MAX": "rd = signed maximum of ra, rb",
    "MINU": "rd = unsigned minimum of ra, rb",
    "MAXU": "rd = unsigned maximum of ra, rb",
    "SRA": "rd = ra >> rb arithmetic; sign fill when rb >= 32",
    "MULHU": "rd = high 32 bits of the unsigned 64-bit product ra * rb",
}

# Register forms whose operands sit in the fields Lies 2019 (Table 4.1) gave them.
_RFMT = {"MAD": Fmt.RMAD, "MUL": Fmt.RMUL, "NOT": Fmt.RNOT, "NOP": Fmt.NONE}

# Immediate forms: register op -> extension of the immediate. Ops absent here have no imm form.
IMM_FORMS: dict[str, Ext] = {
    "ADD": Ext.SIGN,
    "SUB": Ext.SIGN,
    "MUL": Ext.SIGN,
    "SLT": Ext.SIGN,
    "SGT": Ext.SIGN,
    "SLTU": Ext.SIGN,
    "SGTU": Ext.SIGN,
    "SEQ": Ext.SIGN,
    "SNE": Ext.SIGN,
    "MIN": Ext.SIGN,
    "MAX": Ext.SIGN,
    "MINU": Ext.SIGN,
    "MAXU": Ext.SIGN,
    "AND": Ext.ZERO,
    "OR": Ext.ZERO,
    "XOR": Ext.ZERO,
    "SHL": Ext.ZERO,
    "SHR": Ext.ZERO,
    "SRA": Ext.ZERO,
    "MULHU": Ext.SIGN,
}

# ALU operation code the decoder emits for MV/MVI/LUI (result = operand a). It is internal to the RTL:
# 0x3F is not an assigned function code, so a register-form word carrying it stays illegal.
ALU_FN_MV = 0x3F
assert ALU_FN_MV not in ALU_FUNCS.values()

# Instruction-class codes (RTL `cls` field and per-class performance counters), in Unit order.
CLASS_CODES: dict[str, int] = {}  # filled below, after Unit is defined

BASELINE = {
    "NOP", "MAD", "MUL", "ADD", "SUB", "SLT", "SGT", "SHR", "SHL", "NOT", "AND", "OR", "XOR",
    "MV", "MVI", "LD", "LDC", "LDS", "BEQ", "BNE", "ST", "SSY", "BAR", "EXIT",
}  # fmt: skip


def _build_ops() -> tuple[Op, ...]:
    ops: list[Op] = []
    for name, func in ALU_FUNCS.items():
        ops.append(
            Op(
                name,
                OP_ALU,
                _RFMT.get(name, Fmt.R3),
                Unit.ALU,
                func=func,
                alu=name,
                baseline=name in BASELINE,
                summary=ALU_SUMMARY[name],
            )
        )
    for name, ext in IMM_FORMS.items():
        ops.append(
            Op(
                name + "I",
                OP_IMM_BASE | ALU_FUNCS[name],
                Fmt.RI,
                Unit.ALU,
                alu=name,
                ext=ext,
                summary=ALU_SUMMARY[name].replace("rb", "imm") + f" ({ext.value}-extended imm16)",
            )
        )
    ops += [
        Op("MV", OP_MV, Fmt.MV, Unit.ALU, alu="MV", baseline=True, summary="rd = ra"),
        Op(
            "MVI",
            OP_MVI,
            Fmt.IMM,
            Unit.ALU,
            alu="MV",
            ext=Ext.SIGN,
            baseline=True,
            summary="rd = sign-extended imm16",
        ),
        Op("LUI", OP_LUI, Fmt.IMM, Unit.ALU, alu="MV", ext=Ext.HIGH, summary="rd = imm16 << 16"),
        Op(
            "LD",
            OP_LD,
            Fmt.LOAD,
            Unit.SHARED,
            ext=Ext.SIGN,
            baseline=True,
            summary="rd = shared[ra + simm16]",
        ),
        Op(
            "LDC",
            OP_LDC,
            Fmt.LOAD,
            Unit.CONST,
            ext=Ext.SIGN,
            baseline=True,
            summary="rd = const[ra + simm16]",
        ),
        Op("LDS", OP_LDS, Fmt.SREG, Unit.SREG, baseline=True, summary="rd = special register"),
        Op(
            "BEQ",
            OP_BEQ,
            Fmt.BRANCH,
            Unit.BRANCH,
            baseline=True,
            summary="per thread: branch to target if ra == 0",
        ),
        Op(
            "BNE",
            OP_BNE,
            Fmt.BRANCH,
            Unit.BRANCH,
            baseline=True,
            summary="per thread: branch to target if ra != 0",
        ),
        Op(
            "ST",
            OP_ST,
            Fmt.STORE,
            Unit.SHARED,
            ext=Ext.SIGN,
            baseline=True,
            summary="shared[ra + simm11] = rb",
        ),
        Op("BRA", OP_BRA, Fmt.TARGET, Unit.BRANCH, summary="branch to target (whole warp)"),
        Op("LDG", OP_LDG, Fmt.LOAD, Unit.GLOBAL, ext=Ext.SIGN, summary="rd = global[ra + simm16]"),
        Op("STG", OP_STG, Fmt.STORE, Unit.GLOBAL, ext=Ext.SIGN, summary="global[ra + simm11] = rb"),
        Op(
            "SSY",
            OP_SSY,
            Fmt.TARGET,
            Unit.SYNC,
            baseline=True,
            summary="push a reconvergence token for target",
        ),
        Op("BAR", OP_BAR, Fmt.CTRL, Unit.SYNC, baseline=True, summary="block-wide barrier"),
        Op("EXIT", OP_EXIT, Fmt.CTRL, Unit.EXIT, baseline=True, summary="active threads finish"),
    ]
    return tuple(ops)


OPS: tuple[Op, ...] = _build_ops()
CLASS_CODES.update({u.name: i for i, u in enumerate(Unit)})
BY_MNEMONIC: dict[str, Op] = {op.mnemonic: op for op in OPS}
# (opcode, func or None) -> Op. Register ALU forms are keyed with their func; all others with None.
BY_CODE: dict[tuple[int, int | None], Op] = {(op.opcode, op.func): op for op in OPS}

assert len(BY_MNEMONIC) == len(OPS), "duplicate mnemonic"
assert len(BY_CODE) == len(OPS), "duplicate encoding"
assert BASELINE <= set(BY_MNEMONIC), "baseline instruction missing"


# ---------------------------------------------------------------------------------------------
# Special registers (LDS rd, %name): index in field f1
# ---------------------------------------------------------------------------------------------
NUM_PARAMS = 16  # kernel parameters are special registers 16..31
SREG_PARAM_BASE = 16

SREGS: dict[str, int] = {
    "tid.x": 0,
    "tid.y": 1,
    "tid.z": 2,
    "ntid.x": 3,
    "ntid.y": 4,
    "ntid.z": 5,
    "ctaid.x": 6,
    "ctaid.y": 7,
    "ctaid.z": 8,
    "nctaid.x": 9,
    "nctaid.y": 10,
    "nctaid.z": 11,
    "tid": 12,  # flat thread index in the block: x + y*ntid.x + z*ntid.x*ntid.y
    "laneid": 13,  # thread index within its warp: tid % WARP_SIZE
    "warpid": 14,  # warp index within its block: tid / WARP_SIZE
    "smid": 15,  # index of the SM the block runs on (implementation-assigned)
    **{f"param{i}": SREG_PARAM_BASE + i for i in range(NUM_PARAMS)},
}
SREG_NAMES: dict[int, str] = {v: k for k, v in SREGS.items()}
assert len(SREG_NAMES) == 32


# ---------------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------------
class IllegalInstruction(ValueError):
    """A word that is not a legal encoding."""


@dataclass(frozen=True)
class Decoded:
    """A legal instruction word, split into its fields."""

    word: int
    op: Op
    rd: int
    f1: int
    f2: int
    f3: int
    imm: int  # immediate as written in assembly: signed for SIGN forms, else unsigned

    @property
    def operand(self) -> int:
        """The 32-bit operand the immediate supplies (see imm_operand)."""
        return imm_operand(self.op, self.imm)

    @property
    def mnemonic(self) -> str:
        return self.op.mnemonic


def imm_value(op: Op, word: int) -> int:
    """The immediate of ``word`` as the instruction uses it (an int; targets are unsigned)."""
    if "imm11" in op.fmt.fields:
        return sext(get_field(word, "imm11"), 11)
    if "imm16" not in op.fmt.fields:
        return 0
    raw = get_field(word, "imm16")
    if op.ext is Ext.SIGN:
        return sext(raw, 16)
    return raw  # zero-extended immediates, LUI's upper half and branch targets


def imm_operand(op: Op, imm: int) -> int:
    """The unsigned 32-bit operand an immediate supplies: LUI shifts it up, the rest wrap."""
    if op.ext is Ext.HIGH:
        return (imm << 16) & WORD_MASK
    return imm & WORD_MASK


def lookup(word: int) -> Op:
    """The Op of a word, or IllegalInstruction (unknown opcode/func, reserved bit set)."""
    word &= WORD_MASK
    opcode = get_field(word, "op")
    op = BY_CODE.get((opcode, get_field(word, "func") if opcode == OP_ALU else None))
    if op is None:
        raise IllegalInstruction(f"0x{word:08x}: unassigned opcode/function code")
    if word & ~op.fmt.used_mask & WORD_MASK:
        raise IllegalInstruction(f"0x{word:08x}: reserved bits set for {op.mnemonic}")
    return op


def decode(word: int) -> Decoded:
    op = lookup(word)
    return Decoded(
        word & WORD_MASK,
        op,
        get_field(word, "rd"),
        get_field(word, "f1"),
        get_field(word, "f2"),
        get_field(word, "f3"),
        imm_value(op, word),
    )


def encode(mnemonic: str, *, rd: int = 0, f1: int = 0, f2: int = 0, f3: int = 0, imm: int = 0) -> int:
    """Encode by field. ``imm`` is the value the instruction should see (range-checked)."""
    op = BY_MNEMONIC[mnemonic]
    word = op.fixed_bits
    used = op.fmt.fields
    for name, value in (("rd", rd), ("f1", f1), ("f2", f2), ("f3", f3)):
        if name in used:
            word |= put_field(name, value)
        elif value:
            raise ValueError(f"{mnemonic} has no {name} field")
    word |= encode_imm(op, imm)
    return word


def imm_range(op: Op) -> tuple[int, int]:
    """Inclusive range of the immediate value ``op`` accepts (as the instruction sees it)."""
    if "imm11" in op.fmt.fields:
        return -(1 << 10), (1 << 10) - 1
    if "imm16" not in op.fmt.fields:
        return 0, 0
    if op.ext is Ext.SIGN:
        return -(1 << 15), (1 << 15) - 1
    if op.ext is Ext.HIGH:
        return 0, 0xFFFF  # the upper half as written: LUI rd, 0x1234
    return 0, 0xFFFF


def encode_imm(op: Op, imm: int) -> int:
    if "imm11" not in op.fmt.fields and "imm16" not in op.fmt.fields:
        if imm:
            raise ValueError(f"{op.mnemonic} has no immediate field")
        return 0
    lo, hi = imm_range(op)
    if not lo <= imm <= hi:
        raise ValueError(f"{op.mnemonic}: immediate {imm} outside [{lo}, {hi}]")
    if "imm11" in op.fmt.fields:
        return imm & 0x7FF
    if "imm16" in op.fmt.fields:
        return imm & 0xFFFF
    return 0


def legal_field_values(op: Op) -> dict[str, int]:
    """Number of values of each variable field (for exhaustive and property tests)."""
    return {f: 1 << FIELDS[f][1] for f in op.fmt.fields if f not in ("op", "func")}
