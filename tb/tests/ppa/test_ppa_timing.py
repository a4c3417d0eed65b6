"""Tests of issue 28's timing and power code without ngspice or OpenSTA: the characterizer's logic
(ppa/charlib.py), Liberty writing and reading (ppa/timedlib.py), the gate-level power sum
(ppa/gatepower.py) and the parsing of OpenSTA's reports (ppa/sta.py). Each has a planted fault it
catches; the tool-dependent checks at the end skip with the reason when the tool is missing."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

from ppa import charlib, gatepower, sta, timedlib

SLEWS = [0.01, 0.1]
LOADS = [0.001, 0.01]


def _arc(d: float) -> dict:
    # delays grow with slew (rows) and load (columns): d + 0.1 slew + 10 load
    t = [[d + 0.1 * s + 10 * c for c in LOADS] for s in SLEWS]
    e = [[0.002 + 0.01 * s for _ in LOADS] for s in SLEWS]
    return {"sense": "negative_unate", "cell_rise": t, "cell_fall": t, "rise_transition": t,
            "fall_transition": t, "rise_power": e, "fall_power": [[v / 2 for v in r] for r in e]}  # fmt: skip


def fixture_data() -> dict:
    """A two-cell characterized library (inverter, NAND2) with the flip-flop."""
    ff_t = [[0.3 + 5 * c for c in LOADS] for _ in SLEWS]
    return {
        "tool": "ngspice-test",
        "corner": {"process": "tt", "vdd": 1.8, "temp": 25.0},
        "slews": SLEWS,
        "loads": LOADS,
        "setup_slews": [0.04, 0.35],
        "areas": {"inv_1": 3.7536, "nand2_1": 3.7536, "dfxtp_1": 20.0192},
        "cells": {
            "inv_1": {"output": "Y", "function": "!A", "arcs": {"A": _arc(0.02)}, "capacitance": {"A": 0.002},
                      "leakage": [{"when": {"A": 0}, "nw": 0.004}, {"when": {"A": 1}, "nw": 0.006}]},
            "nand2_1": {"output": "Y", "function": "!(A&B)", "arcs": {"A": _arc(0.03), "B": _arc(0.035)},
                        "capacitance": {"A": 0.0023, "B": 0.0024},
                        "leakage": [{"when": {"A": a, "B": b}, "nw": 0.01} for a in (0, 1) for b in (0, 1)]},
            "dfxtp_1": {"clk_q_rise": ff_t, "clk_q_fall": ff_t, "rise_transition": ff_t, "fall_transition": ff_t,
                        "rise_power": [[0.01, 0.01], [0.01, 0.01]], "fall_power": [[0.008, 0.008], [0.008, 0.008]],
                        "clk_rise_power": [0.004, 0.004], "clk_fall_power": [0.002, 0.002], "cap_clk": 0.0018,
                        "cap_d": 0.0017, "leakage_nw": 0.02, "setup_r": [[0.1, 0.12], [0.15, 0.17]],
                        "setup_f": [[0.2, 0.22], [0.25, 0.27]], "hold_r": [[-0.05, -0.04], [-0.03, -0.02]],
                        "hold_f": [[-0.1, -0.09], [-0.08, -0.07]]},
        },
    }  # fmt: skip


# --------------------------------------------------------------------------- the characterizer's logic


def test_evaluate_and_arcs() -> None:
    assert [charlib.evaluate("!(A&B)", {"A": a, "B": b}) for a in (0, 1) for b in (0, 1)] == [1, 1, 1, 0]
    assert charlib.arcs(["A", "B"], "!(A&B)") == [
        ("A", "negative_unate", {"B": 1}),
        ("B", "negative_unate", {"A": 1}),
    ]
    xor = charlib.arcs(["A", "B"], "(A^B)")
    assert [(p, s) for p, s, _ in xor] == [("A", "positive_unate"), ("A", "negative_unate"),
                                           ("B", "positive_unate"), ("B", "negative_unate")]  # fmt: skip
    # a21oi's A1 flips the output only with A2 = 1 and B1 = 0
    assert charlib.arcs(["A1", "A2", "B1"], "!((A1&A2)|B1)")[0] == (
        "A1",
        "negative_unate",
        {"A2": 1, "B1": 0},
    )
    # planted fault: a NOR written as a NAND sensitizes its input with the other input at 1, not 0
    assert charlib.arcs(["A", "B"], "!(A|B)")[0][2] == {"B": 0}
    assert charlib.arcs(["A", "B"], "!(A&B)")[0][2] != {"B": 0}


def test_measurement_parsing_skips_failed_measurements() -> None:
    out = "d_inv_1_a0_00_0     =  4.369915e-11 targ=  1.09e-09 trig=  1.05e-09\nt_x_0 = failed\n"
    m = charlib.parse_measurements(out)
    assert m == {"d_inv_1_a0_00_0": pytest.approx(4.369915e-11)}


def test_reduction_subtracts_the_load_energy_on_a_rising_output() -> None:
    plan = {"arcs": [{"pin": "A", "sense": "negative_unate", "side": {}}], "leak": [{"A": 0}, {"A": 1}]}
    meas = {}
    n_s, n_l = len(charlib.SLEWS), len(charlib.LOADS)
    for i in range(n_s):
        for j in range(n_l):
            for k in (0, 1):
                meas[f"d_inv_1_a0_{i}{j}_{k}"] = 1e-11 * (1 + i + j)
                meas[f"t_inv_1_a0_{i}{j}_{k}"] = 2e-11
                meas[f"e_inv_1_a0_{i}{j}_{k}"] = -(charlib.LOADS[j] * 1e-12 * 1.8 + 1e-15)  # C·V + 1 fC
            meas[f"q_inv_1_a0_{i}{j}_0"] = -3.6e-15
            meas[f"q_inv_1_a0_{i}{j}_1"] = 3.6e-15
    meas["l_inv_1_s0"], meas["l_inv_1_s1"] = -1e-12, -2e-12
    r = charlib.reduce_comb("inv_1", plan, meas)
    a = r["arcs"]["A"]
    # input rises (edge 0) -> output falls: cell_fall from edge 0, cell_rise from edge 1
    assert a["cell_fall"][0][0] == pytest.approx(0.01)
    # rising output: E_vdd - C V^2 = 1 fC x 1.8 V = 1.8 fJ = 0.0018 pJ, whatever the load
    assert a["rise_power"][0][-1] == pytest.approx(0.0018)
    assert a["fall_power"][0][-1] == pytest.approx(charlib.LOADS[-1] * 1.8 * 1.8 + 0.0018)
    assert r["capacitance"]["A"] == pytest.approx(0.002)  # 3.6 fC / 1.8 V
    assert [s["nw"] for s in r["leakage"]] == pytest.approx([0.0018, 0.0036])
    # planted fault: a failed measurement at the smallest load (nothing to extrapolate from) is an
    # error, not a zero
    del meas[f"d_inv_1_a0_{n_s - 1}0_1"]
    with pytest.raises(charlib.CharError, match="cell_rise"):
        charlib.reduce_comb("inv_1", plan, meas)


# --------------------------------------------------------------------------- Liberty write + read


def test_liberty_round_trip() -> None:
    lib = timedlib.parse(timedlib.liberty_text(fixture_data()))
    assert lib.name == timedlib.LIB_NAME
    cells = timedlib.cells_of(lib)
    assert set(cells) == {"sky130_fd_sc_hd__inv_1", "sky130_fd_sc_hd__nand2_1", "sky130_fd_sc_hd__dfxtp_1"}
    inv = cells["sky130_fd_sc_hd__inv_1"]
    assert inv.inputs == {"A": pytest.approx(0.002)}
    assert inv.leakage_nw == pytest.approx(0.005)
    assert inv.area == pytest.approx(3.7536)
    rise, fall = inv.energy["Y"]
    assert rise.lookup(0.01, 0.001) == pytest.approx(0.0021)
    assert fall.lookup(0.1, 0.01) == pytest.approx(0.0015)
    ff = cells["sky130_fd_sc_hd__dfxtp_1"]
    assert ff.clock_energy == pytest.approx(0.003)
    assert ff.inputs["D"] == pytest.approx(0.0017)
    g = lib.one("cell", "sky130_fd_sc_hd__nand2_1").one("pin", "Y").sub("timing")
    assert [t.attrs["related_pin"] for t in g] == ["A", "B"]
    # planted fault: a doubled capacitance in the data is a doubled capacitance in the file
    bad = fixture_data()
    bad["cells"]["inv_1"]["capacitance"]["A"] *= 2
    assert timedlib.cells_of(timedlib.parse(timedlib.liberty_text(bad)))["sky130_fd_sc_hd__inv_1"].inputs[
        "A"
    ] == pytest.approx(0.004)


def test_table_lookup_interpolates_and_extrapolates() -> None:
    t = timedlib.Table([0.0, 1.0], [0.0, 2.0], [[0.0, 2.0], [10.0, 12.0]])
    assert t.lookup(0.5, 1.0) == pytest.approx(6.0)
    assert t.lookup(2.0, 0.0) == pytest.approx(20.0)  # linear beyond the axis
    assert timedlib.Table([0.0, 1.0], [], [[1.0, 3.0]]).lookup(0.5) == pytest.approx(2.0)


def test_liberty_reader_reports_an_unclosed_group() -> None:
    with pytest.raises(timedlib.LibertyReadError, match="not closed"):
        timedlib.parse("library (x) { cell (a) { area : 1; ")


def test_user_liberty_must_exist(tmp_path) -> None:
    assert timedlib.user_liberty({}) is None
    with pytest.raises(timedlib.LibertyReadError, match="no such file"):
        timedlib.user_liberty({"PPA_LIBERTY": str(tmp_path / "missing.lib")})
    f = tmp_path / "x.lib"
    f.write_text("library (x) { }")
    assert timedlib.user_liberty({"PPA_LIBERTY": str(f)}) == f


# --------------------------------------------------------------------------- the power sum


def _circuit() -> list[gatepower.Instance]:
    return [
        gatepower.Instance("ff", "sky130_fd_sc_hd__dfxtp_1", {"CLK": "clk", "D": "y2", "Q": "q"}),
        gatepower.Instance("u1", "sky130_fd_sc_hd__inv_1", {"A": "q", "Y": "y1"}),
        gatepower.Instance("u2", "sky130_fd_sc_hd__nand2_1", {"A": "y1", "B": "q", "Y": "y2"}),
    ]


def test_power_sum_by_hand() -> None:
    cells = timedlib.cells_of(timedlib.parse(timedlib.liberty_text(fixture_data())))
    toggles = {"clk": 20, "q": 4, "y1": 4, "y2": 4}
    e = gatepower.energy(_circuit(), toggles, cells, vdd=1.8, seconds=1e-7, slew_ns=0.01, clock_net="clk")
    # loads: q drives inv.A (0.002) + nand.B (0.0024); y1 -> nand.A (0.0023); y2 -> ff.D (0.0017);
    # clk -> ff.CLK (0.0018)
    c = {"q": 0.0044, "y1": 0.0023, "y2": 0.0017, "clk": 0.0018}
    assert e.switching_pj == pytest.approx(sum(toggles[n] * 0.5 * c[n] * 1.8**2 for n in c))
    assert e.leakage_pj == pytest.approx((0.02 + 0.005 + 0.01) * 1e-9 * 1e-7 * 1e12)
    # internal: inv y1 at load 0.0023: rise 0.0021, fall 0.00105; nand y2 likewise; ff q (0.01+0.008)/2;
    # clock 20 x 0.003
    assert e.internal_pj == pytest.approx(4 * 0.5 * (0.0021 + 0.00105) * 2 + 4 * 0.009 + 20 * 0.003)


def test_power_sum_catches_a_doubled_capacitance() -> None:
    """Planted fault: the NAND's B pin with twice its capacitance adds exactly toggles(q)·½·ΔC·V²."""
    good = timedlib.cells_of(timedlib.parse(timedlib.liberty_text(fixture_data())))
    bad_data = fixture_data()
    bad_data["cells"]["nand2_1"]["capacitance"]["B"] *= 2
    bad = timedlib.cells_of(timedlib.parse(timedlib.liberty_text(bad_data)))
    toggles = {"clk": 20, "q": 4, "y1": 4, "y2": 4}
    kw = {"vdd": 1.8, "seconds": 1e-7, "slew_ns": 0.01, "clock_net": "clk"}
    e0 = gatepower.energy(_circuit(), toggles, good, **kw)
    e1 = gatepower.energy(_circuit(), toggles, bad, **kw)
    assert e1.switching_pj - e0.switching_pj == pytest.approx(4 * 0.5 * 0.0024 * 1.8**2)
    with pytest.raises(KeyError, match="not in the Liberty"):
        gatepower.energy([gatepower.Instance("x", "nope", {})], {}, good, **kw)


