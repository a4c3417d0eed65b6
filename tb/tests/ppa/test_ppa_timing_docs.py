"""ppa/timing_docs.py: docs/ppa.md's timing/power tables come from docs/ppa/timing.json (issue 28), and
ppa/coldrun.py's per-part table. Pure Python, no tools: about 1 s."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ppa import coldrun, timing_docs


def _build(tmp: Path, monkeypatch) -> Path:
    """A build/ppa tree with one SM's STA, its synthesis result, its power, the chain and a cold run."""
    monkeypatch.setattr(timing_docs, "_buffer_area", lambda b: 5.0 * sum(b.values()))
    sta = tmp / "sta" / "L8-W16-R512-B8-abc"
    sta.mkdir(parents=True)
    path = {"startpoint": "a/q", "endpoint": "b/D", "cells": ["x"] * 7}
    sta.joinpath("sta.json").write_text(json.dumps({
        "name": "L8-W16-R512-B8", "config": {"lanes": 8}, "cells": 1000, "min_period_ns": 14.0,
        "fmax_mhz": 1e3 / 14.0, "buffering": {"buffers": {"sky130_fd_sc_hd__buf_2": 10}},
        "critical": {**path, "start_unit": "simt_commit", "end_unit": "simt_perf", "through": ["simt_commit", "simt_perf"]},
        "units": {"simt_perf": {"delay_ns": 14.0, "start_unit": "simt_commit", "through": ["simt_perf"], "path": path}},
    }))  # fmt: skip
    unit = tmp / "sta" / "simt_alu@L8-abc"
    unit.mkdir()
    unit.joinpath("sta.json").write_text(json.dumps({  # a unit alone: not an SM row, a units-alone row
        "unit": "simt_alu", "config": "L8-W16-R512-B8", "lanes": 8, "delay_ns": 9.44, "path": {"cells": ["x"] * 63},
        "buffering": {"buffers": {"sky130_fd_sc_hd__buf_2": 519}}}))  # fmt: skip
    cache = tmp / "cache" / "sm-L8-W16-R512-B8-k"
    cache.mkdir(parents=True)
    cache.joinpath("result.json").write_text(json.dumps({
        "units": {"simt_sm": {"instances": 1, "cells": 1000, "ffs": 10, "generic_gates": 0, "area_um2": 2e6}},
        "memories": [{"kind": "macro", "unit": "simt_sm", "bits": 8, "instances": 1, "area_um2": 3e6}],
    }))  # fmt: skip
    kp = tmp / "kernelpower" / "L8"
    kp.mkdir(parents=True)
    rows = [{"name": n, "kind": "kernel", "cycles": 1000 * i, "time_us": 14.0 * i, "energy_uj": 2.0 * i,
             "total_mw": 100.0 + i, "pj_per_thread_instr": 200.0,
             "energy_pj": {"internal": 1.0, "switching": 1.0, "clock": 2.0, "leakage": 0.0}}
            for i, n in enumerate(["vecadd/256", timing_docs.TESLA_KERNEL], start=1)]  # fmt: skip
    kp.joinpath("kernelpower.json").write_text(json.dumps({
        "sm": "L8-W16-R512-B8", "lanes": 8, "fmax_mhz": 1e3 / 14.0, "kind": "modelled", "netlist": {}, "rows": rows}))  # fmt: skip
    ch = tmp / "chain"
    ch.mkdir()
    ch.joinpath("chain.json").write_text(json.dumps({
        "cells": ["dfxtp_1", "inv_1"], "tool": "t", "spice_ns": {"rise": 1.0, "fall": 1.0},
        "sta_ns": {"rise": 0.96, "fall": 1.07}, "error": {"rise": -0.04, "fall": 0.07}}))  # fmt: skip
    cr = tmp / "coldrun"
    cr.mkdir()
    cr.joinpath("coldrun.json").write_text(json.dumps({
        "lanes": 8, "kind": "cold", "when": "2026-11-27 02:25 UTC", "load_start": "0.0 / 0.0 / 0.0",
        "parts": {"synth": {"wall_s": 600.0, "cpu_s": 590.0, "ok": True},
                  "power": {"wall_s": 300.0, "cpu_s": 280.0, "ok": True}}}))  # fmt: skip
    return tmp


