"""ppa/netpower.py without any tool: flattening across ports and assigns, RTL names found on nets,
activity from simulation / module mean / transition-density propagation, the energy sum by hand. Each
check has a planted fault it catches."""

from __future__ import annotations

import pytest

from ppa import fanout, netpower
from ppa.timedlib import CellPower, Table

P = fanout.PREFIX
FUNCS = {f"{P}inv_1": {"Y": "!A"}, f"{P}nand2_1": {"Y": "!(A&B)"}, f"{P}xor2_1": {"X": "(A^B)"}}


def _e(v: float) -> Table:
    return Table([0.01, 1.0], [0.001, 0.1], [[v, v], [v, v]])


LIB = {
    f"{P}inv_1": CellPower("inv", 1.0, 1.0, {"A": 0.002}, ["Y"], {"Y": (_e(0.004), _e(0.002))}, 0.0),
    f"{P}nand2_1": CellPower(
        "nand", 1.0, 2.0, {"A": 0.002, "B": 0.003}, ["Y"], {"Y": (_e(0.006), _e(0.004))}, 0.0
    ),
    f"{P}xor2_1": CellPower("xor", 1.0, 3.0, {"A": 0.004, "B": 0.004}, ["X"], {}, 0.0),
    f"{P}dfxtp_1": CellPower("ff", 1.0, 10.0, {"D": 0.0017, "CLK": 0.0018}, ["Q"], {}, 0.01),
}

NETLIST = f"""module sub(clk, a, y);
  input clk;
  input a;
  output y;
  {P}dfxtp_1 _1_ (
    .CLK(clk),
    .D(a),
    .Q(\\r[0] )
  );
  {P}dfxtp_1 _2_ (
    .CLK(clk),
    .D(a),
    .Q(_5_)
  );
  {P}nand2_1 _3_ (
    .A(\\r[0] ),
    .B(_5_),
    .Y(_6_)
  );
  assign y = _6_;
endmodule

module top(clk, \\x[0] , z);
  input clk;
  input \\x[0] ;
  output z;
  {P}inv_1 _7_ (
    .A(\\x[0] ),
    .Y(\\n )
  );
  sub \\g[2].u_sub (
    .clk(clk),
    .a(\\n ),
    .y(_8_)
  );
  {P}xor2_1 _9_ (
    .A(_8_),
    .B(1'h0),
    .X(z)
  );
endmodule
"""


def _flat() -> netpower.Flat:
    return netpower.flatten(fanout.parse(NETLIST), "top", LIB)


def test_flatten_joins_ports_and_assigns_and_names_rtl_bits() -> None:
    f = _flat()
    assert len(f.cells) == 5
    by_key = {k: n for n, ks in f.named.items() for k in ks}
    assert set(by_key) == {"/n", "/z", "g[2].u_sub/r[0]"}
    nand = next(c for c in f.cells if c.type.endswith("nand2_1"))
    xor = next(c for c in f.cells if c.type.endswith("xor2_1"))
    assert nand.outs["Y"] == xor.ins["A"]  # through the assign and the port y
    inv = next(c for c in f.cells if c.type.endswith("inv_1"))
    ffs = [c for c in f.cells if c.type.endswith("dfxtp_1")]
    assert all(ff.ins["D"] == inv.outs["Y"] for ff in ffs)  # through the port a
    assert f.const[xor.ins["B"]] == 0 and f.inputs == {inv.ins["A"]: "/x[0]"}
    assert all(ff.ins["CLK"] == f.clock for ff in ffs)


def test_sensitivities_are_boolean_difference_probabilities() -> None:
    assert netpower.sensitivities("!(A&B)") == (["A", "B"], [0.5, 0.5])
    assert netpower.sensitivities("(A^B)") == (["A", "B"], [1.0, 1.0])
    assert netpower.sensitivities("((A0&!S)|(A1&S))") == (["A0", "A1", "S"], [0.5, 0.5, 0.5])