# --------------------------------------------------------------------------- OpenSTA reports

PATH_REPORT = """Startpoint: u_alu/_1_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: u_lsu/_9_ (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

  Delay    Time   Description
---------------------------------------------------------
   0.0000   0.0000   clock clk (rise edge)
   0.0000   0.0000   clock network delay (ideal)
   0.0000   0.0000 ^ u_alu/_1_/CLK (sky130_fd_sc_hd__dfxtp_1)
   0.3100   0.3100 ^ u_alu/_1_/Q (sky130_fd_sc_hd__dfxtp_1)
   0.0500   0.3600 v u_alu/_2_/Y (sky130_fd_sc_hd__inv_1)
   0.0700   0.4300 ^ u_lsu/_5_/Y (sky130_fd_sc_hd__nand2_1)
   0.0000   0.4300 ^ u_lsu/_9_/D (sky130_fd_sc_hd__dfxtp_1)
            0.4300   data arrival time

  20.0000  20.0000   clock clk (rise edge)
   0.0000  20.0000   clock network delay (ideal)
  -0.1200  19.8800   library setup time
           19.8800   data required time
---------------------------------------------------------
           19.8800   data required time
           -0.4300   data arrival time
---------------------------------------------------------
           19.4500   slack (MET)

"""

END_REPORT = """max_delay/setup group clk

                                         Required      Actual
Endpoint                                   Delay        Delay       Slack
------------------------------------------------------------------------
u_lsu/_9_/D (sky130_fd_sc_hd__dfxtp_1)   19.88         0.43        19.45 (MET)
_3_/D (sky130_fd_sc_hd__dfxtp_1)         19.88         0.20        19.68 (MET)
"""


