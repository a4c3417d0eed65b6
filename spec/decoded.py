"""The decoded instruction: what rtl/sm/simt_decode.v reports for one instruction word, as one packed bus.

The decoder has one output, ``dec``, of ``SIMT_DEC_W`` bits; each pipeline stage that decodes its
instruction (issue, execute, commit) slices the fields it needs with the generated macros
``SIMT_DEC_<NAME>(dec)``. The bus layout comes from :data:`FIELDS`, whose widths are taken from the
ISA tables (spec/isa.py: the instruction fields, the class codes):

* ``python -m spec.gen`` writes ``rtl/include/simt_decoded.vh`` (total width, each field's width and
  offset, the slice macros and ``SIMT_DEC_PACK``, the decoder's one pack) and the table in docs/sm.md
  "simt_decode"; ``make model`` fails when either is stale;
* :func:`unpack` reads a bus value into its fields (the decoder's unit bench).

A field is added in one place: a row here, then its value in the decoder's `SIMT_DEC_PACK(...)` call
and its use in a stage (tb/tests/model/test_decoded_layout.py shows it on a copy of the table).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import isa


@dataclass(frozen=True)
class Field:
    name: str  # slice macro SIMT_DEC_<NAME>(dec)
    width: int
    doc: str

    @property
    def macro(self) -> str:
        return f"SIMT_DEC_{self.name.upper()}"


def _w(field: str) -> int:
    """Width of an instruction field of spec/isa.py."""
    return isa.FIELDS[field][1]


REG = _w("rd")  # a register index
assert _w("f1") == _w("f2") == _w("f3") == REG
CLS_W = max(isa.CLASS_CODES.values()).bit_length()

FIELDS: tuple[Field, ...] = (
    Field("illegal", 1, "unassigned opcode/func or a reserved bit set; every other field is then don't-care"),
    Field("bad_reg", 1, "a register field the format uses is ≥ `regs` (BAD_REGISTER)"),
    Field("cls", CLS_W, "instruction class `SIMT_CLS_*` (" + ", ".join(u.value for u in isa.Unit) + ")"),
    Field("alu_fn", _w("func"), "ALU operation: a `SIMT_FN_*` code (`SIMT_FN_MV` = pass operand A; A + B for "
          "the address of a memory access)"),
    Field("ra", REG, "register read by operand port A"),
    Field("rb", REG, "register read by operand port B"),
    Field("rc", REG, "register read by operand port C"),
    Field("use_a", 1, "port A is read"),
    Field("use_b", 1, "port B is read"),
    Field("use_c", 1, "port C is read"),
    Field("a_imm", 1, "operand A is the immediate instead of the register"),
    Field("b_imm", 1, "operand B is the immediate instead of the register"),
    Field("imm", 32, "the extended immediate operand (sign, zero or `<<16`, per docs/isa.md §2)"),
    Field("wr", 1, "writes `rd`"),
    Field("rd", REG, "destination register"),
    Field("is_load", 1, "memory load (LD, LDC, LDG); the space is given by `cls`"),
    Field("is_store", 1, "memory store (ST, STG)"),
    Field("is_beq", 1, "BEQ"),
    Field("is_bne", 1, "BNE"),
    Field("is_bra", 1, "BRA"),
    Field("is_ssy", 1, "SSY"),
    Field("is_bar", 1, "BAR"),
    Field("is_exit", 1, "EXIT"),
    Field("is_lds", 1, "LDS (special-register read)"),
    Field("sreg", _w("f1"), "special-register index (LDS)"),
    Field("target", _w("imm16"), "branch / SSY target"),
)  # fmt: skip
assert len({f.name for f in FIELDS}) == len(FIELDS), "duplicate decoded field"


def layout() -> dict[str, tuple[int, int]]:
    """Field name -> (offset, width) in the bus, the first field in the low bits."""
    out, off = {}, 0
    for f in FIELDS:
        out[f.name] = (off, f.width)
        off += f.width
    return out


def width() -> int:
    """Bits of the bus (``SIMT_DEC_W``)."""
    return sum(f.width for f in FIELDS)


def unpack(value: int) -> dict[str, int]:
    """The fields of one bus value."""
    return {name: value >> off & ((1 << w) - 1) for name, (off, w) in layout().items()}


def doc_rows() -> list[str]:
    rows = ["| field | bits | offset | meaning |", "|---|---|---|---|"]
    for f in FIELDS:
        off, w = layout()[f.name]
        rows.append(f"| `{f.name}` | {w} | {off} | {f.doc} |")
    rows.append(f"| (total `SIMT_DEC_W`) | {width()} | | |")
    return rows
