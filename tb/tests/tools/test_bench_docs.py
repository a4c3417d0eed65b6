"""docs/benchmarks.md's checking-cost table is generated from its committed results file
(tools/bench/check_overhead.py --docs): the table must match the file, and a changed figure is caught."""

from __future__ import annotations

import json
from pathlib import Path

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