def test_parse_path_report() -> None:
    (p,) = sta.parse_paths(PATH_REPORT)
    assert (p.startpoint, p.endpoint) == ("u_alu/_1_", "u_lsu/_9_")
    assert p.arrival == pytest.approx(0.43) and p.slack == pytest.approx(19.45)
    assert p.cells == ["sky130_fd_sc_hd__dfxtp_1", "sky130_fd_sc_hd__inv_1", "sky130_fd_sc_hd__nand2_1",
                       "sky130_fd_sc_hd__dfxtp_1"]  # fmt: skip
    # planted fault: one more gate on the path is one more cell
    longer = PATH_REPORT.replace(
        "   0.0000   0.4300 ^ u_lsu/_9_/D",
        "   0.0500   0.4800 v u_lsu/_6_/Y (sky130_fd_sc_hd__inv_1)\n   0.0000   0.4300 ^ u_lsu/_9_/D",
    )
    assert len(sta.parse_paths(longer)[0].cells) == 5
    assert sta.fmax_mhz(20.0, 19.45) == pytest.approx(1000 / 0.55)
    with pytest.raises(ValueError, match="not less"):
        sta.fmax_mhz(1.0, 1.0)


def test_parse_endpoint_report_and_units() -> None:
    rows = sta.parse_endpoints(END_REPORT)
    assert rows == [("u_lsu/_9_/D", pytest.approx(19.45)), ("_3_/D", pytest.approx(19.68))]
    verilog = (
        "module simt_shared_lsu(clk);\n  input clk;\n  sky130_fd_sc_hd__dfxtp_1 _9_ (\n    .CLK(clk)\n  );\nendmodule\n"
        "module simt_sm(clk);\n  input clk;\n  simt_shared_lsu u_lsu (\n    .clk(clk)\n  );\n"
        "  \\$paramod\\simt_alu\\X=1  \\gen_lane[0].u_alu  (\n    .clk(clk)\n  );\nendmodule\n"
        "module \\$paramod\\simt_alu\\X=1 (clk);\nendmodule\n"
    )
    mods = sta.hierarchy(verilog)
    assert mods["simt_sm"] == {"u_lsu": "simt_shared_lsu", "gen_lane[0].u_alu": "$paramod\\simt_alu\\X=1"}
    assert sta.unit_of("u_lsu/_9_/D", "simt_sm", mods) == "simt_shared_lsu"
    assert sta.unit_of("gen_lane\\[0\\].u_alu/_4_/D", "simt_sm", mods) == "simt_alu"
    assert sta.unit_of("_3_/D", "simt_sm", mods) == "simt_sm"
    # planted fault: an unknown instance is the parent's unit, not a guess
    assert sta.unit_of("u_nothing/_9_/D", "simt_sm", mods) == "simt_sm"


