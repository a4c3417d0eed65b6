"""Merge the functional-coverage files of a regression and write the report (``make coverage``).

    python -m tb.coverage.report build/coverage/functional --out build/reports/coverage

Every run of the system testbenches writes its coverage database (tb/coverage/collector.py); this
merges them with cocotb-coverage's ``merge_coverage`` (seeds, configurations and simulators alike),
then lists every bin with its hit count and every hole, joined with the explanations in
docs/testplan.yaml (``holes:``). Exit status 1 when a hole has no explanation.
"""

from __future__ import annotations

import fnmatch
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from cocotb_coverage.coverage import merge_coverage

from spec import cli

ROOT = Path(__file__).resolve().parents[2]
TESTPLAN = ROOT / "docs" / "testplan.yaml"


@dataclass
class Hole:
    point: str
    bin: str
    reason: str | None  # None: not explained


@dataclass
class Merged:
    files: list[Path]
    points: dict[str, dict[str, int]]  # cover point -> bin (as text) -> hits
    holes: list[Hole] = field(default_factory=list)

    @property
    def bins(self) -> int:
        return sum(len(b) for b in self.points.values())

    @property
    def hit(self) -> int:
        return sum(1 for b in self.points.values() for h in b.values() if h)

    @property
    def unexplained(self) -> list[Hole]:
        return [h for h in self.holes if h.reason is None]


def load_testplan(path: Path = TESTPLAN) -> dict[str, Any]:
    with open(path) as f:
        return yaml.safe_load(f)


def explain(point: str, bin_text: str, holes: list[dict[str, Any]]) -> str | None:
    """The testplan's reason for an unhit bin: the first entry whose point and bin patterns match."""
    for entry in holes:
        if fnmatch.fnmatchcase(point, entry["point"]) and any(
            fnmatch.fnmatchcase(bin_text, pat) for pat in entry.get("bins", ["*"])
        ):
            return " ".join(str(entry["reason"]).split())
    return None


