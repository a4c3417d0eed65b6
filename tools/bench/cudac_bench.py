"""Compiled C against hand-written assembly: warp-instructions and cycles per benchmark (docs/kernels-c.md).

    python tools/bench/cudac_bench.py [--size 256] [--lanes 8] [--rtl verilator] [--kernels a,b]
    python tools/bench/cudac_bench.py --all-sizes          # every size of every kernel.cu against C

For every kernel folder with both a ``kernel.s`` and a ``kernel.cu``, both run at ``--size`` on the
bench machine (spec/machines.py::bench, ``--lanes`` lanes) against the kernel's C reference: the
golden model's event counts (warp-instructions, thread-instructions, divergent branches, shared
passes, global transactions), and with ``--rtl SIM`` the RTL's cycles (the system bench, every
scoreboard on). The ratio C / assembly is the code-quality yardstick of issue 30 (target <= 1.25).
Writes build/reports/cudac_bench.md; exit 1 when an output differs from C.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernels import suite  # noqa: E402
from spec import cli  # noqa: E402
from spec.machines import bench as bench_config  # noqa: E402

REPORTS = ROOT / "build" / "reports"
TARGET = 1.25


def model_counts(name: str, size: int, lanes: int) -> dict[str, int]:
    cfg = bench_config(lanes)
    case = suite.prepare(name, size, seed=1, cfg=cfg)
    mem, counts = suite.run_on_model(case, cfg)
    _, diffs = case.mismatches(mem)
    if diffs:
        raise SystemExit(f"{name}/{size}: output differs from C: {'; '.join(diffs)}")
    counts["words"] = len(case.image.code)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--lanes", type=int, default=8)
    ap.add_argument("--rtl", choices=["icarus", "verilator"], help="also run both on the RTL for cycles")
    ap.add_argument("--kernels", help="comma-separated subset")
    ap.add_argument("--all-sizes", action="store_true", help="only check every size of every kernel.cu vs C")
    args = ap.parse_args(argv)
    pairs = [v[:-3] for v in suite.variants() if v.endswith(".cu")]
    if args.kernels:
        pairs = [k for k in pairs if k in args.kernels.split(",")]
    if args.all_sizes:  # make model runs a few sizes of the C versions; this runs them all
        for k in pairs:
            for n in suite.sizes(k):
                c = model_counts(k + ".cu", n, args.lanes)
                print(f"{k}.cu/{n}: matches C ({c['warp_instrs']} warp-instructions)", flush=True)
        return 0
    rows = []
    for k in pairs:
        a = model_counts(k, args.size, args.lanes)
        c = model_counts(k + ".cu", args.size, args.lanes)
        row = {"kernel": k, "asm": a, "cu": c}
        if args.rtl:
            cfg = bench_config(args.lanes)
            tag = f"bench-l{args.lanes}"
            row["asm_cycles"] = suite.run_on_rtl(k, [args.size], 1, cfg, tag, args.rtl)[0]["cycles"]
            row["cu_cycles"] = suite.run_on_rtl(k + ".cu", [args.size], 1, cfg, tag, args.rtl)[0]["cycles"]
        rows.append(row)
        print(f"{k:<11} warp-instructions asm {a['warp_instrs']:>9} C {c['warp_instrs']:>9} "
              f"({c['warp_instrs'] / a['warp_instrs']:.3f}x)"
              + (f"  cycles asm {row['asm_cycles']} C {row['cu_cycles']} "
                 f"({row['cu_cycles'] / row['asm_cycles']:.3f}x)" if args.rtl else ""), flush=True)  # fmt: skip
    lines = [
        f"# Compiled C vs hand-written assembly (size {args.size}, {args.lanes} lanes)",
        "",
        f"Command: `python tools/bench/cudac_bench.py --size {args.size} --lanes {args.lanes}"
        + (f" --rtl {args.rtl}" if args.rtl else "")
        + (f" --kernels {args.kernels}`" if args.kernels else "`"),
        "",
        "| kernel | code words asm / C | warp-instr asm | warp-instr C | ratio | thread-instr ratio | "
        "divergent branches asm / C" + (" | cycles asm | cycles C | ratio" if args.rtl else "") + " |",
        "|---|---|---|---|---|---|---" + ("|---|---|---" if args.rtl else "") + "|",
    ]
    worst = 0.0
    for r in rows:
        a, c = r["asm"], r["cu"]
        ratio = c["warp_instrs"] / a["warp_instrs"]
        worst = max(worst, ratio)
        cells = [
            r["kernel"],
            f"{a['words']} / {c['words']}",
            str(a["warp_instrs"]),
            str(c["warp_instrs"]),
            f"{ratio:.3f}",
            f"{c['thread_instrs'] / a['thread_instrs']:.3f}",
            f"{a['divergent_branches']} / {c['divergent_branches']}",
        ]
        if args.rtl:
            cr = r["cu_cycles"] / r["asm_cycles"]
            worst = max(worst, cr)
            cells += [str(r["asm_cycles"]), str(r["cu_cycles"]), f"{cr:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Worst ratio {worst:.3f} (target <= {TARGET})."]
    REPORTS.mkdir(parents=True, exist_ok=True)
    out = REPORTS / "cudac_bench.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    cli.run(main)