# --------------------------------------------------------------------------- with the tools


def test_chain_netlist_is_what_sta_reads() -> None:
    from ppa import chaincheck

    v = chaincheck.verilog()
    assert v.count("sky130_fd_sc_hd__dfxtp_1") == 2 and "1'b1" in v
    if shutil.which("sta") is None:
        pytest.skip("OpenSTA not installed (apt-get install opensta): the chain is only written")


def test_fixture_library_loads_in_opensta(tmp_path) -> None:
    if shutil.which("sta") is None:
        pytest.skip("OpenSTA not installed (apt-get install opensta)")
    import subprocess

    lib = timedlib.write(tmp_path / "f.lib", fixture_data())
    mac = tmp_path / "m.lib"
    mac.write_text(timedlib.macro_liberty_text())
    tcl = tmp_path / "t.tcl"
    tcl.write_text(f"read_liberty {lib}\nread_liberty {mac}\nexit\n")
    out = subprocess.run(
        ["sta", "-no_splash", "-exit", str(tcl)], capture_output=True, text=True, timeout=120
    )
    assert "Error" not in out.stdout + out.stderr, out.stdout + out.stderr
    assert copy.deepcopy(fixture_data()) == fixture_data()


POWER_REPORT = """Group                    Internal    Switching      Leakage        Total
                            Power        Power        Power        Power
------------------------------------------------------------------------
Sequential           8.418259e-06 1.620000e-08 4.000000e-11 8.434499e-06  37.0%
Combinational        1.416674e-05 1.952616e-07 1.300000e-10 1.436213e-05  63.0%
Macro                0.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00   0.0%
Pad                  0.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00   0.0%
------------------------------------------------------------------------
Total                2.258500e-05 2.114617e-07 1.700000e-10 2.279663e-05 100.0%
                            99.1%         0.9%         0.0%
"""


