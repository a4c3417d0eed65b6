"""Every docs table generated from a results file under docs/bench/, and which RTL each was measured on.

    python -m tools.bench._tables            list the tables, each one's RTL against the current RTL
    python -m tools.bench._tables --check    the same, exit 1 when a table differs from its results file

Two checks, two strengths (issue 29 "No stale figures"):

- *a table no longer matches its results file* (someone edited one of the two by hand): a failure, in
  ``make model`` (tb/tests/tools/test_bench_docs.py) — it is cheap to fix (``--docs-only``) and always a
  mistake;
- *a table was measured on an RTL other than the current one*: a listed warning, printed by ``make bench``
  (tools/tasks.py) and by this command, never a failure: every RTL edit would otherwise fail ``make
  model`` until hours of benches ran again (the SM sweep, every C kernel at every size on two
  simulators), and a cycle-neutral edit (a comment, a lint fix) changes the hash too. The warning says
  which tables and the command that refreshes each.

Not a bench script (tools/tasks.py runs every tools/bench/*.py not starting with ``_``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from spec import cli
from tools.bench import _cudac_docs as cudac
from tools.bench import _lanes as lanes
from tools.bench import _provenance as provenance
from tools.bench import _recorded as recorded
from tools.bench import _sm_scaling as sm_scaling
from tools.bench import check_overhead

ROOT = provenance.ROOT


@dataclass(frozen=True)
class Table:
    name: str
    docs: str  # the docs file, relative to the repository
    results: tuple[str, ...]  # its results files, relative to the repository
    stale: Callable[[], bool]  # the docs text differs from what the results give
    stamps: Callable[[], list[tuple[str, provenance.Stamp | None]]]  # (what, the RTL it was measured on)
    refresh: str  # the command that measures again and regenerates it
    minutes: str  # what that costs here (2 shared cores)


def _file_stamp(rel: str) -> provenance.Stamp | None:
    path = ROOT / rel
    return json.loads(path.read_text()).get("measured_on") if path.is_file() else None


def _git_stamp(rel: str) -> provenance.Stamp | None:
    """For a results file whose writer records no stamp (check_overhead.py, another session's file):
    the RTL of the last commit that changed it."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%H %as", "--", rel], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()  # fmt: skip
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    return provenance.inferred(out[0], out[1]) if out else None


def _timing_mismatches() -> list[str]:
    from ppa import timing_docs

    return timing_docs.mismatches(timing_docs.DOC.read_text(), timing_docs.load())