def test_activities_and_energy_by_hand() -> None:
    f = _flat()
    bits = {"g[2].u_sub/r[0]": 40, "/x[0]": 20}  # over 100 cycles; /n not simulated
    a = netpower.activities(f, FUNCS, bits, 100)
    inv = next(c for c in f.cells if c.type.endswith("inv_1"))
    nand = next(c for c in f.cells if c.type.endswith("nand2_1"))
    xor = next(c for c in f.cells if c.type.endswith("xor2_1"))
    r0, q5 = nand.ins["A"], nand.ins["B"]
    assert a.act[inv.ins["A"]] == pytest.approx(0.2)
    assert a.act[inv.outs["Y"]] == pytest.approx(0.2)  # propagated through the inverter
    assert a.act[r0] == pytest.approx(0.4) and a.act[q5] == pytest.approx(
        0.4
    )  # unnamed register: module mean
    assert a.act[nand.outs["Y"]] == pytest.approx(0.5 * 0.4 + 0.5 * 0.4)
    assert a.act[xor.outs["X"]] == pytest.approx(0.4)  # the constant input adds nothing
    assert (a.simulated, a.at_mean, a.unreached) == (1, 1, 0)
    coef = netpower.coefficients(f, LIB, 1.8)
    e = netpower.energy_pj(coef, a.act, 100, 100.0)
    # by hand: load of /n = 2 D pins = 0.0034 pF; its inverter's internal energy 0.003 pJ per transition
    n_net = inv.outs["Y"]
    assert coef.per_toggle_pj[n_net] == pytest.approx(0.5 * 0.0034 * 1.8**2 + 0.003)
    assert e["clock"] == pytest.approx(2 * 2 * 0.01 * 100)  # two flip-flops, two edges a cycle, 100 cycles
    assert e["leakage"] == pytest.approx((1 + 2 + 3 + 10 + 10) * 1e-9 * 1e-6 * 1e12)  # 1 µs at 100 MHz
    assert e["total"] == pytest.approx(e["switching"] + e["internal"] + e["clock"] + e["leakage"])
    # planted fault: a doubled pin capacitance on the flip-flops' D adds exactly ½·ΔC·V² per transition
    lib2 = {**LIB, f"{P}dfxtp_1": CellPower("ff", 1.0, 10.0, {"D": 0.0034, "CLK": 0.0018}, ["Q"], {}, 0.01)}
    e2 = netpower.energy_pj(netpower.coefficients(f, lib2, 1.8), a.act, 100, 100.0)
    assert e2["switching"] - e["switching"] == pytest.approx(0.2 * 100 * 0.5 * 0.0034 * 1.8**2)
    # the module-mean registers named, and silenced (ppa/meanbias.py's E(mean) - E(0)): the nand's output
    # keeps only its simulated input's share; planted: the rule at 1 is not silent
    assert a.at_mean_nets == (q5,)
    z = netpower.activities(f, FUNCS, bits, 100, mean_scale=0.0)
    assert z.act[q5] == 0.0 and z.act[nand.outs["Y"]] == pytest.approx(0.5 * 0.4)
    assert netpower.energy_pj(coef, z.act, 100, 100.0)["total"] < e["total"]


def test_generate_copies_share_verilators_summed_point() -> None:
    assert netpower.wildcard("u_ex.lane[2].u_alu/sum[3]") == "u_ex.lane[*].u_alu/sum[3]"
    assert (
        netpower.wildcard("u_gmem/g_slot[3].data_q[5]") == "u_gmem/g_slot[3].data_q[5]"
    )  # a net, not a scope
    f = _flat()
    # the sub instance g[2].u_sub is the only copy: its register gets the whole summed count
    a = netpower.activities(f, FUNCS, {"g[*].u_sub/r[0]": 30}, 100)
    nand = next(c for c in f.cells if c.type.endswith("nand2_1"))
    assert a.act[nand.ins["A"]] == pytest.approx(0.3) and a.simulated == 1
    # planted fault: with two copies named, each gets half
    f.named[nand.ins["B"]] = ["g[3].u_sub/r[0]"]
    a2 = netpower.activities(f, FUNCS, {"g[*].u_sub/r[0]": 30}, 100)
    assert a2.act[nand.ins["A"]] == pytest.approx(0.15) and a2.act[nand.ins["B"]] == pytest.approx(0.15)