def test_parse_power_report(tmp_path) -> None:
    """OpenSTA 2.0.17's report_power layout (captured from a run on the cell chain)."""
    rows = sta.parse_power(POWER_REPORT)
    assert rows["Total"]["total"] == pytest.approx(2.279663e-05)
    assert rows["Combinational"]["switching"] == pytest.approx(1.952616e-07)
    parts = ("Sequential", "Combinational", "Macro", "Pad")
    assert sum(rows[g]["total"] for g in parts) == pytest.approx(rows["Total"]["total"], rel=1e-6)
    assert sta.parse_power(tmp_path / "missing.rpt") is None
    # planted fault: a report without its Total row is not read as zero power
    assert "Total" not in sta.parse_power(POWER_REPORT.replace("Total ", "Sum "))


def test_negation_binds_tighter_than_and() -> None:
    """Planted fault that happened: '!' evaluated as '1 ^' made mux2's !S&A0 into !(S&A0), so the mux's
    data pins were sensitized with the wrong select and never switched in ngspice."""
    mux = "((A0&!S)|(A1&S))"
    assert [charlib.evaluate(mux, {"A0": 1, "A1": 0, "S": s}) for s in (0, 1)] == [1, 0]
    assert charlib.arcs(["A0", "A1", "S"], mux)[0] == ("A0", "positive_unate", {"A1": 0, "S": 0})
    assert charlib.evaluate("!(!A_N&B)", {"A_N": 0, "B": 1}) == 0