def merge(files: list[Path], out: Path, testplan: dict[str, Any] | None = None) -> Merged:
    """Merge coverage YAML ``files`` into ``out`` and classify every unhit bin."""
    if not files:
        raise FileNotFoundError(
            "no functional-coverage files to merge: run the system tests first "
            "(make coverage runs them; make system writes build/coverage/functional/)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    merge_coverage(lambda _msg: None, str(out), *map(str, files))
    with open(out) as f:
        db = yaml.safe_load(f)
    points = {
        name: {str(b): int(h) for b, h in item["bins:_hits"].items()}
        for name, item in db.items()
        if "bins:_hits" in item
    }
    holes_spec = (testplan or {}).get("holes", [])
    merged = Merged(sorted(files), points)
    for name, bins in sorted(points.items()):
        if name.endswith((".opcode", ".mask", ".kind", ".dir")):
            continue  # the halves of a cross: its bins are the ones that count
        for b, h in bins.items():
            if not h:
                merged.holes.append(Hole(name, b, explain(name, b, holes_spec)))
    return merged


def merge_xml(files: list[Path], out: Path) -> dict[str, dict[str, int]]:
    """Merge the runs' XML exports (cocotb-coverage's format: one element per cover point, a child per
    bin with ``bin`` and ``hits``) into ``out``; return its points as {name: {bin: hits}}."""
    out.parent.mkdir(parents=True, exist_ok=True)
    merge_coverage(lambda _msg: None, str(out), *map(str, files))
    return xml_points(out)


def xml_points(path: Path) -> dict[str, dict[str, int]]:
    points: dict[str, dict[str, int]] = {}
    for elem in ET.parse(path).getroot().iter():
        bins = [b for b in elem if "bin" in b.attrib and "hits" in b.attrib]
        if bins:
            points[elem.attrib["abs_name"].removeprefix("top.")] = {
                b.attrib["bin"]: int(b.attrib["hits"]) for b in bins
            }
    return points


def xml_disagreements(yaml_points: dict[str, dict[str, int]], xml: dict[str, dict[str, int]]) -> list[str]:
    """Where the merged XML export says something else than the merged YAML the report is made from."""
    diffs = [f"{n}: only in the YAML" for n in yaml_points if n not in xml]
    diffs += [f"{n}: only in the XML" for n in xml if n not in yaml_points]
    for name in sorted(set(yaml_points) & set(xml)):
        if yaml_points[name] != xml[name]:
            diffs.append(f"{name}: YAML {yaml_points[name]} vs XML {xml[name]}")
    return diffs


def _counted(points: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {n: b for n, b in points.items() if not n.endswith((".opcode", ".mask", ".kind", ".dir"))}


def markdown(m: Merged, testplan: dict[str, Any] | None = None) -> str:
    pts = _counted(m.points)
    bins = sum(len(b) for b in pts.values())
    hit = sum(1 for b in pts.values() for h in b.values() if h)
    explained = sum(1 for h in m.holes if h.reason is not None)
    lines = [
        "# Functional coverage",
        "",
        f"Merged from {len(m.files)} run(s): "
        + ", ".join(sorted({f.name.rsplit("-", 1)[0] for f in m.files})),
        "",
        f"**{hit} of {bins} bins hit ({100 * hit / bins:.1f} %)**; {explained} hole(s) explained in "
        f"docs/testplan.yaml, **{len(m.unexplained)} unexplained**.",
        "",
        "| cover point | bins | hit | % | holes |",
        "|---|---:|---:|---:|---|",
    ]
    for name, b in sorted(pts.items()):
        h = sum(1 for v in b.values() if v)
        miss = [k for k, v in b.items() if not v]
        shown = ", ".join(miss[:6]) + (f", … ({len(miss)})" if len(miss) > 6 else "")
        lines.append(f"| `{name}` | {len(b)} | {h} | {100 * h / len(b):.0f} | {shown} |")
    lines += ["", "## Holes", ""]
    if not m.holes:
        lines.append("None: every bin was hit.")
    for hole in m.holes:
        why = (
            hole.reason
            if hole.reason is not None
            else "**NOT EXPLAINED** (add a test or a testplan `holes:` entry)"
        )
        lines.append(f"- `{hole.point}` bin `{hole.bin}`: {why}")
    if testplan:
        lines += [
            "",
            "## Features (docs/testplan.yaml)",
            "",
            "| feature | tests | bins hit |",
            "|---|---:|---|",
        ]
        for feat in testplan.get("features", []):
            cov = feat.get("coverage", [])
            names = [n for n in pts if any(fnmatch.fnmatchcase(n, pat) for pat in cov)]
            fb = sum(len(pts[n]) for n in names)
            fh = sum(1 for n in names for v in pts[n].values() if v)
            lines.append(
                f"| {feat['id']}: {feat['feature']} | {len(feat.get('tests', []))} | {fh}/{fb} |"
                if fb
                else f"| {feat['id']}: {feat['feature']} | {len(feat.get('tests', []))} | — |"
            )
    lines += ["", "## Every bin", ""]
    for name, b in sorted(m.points.items()):
        lines.append(f"- `{name}`: " + ", ".join(f"{k}={v}" for k, v in b.items()))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(prog="python -m tb.coverage.report", description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", type=Path, help="coverage .yml files or folders holding them")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "reports" / "coverage")
    args = ap.parse_args(argv)
    files = sorted(p for i in args.inputs for p in ([i] if i.is_file() else i.rglob("*.yml")))
    for f in files:
        if (problem := _not_coverage(f)) is not None:
            raise cli.UsageError(
                f"{f}: error: not a functional-coverage file ({problem}); name the .yml files a run wrote"
            )
    if args.out.exists() and not args.out.is_dir():
        raise cli.UsageError(f"--out {args.out}: error: not a folder; name the folder for the report")
    plan = load_testplan()
    try:
        m = merge(files, args.out / "functional-merged.yml", plan)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = args.out / "functional.md"
    report.write_text(markdown(m, plan))
    xml_files = [f.with_suffix(".xml") for f in files if f.with_suffix(".xml").exists()]
    if xml_files:  # the standard-format copy beside the report: it must say what the report says
        if len(xml_files) != len(files):
            print(
                f"error: {len(files) - len(xml_files)} run(s) wrote no XML export beside their YAML",
                file=sys.stderr,
            )
            return 1
        diffs = xml_disagreements(m.points, merge_xml(xml_files, args.out / "functional-merged.xml"))
        if diffs:
            print(
                "error: the merged XML coverage disagrees with the YAML: " + "; ".join(diffs[:5]),
                file=sys.stderr,
            )
            return 1
    pts = _counted(m.points)
    bins = sum(len(b) for b in pts.values())
    hit = sum(1 for b in pts.values() for h in b.values() if h)
    print(
        f"functional coverage: {hit}/{bins} bins hit ({100 * hit / bins:.1f} %), "
        f"{len(m.holes) - len(m.unexplained)} holes explained, {len(m.unexplained)} unexplained: {report}"
    )
    for hole in m.unexplained:
        print(f"  unexplained hole: {hole.point} [{hole.bin}]")
    return 1 if m.unexplained else 0


def _not_coverage(path: Path) -> str | None:
    """Why ``path`` is not a coverage YAML file (None when it is one): every top-level entry a mapping."""
    try:
        db = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return type(exc).__name__
    if not isinstance(db, dict) or not all(isinstance(v, dict) for v in db.values()):
        return "no cover points in it"
    return None


if __name__ == "__main__":
    cli.run(main)
