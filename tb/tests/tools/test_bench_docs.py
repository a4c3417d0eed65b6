"""docs/benchmarks.md's generated tables, the checking cost (tools/bench/check_overhead.py --docs) and
scaling with SMs (tools/bench/kernels_bench.py --docs), match their committed results files, and a
changed figure is caught; the SM sweep's areas are the PPA flow's and its machines are checked first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spec import cli
from tools.bench import _sm_scaling as sm_scaling
from tools.bench import check_overhead


def test_checking_cost_table_matches_its_results_file() -> None:
    assert not check_overhead.stale(), (
        "docs/benchmarks.md's check_overhead table differs from docs/bench/check_overhead-verilator.json: "
        "run `python tools/bench/check_overhead.py --docs-only` (or measure again with --docs) and commit"
    )


def test_a_changed_figure_is_caught(tmp_path: Path) -> None:
    results = json.loads(check_overhead.results_file("verilator").read_text())
    results["cases"][0]["full"]["cpu_seconds"] *= 2  # the results changed, the docs were not regenerated
    changed = tmp_path / "results.json"
    changed.write_text(json.dumps(results))
    assert check_overhead.stale(results=changed)
    doc = tmp_path / "benchmarks.md"
    doc.write_text(check_overhead.render_docs(check_overhead.DOCS.read_text(), results))
    assert not check_overhead.stale(doc, changed)


def test_every_row_carries_its_ratios() -> None:
    results = json.loads(check_overhead.results_file("verilator").read_text())
    rows = check_overhead.table(results)
    assert len(rows) == 2 + len(results["cases"]) + 2
    for r, line in zip(results["cases"], rows[2:], strict=False):
        d = check_overhead.derived(r)
        assert f"{d['full_end']:.2f}x" in line and f"{d['us_per_retire']:.1f}" in line


# ---- the SM-scaling tables (tools/bench/kernels_bench.py --docs, tools/bench/_sm_scaling.py) ----------
def test_sm_scaling_table_matches_its_results_file() -> None:
    assert not sm_scaling.stale(), (
        "docs/benchmarks.md's sm_scaling tables differ from docs/bench/sm_scaling-verilator.json: run "
        "`python tools/bench/kernels_bench.py --docs-only` (or measure again with --sm-only --docs) and commit"
    )


def test_a_changed_sm_scaling_figure_is_caught(tmp_path: Path) -> None:
    results = json.loads(sm_scaling.results_file("verilator").read_text())
    results["rows"][0]["cycles"] += 1
    changed = tmp_path / "results.json"
    changed.write_text(json.dumps(results))
    assert sm_scaling.stale(res=changed)
    doc = tmp_path / "benchmarks.md"
    doc.write_text(sm_scaling.render_docs(sm_scaling.DOCS.read_text(), results))
    assert not sm_scaling.stale(doc, changed)


def _ppa_sweep_area(name: str) -> float:
    """The area column of docs/ppa.md's sweep table ("Sweep: make ppa-sweep") for configuration ``name``."""
    text = (sm_scaling.ROOT / "docs" / "ppa.md").read_text()
    section = text[text.index("## Sweep: `make ppa-sweep`") :]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells and cells[0] == name:
            return float(cells[2])
    raise AssertionError(f"docs/ppa.md's sweep table has no row {name}")


def _area_problems(area: dict) -> list[str]:
    """Entries of an AREA table that are not what docs/ppa.md says (measured: its sweep table; modelled,
    8 and 16 SMs: n x the SM's total + the 4-SM top, as docs/ppa.md gives them)."""
    ppa_doc = (sm_scaling.ROOT / "docs" / "ppa.md").read_text()
    assert "| L8-W16-R512-B8 | 1,738,101 (1.738) |" in ppa_doc and "| 10.028 | 11.766 |" in ppa_doc
    assert "| L8-W16-R512-B8-S4 | L8-W16-R512-B8 | 4 | 140,189 |" in ppa_doc
    problems = []
    for (lanes, sms), (mm2, source) in area.items():
        if source.startswith("docs/ppa.md sweep table, "):
            want = _ppa_sweep_area(source.split(", ")[1])
        else:
            want = sms * 11.766 + 0.140 if lanes == 8 and source.startswith("modelled") else -1.0
        if abs(mm2 - want) > 1e-9:
            problems.append(f"{lanes} lanes x {sms} SMs: {mm2} mm2, docs/ppa.md gives {want}")
    return problems


def test_every_area_is_the_ppa_flows() -> None:
    assert not _area_problems(sm_scaling.AREA)
    planted = dict(sm_scaling.AREA)
    planted[(8, 2)] = (24.0, planted[(8, 2)][1])  # a figure copied wrong is caught
    assert len(_area_problems(planted)) == 1


def test_every_sm_scaling_machine_has_an_area() -> None:
    assert set(sm_scaling.parse(sm_scaling.DEFAULT)) == set(sm_scaling.AREA)
    for a, b in sm_scaling.PAIRS:
        assert abs(sm_scaling.AREA[a][0] / sm_scaling.AREA[b][0] - 1) < 0.05, (a, b)


