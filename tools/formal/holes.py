"""Coverage holes resolved by formal proofs (issue 31): ``python -m tools.formal.holes``.

The holes are the bins docs/testplan.yaml lists under ``holes:`` (each entry: a cover point, bin
patterns, the reason the regression cannot hit them), expanded over the cover points of the system
regression's configurations (tb.gpurun.CONFIGS). A hole is RESOLVED when
  - its entry's ``proofs:`` names formal jobs (tools/formal/jobs.py) and every one of them is an unbounded
    proof (k-induction) that passed in the last ``make formal`` (build/reports/formal.json): the reason
    is then a proof that the bin is unreachable; or
  - its entry's ``witness_tests:`` names directed tests made from a cover witness that hit it.
Anything else is open. ``make formal`` prints this count after its table.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spec import cli
from tools.formal.sby import ROOT

RESULTS = ROOT / "build" / "reports" / "formal.json"


@dataclass(frozen=True)
class Hole:
    point: str
    bin: str
    proofs: tuple[str, ...]  # formal jobs whose unbounded proofs make the bin unreachable
    tests: tuple[str, ...]  # witness-derived directed tests that hit it


def holes(plan: Mapping[str, Any] | None = None) -> list[Hole]:
    """Every hole bin of the testplan over the regression's cover points (each point/bin once)."""
    from tb.coverage.functional import point_names
    from tb.coverage.report import load_testplan
    from tb.gpurun import CONFIGS

    plan = plan if plan is not None else load_testplan()
    bins: dict[str, list[str]] = {}
    for cfg in CONFIGS.values():
        for name, values in point_names(cfg).items():
            bins.setdefault(name, [str(v) for v in values])
    out: list[Hole] = []
    seen: set[tuple[str, str]] = set()
    for entry in plan.get("holes", []):
        for name, values in sorted(bins.items()):
            if not fnmatch.fnmatchcase(name, entry["point"]):
                continue
            for b in values:
                if (name, b) in seen or not any(fnmatch.fnmatchcase(b, p) for p in entry.get("bins", ["*"])):
                    continue
                seen.add((name, b))
                out.append(
                    Hole(name, b, tuple(entry.get("proofs", ())), tuple(entry.get("witness_tests", ())))
                )
    return out


def proved(results: Mapping[str, Mapping[str, str]], jobs: Sequence[str]) -> bool:
    """Did every named job end as an unbounded proof (k-induction, PASS)?"""
    return bool(jobs) and all(
        results.get(j, {}).get("mode") == "prove" and results.get(j, {}).get("status") == "PASS" for j in jobs
    )


def load_results(path: Path = RESULTS) -> dict[str, dict[str, str]]:
    return json.loads(path.read_text()) if path.is_file() else {}


def summary(all_holes: Sequence[Hole], results: Mapping[str, Mapping[str, str]]) -> str:
    """One line per hole group and the count the issue asks for."""
    by_proof = [h for h in all_holes if proved(results, h.proofs)]
    by_test = [h for h in all_holes if h.tests and h not in by_proof]
    resolved = len(by_proof) + len(by_test)
    groups: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[Hole]] = {}
    for h in all_holes:
        groups.setdefault((h.point, h.proofs, h.tests), []).append(h)
    lines = ["| cover point | hole bins | resolved by | status |", "| --- | ---: | --- | --- |"]
    for (point, proofs, tests), hs in groups.items():
        if proved(results, proofs):
            how, status = "unbounded proofs: " + ", ".join(proofs), "proved unreachable"
        elif tests:
            how, status = "witness tests: " + ", ".join(tests), "hit"
        else:
            how = ("proofs (not all proved): " + ", ".join(proofs)) if proofs else "-"
            status = "open"
        lines.append(f"| {point} | {len(hs)} | {how} | {status} |")
    lines.append("")
    lines.append(
        f"coverage holes: {resolved} of {len(all_holes)} resolved ({len(by_proof)} proved unreachable, "
        f"{len(by_test)} hit by witness-derived tests), {len(all_holes) - resolved} open"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = cli.ArgumentParser(prog="python -m tools.formal.holes", description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, default=RESULTS, help="make formal's results (JSON)")
    args = p.parse_args(argv)
    if not args.results.is_file():
        print(f"error: {args.results} not found: run `make formal` first", file=sys.stderr)
        return 2
    try:
        results = load_results(args.results)
        if not isinstance(results, dict) or not all(isinstance(v, dict) for v in results.values()):
            raise ValueError("not a JSON object of job results")
    except (OSError, UnicodeDecodeError, ValueError) as err:
        print(f"error: {args.results}: {err}; it is written by `make formal`", file=sys.stderr)
        return 2
    print(summary(holes(), results))
    return 0


if __name__ == "__main__":
    cli.run(main)
