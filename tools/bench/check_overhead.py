"""What checking costs, measured side by side in one run on the same launches (a benchmark script, not a
timed test): the raw Verilog-only bench (tools/bench/raw_bench.py, no Python), the harness with only the
end-of-kernel check, and the harness checking every retire in lock-step (every scoreboard on).

    SIM=verilator python tools/bench/check_overhead.py [--cases matrixmul:32,matrixmul:64] [--repeat 2]

Each case runs on the benchmark machine (spec/machines.py, 8 lanes, one SM) with a fixed 20-cycle
memory; the three runs must report the same launch cycles. Rates are simulated cycles (reset, image
load and kernel) per CPU-second of the simulator process (best of ``--repeat``). Prints, one line
each, the ratios full/end and full/raw, and writes build/reports/check_overhead-<sim>.md. Targets
(issue 15): full within 3x of raw, >= 100 k cycles/s on Verilator, full <= 1.3x end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernels.suite import prepare  # noqa: E402
from spec import cli  # noqa: E402
from spec.machines import bench as bench_config  # noqa: E402
from tb.gpurun import run_gpu  # noqa: E402
from tools.bench import raw_bench  # noqa: E402

REPORTS = ROOT / "build" / "reports"
LATENCY = 20
SEED = 1  # the kernel inputs' seed: the same image in all three runs


def harness(case: str, mode: str, sim: str) -> dict:
    name, size = case.split(":")
    stats, bench = REPORTS / f"check_overhead-{mode}.jsonl", REPORTS / f"check_overhead-{mode}-perf.jsonl"
    for p in (stats, bench):
        p.unlink(missing_ok=True)
    os.environ["SIMT_STATS"], os.environ["SIMT_BENCH"] = str(stats), str(bench)
    try:
        run_gpu(
            "bench-l8",
            ["KernelTest"],
            cfg=bench_config(8),
            sim=sim,
            CHECK_MODE=mode,
            GMEM_PROFILE="ideal",
            GMEM_LATENCY=str(LATENCY),
            KERNEL_CASES=f"{name}:{size}:{SEED}",
        )
    finally:
        del os.environ["SIMT_STATS"], os.environ["SIMT_BENCH"]
    row = json.loads(stats.read_text().splitlines()[-1])
    row["launch_cycles"] = json.loads(bench.read_text().splitlines()[-1])["cycles"]
    row["rate"] = row["cycles"] / row["cpu_seconds"]
    return row


def raw(case: str, sim: str) -> dict:
    name, size = case.split(":")
    cfg = bench_config(8)
    r = raw_bench.run(cfg, prepare(name, int(size), SEED, cfg).image.to_words(), LATENCY, sim)
    return {
        "launch_cycles": r.cycles,
        "cycles": r.sim_cycles,
        "cpu_seconds": r.cpu_seconds,
        "rate": r.rate,
        "retires": 0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default="matrixmul:32,matrixmul:64")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    sim = os.environ.get("SIM", "verilator")
    REPORTS.mkdir(parents=True, exist_ok=True)
    lines = [
        f"# Checking overhead ({sim}, benchmark machine 8 lanes 1 SM, {LATENCY}-cycle memory, best of "
        f"{args.repeat})",
        "",
        "| case | run | launch cycles | retires checked | cycles simulated | CPU s | cycles/s |",
        "|---|---|---|---|---|---|---|",
    ]
    ratios = []
    for case in args.cases.split(","):
        best: dict[str, dict] = {}
        for _ in range(args.repeat):
            for mode, fn in (
                ("raw", lambda c=case: raw(c, sim)),
                ("end", lambda c=case: harness(c, "end", sim)),
                ("full", lambda c=case: harness(c, "full", sim)),
            ):
                row = fn()
                if mode not in best or row["cpu_seconds"] < best[mode]["cpu_seconds"]:
                    best[mode] = row
        cycles = {m: r["launch_cycles"] for m, r in best.items()}
        assert len(set(cycles.values())) == 1, f"{case}: the runs disagree on the launch's cycles: {cycles}"
        assert best["full"]["retires"] > 0, f"{case}: full checking checked no retire"
        for mode, label in (
            ("raw", "raw Verilog bench"),
            ("end", "harness, end-of-kernel check"),
            ("full", "harness, every retire checked"),
        ):
            r = best[mode]
            lines.append(
                f"| {case} | {label} | {r['launch_cycles']} | {r['retires'] or '-'} | {r['cycles']} | "
                f"{r['cpu_seconds']:.3f} | {r['rate']:,.0f} |"
            )
        ratios.append(
            (
                case,
                best["end"]["rate"] / best["full"]["rate"],
                best["raw"]["rate"] / best["full"]["rate"],
                best["full"]["rate"],
            )
        )
    lines.append("")
    for case, fe, fr, rate in ratios:
        lines.append(f"- {case}: full/end = **{fe:.2f}x** (target <= 1.3x)")
        lines.append(
            f"- {case}: full/raw = **{fr:.2f}x** (target <= 3x); full checking {rate:,.0f} cycles/s "
            "(target >= 100 k on Verilator)"
        )
    text = "\n".join(lines)
    print(text)
    (REPORTS / f"check_overhead-{sim}.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    cli.run(main)
