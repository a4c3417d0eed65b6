"""``python -m tools.mutants run|list|report|show`` — mutation testing of rtl/ (``make mutants``).

run     baseline + self-check, then a seeded sample of mutants through the fast regression, two at a
        time; writes build/reports/mutants.md and mutants.jsonl. Exit 1 if a survivor is not explained.
list    every mutant id (``--file``/``--operator`` filter)
show    one mutant: the line before and after
apply   write a copy of rtl/ with one mutant applied, to debug it with any bench (prints how)
report  rebuild mutants.md from the last run's mutants.jsonl and docs/mutants-equivalent.toml
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from spec import cli
from tools import simenv
from tools.mutants import report
from tools.mutants.generate import OPERATORS, RTL, Mutant, all_mutants
from tools.mutants.runner import (
    AXI,
    COMMON,
    FORMAL,
    POST_STAGES,
    Result,
    Runner,
    stages_for_mutant,
    unit_stage,
)

# The default sample: fits ``make mutants`` in about 20 minutes on a 2-core machine (docs/verification.md).
DEFAULT_COUNT = 240
DEFAULT_SEED = 1
DEFAULT_BUDGET_MIN = 38.0
JSONL = report.REPORTS / "mutants.jsonl"
MARKDOWN = report.REPORTS / "mutants.md"
META = report.REPORTS / "mutants-run.json"
# The self-check: a mutant the regression must kill, else the benches are not running the mutated copy.
SELF_CHECK = ("sm/simt_alu.v", "op-swap", "+→-", "SIMT_FN_ADD")


def _say(msg: str) -> None:
    print(msg, flush=True)


def select(mutants: Sequence[Mutant], args: argparse.Namespace) -> list[Mutant]:
    pool = [m for m in mutants
            if (not args.file or any(f in m.file for f in args.file))
            and (not args.operator or m.operator in args.operator)]  # fmt: skip
    if args.only:
        by_id = {m.id: m for m in mutants}
        missing = [i for i in args.only if i not in by_id]
        if missing:
            raise SystemExit(
                f"error: no such mutant {missing[0]!r}; `python -m tools.mutants list` shows the ids"
            )
        return [by_id[i] for i in args.only]
    if args.all or args.count >= len(pool):
        return list(pool)
    return random.Random(args.seed).sample(pool, args.count)


def self_check_mutant(mutants: Sequence[Mutant]) -> Mutant:
    file, op, detail, marker = SELF_CHECK
    text = (RTL / file).read_text().splitlines()
    for m in mutants:
        if m.file == file and m.operator == op and m.detail == detail and marker in text[m.line - 1]:
            return m
    raise SystemExit(
        f"error: the self-check mutant ({file}, {detail} on the {marker} line) no longer exists; "
        "pick another deliberately wrong mutant in tools/mutants/__main__.py SELF_CHECK"
    )


def cmd_run(args: argparse.Namespace) -> int:
    start = time.monotonic()
    mutants = all_mutants()
    sample = select(mutants, args)
    simenv.apply([args.sim])
    _say(
        f"mutants: {len(mutants)} generated, {len(sample)} to run (seed {args.seed}, {args.jobs} at a time, "
        f"{args.sim}, budget {args.budget_min:.0f} min)"
    )
    runner = Runner(args.sim, keep=args.keep, log=_say)
    results: dict[str, Result] = {}
    try:
        files = sorted({m.file for m in sample})
        check = self_check_mutant(mutants)
        unit = unit_stage(check.file)
        _say("baseline: the unmutated RTL through every stage the sample needs")
        if not runner.baseline(files, args.jobs, also=[unit] if unit else []):
            _say(
                "error: the unmutated RTL fails the fast regression (above); fix that first: a mutant can only be "
                "judged against a passing baseline"
            )
            return 2
        res = runner.run_one(check, stages=[unit] if unit else None, name="self-check")
        _say(f"self-check: {check.id} -> {res.status} ({res.seconds:.1f} s)")
        if res.status not in report.KILLED:
            _say(
                "error: a deliberately wrong ALU was not caught: the benches are not running the mutated copy "
                "(tb/rtlsim.py must honour SIMT_RTL_ROOT and SIMT_BUILD_ROOT)"
            )
            return 2
        deadline = start + 60 * args.budget_min
        lock = threading.Lock()

        def work(m: Mutant) -> None:
            if time.monotonic() > deadline:
                return  # reported as not run
            r = runner.run_one(m)
            with lock:
                results[m.id] = r
                where = f"{r.stage} {r.test}" if r.status in report.KILLED else r.test
                _say(
                    f"[{len(results):4d}/{len(sample)}] {r.status:<15} {r.seconds:6.1f} s  {m.id}  {where}".rstrip()
                )

        pool = ThreadPoolExecutor(max_workers=args.jobs)
        try:
            for future in [pool.submit(work, m) for m in sample]:
                future.result()
        finally:
            runner.stop()  # nothing left to stop unless interrupted
            pool.shutdown(wait=True, cancel_futures=True)
    except KeyboardInterrupt:
        _say("interrupted: the report covers the mutants that finished")
    finally:
        if args.keep:
            _say(f"mutant folders and stage logs kept in {runner.work}")
        runner.cleanup()
    wall = time.monotonic() - start
    ran = [results[m.id] if m.id in results else Result(m, "not-run") for m in sample]
    timed = [r.seconds for r in ran if r.status != "not-run"]
    meta = {
        "command": " ".join(["python -m tools.mutants", *args.argv]),
        "seed": args.seed,
        "sim": args.sim,
        "jobs": args.jobs,
        "generated": len(mutants),
        "wall_seconds": round(wall, 1),
        "mean_seconds": round(sum(timed) / len(timed), 1) if timed else 0.0,
        "stages": {s.name: list(s.nodes) for s in (*COMMON, AXI, FORMAL)}
        | {f"post {f}": list(s.nodes) for f, s in POST_STAGES.items()},
        "baseline_seconds": runner.baseline_seconds,
    }
    report.write_jsonl([report.result_row(r) for r in ran], JSONL)
    META.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    return _render(meta, mutants)


def _render(meta: dict, mutants: Sequence[Mutant]) -> int:
    rows = report.read_jsonl(JSONL)
    equivalents = report.load_equivalents()
    text, totals, unexplained = report.render(rows, meta, equivalents, {m.id for m in mutants})
    MARKDOWN.write_text(text + "\n")
    c = totals.counts
    _say(
        f"mutants: {totals.sampled} sampled of {totals.generated}: {c['killed']} killed, {c['timeout']} timeouts "
        f"(killed), {c['survived']} survived, {c['did-not-compile']} did not compile, {c['not-run']} not run; "
        f"kill rate {100 * totals.rate:.1f} % (goal {100 * report.GOAL:.0f} %)"
    )
    _say(f"report: {MARKDOWN.relative_to(report.ROOT)} and {JSONL.relative_to(report.ROOT)}")
    if unexplained:
        _say(
            f"{len(unexplained)} survivor(s) NOT EXPLAINED (listed in the report): add a test that kills each, or "
            "write why it is equivalent in docs/mutants-equivalent.toml"
        )
        for r in unexplained:
            _say(f"  {r['id']}:  {r['after']}")
        return 1
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    if not JSONL.exists() or not META.exists():
        _say(
            f"error: no previous run ({JSONL.relative_to(report.ROOT)} is missing); run `make mutants` first"
        )
        return 2
    return _render(json.loads(META.read_text()), all_mutants())


def cmd_list(args: argparse.Namespace) -> int:
    for m in select(all_mutants(), argparse.Namespace(**{**vars(args), "all": True, "only": None})):
        _say(m.id)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    by_id = {m.id: m for m in all_mutants()}
    for i in args.ids:
        m = by_id.get(i)
        if m is None:
            _say(f"error: no such mutant {i!r}; `python -m tools.mutants list` shows the ids")
            return 2
        before, after = m.lines((RTL / m.file).read_text())
        stages = " → ".join(s.name for s in stages_for_mutant(m))
        _say(f"{m.id}  (rtl/{m.file}, stages {stages})\n  - {before}\n  + {after}")
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    by_id = {m.id: m for m in all_mutants()}
    m = by_id.get(args.id)
    if m is None:
        _say(f"error: no such mutant {args.id!r}; `python -m tools.mutants list` shows the ids")
        return 2
    dest = Path(args.dest).resolve()
    if dest.exists():
        _say(f"error: {dest} exists; give a new folder (the copy of rtl/ goes in {dest}/rtl)")
        return 2
    shutil.copytree(RTL, dest / "rtl")
    path = dest / "rtl" / m.file
    path.write_text(m.apply(path.read_text()))
    _say(
        f"{m.id} applied in {dest / 'rtl'}; run a bench on it with e.g.\n"
        f"  SIM=icarus SIMT_RTL_ROOT={dest / 'rtl'} SIMT_BUILD_ROOT={dest / 'build'} "
        f".venv/bin/python -m pytest -n0 -x {' '.join(stages_for_mutant(m)[0].nodes)}"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="python -m tools.mutants", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run a seeded sample of mutants and write the report")
    lst = sub.add_parser("list", help="print every mutant id")
    for p in (run, lst):
        p.add_argument(
            "--file", action="append", help="only mutants of files whose path contains this (repeatable)"
        )
        p.add_argument(
            "--operator", action="append", choices=OPERATORS, help="only this operator (repeatable)"
        )
    run.add_argument(
        "--count", type=int, default=DEFAULT_COUNT, help=f"sample size (default {DEFAULT_COUNT})"
    )
    run.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"sample seed (default {DEFAULT_SEED})")
    run.add_argument("--all", action="store_true", help="every mutant (hours), not a sample")
    run.add_argument(
        "--only", nargs="+", metavar="ID", help="exactly these mutants (e.g. to check a new test kills them)"
    )
    run.add_argument("--jobs", type=int, default=2, help="mutants at a time (default 2: one per core)")
    run.add_argument(
        "--sim",
        default="icarus",
        choices=simenv.SIMULATORS,
        help="simulator (default icarus: it compiles in seconds, Verilator in a minute per mutant)",
    )
    run.add_argument(
        "--budget-min",
        type=float,
        default=DEFAULT_BUDGET_MIN,
        help="start no new mutant after this many minutes; the rest are reported as not run",
    )
    run.add_argument(
        "--keep", action="store_true", help="keep each mutant's folder and stage logs (printed path)"
    )
    show = sub.add_parser("show", help="print mutants' lines before and after")
    show.add_argument("ids", nargs="+")
    sub.add_parser("report", help="rebuild mutants.md from the last run and the equivalence list")
    app = sub.add_parser("apply", help="write a copy of rtl/ with one mutant applied (to debug it)")
    app.add_argument("id")
    app.add_argument("dest", help="a new folder: the mutated copy goes in DEST/rtl")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv
    commands = {"run": cmd_run, "list": cmd_list, "show": cmd_show, "report": cmd_report, "apply": cmd_apply}
    return commands[args.cmd](args)


if __name__ == "__main__":
    cli.run(main)
