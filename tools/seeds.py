"""The seed sweep (``make seeds N=...``): every unit bench and every meta-test under N random seeds.

    python -m tools.seeds --count 50                       (both simulators)
    python -m tools.seeds --count 50 --sim verilator --shard 2/4 --base 7
    python -m tools.seeds --seeds 505048349,15851          (these seeds only)

A test that passes on some seeds and fails on others makes every regression fail at random: each run
draws a new regression seed (tb/rtlsim.py: cocotb's seed and Verilator's random initial state). This
sweep runs the unit benches (tb/tests/unit) and the meta-tests (the planted-fault tests of
tb/tests/system, which must fail the right check on every seed) once per (simulator, seed) with
``SEED`` fixed, and lists every failing seed with the command that reruns it.

The seeds are drawn from ``--base`` (printed; a fresh one when not given) so a sweep is repeatable and
``--shard I/N`` machines given the same base share the (simulator, seed) runs without overlap. The
report is build/reports/seeds[-shardI-of-N].md plus one junit file per run under build/reports/seeds/.
"""

from __future__ import annotations

import os
import random
import secrets
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spec import cli
from tools import simenv

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "build" / "reports"
# What the sweep runs: every unit bench, and the system tests that plant a fault (meta-tests).
UNIT = "tb/tests/unit"
META = "tb/tests/system"
META_FILTER = "fault_is_caught or wrong_c_answer_is_caught or planted"
# pytest -k: the unit package's tests (the keyword `unit` names their folder) and the meta-tests
SELECT = f"(unit and not zero_time) or {META_FILTER}"
# Regression seeds are below 2**31 (tb/rtlsim.py draws them so).
SEED_LIMIT = 1 << 31


@dataclass
class Run:
    sim: str
    seed: int
    seconds: float = 0.0
    tests: int = 0
    failed: list[str] = field(default_factory=list)  # pytest node ids
    error: str = ""  # the run itself broke (no report)


def draw_seeds(count: int, base: int) -> list[int]:
    """``count`` distinct regression seeds drawn from ``base`` (same base, same seeds, on any machine)."""
    rng = random.Random(base)
    seeds: list[int] = []
    while len(seeds) < count:
        s = rng.randrange(1, SEED_LIMIT)
        if s not in seeds:
            seeds.append(s)
    return seeds


def plan(sims: Sequence[str], seeds: Sequence[int], shard: tuple[int, int] | None) -> list[tuple[str, int]]:
    """The (simulator, seed) runs of this shard: every Nth of the seed-major list."""
    pairs = [(sim, seed) for seed in seeds for sim in sims]
    if shard is None:
        return pairs
    i, n = shard
    return [p for k, p in enumerate(pairs) if k % n == i - 1]


def _failures(report: Path) -> tuple[int, list[str]]:
    """(tests run, failed node ids) from a pytest junit report."""
    root = ET.parse(report).getroot()
    tests, failed = 0, []
    for case in root.iter("testcase"):
        tests += 1
        if case.find("failure") is not None or case.find("error") is not None:
            path = case.get("classname", "").replace(".", "/")
            failed.append(f"{path}.py::{case.get('name')}")
    return tests, failed


def rerun_command(sim: str, seed: int, nodeid: str) -> str:
    return f"SEED={seed} SIM={sim} .venv/bin/python -m pytest -n0 '{nodeid}'"


def run_one(sim: str, seed: int, jobs: str, extra: Sequence[str], out: Path) -> Run:
    """The unit benches and the meta-tests on ``sim`` with SEED=seed."""
    report = out / f"{sim}-{seed}.xml"
    report.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("SIMT_SHARD", "KERNEL_SEEDS")}
    env |= {"SEED": str(seed), "SIM": sim}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", jobs]
    cmd += [f"--junitxml={report}", UNIT, META, "-k", SELECT, *extra]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    run = Run(sim, seed, time.monotonic() - start)
    (out / f"{sim}-{seed}.log").write_text(proc.stdout + proc.stderr)
    try:
        run.tests, run.failed = _failures(report)
    except (OSError, ET.ParseError):
        run.error = f"pytest exit {proc.returncode}, no report: see {out / f'{sim}-{seed}.log'}"
    if proc.returncode not in (0, 1) and not run.error and not run.failed:
        run.error = f"pytest exit {proc.returncode}: see {out / f'{sim}-{seed}.log'}"
    return run


