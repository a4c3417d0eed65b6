"""The compiler's IR: machine instructions over virtual registers, with labels (one list per kernel).

An :class:`Ins` is an instruction of docs/isa.md (or ``LI``, the assembler's constant pseudo-op, or a
``LABEL``) whose register operands are virtual registers (ints). Register allocation maps them onto
``r0..r{R-1}``; the emitter prints the ``.s``. Operand roles follow the ISA's formats, so the uses and
the definition of each instruction are known here, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

R3 = {"ADD", "SUB", "SLT", "SGT", "SHR", "SHL", "AND", "OR", "XOR", "SLTU", "SGTU", "SEQ", "SNE",
      "MIN", "MAX", "MINU", "MAXU", "SRA", "MULHU", "MUL"}  # fmt: skip
RI = {"ADDI", "SUBI", "MULI", "SLTI", "SGTI", "SLTUI", "SGTUI", "SEQI", "SNEI", "MINI", "MAXI", "MINUI",
      "MAXUI", "ANDI", "ORI", "XORI", "SHLI", "SHRI", "SRAI", "MULHUI"}  # fmt: skip
ZERO_EXT = {"ANDI", "ORI", "XORI", "SHLI", "SHRI", "SRAI"}
LOADS = {"LD": "shared", "LDC": "const", "LDG": "global"}
STORES = {"ST": "shared", "STG": "global"}
BRANCHES = {"BEQ", "BNE"}
JUMPS = {"BRA"}
ENDS = {"EXIT"}


@dataclass
class Ins:
    """One instruction. ``srcs`` are virtual (later physical) registers read, ``dst`` the one written;
    ``imm`` an immediate or memory offset; ``target`` a label (branches, SSY, LABEL) or a special
    register name (LDS); ``loc`` the (file, line) of the C statement it comes from."""

    op: str
    dst: int | None = None
    srcs: tuple[int, ...] = ()
    imm: int | None = None
    target: str | None = None
    loc: tuple[str, int] = ("", 0)
    extra: dict = field(default_factory=dict)

    def uses(self) -> tuple[int, ...]:
        return self.srcs

    def defs(self) -> tuple[int, ...]:
        return (self.dst,) if self.dst is not None else ()

    @property
    def is_label(self) -> bool:
        return self.op == "LABEL"

    def has_side_effect(self) -> bool:
        return self.dst is None or self.op in LOADS and False


def imm_fits(op: str, value: int) -> bool:
    """Whether ``value`` is encodable as the immediate of ``op`` (docs/assembler.md ranges)."""
    if op in ZERO_EXT:
        return 0 <= value <= 0xFFFF
    if op in STORES:
        return -1024 <= value <= 1023
    return -0x8000 <= value <= 0x7FFF
