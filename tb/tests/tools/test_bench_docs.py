"""docs/benchmarks.md's generated tables, the checking cost (tools/bench/check_overhead.py --docs), the
lane sweep and scaling with SMs (tools/bench/kernels_bench.py --docs), match their committed results
files, and a changed figure is caught; the SM sweep's areas are the PPA flow's and its machines are
checked first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spec import cli
from tools.bench import _lanes as lanes_docs
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
    body = check_overhead.rows(results)  # each case, then its fast-path row when measured (--fast)
    assert len(body) >= len(results["cases"]) and len(rows) == 2 + len(body) + 2
    for r, line in zip(body, rows[2:], strict=False):
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


# ---- the lane sweep's tables (tools/bench/kernels_bench.py --docs, tools/bench/_lanes.py) ---------------
def _lane_records(lanes: tuple[int, ...] = (8, 16, 32)) -> list[dict]:
    """Synthetic bench records of every kernel at the report size (as KernelTest writes them)."""
    from kernels import suite

    rows = []
    for i, k in enumerate(suite.names()):
        for n in lanes:
            cycles = 1000 * (i + 1) * 32 // n + 7
            rows.append({"kernel": k, "size": lanes_docs.SIZE, "seed": sm_scaling.INPUTS_SEED,
                         "config": f"bench-l{n}", "sim": "verilator", "lanes": n, "sms": 1, "blocks": 1,
                         "latency": 20, "golden_words": 1, "cycles": cycles, "warp_instrs": 100,
                         "thread_instrs": 3000, "idle_cycles": 5, "sm_cycles": cycles, "shared_passes": 3,
                         "global_transactions": 7})  # fmt: skip
    return rows


def test_lanes_tables_match_their_results_file() -> None:
    assert not lanes_docs.stale(), (
        "docs/benchmarks.md's lanes_cycles/lanes_speedup tables differ from docs/bench/lanes-verilator.json: "
        "run `python tools/bench/kernels_bench.py --docs-only` (or measure again with --report-size-only "
        "--sm-sweep '' --docs) and commit"
    )


def _planted(text: str, name: str, old: str, new: str) -> str:
    """``text`` with ``old`` typed over as ``new`` once, inside table ``name``'s markers."""
    begin, end = lanes_docs.MARKS[name]
    i, j = text.index(begin), text.index(end)
    assert text[i:j].count(old) == 1, (name, old)
    return text[:i] + text[i:j].replace(old, new) + text[j:]


def test_a_hand_edit_of_a_lanes_figure_is_caught(tmp_path: Path) -> None:
    """Planted: a figure typed over in either table (the way both were kept before: autocor at 8 lanes
    read 24,929 from an older RTL), FlexGrip's published figure miscopied, or the results file changed
    without regenerating: each is caught; the docs regenerated from the file are not."""
    text, res = lanes_docs.DOCS.read_text(), lanes_docs.load()
    assert not lanes_docs.stale()
    r = next(x for x in res["rows"] if (x["kernel"], x["lanes"]) == ("autocor", 8))
    su = lanes_docs.speedups(res)["autocor"]
    assert su is not None
    plants = [
        ("lanes_cycles", f"| autocor | 8 | {r['cycles']:,} |", "| autocor | 8 | 24,929 |"),
        ("lanes_cycles", "| 2,641,050 |", "| 2,641,000 |"),
        ("lanes_speedup", f"| autocor | {su:.2f}x |", f"| autocor | {su + 0.1:.2f}x |"),
    ]
    doc = tmp_path / "benchmarks.md"
    for name, old, new in plants:
        doc.write_text(_planted(text, name, old, new))
        assert lanes_docs.stale(doc), (name, old)
    changed = json.loads(json.dumps(res))
    changed["rows"][0]["cycles"] += 1  # the file changed, the docs were not regenerated
    assert lanes_docs.stale(res=changed)
    doc.write_text(lanes_docs.render(text, changed))
    assert not lanes_docs.stale(doc, changed)


