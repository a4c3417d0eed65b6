"""ppa/kernelpower.py without any tool: time and power of a launch from its energy, the report table, the
per-event refit on the gate-level energy. Each check has a planted fault it catches."""

from __future__ import annotations

import pytest

from ppa import kernelpower


def test_time_and_power_of_a_launch() -> None:
    from ppa import timing

    row = {"cycles": 1000, "thread_instrs": 5000, "energy_pj": {"total": 50_000.0}}
    kernelpower.finish_row(row, 100.0)
    assert row["time_us"] == pytest.approx(10.0)  # 1000 cycles at 100 MHz
    assert row["energy_uj"] == pytest.approx(0.05) and row["total_mw"] == pytest.approx(5.0)
    assert row["pj_per_thread_instr"] == pytest.approx(10.0)
    # planted fault: the same energy in twice the cycles is half the power
    twice = kernelpower.finish_row(
        {"cycles": 2000, "thread_instrs": 5000, "energy_pj": {"total": 50_000.0}}, 100.0
    )
    assert twice["total_mw"] == pytest.approx(row["total_mw"] / 2)
    row.update(name="k", kind="kernel", nets={"simulated": 3, "registers_at_module_mean": 1})
    row["energy_pj"].update(internal=30_000.0, switching=10_000.0, clock=9_000.0, leakage=1_000.0)
    kp = {
        "sm": "L8",
        "fmax_mhz": 100.0,
        "kind": "modelled",
        "duty": 0.5,
        "simulated_machine": "m",
        "rows": [row],
    }
    text = "\n".join(timing.kernel_power_section(kp))
    assert "| k | kernel | 1,000 | 10.00 | 5.00 | 0.0500 | 10.0 |" in text


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


def test_timing_report_renders_buffered_sm_rows() -> None:
    from ppa import timing

    path = {"startpoint": "u_ex/_1_", "endpoint": "u_ex/_2_", "cells": ["a", "b"]}
    sm = {"name": "L8", "cells": 100, "fmax_mhz": 81.2, "min_period_ns": 12.3, "power_vectorless_w": None,
          "buffering": {"buffers": {"buf_2": 3, "buf_4": 4}},
          "critical": {"start_unit": "simt_execute", "end_unit": "simt_execute", "through": ["simt_alu"], "cells": ["a"]},
          "units": {"simt_execute": {"delay_ns": 12.3, "fmax_mhz": 81.2, "start_unit": "simt_execute",
                                     "through": ["simt_alu"], "endpoint": "u_ex/_2_/D", "path": path}}}  # fmt: skip
    text = timing.report(
        {"library": {"label": "x", "path": "p", "seconds": 1.0}, "seconds": {"a": 1.0}, "sta": [sm]}
    )
    assert "| L8 | 100 + 7 | 81.2 | 12.300 |" in text
    # planted fault: an unbuffered row must say so instead of a buffer count
    text2 = timing.report({"library": {"label": "x", "path": "p", "seconds": 1.0}, "seconds": {},
                           "sta": [{**sm, "buffering": None}]})  # fmt: skip
    assert "| L8 | 100 (unbuffered) |" in text2


def test_energy_by_module_sums_to_the_net_energy() -> None:
    import numpy as np

    from ppa import netpower

    cells = [
        netpower.Cell("inv", "simt_alu", {"A": 0}, {"Y": 1}),
        netpower.Cell("inv", "simt_lsu", {"A": 1}, {"Y": 2}),
    ]
    flat = netpower.Flat(cells, 3)
    modules, of = kernelpower.driver_modules(flat)
    assert modules == ["simt_alu", "simt_lsu"] and list(of) == [-1, 0, 1]
    per_toggle = np.array([1.0, 2.0, 3.0])
    act = np.array([0.5, 0.25, 0.1])
    got = kernelpower.by_module(per_toggle, act, 10, modules, of)
    assert got == pytest.approx({"simt_alu": 5.0, "simt_lsu": 3.0, "(undriven)": 5.0})
    assert sum(got.values()) == pytest.approx(float(per_toggle @ act) * 10)
    # planted fault: a net credited to the module it drives instead of its driver's moves the energy
    wrong = of.copy()
    wrong[2] = 0
    assert kernelpower.by_module(per_toggle, act, 10, modules, wrong)["simt_lsu"] == 0.0


def test_row_cache_key_changes_with_every_input() -> None:
    base = ("net1", [1, 2, 3], 20, {"num_lanes": 8}, "bench1")
    k = kernelpower.row_key(*base)
    variants = [
        ("net2", [1, 2, 3], 20, {"num_lanes": 8}, "bench1"),  # another netlist / Liberty / Fmax
        ("net1", [1, 2, 4], 20, {"num_lanes": 8}, "bench1"),  # another image
        ("net1", [1, 2, 3], 21, {"num_lanes": 8}, "bench1"),  # another latency
        ("net1", [1, 2, 3], 20, {"num_lanes": 32}, "bench1"),  # another machine
        ("net1", [1, 2, 3], 20, {"num_lanes": 8}, "bench2"),  # another RTL (toggle bench)
    ]
    assert all(kernelpower.row_key(*v) != k for v in variants)
    assert kernelpower.row_key(*base) == k  # deterministic

    # planted fault: a key without the netlist hands the old netlist's row to a new one; the check sees it
    def faulty(n: str, w: list[int], lat: int, m: dict, b: str) -> str:
        return kernelpower.row_key("", w, lat, m, b)

    assert not all(faulty(*v) != faulty(*base) for v in variants)