def test_failed_largest_load_is_extrapolated_along_the_load_axis() -> None:
    loads = charlib.LOADS
    row = [1.0, 1.0 + 10 * (loads[1] - loads[0]), None]
    table = [row]
    assert charlib.fill_along_load(table) == [(0, 2)]
    assert table[0][2] == pytest.approx(1.0 + 10 * (loads[2] - loads[0]))
    gap = [[None, 1.0, None]]  # too few points before it: left for the caller to refuse
    assert charlib.fill_along_load(gap) == [] and gap[0][2] is None


def test_instances_escape_generated_names_and_power_scales_with_frequency() -> None:
    mods = {
        "top": {"u_a": "a", "lane[0].u_b": "b", "_1_": "sky130_fd_sc_hd__inv_1"},
        "a": {},
        "b": {"u_c": "a"},
    }
    got = sta.instances(mods, "top")
    assert got == [("", "top"), ("u_a", "a"), ("lane\\[0\\].u_b", "b"), ("lane\\[0\\].u_b/u_c", "a")]
    tcl = sta.script([], Path("n.v"), "top", Path("w"), [p for p, _ in got])
    assert "-to [get_pins {lane\\[0\\].u_b/u_c/*/D}]" in tcl and "-to [get_pins {*/D}]" in tcl
    assert "report_power" not in tcl  # off by default: OpenSTA 2.0.17 segfaults in it on the whole SM
    assert "report_power" in sta.script([], Path("n.v"), "top", Path("w"), [], power=True)
    rows = {"Total": {"internal": 2.0, "switching": 1.0, "leakage": 0.5, "total": 3.5}}
    at_half = sta.scale_power(rows, 20.0, 10.0)["Total"]  # twice the frequency
    assert at_half == {"internal": 4.0, "switching": 2.0, "leakage": 0.5, "total": 6.5}
    # planted fault: scaling the leakage too would change the total
    assert at_half["total"] != 2 * rows["Total"]["total"]


def test_sta_power_switch(monkeypatch) -> None:
    monkeypatch.delenv(sta.STA_POWER_ENV, raising=False)
    assert sta.sta_power_default() is False
    monkeypatch.setenv(sta.STA_POWER_ENV, "1")
    assert sta.sta_power_default() is True
    monkeypatch.setenv(sta.STA_POWER_ENV, "yes")  # bad input: a clear error, not a silent default
    with pytest.raises(sta.StaError, match="must be 0 or 1"):
        sta.sta_power_default()


def test_generic_cells_left_after_mapping_are_refused(tmp_path) -> None:
    from ppa import netlist

    good = "module m(a, y);\n  sky130_fd_sc_hd__inv_1 _1_ (\n    .A(a),\n    .Y(y)\n  );\nendmodule\n"
    assert netlist.unmapped(good) == {}
    # planted fault: an enable flip-flop's feedback mux left generic (what dfflibmap after ABC left)
    bad = good.replace(
        "endmodule", "  \\$_MUX_  _2_ (\n    .A(a),\n    .B(y),\n    .S(a),\n    .Y(y)\n  );\nendmodule"
    )
    assert netlist.unmapped(bad) == {"$_MUX_": 1}
    (tmp_path / "n.v").write_text(bad)
    with pytest.raises(netlist.UnmappedError, match="1 \\$_MUX_"):
        netlist.check_mapped(tmp_path / "n.v")
    # the mapping script maps flip-flops before ABC, so ABC sees the legalization's muxes
    script = netlist.timed_script(Path("a.lib"), Path("m.lib"))
    assert script.index("dfflibmap") < script.index("abc -liberty")
