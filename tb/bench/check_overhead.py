"""What full checking costs: the same launches with every scoreboard on and with only the end-of-kernel
check, on the simulator in SIM (a benchmark script, not a timed test).

    SIM=verilator python tb/bench/check_overhead.py [--config sm2-l8] [--repeat 2]

Runs the pyuvm ``BenchTest`` (directed kernels and a few random kernels, ideal memory) with
CHECK_MODE=end and CHECK_MODE=full, takes the best wall time of ``--repeat`` runs of each, and prints
simulated cycles per second and the full/end ratio (issue goal: <= 1.5x on Verilator). Writes
build/reports/check_overhead-<sim>.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tb.tests.system.test_gpu import CONFIGS, run_gpu  # noqa: E402

REPORTS = ROOT / "build" / "reports"


def measure(config: str, mode: str) -> dict[str, float]:
    stats = REPORTS / f"check_overhead-{mode}.jsonl"
    stats.unlink(missing_ok=True)
    os.environ["SIMT_STATS"] = str(stats)
    run_gpu(config, ["BenchTest"], CHECK_MODE=mode)
    row = json.loads(stats.read_text().splitlines()[-1])
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="sm2-l8", choices=sorted(CONFIGS))
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    sim = os.environ.get("SIM", "verilator")
    REPORTS.mkdir(parents=True, exist_ok=True)
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.repeat):
        for mode in ("end", "full"):
            row = measure(args.config, mode)
            if mode not in best or row["seconds"] < best[mode]["seconds"]:
                best[mode] = row
    end, full = best["end"], best["full"]
    assert end["cycles"] > 0 and full["retires"] > 0, "the benchmark checked nothing"
    ratio = full["seconds"] / end["seconds"]
    lines = [
        f"# Checking overhead ({sim}, {args.config}, best of {args.repeat})",
        "",
        "| mode | launches | retires checked | transactions checked | cycles | wall s | cycles/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode, r in (("end-of-kernel only", end), ("all scoreboards", full)):
        lines.append(f"| {mode} | {r['launches']} | {r['retires']} | {r['transactions']} | {r['cycles']} | "
                     f"{r['seconds']:.2f} | {r['cycles'] / r['seconds']:.0f} |")  # fmt: skip
    lines += ["", f"full / end-only wall-time ratio: **{ratio:.2f}x** (goal <= 1.5x on Verilator)"]
    text = "\n".join(lines)
    print(text)
    (REPORTS / f"check_overhead-{sim}.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