def report_lines(
    runs: Sequence[Run], base: int, seeds: Sequence[int], shard: tuple[int, int] | None
) -> list[str]:
    where = f" (shard {shard[0]}/{shard[1]})" if shard else ""
    total = sum(r.seconds for r in runs)
    lines = [
        f"# Seed sweep{where}",
        "",
        f"base {base}: {len(seeds)} seed(s), {len(runs)} run(s) of the unit benches and meta-tests, "
        f"{total:.0f} s in all ({total / max(1, len(runs)):.0f} s per run)",
        "",
    ]
    for sim in sorted({r.sim for r in runs}):
        mine = [r for r in runs if r.sim == sim]
        bad = [r for r in mine if r.failed or r.error]
        secs = sum(r.seconds for r in mine)
        lines.append(
            f"- {sim}: {len(mine)} seed(s), {sum(r.tests for r in mine)} test runs, "
            f"{len(bad)} failing seed(s), {secs:.0f} s ({secs / max(1, len(mine)):.0f} s per seed)"
        )
    failing = [r for r in runs if r.failed or r.error]
    lines += ["", "## Failing seeds" if failing else "No failing seed."]
    for r in failing:
        if r.error:
            lines.append(f"- {r.sim} seed {r.seed}: {r.error}")
        for nodeid in r.failed:
            lines.append(
                f"- {r.sim} seed {r.seed}: {nodeid}\n  rerun: `{rerun_command(r.sim, r.seed, nodeid)}`"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.ArgumentParser(
        prog="python -m tools.seeds",
        description="Run every unit bench and meta-test under N random seeds; list each failing seed.",
    )
    parser.add_argument("--count", "-N", type=cli.positive_int, default=None, help="seeds to draw (N >= 1)")
    parser.add_argument(
        "--seeds", type=cli.int_list(0, SEED_LIMIT - 1), default=None, help="these seeds (a,b,c)"
    )
    parser.add_argument(
        "--base", type=cli.int_range(0, 2**63 - 1), default=None, help="draw the seeds from this base"
    )
    parser.add_argument("--sim", choices=("icarus", "verilator", "both"), default="both")
    parser.add_argument("--shard", type=cli.shard, default=None, metavar="I/N", help="this shard's runs only")
    parser.add_argument("--jobs", "-j", default="auto", help="pytest-xdist workers per run (default auto)")
    parser.add_argument("pytest_args", nargs="*", help="after --: more pytest arguments")
    args = parser.parse_args(argv)
    if (args.count is None) == (args.seeds is None):
        parser.error("give either --count N (random seeds) or --seeds a,b,c")
    if not (args.jobs == "auto" or args.jobs.isdigit()):
        parser.error(f"--jobs {args.jobs!r}: a number of workers or 'auto'")
    sims = list(simenv.SIMULATORS) if args.sim == "both" else [args.sim]
    try:
        simenv.apply(sims)
    except simenv.SimEnvError as err:
        return cli.fail(f"error: {err}")
    base = args.base if args.base is not None else secrets.randbelow(SEED_LIMIT)
    seeds = args.seeds if args.seeds is not None else draw_seeds(args.count, base)
    runs_planned = plan(sims, seeds, args.shard)
    out = REPORTS / "seeds"
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"seed sweep: base {base} ({len(seeds)} seeds, {len(runs_planned)} runs here); rerun with --base {base}"
    )
    name = f"seeds-shard{args.shard[0]}-of-{args.shard[1]}.md" if args.shard else "seeds.md"
    runs: list[Run] = []
    for k, (sim, seed) in enumerate(runs_planned, 1):
        r = run_one(sim, seed, args.jobs, args.pytest_args, out)
        runs.append(r)
        verdict = "ok" if not (r.failed or r.error) else f"FAILED {len(r.failed)} {r.error}".rstrip()
        print(
            f"[{k}/{len(runs_planned)}] {sim} SEED={seed}: {r.tests} tests, {verdict} ({r.seconds:.0f} s)",
            flush=True,
        )
        for nodeid in r.failed:
            print(f"  {nodeid}\n  rerun: {rerun_command(sim, seed, nodeid)}", flush=True)
        # the report so far after every run: an interrupted sweep keeps what it found
        (REPORTS / name).write_text("\n".join(report_lines(runs, base, seeds, args.shard)) + "\n")
    print("\n".join(report_lines(runs, base, seeds, args.shard)))
    print(f"report: {(REPORTS / name).relative_to(ROOT)}")
    return 1 if any(r.failed or r.error for r in runs) else 0


if __name__ == "__main__":
    cli.run(main)