def test_collect_render_and_table52(tmp_path, monkeypatch) -> None:
    res = timing_docs.collect(_build(tmp_path, monkeypatch))
    sm = res["sms"]["L8-W16-R512-B8"]
    assert (sm["cells"], sm["buffers"], sm["buffer_um2"], sm["logic_um2"], sm["macro_um2"]) == (
        1000,
        10,
        50.0,
        2e6,
        3e6,
    )
    t = res["table52"]
    # 16 SMs: cells with buffers, logic + buffer area, macros, and the named kernel's power
    assert t["cells_m"] == pytest.approx(16 * 1010 / 1e6, abs=0.005)
    assert t["logic_mm2"] == pytest.approx(16 * 2.00005, abs=0.05) and t["macro_mm2"] == 48.0
    assert t["power_w"] == pytest.approx(16 * 0.102)
    # the seed scaled by Dennard's constant field, kappa = 2: power x4 at half the frequency
    assert t["seed_scaled"]["power_w"] == pytest.approx(46.2) and t["seed_scaled"]["mhz"] == 150.0
    tables = timing_docs.render(res)
    assert set(tables) == {
        "sta",
        "units-L8-W16-R512-B8",
        "chain",
        "power-L8-W16-R512-B8",
        "table52",
        "coldrun",
        "units-alone",
    }
    assert (
        "| lanes (ALUs) | 8 |" in tables["units-alone"]
        and "| 9.44 | 105.9 | 63 | 519 |" in tables["units-alone"]
    )
    assert "| 14.000 | 71.4 | commit (CM) → perf counters |" in tables["sta"]
    assert "| **total** | **900** (15.0 min) | **870** (14.5 min) | |" in tables["coldrun"]


def test_write_then_check_and_a_changed_number_is_caught(tmp_path, monkeypatch) -> None:
    res = timing_docs.collect(_build(tmp_path, monkeypatch))
    md = f"# doc\n\ntext\n\n{timing_docs.ANCHOR}\n\nmore text\n"
    assert timing_docs.mismatches(md, res)  # nothing written yet: every table is missing
    done = timing_docs.write(md, res)
    assert timing_docs.mismatches(done, res) == []
    assert timing_docs.write(done, res) == done  # idempotent: rewriting changes nothing
    assert done.endswith("more text\n")
    # planted fault: one number in one table changed by hand (the Fmax) -> that table is named
    bad = done.replace("| 71.4 |", "| 71.5 |", 1)
    assert bad != done and timing_docs.mismatches(bad, res) == ["sta"]
    # planted fault: the results move on (a new power figure) and the docs were not rewritten
    res["power"]["L8-W16-R512-B8"]["rows"][0]["power_mw"] += 1.0
    assert timing_docs.mismatches(done, res) == ["power-L8-W16-R512-B8"]
    # a section the results no longer hold is reported too
    extra = done + "<!-- timing-docs:old -->\nx\n<!-- /timing-docs:old -->\n"
    assert "old (in docs, not in the results)" in timing_docs.mismatches(extra, res)


def test_write_without_anchor_is_an_error(tmp_path, monkeypatch) -> None:
    res = timing_docs.collect(_build(tmp_path, monkeypatch))
    with pytest.raises(timing_docs.DocsError, match="anchor"):
        timing_docs.write("# no anchor\n", res)


def test_collect_of_an_empty_build_is_an_error(tmp_path) -> None:
    with pytest.raises(timing_docs.DocsError, match="nothing to collect"):
        timing_docs.collect(tmp_path)


def test_docs_ppa_md_matches_the_results_file() -> None:
    """The checked-in docs/ppa.md tables are what docs/ppa/timing.json renders."""
    res = timing_docs.load()
    assert timing_docs.mismatches(timing_docs.DOC.read_text(), res) == []


def test_coldrun_table_and_bad_part() -> None:
    res = {"lanes": 8, "kind": "warm", "when": "w", "load_start": "1", "parts": {
        "charlib": {"wall_s": 60.0, "cpu_s": 30.0, "ok": True}, "sta": {"wall_s": 120.0, "cpu_s": 100.0, "ok": False}}}  # fmt: skip
    t = coldrun.table(res)
    assert "| charlib | 60 | 30 | yes |" in t and "| sta | 120 | 100 | NO |" in t
    assert "**180** (3.0 min)" in t
    with pytest.raises(SystemExit):
        coldrun.main(["--parts", "synth,nonsense"])


