"""`make formal`: run the formal jobs (tools/formal/jobs.py) and print the summary table.

    python -m tools.formal                 every job, two at a time
    python -m tools.formal --only NAME...  some jobs (names from --list)
    python -m tools.formal --list          the jobs, their properties and parameters
    python -m tools.formal --docs          also rewrite the table in docs/verification.md ("Formal")
    python -m tools.formal --mutant sm/simt_alu.v --rtl DIR [--work DIR]
                                           judge a `make mutants` mutant: the property jobs over that file,
                                           read from the copy DIR of rtl/ (the mutant applied), each as a BMC
                                           without the induction invariants (tools/formal/jobs.py
                                           mutant_jobs); exit 1 = a counterexample (killed), 0 = none

Exit status 0 when every proof passed and every planted fault produced its counterexample.
The table is also written to build/reports/formal.md, each job's verdict to build/reports/formal.json
(merged over runs, so --only updates its jobs), and the count of coverage holes the proofs resolve is
printed after the table (tools/formal/holes.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from spec import cli
from tools.formal import holes, report
from tools.formal.jobs import Job, all_jobs, mutant_jobs
from tools.formal.sby import ROOT, FormalToolError, Result, check_tools, prepare, run


def _solvers(jobs: Sequence[Job]) -> set[str]:
    out: set[str] = set()
    for j in jobs:
        parts = j.engine.split()
        if parts[0] == "smtbmc":
            out.add(parts[-1] if len(parts) > 1 else "yices")
        elif parts[0] == "abc":
            out.add("abc")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = cli.ArgumentParser(prog="python -m tools.formal", description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these jobs")
    p.add_argument("--list", action="store_true", help="list the jobs and exit")
    p.add_argument("--jobs", type=cli.positive_int, default=2, help="jobs run at the same time (default 2)")
    p.add_argument(
        "--timeout", type=cli.positive_int, default=900, help="seconds per job before it counts as failed"
    )
    p.add_argument("--docs", action="store_true", help="rewrite the table in docs/verification.md")
    p.add_argument(
        "--mutant",
        metavar="FILE",
        help="judge a mutant of this rtl/-relative file (e.g. sm/simt_alu.v): make mutants' formal stage",
    )
    p.add_argument("--rtl", metavar="DIR", help="with --mutant: the copy of rtl/ holding the mutant")
    p.add_argument(
        "--work", metavar="DIR", help="with --mutant: build folder of the jobs (default build/formal-mutant)"
    )
    args = p.parse_args(argv)
    if args.mutant is not None:
        return judge_mutant(args)
    if args.rtl is not None or args.work is not None:
        p.error("--rtl and --work go with --mutant")

    jobs = all_jobs()
    if args.list:
        for j in jobs:
            params = ", ".join(f"{k}={v}" for k, v in j.params.items())
            print(f"{j.name:<28} {j.engine_name:<28} {params:<40} {j.what}")
        return 0
    if args.only:
        names = {j.name for j in jobs}
        unknown = [n for n in args.only if n not in names]
        if unknown:
            print(
                f"error: unknown job(s) {', '.join(unknown)}; see python -m tools.formal --list",
                file=sys.stderr,
            )
            return 2
        jobs = [j for j in jobs if j.name in args.only]
    start = time.monotonic()
    try:
        env = check_tools(_solvers(jobs))
        print(
            "starting Yosys (its first run on a machine compiles the WebAssembly: about 3 minutes)",
            flush=True,
        )
        prep_wall, prep_cpu = prepare(env)
    except FormalToolError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"Yosys ready after {prep_wall:.1f} s wall, {prep_cpu:.1f} s CPU", flush=True)

    results: list[Result] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for res in pool.map(lambda j: run(j, env, args.timeout), jobs):
            mark = "ok " if res.ok else "BAD"
            print(
                f"[{mark}] {res.job.name:<28} {res.verdict:<26} {res.seconds:6.1f}s wall {res.cpu:6.1f}s CPU",
                flush=True,
            )
            if not res.ok:
                print(
                    f"      expected {'a counterexample' if res.job.expect == 'fail' else 'PASS'}; "
                    f"log: build/formal/{res.job.name}/run/logfile.txt",
                    flush=True,
                )
            results.append(res)
    wall = time.monotonic() - start
    table = report.table(results)
    print()
    print(table)
    bad = [r for r in results if not r.ok]
    summary = report.summary(results, wall) + f" (Yosys start: {prep_wall:.0f} s wall, {prep_cpu:.0f} s CPU)"
    print(summary)
    known = holes.load_results()
    known.update(report.results_json(results))
    holes.RESULTS.parent.mkdir(parents=True, exist_ok=True)
    holes.RESULTS.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
    hole_text = holes.summary(holes.holes(), known)
    print()
    print(hole_text)
    report.write_build(table, summary + "\n\n" + hole_text)
    if args.docs:
        report.write_docs(report.table(results, cex="../build/formal/cex/"), summary + "\n\n" + hole_text)
    return 1 if bad else 0


def judge_mutant(args: argparse.Namespace) -> int:
    """``--mutant``: run the property jobs over one mutated file as BMCs, one at a time (make mutants
    runs two mutants at once). Exit 1 at the first counterexample (the mutant is killed; the job and
    the failed assertion are printed), 0 when every job passed or timed out (not killed), 2 when a tool
    is missing or a job could not run."""
    if args.rtl is None:
        print("error: --mutant needs --rtl DIR (the copy of rtl/ holding the mutant)", file=sys.stderr)
        return 2
    rtl = Path(args.rtl).resolve()
    if not (rtl / args.mutant).is_file():
        print(f"error: {rtl / args.mutant} does not exist", file=sys.stderr)
        return 2
    jobs = mutant_jobs(args.mutant)
    if not jobs:
        print(f"formal: no property job reads rtl/{args.mutant}: nothing to judge (not killed)")
        return 0
    work = Path(args.work).resolve() if args.work else ROOT / "build" / "formal-mutant"
    try:
        env = check_tools(_solvers(jobs))
        prepare(env)
    except FormalToolError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for job in jobs:
        res = run(job, env, args.timeout, rtl=rtl, build=work)
        print(
            f"formal: {job.name:<16} {res.verdict:<26} {res.seconds:6.1f}s wall {res.cpu:6.1f}s CPU",
            flush=True,
        )
        if res.status == "FAIL":
            print(f"formal: killed by {job.name}: {res.failed or 'a failed assertion'}", flush=True)
            return 1
        if res.status not in ("PASS", "TIMEOUT"):
            print(f"error: {job.name} ended {res.status}; log: {work / job.name / 'run' / 'logfile.txt'}")
            print(res.log[-2000:])
            return 2
    return 0


if __name__ == "__main__":
    cli.run(main)
