"""ppa/kernelpower.py without any tool: RTL bit names found on the netlist's driving pins, activities from
toggles / cycles, registers without a simulated bit at their module's mean, the OpenSTA script. Each
check has a planted fault it catches."""

from __future__ import annotations

import re

import pytest

from ppa import fanout, kernelpower

P = fanout.PREFIX
OUTS = {f"{P}inv_1": {"Y"}, f"{P}dfxtp_1": {"Q"}, f"{P}buf_2": {"X"}}

NETLIST = f"""module sub(clk, a, y);
  input clk;
  input a;
  output y;
  wire \\r[0] ;
  wire _5_;
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
  {P}inv_1 _3_ (
    .A(\\r[0] ),
    .Y(\\g[1].n )
  );
  assign y = _5_;
endmodule

module top(clk, \\x[0] , z);
  input clk;
  input \\x[0] ;
  output z;
  wire \\q ;
  {P}dfxtp_1 _9_ (
    .CLK(clk),
    .D(\\x[0] ),
    .Q(\\q )
  );
  sub \\gen[2].u_sub (
    .clk(clk),
    .a(\\q ),
    .y(z)
  );
endmodule
"""


def _map() -> kernelpower.SiteMap:
    return kernelpower.sites(fanout.parse(NETLIST), "top", OUTS)


def test_sites_are_keyed_as_the_coverage_keys_bits() -> None:
    sm = _map()
    got = {s.key: (s.pin, s.sequential) for s in sm.sites}
    assert got == {
        "/q": ("_9_/Q", True),
        "gen[2].u_sub/r[0]": ("gen\\[2\\].u_sub/_1_/Q", True),
        "gen[2].u_sub.g[1]/n": ("gen\\[2\\].u_sub/_3_/Y", False),  # a generate-block net: scope g[1]
    }
    assert sm.unnamed_seq == [("sub", "gen\\[2\\].u_sub/_2_/Q")]
    assert sm.ports == {"x\\[0\\]": "/x[0]"}


def _activities(lines: list[str]) -> dict[str, float]:
    out = {}
    for ln in lines:
        m = re.search(r"get_(?:pins|ports) \{([^}]*)\}\] -activity (\S+)", ln)
        assert m, ln
        out[m.group(1)] = float(m.group(2))
    return out


def test_activity_is_toggles_per_cycle_and_unnamed_registers_get_the_module_mean() -> None:
    bits = {"/q": 50, "gen[2].u_sub/r[0]": 30, "gen[2].u_sub.g[1]/n": 10, "/x[0]": 20}
    ann = kernelpower.annotate(_map(), bits, 100)
    act = _activities(ann.lines)
    assert act["_9_/Q"] == pytest.approx(0.5) and act["gen\\[2\\].u_sub/_3_/Y"] == pytest.approx(0.1)
    assert act["x\\[0\\]"] == pytest.approx(0.2)
    # the unnamed register of `sub` gets the mean of sub's annotated registers (0.3), not the top's
    assert act["gen\\[2\\].u_sub/_2_/Q"] == pytest.approx(0.3)
    assert (ann.named, ann.named_seq, ann.unnamed_seq, ann.ports, ann.missing) == (3, 2, 1, 1, 0)
    # planted fault: a doubled toggle count doubles exactly that pin's activity
    bad = kernelpower.annotate(_map(), {**bits, "/q": 100}, 100)
    diff = {k for k, v in _activities(bad.lines).items() if v != act[k]}
    assert diff == {"_9_/Q"}
    # a named register whose bit was not simulated falls back to its module's mean and is counted
    ann2 = kernelpower.annotate(_map(), {k: v for k, v in bits.items() if k != "gen[2].u_sub/r[0]"}, 100)
    assert ann2.missing == 1 and ann2.unnamed_seq == 2


def test_script_reads_once_and_reports_each_run(tmp_path) -> None:
    runs = [("a", tmp_path / "a.tcl"), ("b", tmp_path / "b.tcl")]
    text = kernelpower.script([tmp_path / "x.lib"], tmp_path / "n.v", "top", 12.5, runs)
    assert text.count("read_verilog") == 1 and text.count("report_power") == 2
    assert "-period 12.5000" in text and f"source {tmp_path / 'b.tcl'}" in text


def test_time_and_energy_of_a_launch() -> None:
    from ppa import timing

    power = {"Total": {"internal": 0.004, "switching": 0.001, "leakage": 1e-6, "total": 0.005001}}
    row = kernelpower.finish_row({"cycles": 1000, "thread_instrs": 5000}, power, 100.0)
    assert row["time_us"] == pytest.approx(10.0)  # 1000 cycles at 100 MHz
    assert row["energy_uj"] == pytest.approx(0.005001 * 10e-6 * 1e6)
    assert row["pj_per_thread_instr"] == pytest.approx(0.005001 * 10e-6 * 1e12 / 5000)
    # planted fault: twice the cycles at the same power is twice the energy
    twice = kernelpower.finish_row({"cycles": 2000, "thread_instrs": 5000}, power, 100.0)
    assert twice["energy_uj"] == pytest.approx(2 * row["energy_uj"])
    row.update(name="k", kind="kernel", annotated={"named": 3, "registers_at_module_mean": 1})
    kp = {"sm": "L8", "fmax_mhz": 100.0, "kind": "modelled", "tool": "OpenSTA", "duty": 0.5,
          "simulated_machine": "m", "rows": [row]}  # fmt: skip
    text = "\n".join(timing.kernel_power_section(kp))
    assert "| k | kernel | 1,000 | 10.00 | 5.00 | 0.0500 |" in text


def test_refit_recovers_per_event_energies_and_sees_a_wrong_kernel() -> None:
    import random

    from ppa.power import EVENTS

    rng = random.Random(3)
    truth = {e: 0.5 + i for i, e in enumerate(EVENTS)}  # pJ per event

    def row(name: str, kind: str) -> dict:
        ev = {e: float(rng.randint(1, 1000)) for e in EVENTS}
        return {
            "name": name,
            "kind": kind,
            "events": ev,
            "energy_uj": sum(truth[e] * v for e, v in ev.items()) / 1e6,
        }

    rows = [row(f"m{i}", "micro") for i in range(24)] + [row(f"k{i}", "kernel") for i in range(4)]
    rf = kernelpower.refit(rows)
    assert rf["geomean_abs"] < 1e-6
    assert all(rf["pj_per_event"][e] == pytest.approx(v, rel=1e-4) for e, v in truth.items())
    # planted fault: a held-out kernel whose reference energy is doubled shows up as -50 %
    rows[-1]["energy_uj"] *= 2
    assert kernelpower.refit(rows)["errors"]["k3"] == pytest.approx(-0.5, abs=1e-4)
