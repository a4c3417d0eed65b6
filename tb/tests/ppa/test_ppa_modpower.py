"""ppa/modpower.py without any tool: the per-module energy model recovers per-module energies, and its
check fails on a bad fit. Each check has a planted fault it catches."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ppa import energy, modpower
from ppa.power import EVENTS

# a small SM: two datapath modules with their own events, one control module, clock pins and leakage
TRUTH = {
    "simt_alu": {"alu_thread": 3.0, "operand_hd": 0.7},
    "simt_commit": {"lane_hd": 1.5, "warp_instr": 20.0},
    "simt_issue": {"cycles": 4.0, "instr_hd": 2.0},
    "(clock pins)": {"cycles": 50.0},
    "(leakage)": {"cycles": 1.0},
}
EVENTS_OF = {m: tuple(t) for m, t in TRUTH.items()}


def _rows(seed: int = 5) -> list[dict]:
    rng = random.Random(seed)

    def row(name: str, kind: str) -> dict:
        ev = {e: float(rng.randint(1, 1000)) for e in EVENTS}
        per = {m: sum(v * ev[e] for e, v in t.items()) for m, t in TRUTH.items()}
        # a netlist module as Yosys names a parameterised copy: folded into its RTL module
        by_mod = {"$paramod$0123abcd\\simt_alu": per["simt_alu"] * 0.25, "simt_alu": per["simt_alu"] * 0.75}
        by_mod.update({m: per[m] for m in ("simt_commit", "simt_issue")})
        by_mod["(undriven)"] = 0.0
        clock, leak = per["(clock pins)"], per["(leakage)"]
        total = sum(per.values())
        return {
            "name": name,
            "kind": kind,
            "events": ev,
            "by_module_pj": by_mod,
            "energy_pj": {"clock": clock, "leakage": leak, "total": total},
            "energy_uj": total / 1e6,
        }

    return [row(f"m{i}", "micro") for i in range(20)] + [row(f"k{i}", "kernel") for i in range(5)]


def test_unit_of_folds_parameterised_copies() -> None:
    assert modpower.unit_of("$paramod$0123abcd\\simt_alu") == "simt_alu"
    assert modpower.unit_of("$paramod\\simt_regfile\\NUM_LANES=s32'00000000000000000000000000001000") == "simt_regfile"  # fmt: skip
    assert modpower.unit_of("simt_sm") == "simt_sm" and modpower.unit_of("(undriven)") == "(undriven)"


def test_module_energy_sums_to_the_total() -> None:
    r = _rows()[0]
    per = modpower.module_energy(r)
    assert sum(per.values()) == pytest.approx(r["energy_pj"]["total"])
    assert per["simt_alu"] == pytest.approx(
        sum(TRUTH["simt_alu"][e] * r["events"][e] for e in TRUTH["simt_alu"])
    )


def test_per_module_fit_recovers_each_module_and_the_total() -> None:
    rows = _rows()
    res = modpower.fit(rows, EVENTS_OF)
    for m, t in TRUTH.items():
        got = res["modules"][m]["pj_per_event"]
        assert got == pytest.approx(t, rel=1e-6), m
        assert res["modules"][m]["geomean_abs"] < 1e-6
    assert res["geomean_abs"] < 1e-6 and res["mape"] < 1e-6
    # the other weighting (residuals over each module's own energy) recovers the same exact energies
    assert modpower.fit(rows, EVENTS_OF, relative_to="module")["geomean_abs"] < 1e-6
    with pytest.raises(modpower.ModelError, match="relative_to"):
        modpower.fit(rows, EVENTS_OF, relative_to="modul")
    # planted fault: a held-out kernel's ALU energy doubled shows up in that module and in the total
    k = rows[-1]
    alu = modpower.module_energy(k)["simt_alu"]
    k["by_module_pj"]["simt_alu"] += alu
    k["energy_pj"]["total"] += alu
    res2 = modpower.fit(rows, EVENTS_OF)
    assert res2["modules"]["simt_alu"]["errors"]["k4"] == pytest.approx(-0.5, abs=1e-6)
    assert res2["errors"]["k4"] == pytest.approx(-alu / k["energy_pj"]["total"], abs=1e-6)


def test_check_fails_on_a_negative_fitted_energy() -> None:
    rows = _rows()
    modpower.fit(rows, EVENTS_OF)  # NNLS: passes

    # planted bad fit: a solver that returns the NNLS solution with its signs flipped
    def flipped(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return -energy.nnls(a, b)

    with pytest.raises(modpower.ModelError, match="negative fitted per-module energies"):
        modpower.fit(rows, EVENTS_OF, solve=flipped)


def test_check_fails_on_a_module_with_energy_and_no_events() -> None:
    rows = _rows()
    # planted bad fit: simt_commit's energy left without events (dropped from the table)
    missing = {m: e for m, e in EVENTS_OF.items() if m != "simt_commit"}
    with pytest.raises(modpower.ModelError, match=r"no events: \['simt_commit'\]"):
        modpower.fit(rows, missing)
    # ... or given only an event no training launch counts
    for r in rows:
        if r["kind"] == "micro":
            r["events"]["barrier"] = 0.0
    idle = {**EVENTS_OF, "simt_commit": ("barrier",)}
    with pytest.raises(modpower.ModelError, match="simt_commit"):
        modpower.fit(rows, idle)
    # a module with no energy anywhere (simt_sm here) needs no events
    for r in rows:
        r["by_module_pj"]["simt_sm"] = 0.0
    modpower.fit(rows, EVENTS_OF)


def test_every_events_of_entry_names_known_events() -> None:
    bad = {m: [e for e in evs if e not in EVENTS] for m, evs in modpower.EVENTS_OF.items()}
    assert not any(bad.values()), bad
    # planted fault: a misspelt event is caught by the same comparison
    assert [e for e in ("alu_threads",) if e not in EVENTS]


def test_alu_events_column_and_the_summary_renders_like_the_fit() -> None:
    """Rows with ``alu_events`` get the ALU-input model as a fifth column, fitted on those counts; the
    rounded summary (what docs/ppa/timing.json keeps) renders the same table as the full result.
    Planted: the ALU's energy made a function of alu_a_hd only; the ALU-input model recovers it, the
    chosen events (which never see alu_a_hd) do not."""
    from ppa.aluactivity import NAMES

    rows = _rows()
    rng = np.random.default_rng(3)
    for r in rows:
        r["alu_events"] = {e: float(rng.integers(1, 1000)) for e in NAMES}
        alu = 9.0 * r["alu_events"]["alu_a_hd"]
        old = modpower.module_energy(r)["simt_alu"]
        r["by_module_pj"] = {
            **{m: v for m, v in r["by_module_pj"].items() if "simt_alu" not in m},
            "simt_alu": alu,
        }
        r["energy_pj"]["total"] += alu - old
    ev = {**EVENTS_OF, "simt_alu": ("alu_a_hd", "alu_b_hd")}
    res = modpower.fit(rows, ev)
    assert res["modules"]["simt_alu"]["pj_per_event"]["alu_a_hd"] == pytest.approx(9.0, rel=1e-6)
    assert res["geomean_abs"] < 1e-6
    assert modpower.fit(rows, EVENTS_OF)["modules"]["simt_alu"]["train_geomean_abs"] > 0.05
    full = {
        "whole_sm": {"errors": res["errors"], "geomean_abs": 0.1, "mape": 0.1, "fitted_on": ["m0"]},
        "all_events": res, "chosen": res, "chosen_module_relative": res, "alu_events": res,
    }  # fmt: skip
    assert modpower.report(modpower.summary(full), 8) == modpower.report(full, 8)
    assert "per-module, ALU-input events" in modpower.report(full, 8)[2]
    del full["alu_events"]
    assert "ALU-input" not in "\n".join(modpower.report(full, 8))


def test_events_of_alu_names_known_events() -> None:
    from ppa.aluactivity import NAMES

    known = set(EVENTS) | set(NAMES)
    bad = {m: [e for e in evs if e not in known] for m, evs in modpower.EVENTS_OF_ALU.items()}
    assert not any(bad.values()), bad
    assert set(modpower.EVENTS_OF_ALU["simt_alu"]) <= set(NAMES)


def test_recount_needs_a_retire_order() -> None:
    from ppa import kernelpower

    assert kernelpower.recount([{"name": "x", "alu_events": {}}], 8) == 0  # nothing to count
    with pytest.raises(ValueError, match="nor a retire order"):
        kernelpower.recount([{"name": "vecadd/256", "warp_instrs": 1}], 8)
