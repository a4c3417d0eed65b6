"""The retire record is one bus whose layout is generated from spec/retire_record.py (docs/sm.md
"Retire port"): a field is added in one place.

A copy of the table with one more field regenerates rtl/include/simt_retire.vh with the field's width,
offset, slice macro, pack argument, view wire and trace column, and every later field moves up; no
Verilog file lists the fields by hand (the SM's one `SIMT_RT_PACK call takes them positionally), so
nothing else in Verilog changes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spec import gen, retire_record
from spec.retire_record import FIELDS, Field

ROOT = Path(__file__).resolve().parents[3]
VERILOG = [p for d in ("rtl/sm", "rtl/top", "tb/hdl") for p in sorted((ROOT / d).glob("*.v"))]
COMMIT = ROOT / "rtl" / "sm" / "simt_commit.v"
WS, DW = 32, 5  # WARP_SIZE, DEPTH_W of the default machine


def _defines(text: str) -> dict[str, str]:
    return dict(re.findall(r"^`define (\w+)(?:\([^)]*\))?[ \t]+(.*?)[ \t]*(?://.*)?$", text, re.M))


def _value(expr: str) -> int:
    return int(eval(expr, {}, {"WARP_SIZE": WS, "DEPTH_W": DW}))  # noqa: S307 - generated arithmetic


def _layout(text: str) -> dict[str, tuple[int, int]]:
    """Field name -> (offset, width) at WS/DW, from a generated header."""
    d = _defines(text)
    names = [m.lower() for m in re.findall(r"^`define SIMT_RT_(\w+)_OFF", text, re.M)]
    return {n: (_value(d[f"SIMT_RT_{n.upper()}_OFF"]), _value(d[f"SIMT_RT_{n.upper()}_W"])) for n in names}


def _check_contiguous(text: str, fields: tuple[Field, ...]) -> None:
    lay = _layout(text)
    assert list(lay) == [f.name for f in fields], "one offset per field, in table order"
    at = 0
    for f in fields:
        off, width = lay[f.name]
        assert (off, width) == (at, f.bits(WS, DW)), f"{f.name}: offset {off} width {width}, expected {at}"
        at += width
    assert _value(_defines(text)["SIMT_RT_W"]) == at, "SIMT_RT_W is the sum of the widths"


def test_committed_layout_is_contiguous() -> None:
    _check_contiguous(gen.render_retire_header(), FIELDS)


def test_a_field_added_to_a_copy_of_the_table_regenerates_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    new = Field("latency", "9", int, "cycles from issue to retire", "retire", 0)
    at = [f.name for f in FIELDS].index("txns") + 1  # in the middle: later fields must move up
    extended = (*FIELDS[:at], new, *FIELDS[at:])
    before = gen.render_retire_header()
    monkeypatch.setattr(retire_record, "FIELDS", extended)
    after = gen.render_retire_header()

    _check_contiguous(after, extended)
    old, grown = _layout(before), _layout(after)
    for f in FIELDS[at:]:
        assert grown[f.name][0] == old[f.name][0] + 9, f"{f.name} moved up by the new field's width"
    d = _defines(after)
    assert _value(d["SIMT_RT_W"]) == _value(_defines(before)["SIMT_RT_W"]) + 9
    assert (
        "`define SIMT_RT_LATENCY(rec, s) rec[(s)*`SIMT_RT_W + `SIMT_RT_LATENCY_OFF +: `SIMT_RT_LATENCY_W]"
        in after
    )
    pack = re.search(r"`define SIMT_RT_PACK\(([^)]*)\) \{([^}]*)\}", after)
    assert pack and pack.group(1).split(", ") == [f.name for f in extended]
    assert pack.group(2).split(", ") == [f.name for f in reversed(extended)], "first field in the low bits"
    assert "wire [`SIMT_RT_LATENCY_W-1:0] rt_latency = `SIMT_RT_LATENCY(rec, 0);" in after
    fmt = re.search(r'`define SIMT_RT_TRACE_FMT "(.*)"', after)
    assert fmt and fmt.group(1).count("%h") == len(extended) + 1  # + the cycle
    args = re.search(r"`define SIMT_RT_TRACE_ARGS\(rec, s\) (.*)", after)
    assert args and re.findall(r"`SIMT_RT_(\w+)\(rec, s\)", args.group(1))[at] == "LATENCY"
    # The Python side reads the longer trace line in the new order.
    assert [f.name for f in retire_record.FIELDS] == [f.name for f in extended]


def _hand_lists(text: str) -> list[str]:
    """Retire fields a Verilog text names by hand: rt_<field> ports or wires, or per-field width macros."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    found = []
    for f in FIELDS:
        if re.search(rf"\brt_{f.name}\b|`SIMT_RT_{f.name.upper()}_(W|OFF)\b", text):
            found.append(f.name)
    return found


def test_no_verilog_file_lists_the_fields_by_hand() -> None:
    offenders = {str(p.relative_to(ROOT)): n for p in VERILOG if (n := _hand_lists(p.read_text()))}
    assert not offenders, (
        f"retire fields written by hand (use rt_rec and the simt_retire.vh macros): {offenders}"
    )


def test_the_hand_list_check_can_fail() -> None:
    planted = "output reg [`SIMT_RT_PC_W-1:0] rt_pc,  // a port per field\n"
    assert _hand_lists(planted) == ["pc"]
    assert _hand_lists("// rt_pc in a comment is fine\n") == []


def _pack_args(text: str, macro: str = "SIMT_RT_PACK") -> list[str]:
    """The arguments of the one `<macro>(...) call of a Verilog text, split at top-level commas."""
    text = re.sub(r"//[^\n]*", "", text)
    start = text.index(f"`{macro}(") + len(f"`{macro}(")
    depth, args, cur = 0, [], ""
    for ch in text[start:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*args, cur.strip()]


def test_the_sm_packs_one_value_per_field() -> None:
    """The producer (simt_commit) fills every field: a field added to the table without its value here
    fails now, before any simulator does."""
    text = COMMIT.read_text()
    assert text.count("`SIMT_RT_PACK(") == 1
    assert len(_pack_args(text)) == len(FIELDS)


def test_the_pack_count_check_can_fail() -> None:
    short = "rt_rec <= `SIMT_RT_PACK(a, b, {c, d}, e ? f : g);"
    assert _pack_args(short) == ["a", "b", "{c, d}", "e ? f : g"]
    assert len(_pack_args(short)) != len(FIELDS)