def test_refit_is_collected_rendered_and_checked(tmp_path, monkeypatch) -> None:
    """The per-event refit (kernelpower's ``refit``) becomes its own table; micro rows stay out of the power
    table; a changed held-out error is caught as that table only."""
    build = _build(tmp_path, monkeypatch)
    kp = build / "kernelpower" / "L8" / "kernelpower.json"
    r = json.loads(kp.read_text())
    r["rows"].append({**r["rows"][0], "name": "alu@4", "kind": "micro"})
    r["refit"] = {"pj_per_event": {"cycles": 553.2791, "alu_thread": 65.85}, "same": {},
                  "errors": {"vecadd/256": -0.25, "matrixmul/32": 0.05}, "geomean_abs": 0.1118,
                  "mape": 0.15, "worst": "vecadd/256", "fitted_on": ["alu@4"]}  # fmt: skip
    kp.write_text(json.dumps(r))
    res = timing_docs.collect(build)
    fit = res["power"]["L8-W16-R512-B8"]["refit"]
    assert fit["fitted_on"] == 1 and fit["pj_per_event"]["cycles"] == 553.279
    tables = timing_docs.render(res)
    assert "alu@4" not in tables["power-L8-W16-R512-B8"]  # the fit's launches are summarised, not listed
    t = tables["refit-L8-W16-R512-B8"]
    assert "| cycles | 553.28 |" in t and "| vecadd/256 | -25.0% |" in t and "**11.2%**" in t
    done = timing_docs.write(f"# d\n\n{timing_docs.ANCHOR}\n", res)
    # planted fault: a held-out error edited by hand
    bad = done.replace("| -25.0% |", "| -2.5% |", 1)
    assert bad != done and timing_docs.mismatches(bad, res) == ["refit-L8-W16-R512-B8"]
    # a failed fit (too few launches) is left out, not rendered as zeros
    r["refit"] = {"error": "too few launches"}
    kp.write_text(json.dumps(r))
    assert "refit-L8-W16-R512-B8" not in timing_docs.render(timing_docs.collect(build))


def test_modpower_table_is_collected_rendered_and_checked(tmp_path, monkeypatch) -> None:
    """ppa/modpower.py's comparison (its modpower.json) becomes a generated, checked table of docs/ppa.md.
    Planted: a stale table (the old run's numbers left in the docs after a new run) is named by --check."""
    from ppa import modpower

    build = _build(tmp_path, monkeypatch)
    fit = {"errors": {"vecadd/256": -0.2, "matrixmul/32": 0.05}, "geomean_abs": 0.1, "mape": 0.125,
           "fitted_on": 39}  # fmt: skip
    mods = {"simt_alu": {"events": ["alu_a_hd"], "share_held_out": 0.6, "geomean_abs": 0.1,
                         "train_geomean_abs": 0.2, "sum_error": -0.1, "pj_per_event": {"alu_a_hd": 1.0}}}  # fmt: skip
    res_mp = {"sm": "L8-W16-R512-B8", "lanes": 8, "whole_sm": fit,
              **{k: {**fit, "modules": mods} for k in ("all_events", "chosen", "chosen_module_relative", "alu_events")}}  # fmt: skip
    mp = build / "kernelpower" / "L8" / "modpower.json"
    mp.write_text(json.dumps(res_mp))
    res = timing_docs.collect(build)
    t = timing_docs.render(res)["modpower-L8-W16-R512-B8"]
    assert t == "\n".join(modpower.report({k: v for k, v in res_mp.items() if k != "sm"}, 8))
    assert "| vecadd/256 | -20.0% |" in t and "**10.0%**" in t
    done = timing_docs.write(f"# d\n\n{timing_docs.ANCHOR}\n", res)
    assert timing_docs.mismatches(done, res) == []
    # planted stale table: a new run moves one error, the docs keep the old table
    res_mp["alu_events"]["errors"]["vecadd/256"] = -0.05
    mp.write_text(json.dumps(res_mp))
    assert timing_docs.mismatches(done, timing_docs.collect(build)) == ["modpower-L8-W16-R512-B8"]
    # a modpower.json from before it kept its SM's name is not collected (rerun python -m ppa.modpower)
    del res_mp["sm"]
    mp.write_text(json.dumps(res_mp))
    assert "modpower" not in timing_docs.collect(build)
