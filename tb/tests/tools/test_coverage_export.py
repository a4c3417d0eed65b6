"""The standard-format copy of functional coverage (tb/coverage/report.py): each run's XML export,
merged beside the Markdown report, must hold the same bins and hits as the YAML the report reads; a
planted difference is reported."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Callable
from pathlib import Path

from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db

from tb.coverage import report

_runs = itertools.count()


def _sampler(prefix: str) -> Callable[[str, str], None]:
    """Fresh cover points under ``prefix`` (other tests may reset cocotb-coverage's global database)."""

    @CoverPoint(f"{prefix}.op", xf=lambda op, _m: op, bins=["add", "mul"])
    @CoverPoint(f"{prefix}.mask", xf=lambda _op, m: m, bins=["all", "none"])
    @CoverCross(f"{prefix}.cross", items=[f"{prefix}.op", f"{prefix}.mask"])
    def sample(op: str, m: str) -> None:
        pass

    return sample


def _run(folder: Path, name: str, sample: Callable[[str, str], None], samples: list[tuple[str, str]]) -> None:
    for op, m in samples:
        sample(op, m)
    folder.mkdir(parents=True, exist_ok=True)
    coverage_db.export_to_yaml(str(folder / f"{name}.yml"))
    coverage_db.export_to_xml(str(folder / f"{name}.xml"))


def _mine(points: dict[str, dict[str, int]], prefix: str) -> dict[str, dict[str, int]]:
    return {n: b for n, b in points.items() if n.startswith(prefix + ".")}


def test_xml_export_matches_yaml(tmp_path: Path) -> None:
    prefix = f"xtest{next(_runs)}"
    sample, runs = _sampler(prefix), tmp_path / "runs"
    _run(runs, "a", sample, [("add", "all")])
    _run(runs, "b", sample, [("mul", "none"), ("add", "all")])  # cumulative: b counts a's sample too
    files = sorted(runs.glob("*.yml"))
    merged = report.merge(files, tmp_path / "merged.yml")
    xml = report.merge_xml([f.with_suffix(".xml") for f in files], tmp_path / "merged.xml")
    assert _mine(merged.points, prefix)[f"{prefix}.op"] == {"add": 3, "mul": 1}
    assert _mine(xml, prefix) == _mine(merged.points, prefix)
    assert report.xml_disagreements(_mine(merged.points, prefix), _mine(xml, prefix)) == []


def test_a_difference_between_the_exports_is_reported(tmp_path: Path) -> None:
    prefix = f"xtest{next(_runs)}"
    runs = tmp_path / "runs"
    _run(runs, "a", _sampler(prefix), [("mul", "all")])
    merged = report.merge([runs / "a.yml"], tmp_path / "merged.yml")
    bad = tmp_path / "bad.xml"
    shutil.copy(runs / "a.xml", bad)
    text = bad.read_text()
    i = text.index(f'abs_name="top.{prefix}.op"')
    i = text.index('bin="mul"', i)
    j = text.index('hits="', i) + len('hits="')
    bad.write_text(text[:j] + "99" + text[text.index('"', j) :])  # planted: one bin's hits changed
    diffs = report.xml_disagreements(_mine(merged.points, prefix), _mine(report.xml_points(bad), prefix))
    assert len(diffs) == 1 and f"{prefix}.op" in diffs[0]
