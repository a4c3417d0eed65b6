"""Pictures of what the GPU did (make bench): every benchmark kernel once, at its smallest CI size, on
the bench machine with two SMs (spec/machines.py), every scoreboard on, global memory at a fixed
latency of 20 cycles; then from the run's trace (tools/timeline/) a warp timeline per kernel and one
stall breakdown of all of them, beside each bar the kernel's performance counters.

Writes build/reports/timeline_bench-<sim>.md with the pictures (timeline-<kernel>.png, stalls.png)
next to it; ``--docs`` also copies the two timelines and the breakdown that docs/benchmarks.md shows
into docs/img/. Any other launch: ``python -m tools.timeline <run folder>/trace.txt --launch N``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernels import suite  # noqa: E402
from spec import cli  # noqa: E402
from spec.machines import bench as bench_config  # noqa: E402
from tools.timeline import draw  # noqa: E402
from tools.timeline.states import breakdown, read_launches, warp_rows  # noqa: E402

REPORTS = ROOT / "build" / "reports"
DOCS_IMG = ROOT / "docs" / "img"
DOC_TIMELINES = ("transpose", "vecadd")  # the two docs/benchmarks.md shows
LATENCY = 20


def cases() -> list[tuple[str, int]]:
    return [(k, min(suite.generator(k).CI_SIZES)) for k in suite.names()]


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--docs", action="store_true", help="copy the pictures docs/benchmarks.md shows to docs/img/"
    )
    args = ap.parse_args(argv)
    from tb.gpurun import run_gpu

    sim = os.environ.get("SIM", "verilator")
    cfg = bench_config(8, num_sms=2)
    out = REPORTS / f"timeline_bench-{sim}"
    out.mkdir(parents=True, exist_ok=True)
    perf_file = out / "perf.jsonl"
    perf_file.unlink(missing_ok=True)
    os.environ["SIMT_BENCH"] = str(perf_file)
    os.environ.pop("SIMT_STATS", None)
    todo = cases()
    start = time.monotonic()
    results = run_gpu(
        "bench-l8-sm2",
        ["KernelTest"],
        cfg=cfg,
        sim=sim,
        GMEM_PROFILE="ideal",
        GMEM_LATENCY=str(LATENCY),
        KERNEL_CASES=",".join(f"{k}:{n}" for k, n in todo),
    )
    trace = results.parent / "trace.txt"
    launches = read_launches(trace)
    perf = [json.loads(line) for line in perf_file.read_text().splitlines() if line.strip()]
    if len(launches) != len(todo) or len(perf) != len(todo):
        raise SystemExit(
            f"{trace}: {len(launches)} launches and {len(perf)} counter rows for {len(todo)} kernels"
        )
    lines = [
        f"# Warp timelines and stalls ({sim})",
        "",
        f"Bench machine with {cfg.num_sms} SMs, {cfg.num_lanes} lanes, memory latency {LATENCY} cycles; "
        f"trace: `{trace.relative_to(ROOT)}` (any launch: `python -m tools.timeline {trace.relative_to(ROOT)} "
        f"--num-warps {cfg.num_warps} --launch N`).",
        "",
    ]
    per_kernel = []
    for (kernel, size), launch, counters in zip(todo, launches, perf, strict=True):
        rows = warp_rows(launch, cfg.warp_size, cfg.num_warps)
        split = breakdown(rows)
        per_kernel.append((f"{kernel} {size}", split, counters))
        png = draw.timeline(
            rows,
            f"{kernel}, size {size}: {launch.end - launch.start:,} cycles from block 0's "
            f"dispatch on {cfg.num_sms} SMs x {cfg.num_lanes} lanes",
            out / f"timeline-{kernel}.png",
        )
        total = sum(split.values()) or 1
        shares = ", ".join(f"{r} {v / total:.0%}" for r, v in split.items())
        lines += [
            f"## {kernel} (size {size})",
            "",
            f"Warp-cycles: {shares}.",
            "",
            f"![{kernel}]({png.name})",
            "",
        ]
    stalls = draw.stalls(per_kernel, out / "stalls.png")
    lines += [
        "## Stall breakdown",
        "",
        f"![stalls]({stalls.name})",
        "",
        f"{len(todo)} kernels, {time.monotonic() - start:.0f} s wall.",
    ]
    report = out.with_suffix(".md")
    report.write_text("\n".join(lines) + "\n")
    print(f"report: {report}")
    if args.docs:
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        for name in [*(f"timeline-{k}.png" for k in DOC_TIMELINES), "stalls.png"]:
            shutil.copy(out / name, DOCS_IMG / name)
        print(f"copied to {DOCS_IMG}")
    return 0


if __name__ == "__main__":
    cli.run(main)
