"""Longest tests first: the order in which ``pytest -n`` hands the tests of a stage to its workers.

pytest-xdist gives a worker the next test in collection order whenever it is free (``--dist load``,
``--maxschedchunk 1``, tools/tasks.py). With the slowest tests first the two workers of the 2-core CI
machine finish together (longest-processing-time-first scheduling); in file order a 3-minute test
collected last ran alone at the end of a stage. The cost of each test comes from
``tb/tests/durations.json``, the per-test times of a ``make test`` run's junit reports
(build/reports/*.xml) written by ``python -m tools.durations update``. It is only an order hint:
a test missing from it (new, renamed, or under a second) counts as the median, a stale figure only costs balance, and
no test is skipped or weighted by it.

    python -m tools.durations update [REPORT.xml ...]   (default: build/reports/*.xml of the last run)
    python -m tools.durations show --sim icarus        (the stored costs, longest first)
    python -m tools.durations builds [--sim verilator] [BUILD_ROOT]  (every build's compile CPU seconds)

``builds`` lists the simulator builds that the benches made under a build root (default build/sim), from
the ``build.json`` that tb/rtlsim.py writes into each build folder when a build compiled something: the
profile of how many builds a stage makes and what each costs (run the stage with ``CCACHE_DISABLE=1``
so ccache does not hide compiles).
"""

from __future__ import annotations

import json
import statistics
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "tb" / "tests" / "durations.json"
REPORTS = ROOT / "build" / "reports"
ANY = "any"  # the table of tests that run the same on either simulator (model, differential)
SIMS = ("icarus", "verilator")
KEEP = 1.0  # seconds: shorter tests are not stored (they count as the median)
MEDIAN = "*"


def junit_key(nodeid: str) -> str:
    """The ``classname::name`` that pytest's junit report gives the test ``nodeid``
    (``tb/tests/unit/test_alu.py::test_alu[x]`` -> ``tb.tests.unit.test_alu::test_alu[x]``)."""
    path, *rest = nodeid.split("::")
    module = path[:-3] if path.endswith(".py") else path
    parts = [module.replace("/", "."), *rest]
    return ".".join(parts[:-1]) + "::" + parts[-1]


def report_times(report: Path) -> dict[str, float]:
    """{junit key: seconds} of one junit report (empty if it cannot be read)."""
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return {}
    return {
        f"{case.get('classname', '')}::{case.get('name', '')}": round(float(case.get("time", 0) or 0), 1)
        for case in root.iter("testcase")
    }


def table_of(report: Path) -> str:
    """Which table a stage's report goes to: its simulator's (unit-icarus.xml, system-verilator.xml),
    else the simulator-free one."""
    sim = next((s for s in SIMS if report.stem.endswith(f"-{s}")), None)
    return sim or ANY


def update(reports: Iterable[Path], table: Path = TABLE) -> dict[str, dict[str, float]]:
    """Merge the reports' per-test times into ``table`` (a test's newest time replaces its old one).
    Only tests of at least KEEP seconds are stored, and under MEDIAN each table's median test time,
    which a test not stored counts as."""
    data = load(table)
    for report in reports:
        times = report_times(report)
        if not times:
            continue
        stored = data.setdefault(table_of(report), {})
        stored.update({k: v for k, v in times.items() if v >= KEEP})
        stored[MEDIAN] = round(statistics.median(times.values()), 2)
    table.write_text(
        json.dumps({k: dict(sorted(v.items())) for k, v in sorted(data.items())}, indent=1) + "\n"
    )
    return data


def load(table: Path = TABLE) -> dict[str, dict[str, float]]:
    try:
        data = json.loads(table.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def costs(nodeids: Sequence[str], sim: str, data: dict[str, dict[str, float]]) -> list[float]:
    """Each test's stored time on ``sim`` (or in the simulator-free table); a test not stored counts as
    the table's median."""
    known = {**data.get(ANY, {}), **data.get(sim, {})}
    fill = known.get(MEDIAN, 0.0)
    return [known.get(junit_key(n), fill) for n in nodeids]


def longest_first(nodeids: Sequence[str], sim: str, data: dict[str, dict[str, float]]) -> list[int]:
    """Indices of ``nodeids`` from the most to the least costly; ties keep collection order (so every
    xdist worker collects the same order)."""
    cost = costs(nodeids, sim, data)
    return sorted(range(len(nodeids)), key=lambda i: (-cost[i], i))


def build_records(root: Path, sim: str | None = None) -> list[dict[str, object]]:
    """The ``build.json`` of every build folder under ``root`` (tb/rtlsim.py), costliest first."""
    found = []
    for path in sorted(root.glob("*/*/build.json")):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if sim is None or record.get("sim") == sim:
            found.append({**record, "folder": str(path.parent.relative_to(root))})
    return sorted(found, key=lambda r: -float(r.get("cpu_s", 0)))  # type: ignore[arg-type]


def builds_table(records: Sequence[dict[str, object]]) -> list[str]:
    """One line a build (CPU s, wall s, folder, parameters and defines, C++ optimisation), then the totals."""
    lines = []
    for r in records:
        opt = (
            "-O0"
            if "OPT_FAST=-O0" in r.get("make_vars", [])
            else ("" if r.get("sim") != "verilator" else "-Os")
        )  # type: ignore[operator]
        what = {**r.get("parameters", {}), **{f"`{k}": v for k, v in r.get("defines", {}).items()}}  # type: ignore[dict-item]
        lines.append(
            f"{r['cpu_s']:7.1f} {r['wall_s']:7.1f}  {opt:4} {r['folder']}  {json.dumps(what, sort_keys=True)}"
        )
    total = sum(float(r["cpu_s"]) for r in records)  # type: ignore[arg-type]
    lines.append(f"{len(records)} builds, {total:.1f} CPU s")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.ArgumentParser(
        prog="python -m tools.durations", description="Per-test times for scheduling."
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("update", help="merge junit reports into tb/tests/durations.json")
    up.add_argument("reports", nargs="*", type=Path)
    show = sub.add_parser("show", help="the stored times, longest first")
    show.add_argument("--sim", default=ANY, choices=[ANY, *SIMS])
    show.add_argument("--top", type=int, default=20)
    bld = sub.add_parser("builds", help="every build's compile CPU seconds (tb/rtlsim.py's build.json)")
    bld.add_argument("root", nargs="?", type=Path, default=ROOT / "build" / "sim")
    bld.add_argument("--sim", choices=SIMS)
    args = parser.parse_args(argv)
    if args.cmd == "builds":
        print("\n".join(builds_table(build_records(args.root, args.sim))))
        return 0
    if args.cmd == "update":
        reports = args.reports or sorted(REPORTS.glob("*.xml"))
        if not reports:
            print(f"no junit reports in {REPORTS}: run make test first", file=sys.stderr)
            return 1
        unread = [str(r) for r in reports if not report_times(r)]
        if unread:
            parser.error(f"not a junit report with test times: {', '.join(unread)}")
        data = update(reports)
        print(f"{TABLE.relative_to(ROOT)}: " + ", ".join(f"{k} {len(v)} tests" for k, v in data.items()))
        return 0
    rows = sorted(load().get(args.sim, {}).items(), key=lambda kv: (kv[0] != MEDIAN, -kv[1]))
    for key, seconds in rows[: args.top]:
        print(f"{seconds:8.1f}  {key}")
    return 0


if __name__ == "__main__":
    cli.run(main)