TABLES: tuple[Table, ...] = (
    Table(
        "sm_scaling",
        "docs/benchmarks.md",
        ("docs/bench/sm_scaling-verilator.json",),
        lambda: sm_scaling.stale(),
        lambda: [("verilator", _file_stamp("docs/bench/sm_scaling-verilator.json"))],
        "SIM=verilator .venv/bin/python tools/bench/kernels_bench.py --sm-only -j 1 --resume --docs",
        "~2-2.5 h at load 12-16 (8 Verilator builds of 6-20 min; matrixmul 256 ~6-7 min per machine); "
        "--resume continues a stopped run",
    ),
    Table(
        "lanes_cycles, lanes_speedup",
        "docs/benchmarks.md",
        ("docs/bench/lanes-verilator.json",),
        lambda: lanes.stale(),
        lambda: [("verilator", _file_stamp("docs/bench/lanes-verilator.json"))],
        "SIM=verilator .venv/bin/python tools/bench/kernels_bench.py --report-size-only --sm-sweep '' -j 2 --docs",
        "~5 min at -j 2 with the 3 Verilator builds in ccache (4.7 min at load ~5), plus 6-20 min per cold "
        "build; matrixmul 256 (2-3 min per lane count) is the longest case",
    ),
    Table(
        "cudac_ratio, cudac_sizes",
        "docs/benchmarks.md",
        ("docs/bench/cudac-verilator.json", "docs/bench/cudac-icarus.json"),
        lambda: cudac.stale(),
        lambda: [(s, _file_stamp(f"docs/bench/cudac-{s}.json")) for s in cudac.SIMS],
        "SIM=verilator .venv/bin/python tools/bench/cudac_bench.py --rtl verilator --docs; "
        "then --rtl icarus --no-asm --docs",
        "Verilator ~20-40 min; Icarus many hours (matrixmul.cu/128 alone took 47 min)",
    ),
    Table(
        "check_overhead",
        "docs/benchmarks.md",
        ("docs/bench/check_overhead-verilator.json",),
        lambda: check_overhead.stale(),
        lambda: [("verilator", _git_stamp("docs/bench/check_overhead-verilator.json"))],
        "SIM=verilator .venv/bin/python tools/bench/check_overhead.py --cases matrixmul:64 --lanes 8,32 "
        "--repeat 3 --docs",
        "~5 min (a cost measurement: the cycles column moves with the RTL, the µs per retire with the harness)",
    ),
    Table(
        "ppa sweep (hand-copied, not generated)",
        "docs/ppa.md",
        (),
        lambda: False,  # no results file in docs/ yet: its tables were pasted from build/ppa/sweep/report.md
        lambda: [("RTL cycles", _git_stamp("docs/ppa/pred_vs_rtl.png"))],
        "make ppa-sweep (then paste build/ppa/sweep/report.md's tables into docs/ppa.md 'Sweep' and "
        "'Predicted vs RTL cycles'; the RTL change also moves the areas)",
        "~25 min idle from an empty cache, 60+ min on the shared machine (synthesis of 9 SMs, energy fits, "
        "12 configurations of RTL cycles)",
    ),
    Table(
        "ppa timing and power (ppa/timing_docs.py)",
        "docs/ppa.md",
        ("docs/ppa/timing.json",),
        lambda: bool(_timing_mismatches()),
        lambda: [("netlists, power per kernel", _git_stamp("docs/ppa/timing.json"))],
        "make ppa-timing (and python -m ppa.kernelpower per lane count), then python -m ppa.timing_docs --collect",
        "hours on the shared machine (synthesis, characterised STA and gate-level power per lane count)",
    ),
    Table(
        "issue32_round3",
        "docs/benchmarks.md",
        ("docs/bench/issue32_round3-verilator.json",),
        lambda: recorded.stale("issue32_round3"),
        lambda: recorded.stamps("issue32_round3"),
        "a before/after record of named commits: stays on its RTLs by design (add a column for the current RTL "
        "with kernels_bench.py's job at 8/16/32 lanes)",
        "~15 min per column",
    ),
    Table(
        "launch_history",
        "docs/sm.md",
        ("docs/bench/launch_history-verilator.json",),
        lambda: recorded.stale("launch_history"),
        lambda: recorded.stamps("launch_history"),
        "a before/after record of a fix (988cc6c): stays on its RTLs by design",
        "—",
    ),
)
# Before/after records of named commits: measured on old RTLs on purpose, so not listed as stale.
HISTORICAL = {"issue32_round3", "launch_history"}


def mismatched() -> list[str]:
    """Tables that differ from what their results files give (the ``make model`` failure)."""
    return [f"{t.name} in {t.docs}: differs from {', '.join(t.results)}" for t in TABLES if t.stale()]


def other_rtl(current: str | None = None) -> list[str]:
    """Tables measured on an RTL other than ``current`` (default: the work tree's), with the command
    that refreshes each (the ``make bench`` warning)."""
    current = current or provenance.rtl_hash()
    out = []
    for t in TABLES:
        if t.name in HISTORICAL:
            continue
        old = [f"{what} on `{(st or {}).get('rtl_hash', 'unrecorded')[:provenance.SHORT]}`"
               for what, st in t.stamps() if not provenance.is_current(st, current)]  # fmt: skip
        if old:
            out.append(f"{t.name} ({t.docs}): {'; '.join(old)} — refresh: {t.refresh} ({t.minutes})")
    return out


def report(current: str | None = None) -> list[str]:
    current = current or provenance.rtl_hash()
    lines = [f"Generated docs tables against the current RTL `{current[: provenance.SHORT]}`:"]
    old = other_rtl(current)
    lines += [f"  WARNING: measured on another RTL: {x}" for x in old] or [
        "  every table measured on this RTL"
    ]
    lines += [
        f"  ({', '.join(sorted(HISTORICAL))}: before/after records of named commits, kept on their RTLs)"
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 when a table differs from its results file")
    args = ap.parse_args(argv)
    print("\n".join(report()))
    bad = mismatched()
    for b in bad:
        print(f"  MISMATCH: {b} (regenerate with --docs-only and commit)")
    return 1 if bad and args.check else 0


if __name__ == "__main__":
    cli.run(main)