@pytest.mark.parametrize(
    ("sweep", "said"),
    [("8x17", "num_sms=17 (must be in 1..16)"), ("12x1", "num_lanes=12"), ("8by2", "is not LANESxSMS")],
)
def test_an_illegal_sm_sweep_machine_is_refused_before_any_build(
    sweep: str, said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tb import rtlsim
    from tools.bench import kernels_bench

    monkeypatch.setattr(rtlsim, "run", lambda *a, **k: pytest.fail("a build started"))
    assert cli.entry(kernels_bench.main, ["--sm-only", "--sm-sweep", sweep]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and "--sm-sweep" in err[0], err


def test_records_on_other_inputs_are_refused_and_missing_machines_say_not_run() -> None:
    rows = json.loads(sm_scaling.results_file("verilator").read_text())["rows"]
    full = [{**r, "size": sm_scaling.SIZE, "config": f"tesla-l{r['lanes']}-s{r['sms']}"} for r in rows]
    assert sm_scaling.results(full, "verilator", 20)["rows"] == rows
    other = [dict(full[0], seed=sm_scaling.INPUTS_SEED + 1), *full[1:]]
    with pytest.raises(SystemExit, match="ran on other inputs"):
        sm_scaling.results(other, "verilator", 20)
    kernel = full[0]["kernel"]
    partial = [r for r in full if not (r["kernel"] == kernel and (r["lanes"], r["sms"]) == (8, 2))]
    line = next(
        x
        for x in sm_scaling.table(sm_scaling.results(partial, "verilator", 20))
        if x.startswith(f"| {kernel} |")
    )
    assert "not run" in line and "—" in line


# ---- compiled C against assembly, every C kernel at every size (tools/bench/cudac_bench.py --docs) ------
def _c_sizes() -> dict[str, list[int]]:
    from kernels import suite
    from tools.bench import cudac_bench

    return {k: sorted(set(suite.sizes(k))) for k in cudac_bench.c_kernels(None)}


def test_cudac_tables_match_their_results_files() -> None:
    from tools.bench import _cudac_docs as cudac

    assert not cudac.stale(), (
        "docs/benchmarks.md's cudac tables differ from docs/bench/cudac-*.json: run "
        "`python tools/bench/cudac_bench.py --docs-only` (or measure again with --rtl SIM --docs) and commit"
    )


def test_a_changed_cudac_figure_is_caught(tmp_path: Path) -> None:
    from tools.bench import _cudac_docs as cudac

    files = cudac.committed()
    files["verilator"]["pairs"][0]["cu"]["cycles"] += 1  # type: ignore[index]
    assert cudac.stale(files=files)
    doc = tmp_path / "benchmarks.md"
    doc.write_text(cudac.render(cudac.DOCS.read_text(), files))
    assert not cudac.stale(doc, files)


def test_every_c_kernel_is_within_the_ratio_targets() -> None:
    """Issue 30: per kernel, C retires <= 1.25x the assembly's warp-instructions and cycles (size 256,
    8 lanes); a ratio past the target is reported."""
    from tools.bench import _cudac_docs as cudac

    res = cudac.load("verilator")
    assert res is not None and len(res["pairs"]) == len([k for k in _c_sizes() if k.endswith(".cu")])
    assert not cudac.target_problems(res), cudac.target_problems(res)
    a = res["pairs"][-1]["asm"]
    res["pairs"][-1]["cu"]["cycles"] = int(a["cycles"] * 1.26)  # planted: slower C
    res["pairs"][0]["cu"]["warp_instrs"] = int(res["pairs"][0]["asm"]["warp_instrs"] * 1.3) + 1
    said = cudac.target_problems(res)
    assert len(said) == 2 and "cycles" in said[1] and "warp-instructions" in said[0], said
    assert "NOT met" in cudac.ratio_table(res)[-1]


def test_every_size_of_every_c_kernel_passed_on_both_simulators() -> None:
    """Issue 30: every size of every kernel.cu ran on the RTL of Icarus and of Verilator (records are
    written only for passing runs) with the model's warp-instruction count, but the cases listed in
    _cudac_docs.PENDING (shown "not run"); a gap, or a listed case that has run, is reported."""
    from tools.bench import _cudac_docs as cudac

    files, want = cudac.committed(), _c_sizes()
    assert all(files[s] for s in cudac.SIMS), "run cudac_bench.py --rtl SIM --docs on both simulators"
    assert not cudac.coverage_problems(files, want), cudac.coverage_problems(files, want)
    rows = files["icarus"]["sizes"]  # type: ignore[index]
    dropped = rows.pop()
    rows[0]["rtl_warp_instrs"] += 1
    said = cudac.coverage_problems(files, want)
    assert len(said) == 2, said
    assert f"{dropped['kernel']} on icarus: no RTL run at size {dropped['size']}" in said[0]
    assert "retired" in said[1]
    ran = (rows[1]["kernel"], rows[1]["size"])  # planted: a case still listed as pending has run
    said = cudac.coverage_problems(files, want, {**cudac.PENDING, "icarus": {*cudac.PENDING["icarus"], ran}})
    assert any(f"{ran[0]}/{ran[1]} on icarus has run" in p for p in said), said