def test_lane_sweep_records_on_other_inputs_are_refused_and_missing_cases_say_not_run() -> None:
    rows = _lane_records()
    extra = [dict(rows[0], size=64), dict(rows[0], config="tesla-l8-s2", sms=2)]  # not the lane sweep's
    res = lanes_docs.results(rows + extra, "verilator", 20)
    assert len(res["rows"]) == len(rows) and res["measured_on"]["rtl_hash"]
    with pytest.raises(SystemExit, match="ran on other inputs"):
        lanes_docs.results([dict(rows[0], seed=sm_scaling.INPUTS_SEED + 1), *rows[1:]], "verilator", 20)
    kernel = "autocor"  # one of FlexGrip's five at 32 lanes: its cycles and its speed-up are lost
    partial = lanes_docs.results(
        [r for r in rows if (r["kernel"], r["lanes"]) != (kernel, 32)], "verilator", 20
    )
    tables = lanes_docs.docs_tables(partial)
    assert any(x.startswith(f"| {kernel} | 32 | not run | 1,441,858 | — |") for x in tables["lanes_cycles"])
    assert f"| {kernel} | not run | 1.83x |" in tables["lanes_speedup"]
    assert "| **mean, FlexGrip's kernels run (4)** |" in tables["lanes_speedup"][-2]


