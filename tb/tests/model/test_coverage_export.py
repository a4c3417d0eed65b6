"""The standard-format copy of functional coverage (tb/coverage/report.py): each run's XML export,
merged beside the Markdown report, must hold the same bins and hits as the YAML the report reads; a
planted difference is reported."""

from __future__ import annotations

import shutil
from pathlib import Path

from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db

from tb.coverage import report


@CoverPoint("xtest.export.op", xf=lambda op, _m: op, bins=["add", "mul"])
@CoverPoint("xtest.export.mask", xf=lambda _op, m: m, bins=["all", "none"])
@CoverCross("xtest.export.cross", items=["xtest.export.op", "xtest.export.mask"])
def _sample(op: str, m: str) -> None:
    pass


def _run(folder: Path, name: str, samples: list[tuple[str, str]]) -> None:
    for op, m in samples:
        _sample(op, m)
    folder.mkdir(parents=True, exist_ok=True)
    coverage_db.export_to_yaml(str(folder / f"{name}.yml"))
    coverage_db.export_to_xml(str(folder / f"{name}.xml"))


def _mine(points: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {n: b for n, b in points.items() if n.startswith("xtest.")}


def test_xml_export_matches_yaml(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _run(runs, "a", [("add", "all")])
    _run(runs, "b", [("mul", "none"), ("add", "all")])  # the database is cumulative: b counts a's sample too
    files = sorted(runs.glob("*.yml"))
    merged = report.merge(files, tmp_path / "merged.yml")
    xml = report.merge_xml([f.with_suffix(".xml") for f in files], tmp_path / "merged.xml")
    assert _mine(merged.points)["xtest.export.op"] == {"add": 3, "mul": 1}
    assert _mine(xml) == _mine(merged.points)
    assert report.xml_disagreements(_mine(merged.points), _mine(xml)) == []


def test_a_difference_between_the_exports_is_reported(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _run(runs, "a", [("mul", "all")])
    merged = report.merge([runs / "a.yml"], tmp_path / "merged.yml")
    bad = tmp_path / "bad.xml"
    shutil.copy(runs / "a.xml", bad)
    text = bad.read_text()
    i = text.index('bin="mul"')
    j = text.index('hits="', i) + len('hits="')
    bad.write_text(text[:j] + "99" + text[text.index('"', j):])  # planted: one bin's hits changed
    diffs = report.xml_disagreements(_mine(merged.points), _mine(report.xml_points(bad)))
    assert len(diffs) == 1 and "xtest.export.op" in diffs[0]
