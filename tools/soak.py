"""The fault soak (``make soak``): thousands of launches on one GPU instance per run, faults injected at
random cycles, every launch after a fault checked in lockstep (tb/sequences/soak.py, SoakTest and
AxiSoakTest), on the native and the AXI top.

    python -m tools.soak --launches 10000 --sim verilator [--shard I/N] [--chunk 500]

The launches are split into runs of ``--chunk`` launches (each one simulation, one GPU instance, its own
seed), alternating the two tops; ``--shard I/N`` runs this machine's share of the runs. The report,
build/reports/soak[-shardI-of-N].md, gives the launches, the faults by kind, the recoveries and the
failed runs with their rerun commands (a failed run is a fault the GPU did not survive, or a mismatch).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from spec import cli
from tools import simenv

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "build" / "reports"
TOPS = ("native", "axi")


def runs(launches: int, chunk: int) -> list[tuple[str, int]]:
    """(top, launches) of every run: the launches in chunks, the tops alternating."""
    out, left, k = [], launches, 0
    while left > 0:
        n = min(chunk, left)
        n = max(n, 2)
        out.append((TOPS[k % 2], n))
        left -= n
        k += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = cli.ArgumentParser(prog="python -m tools.soak", description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=cli.int_range(2, 10_000_000), default=10_000, help="launches in all")
    ap.add_argument("--chunk", type=cli.int_range(2, 100_000), default=500, help="launches per simulation")
    ap.add_argument("--sim", choices=("icarus", "verilator"), default="verilator")
    ap.add_argument("--shard", type=cli.shard, default=None, metavar="I/N", help="this machine's share")
    args = ap.parse_args(argv)
    try:
        simenv.apply([args.sim])
    except simenv.SimEnvError as err:
        return cli.fail(f"error: {err}")
    plan = runs(args.launches, args.chunk)
    if args.shard:
        i, n = args.shard
        plan = [r for k, r in enumerate(plan) if k % n == i - 1]
    suffix = f"-shard{args.shard[0]}-of-{args.shard[1]}" if args.shard else ""
    REPORTS.mkdir(parents=True, exist_ok=True)
    tallies = REPORTS / f"soak{suffix}.jsonl"
    tallies.unlink(missing_ok=True)
    failed: list[str] = []
    start = time.monotonic()
    for k, (top, n) in enumerate(plan, 1):
        env = {k2: v for k2, v in os.environ.items() if k2 not in ("SIMT_SHARD", "SEED")}
        seed = secrets.randbelow(1 << 31)  # the run's regression seed, given so the rerun is exact
        env |= {"SIM": args.sim, "SOAK_LAUNCHES": str(n), "SIMT_SOAK": str(tallies), "SEED": str(seed)}
        cmd = [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider"]
        cmd += [f"tb/tests/system/test_soak.py::test_soak[{top}]"]
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        verdict = "ok" if proc.returncode == 0 else "FAILED"
        print(
            f"[{k}/{len(plan)}] {top} {n} launches: {verdict} ({time.monotonic() - start:.0f} s)", flush=True
        )
        if proc.returncode != 0:
            log = REPORTS / f"soak{suffix}-{k}.log"
            log.write_text(proc.stdout + proc.stderr)
            rerun = f"SOAK_LAUNCHES={n} SIM={args.sim} SEED={seed}"
            failed.append(
                f"{top} run {k}: see {log.relative_to(ROOT)}; rerun: {rerun} .venv/bin/python -m pytest -n0 '{cmd[-1]}'"
            )
    rows = [json.loads(x) for x in tallies.read_text().splitlines()] if tallies.exists() else []
    faults: Counter = Counter()
    for r in rows:
        faults.update(r["faults"])
    seconds = time.monotonic() - start
    lines = [
        f"# Fault soak{' (shard ' + suffix[6:] + ')' if suffix else ''}",
        "",
        f"{args.sim}: {len(plan)} run(s), {seconds:.0f} s; tops: "
        + ", ".join(f"{t} {sum(r['launches'] for r in rows if r['top'] == t)} launches" for t in TOPS),
        "",
        f"- launches completed and checked: {sum(r['launches'] for r in rows)}",
        f"- faults injected: {sum(faults.values())} ("
        + ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))
        + ")",
        f"- recoveries (a clean launch right after a fault, checked in lockstep): {sum(r['recoveries'] for r in rows)}",
        f"- runs failed (a fault not survived, or a mismatch): {len(failed)}",
        *[
            f"- {t}: {sum(r.get('cpu_seconds', 0) for r in rows if r['top'] == t):.0f} s CPU in the simulator "
            f"process, {100 * sum(r.get('cpu_seconds', 0) for r in rows if r['top'] == t) / n:.1f} s per 100 launches"
            + (
                f"; {sum(r.get('pace_stalls', 0) for r in rows if r['top'] == t)} AXI cycles held off by the pacing"
                if t == "axi"
                else ""
            )
            for t in TOPS
            if (n := sum(r["launches"] for r in rows if r["top"] == t))
        ],
        f"- machine load (1/5/15 min) at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
        *[f"  - {f}" for f in failed],
    ]
    report = REPORTS / f"soak{suffix}.md"
    report.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"report: {report.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    cli.run(main)