def test_lane_sweep_means_cover_flexgrips_five_and_every_kernel() -> None:
    """Ours over FlexGrip's five and over every kernel; FlexGrip's over its five (Merchant 2013 Table 4)."""
    res = lanes_docs.results(_lane_records(), "verilator", 20)
    su = lanes_docs.speedups(res)
    five = [su[k] for k in lanes_docs.FLEXGRIP]
    fg = sum(a / c for a, _, c in lanes_docs.FLEXGRIP.values()) / 5
    lines = lanes_docs.speedup_table(res)
    assert lines[-2] == f"| **mean, FlexGrip's five** | **{sum(five) / 5:.2f}x** | **{fg:.2f}x** |"
    assert lines[-1] == f"| mean, all kernels | {sum(su.values()) / len(su):.2f}x | |"
    assert fg == pytest.approx(1.79, abs=0.005)  # the published figures, not ours
    assert "Merchant 2013 (seed 001), Table 4" in "\n".join(lanes_docs.docs_tables(res)["lanes_speedup"])


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--docs", "--kernels", "vecadd", "--sm-sweep", ""], "every kernel at 8,16,32 lanes"),
        (["--docs", "--lanes", "8,32", "--sm-sweep", ""], "every kernel at 8,16,32 lanes"),
    ],
)
def test_a_partial_lane_sweep_is_not_saved_and_refused_before_any_build(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tb import rtlsim
    from tools.bench import kernels_bench

    monkeypatch.setattr(rtlsim, "run", lambda *a, **k: pytest.fail("a build started"))
    monkeypatch.setenv("SIM", "verilator")
    assert cli.entry(kernels_bench.main, argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and "--docs" in err[0], err


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


# ---- which RTL each table was measured on (tools/bench/_provenance.py, _tables.py, _recorded.py) --------
def test_every_generated_table_matches_its_results_file() -> None:
    from tools.bench import _tables

    assert not _tables.mismatched(), _tables.mismatched()


def test_every_results_file_names_its_rtl() -> None:
    """Each results file a table renders from carries the RTL it was measured on (check_overhead's, whose
    writer records none, is inferred from git in the report)."""
    from tools.bench import _provenance as provenance
    from tools.bench import _tables

    in_git = provenance.head()[0] != "unknown"
    for t in _tables.TABLES:
        for what, st in t.stamps():
            if (
                st is None
                and not in_git
                and t.name in ("check_overhead", "ppa sweep (hand-copied, not generated)")
            ):
                continue  # inferred from git history: not available outside a clone
            assert st and len(st["rtl_hash"]) == 64 and st["commit"], (t.name, what)


@pytest.mark.parametrize("name", ["sm_scaling", "cudac", "lanes"])
def test_a_changed_rtl_stamp_is_caught(name: str, tmp_path: Path) -> None:
    """The "measured on RTL" line is part of the table: a stamp changed in the results file (or a line
    edited in the docs) without regenerating is a mismatch."""
    from tools.bench import _cudac_docs as cudac

    if name == "sm_scaling":
        res = json.loads(sm_scaling.results_file("verilator").read_text())
        res["measured_on"] = {**res["measured_on"], "rtl_hash": "0" * 64}
        changed = tmp_path / "r.json"
        changed.write_text(json.dumps(res))
        assert sm_scaling.stale(res=changed)
    elif name == "lanes":
        res = lanes_docs.load()
        res["measured_on"] = {**res["measured_on"], "rtl_hash": "0" * 64}
        assert lanes_docs.stale(res=res)
    else:
        files = cudac.committed()
        files["icarus"]["measured_on"]["commit"] = "f" * 40  # type: ignore[index]
        assert cudac.stale(files=files)


@pytest.mark.parametrize("name", ["issue32_round3", "launch_history"])
def test_a_hand_edit_of_a_recorded_figure_is_caught(name: str, tmp_path: Path) -> None:
    """Planted: a figure typed over in the docs (the way these two were written before) is caught; the
    docs regenerated from the file are not."""
    from tools.bench import _recorded as rec

    doc_path = rec.MARKS[name][0]
    text = doc_path.read_text()
    assert not rec.stale(name)
    old = "141,572" if name == "issue32_round3" else "147,362"
    i = text.index(rec.MARKS[name][1])
    assert old in text[i:], (name, old)
    planted = tmp_path / doc_path.name
    planted.write_text(text[:i] + text[i:].replace(old, old[:-1] + "0", 1))
    assert rec.stale(name, planted)
    res = rec.load(name)
    if name == "issue32_round3":
        res["rows"][0]["cycles"]["after"] += 1
    else:
        res["before"]["alone"] += 1
    assert rec.stale(name, res=res)  # the file changed, the docs were not regenerated
    planted.write_text(rec.render(name, text, res))
    assert not rec.stale(name, planted, res)


def test_tables_on_another_rtl_are_listed_not_failed() -> None:
    """The report names every non-historical table whose RTL is not the current one, with its refresh
    command; on a planted "current" RTL every one of them is listed, and the check still exits 0."""
    from tools.bench import _tables

    listed = _tables.other_rtl("0" * 64)
    names = [t.name for t in _tables.TABLES if t.name not in _tables.HISTORICAL]
    assert len(listed) == len(names) and all(x.startswith(n) for x, n in zip(listed, names)), listed
    assert all("refresh: " in x for x in listed)
    assert _tables.main([]) == 0


def test_the_rtl_hash_covers_rtl_sources_and_includes(tmp_path: Path) -> None:
    from tools.bench import _provenance as provenance

    (tmp_path / "rtl" / "include").mkdir(parents=True)
    (tmp_path / "rtl" / "a.v").write_text("module a; endmodule\n")
    (tmp_path / "rtl" / "include" / "p.vh").write_text("`define X 1\n")
    (tmp_path / "rtl" / "notes.md").write_text("not RTL\n")
    h = provenance.rtl_hash(tmp_path)
    (tmp_path / "rtl" / "notes.md").write_text("changed\n")
    assert provenance.rtl_hash(tmp_path) == h
    (tmp_path / "rtl" / "include" / "p.vh").write_text("`define X 2\n")
    assert provenance.rtl_hash(tmp_path) != h
    assert provenance.rtl_hash_at("HEAD") == provenance.rtl_hash() or provenance.head()[1]


def test_sm_sweep_jobs_on_two_rtls_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """kernels_bench --docs takes the RTL from the jobs' stamps: one RTL is its stamp, two are refused
    (naming the jobs to run again), none is the work tree's (said)."""
    from tools.bench import _provenance as provenance
    from tools.bench import kernels_bench

    parts = [tmp_path / f"p{i}.jsonl" for i in range(3)]
    st = {**provenance.stamp(), "rtl_hash": provenance.rtl_hash()}
    for p in parts:
        p.write_text("")
        kernels_bench.stamp_file(p).write_text(json.dumps(st))
    assert kernels_bench.measured_on(parts) == st
    kernels_bench.stamp_file(parts[0]).write_text(
        json.dumps({**st, "rtl_hash": "0" * 64, "date": "2000-01-01"})
    )
    with pytest.raises(SystemExit, match="ran on 2 RTLs.*p0.jsonl"):
        kernels_bench.measured_on(parts)
    for p in parts:
        kernels_bench.stamp_file(p).unlink()
    assert kernels_bench.measured_on(parts)["rtl_hash"] == provenance.rtl_hash()
    assert "no RTL stamp" in capsys.readouterr().out


def test_cudac_cycles_are_compared_across_simulators_only_on_one_rtl() -> None:
    from tools.bench import _cudac_docs as cudac

    files = cudac.committed()
    same = {(f.get("measured_on") or {}).get("rtl_hash") for f in files.values() if f}
    said = "\n".join(cudac.sizes_table(files))
    assert ("Cycles equal on every simulator" in said) == (len(same) == 1), said
    files["icarus"]["measured_on"] = {**files["icarus"]["measured_on"], "rtl_hash": "1" * 64}  # type: ignore[index]
    files["verilator"]["measured_on"] = {**files["verilator"]["measured_on"], "rtl_hash": "2" * 64}  # type: ignore[index]
    said = "\n".join(cudac.sizes_table(files))
    assert "Cycles not compared" in said and "Cycles equal" not in said
