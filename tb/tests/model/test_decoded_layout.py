"""The decoded instruction is one bus whose layout is generated from spec/decoded.py (docs/sm.md
"simt_decode"): a decoder field is added in one place.

A copy of the table with one more field regenerates rtl/include/simt_decoded.vh with the field's width,
offset, slice macro and pack argument, and every later field moves up; the stages (simt_issue,
simt_execute, simt_commit) connect only `instr`, `regs` and the one bus `dec` of their decoder and slice
it with the macros, so no stage lists the decoder's fields by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spec import decoded, gen, isa
from spec.decoded import FIELDS, Field
from tb.tests.model.test_retire_layout import _defines, _pack_args

ROOT = Path(__file__).resolve().parents[3]
DECODER = ROOT / "rtl" / "sm" / "simt_decode.v"
STAGES = [p for d in ("rtl/sm", "rtl/top", "tb/hdl", "formal/sm") for p in sorted((ROOT / d).glob("*.*v"))]


def _layout(text: str) -> dict[str, tuple[int, int]]:
    """Field name -> (offset, width), from a generated header."""
    d = _defines(text)
    names = [m.lower() for m in re.findall(r"^`define SIMT_DEC_(\w+)_OFF", text, re.M)]
    return {n: (int(d[f"SIMT_DEC_{n.upper()}_OFF"]), int(d[f"SIMT_DEC_{n.upper()}_W"])) for n in names}


def _check_contiguous(text: str, fields: tuple[Field, ...]) -> None:
    lay = _layout(text)
    assert list(lay) == [f.name for f in fields], "one offset per field, in table order"
    at = 0
    for f in fields:
        assert lay[f.name] == (at, f.width), (
            f"{f.name}: (offset, width) {lay[f.name]}, expected {(at, f.width)}"
        )
        at += f.width
    assert int(_defines(text)["SIMT_DEC_W"]) == at == sum(f.width for f in fields), "SIMT_DEC_W is the sum"


def test_committed_layout_is_contiguous_and_matches_unpack() -> None:
    _check_contiguous(gen.render_decoded_header(), FIELDS)
    value = sum((i + 1) % (1 << f.width) << decoded.layout()[f.name][0] for i, f in enumerate(FIELDS))
    assert decoded.unpack(value) == {f.name: (i + 1) % (1 << f.width) for i, f in enumerate(FIELDS)}


def test_widths_come_from_the_isa_tables() -> None:
    """Register indices, the class, the ALU operation and the target are as wide as their ISA fields."""
    assert decoded.REG == isa.FIELDS["rd"][1]
    assert decoded.CLS_W == max(isa.CLASS_CODES.values()).bit_length()
    widths = {f.name: f.width for f in FIELDS}
    assert widths["target"] == isa.FIELDS["imm16"][1] and widths["alu_fn"] == isa.FIELDS["func"][1]
    assert widths["ra"] == widths["rb"] == widths["rc"] == widths["rd"] == widths["sreg"] == decoded.REG


def test_a_field_added_to_a_copy_of_the_table_regenerates_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    new = Field("is_atomic", 1, "atomic read-modify-write")
    at = [f.name for f in FIELDS].index("is_store") + 1  # in the middle: later fields must move up
    extended = (*FIELDS[:at], new, *FIELDS[at:])
    before, before_doc = gen.render_decoded_header(), gen.render_decoded_doc()
    monkeypatch.setattr(decoded, "FIELDS", extended)
    after, after_doc = gen.render_decoded_header(), gen.render_decoded_doc()

    _check_contiguous(after, extended)
    old, grown = _layout(before), _layout(after)
    for f in FIELDS[at:]:
        assert grown[f.name][0] == old[f.name][0] + 1, f"{f.name} moved up by the new field's width"
    for f in FIELDS[:at]:
        assert grown[f.name] == old[f.name], f"{f.name} before the new field stays put"
    assert int(_defines(after)["SIMT_DEC_W"]) == int(_defines(before)["SIMT_DEC_W"]) + 1
    assert "`define SIMT_DEC_IS_ATOMIC(dec) dec[`SIMT_DEC_IS_ATOMIC_OFF +: `SIMT_DEC_IS_ATOMIC_W]" in after
    pack = re.search(r"`define SIMT_DEC_PACK\(([^)]*)\) \{([^}]*)\}", after)
    assert pack and pack.group(1).split(", ") == [f.name for f in extended]
    assert pack.group(2).split(", ") == [f.name for f in reversed(extended)], "first field in the low bits"
    assert "| `is_atomic` | 1 |" in after_doc and "| `is_atomic` |" not in before_doc
    assert decoded.unpack(1 << grown["is_atomic"][0])["is_atomic"] == 1


def _hand_wired(text: str) -> list[str]:
    """Decoder fields a Verilog text wires by hand: a `simt_decode` instance connecting any port but
    instr, regs and dec, or a per-field width/offset macro used outside the generated header."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    found = []
    for inst in re.finditer(r"\bsimt_decode\s+\w+\s*\((.*?)\);", text, re.S):
        found += [p for p in re.findall(r"\.(\w+)\s*\(", inst.group(1)) if p not in ("instr", "regs", "dec")]
    found += [m.lower() for m in re.findall(r"`SIMT_DEC_(\w+?)_(?:W|OFF)\b", text)]
    return found


def test_no_stage_wires_the_decoder_fields_by_hand() -> None:
    offenders = {
        str(p.relative_to(ROOT)): n for p in STAGES if p != DECODER and (n := _hand_wired(p.read_text()))
    }
    assert not offenders, (
        f"decoder fields wired by hand (use the dec bus and `SIMT_DEC_<NAME>(dec)): {offenders}"
    )
    users = [p for p in STAGES if re.search(r"\bsimt_decode\s+\w+\s*\(", p.read_text())]
    assert len(users) >= 3, f"the three stages decode their instruction: {users}"


def test_the_hand_wiring_check_can_fail() -> None:
    planted = "simt_decode u_d (\n    .instr(w), .regs(r), .illegal(x_illegal), .dec(d)\n);\n"
    assert _hand_wired(planted) == ["illegal"]
    assert _hand_wired("wire [`SIMT_DEC_RA_W-1:0] x_ra;\n") == ["ra"]
    assert _hand_wired("simt_decode u_d (.instr(w), .regs(r), .dec(d));  // .illegal( in a comment\n") == []


def test_the_decoder_packs_one_value_per_field() -> None:
    """The producer (simt_decode) fills every field: a field added to the table without its value there
    fails now, before any simulator does."""
    text = DECODER.read_text()
    assert text.count("`SIMT_DEC_PACK(") == 1
    assert _pack_args(text, "SIMT_DEC_PACK") == [f.name for f in FIELDS]
    short = "assign dec = `SIMT_DEC_PACK(illegal, bad_reg);"
    assert len(_pack_args(short, "SIMT_DEC_PACK")) != len(FIELDS)  # the count check can fail
