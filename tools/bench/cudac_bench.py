"""Compiled C against hand-written assembly, and every C kernel at every size on the RTL (issue 30).

    python tools/bench/cudac_bench.py --model [--size 256] [--lanes 8] [--kernels a,b] [--all-sizes]
    SIM=verilator python tools/bench/cudac_bench.py [--kernels a,b] [--resume] [--docs]
    python tools/bench/cudac_bench.py --rtl icarus --docs      # the same on Icarus
    python tools/bench/cudac_bench.py --docs-only              # docs tables from docs/bench/cudac-*.json

On the bench machine (spec/machines.py::bench, ``--lanes`` lanes, one SM, global memory at a fixed
20-cycle latency, inputs seed 1), against each kernel's C reference:

- per kernel folder with both a ``kernel.s`` and a ``kernel.cu``: both at ``--size`` — the golden
  model's counts (warp-instructions, thread-instructions, divergent branches) and, on the RTL, cycles.
  The ratios C / assembly are the code-quality targets of issue 30 (<= 1.25 in both, every kernel);
- on the RTL (``--rtl SIM``; ``make bench`` passes its simulator through SIM): every size of every
  ``kernel.cu`` (kernels/<name>/gen.py SIZES and ODD_SIZES), one simulator run per kernel, every retire
  checked in lock-step and every output word against C; the RTL's warp-instructions must equal the
  model's. ``--model`` runs the model only (``--all-sizes``: every size of every kernel.cu on the model).

Writes build/reports/cudac_bench-<sim>.md and .json (records as they finish go to
build/reports/cudac_bench-<sim>.jsonl; ``--resume`` keeps those). ``--docs`` saves the results to
docs/bench/cudac-<sim>.json and regenerates the two tables in docs/benchmarks.md (tools/bench/_cudac_docs.py;
``make model`` checks them). Exit 1 when an output differs from C, a run fails or a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernels import suite  # noqa: E402
from spec import cli  # noqa: E402
from spec.machines import bench as bench_config  # noqa: E402
from tools.bench import _cudac_docs as docs  # noqa: E402
from tools.bench import _provenance as provenance  # noqa: E402

REPORTS = ROOT / "build" / "reports"
LATENCY = 20  # cycles, as tools/bench/kernels_bench.py's default: the same build and memory
SEED = 1  # inputs seed of every case (the pairs compare the same inputs)
CHEAP = 10_000  # warp-instructions: cases below this share one simulator run per kernel
COUNTS = ("warp_instrs", "thread_instrs", "divergent_branches")


def model_counts(name: str, size: int, lanes: int) -> dict[str, int]:
    """Run ``name`` at ``size`` on the golden model; its counts and code words (exit if it differs from C)."""
    cfg = bench_config(lanes)
    case = suite.prepare(name, size, seed=SEED, cfg=cfg)
    mem, counts = suite.run_on_model(case, cfg)
    _, diffs = case.mismatches(mem)
    if diffs:
        raise SystemExit(f"{name}/{size}: the model's output differs from C: {'; '.join(diffs)}")
    return {**{k: counts[k] for k in COUNTS}, "words": len(case.image.code)}


def rtl_run(name: str, sizes: list[int], lanes: int, sim: str) -> list[dict[str, Any]]:
    """One simulator run of ``name`` at ``sizes`` (KernelTest, every scoreboard on): each case's record."""
    from tb.gpurun import run_gpu

    fd, path = tempfile.mkstemp(prefix=f"cudac-{name}-", suffix=".jsonl")
    os.close(fd)
    try:
        run_gpu(
            f"bench-l{lanes}",
            ["KernelTest"],
            cfg=bench_config(lanes),
            sim=sim,
            KERNEL_CASES=",".join(f"{name}:{n}:{SEED}" for n in sizes),
            GMEM_PROFILE="ideal",
            GMEM_LATENCY=str(LATENCY),
            SIMT_BENCH=path,
        )
        return [json.loads(line) for line in Path(path).read_text().splitlines() if line]
    finally:
        Path(path).unlink(missing_ok=True)


def c_kernels(only: list[str] | None) -> list[str]:
    """Every runnable C kernel (``x.cu`` beside assembly, or a folder's only source), as suite names."""
    out = [v for v in suite.variants() if suite.folder_and_source(v)[1].suffix == ".cu"]
    return [v for v in out if only is None or suite.folder_and_source(v)[0] in only]


def pairs_of(only: list[str] | None) -> list[str]:
    return [v[:-3] for v in c_kernels(only) if v.endswith(".cu")]


class Journal:
    """Records as they finish (build/reports/cudac_bench-<sim>.jsonl), so a long run can ``--resume``:
    then the committed docs/bench/cudac-<sim>.json's cases count as done too (a later run adds only the
    sizes it lacks)."""

    def __init__(self, sim: str, resume: bool, size: int, lanes: int) -> None:
        self.path = REPORTS / f"cudac_bench-{sim}.jsonl"
        REPORTS.mkdir(parents=True, exist_ok=True)
        if not resume:
            self.path.unlink(missing_ok=True)
        lines = self.path.read_text().splitlines() if self.path.is_file() else []
        self.rows: dict[tuple[str, int], dict[str, Any]] = {}
        res = docs.load(sim) if resume else None
        if res and (res["size"], res["lanes"], res["seed"], res["latency"]) == (size, lanes, SEED, LATENCY):
            self.rows = rows_from_results(res)
            was = (res.get("measured_on") or {}).get("rtl_hash", "unrecorded")
            self.rows = {key: {**r, "rtl_hash": r.get("rtl_hash", was)} for key, r in self.rows.items()}
        for line in lines:
            r = json.loads(line)
            self.rows[(r["kernel"], r["size"])] = r

    def add(self, row: dict[str, Any]) -> None:
        self.rows[(row["kernel"], row["size"])] = row
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")


def rows_from_results(res: docs.Results) -> dict[tuple[str, int], dict[str, Any]]:
    """Journal rows of a results file (its sizes, and each pair's two sides at the report size)."""
    rows = {(r["kernel"], r["size"]): dict(r) for r in res["sizes"]}
    for p in res["pairs"]:
        a = p["asm"]
        rows[(p["kernel"], res["size"])] = {"kernel": p["kernel"], "size": res["size"], "cycles": a["cycles"],
                                            **{f"model_{k}": a[k] for k in (*COUNTS, "words")}}  # fmt: skip
        rows[(p["kernel"] + ".cu", res["size"])].update(
            {f"model_{k}": p["cu"][k] for k in (*COUNTS, "words")}
        )
    return rows


def run_rtl(args: argparse.Namespace, only: list[str] | None) -> tuple[docs.Results, list[str]]:
    """Every size of every C kernel and each pair's assembly at ``--size`` on the RTL of ``args.rtl``."""
    sim, lanes = args.rtl, args.lanes
    journal, failed = Journal(sim, args.resume, args.size, lanes), []
    rtl = provenance.rtl_hash()
    # every case's model run first (each output against C); then one simulator run per kernel for its
    # cases under CHEAP warp-instructions, then the others one run each, cheapest first (a long run
    # that is stopped leaves the fewest and costliest cases to --resume)
    cases = [(k, n) for k in c_kernels(only) for n in sorted(set(suite.sizes(k)))]
    cases += [] if args.no_asm else [(k, args.size) for k in pairs_of(only)]
    cases = [c for c in cases if c not in journal.rows]
    model = {c: model_counts(*c, lanes) for c in cases}
    cheap = [c for c in cases if model[c]["warp_instrs"] < CHEAP]
    jobs = [(k, [n for j, n in cheap if j == k]) for k in dict.fromkeys(k for k, _ in cheap)]
    jobs += [(k, [n]) for k, n in sorted(set(cases) - set(cheap), key=lambda c: model[c]["warp_instrs"])]
    for name, todo in jobs:
        if not todo:
            continue
        start = time.monotonic()
        try:
            recs = rtl_run(name, todo, lanes, sim)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - one kernel's failure; the others still run
            failed.append(f"{name} at {todo} on {sim}: {exc}".splitlines()[0])
            print(f"FAILED {failed[-1]}", flush=True)
            continue
        took = time.monotonic() - start
        for r in recs:
            m = model[(name, r["size"])]
            journal.add({"kernel": name, "size": r["size"], "seed": r["seed"], "cycles": r["cycles"],
                         "rtl_warp_instrs": r["warp_instrs"], "model_warp_instrs": m["warp_instrs"],
                         **{f"model_{k}": v for k, v in m.items()}, "seconds": round(took / len(recs), 1),
                         "rtl_hash": rtl})  # fmt: skip
        print(f"{name} on {sim}: sizes {todo} passed in {took:.0f} s "
              f"({', '.join(str(r['cycles']) for r in recs)} cycles)", flush=True)  # fmt: skip
    rows = journal.rows
    pairs = []
    for k in pairs_of(only):
        a, c = rows.get((k, args.size)), rows.get((k + ".cu", args.size))
        if a and c and "model_words" in a and "model_words" in c:
            pairs.append({"kernel": k, "asm": _pair_side(a), "cu": _pair_side(c)})
    sizes = [
        {key: r[key] for key in ("kernel", "size", "cycles", "rtl_warp_instrs", "model_warp_instrs")}
        for (k, _), r in sorted(rows.items())
        if k.endswith(".cu") or k in c_kernels(only)
    ]
    res = {"sim": sim, "lanes": lanes, "size": args.size, "latency": LATENCY, "seed": SEED,
           "measured_on": measured_on(rows.values(), rtl), "pairs": pairs, "sizes": sizes}  # fmt: skip
    return res, failed


def measured_on(rows: Any, rtl: str) -> provenance.Stamp:
    """This run's stamp; rows kept by --resume from a run on another RTL are counted under ``other``."""
    st = provenance.stamp()
    other: dict[str, int] = {}
    for r in rows:
        h = r.get("rtl_hash", "unrecorded")
        if h != rtl:
            other[h] = other.get(h, 0) + 1
    if other:
        st["other"] = other
    return st


def _pair_side(r: dict[str, Any]) -> dict[str, int]:
    return {**{k: r[f"model_{k}"] for k in (*COUNTS, "words")}, "cycles": r["cycles"]}


def run_model(args: argparse.Namespace, only: list[str] | None) -> int:
    if args.all_sizes:  # make model runs a few sizes of the C versions; this runs them all
        for k in c_kernels(only):
            for n in suite.sizes(k):
                c = model_counts(k, n, args.lanes)
                print(f"{k}/{n}: matches C ({c['warp_instrs']} warp-instructions)", flush=True)
        return 0
    pairs = []
    for k in pairs_of(only):
        a, c = model_counts(k, args.size, args.lanes), model_counts(k + ".cu", args.size, args.lanes)
        pairs.append({"kernel": k, "asm": a, "cu": c})
        print(f"{k:<11} warp-instructions asm {a['warp_instrs']:>9} C {c['warp_instrs']:>9} "
              f"({c['warp_instrs'] / a['warp_instrs']:.3f}x)", flush=True)  # fmt: skip
    res = {"sim": "model", "lanes": args.lanes, "size": args.size, "latency": LATENCY, "seed": SEED,
           "pairs": pairs, "sizes": []}  # fmt: skip
    text = "\n".join(
        ["# Compiled C vs hand-written assembly (golden model only)", "", *docs.ratio_table(res)]
    )
    (REPORTS / "cudac_bench-model.md").parent.mkdir(parents=True, exist_ok=True)
    (REPORTS / "cudac_bench-model.md").write_text(text + "\n")
    print(text)
    bad = [p for p in docs.target_problems(res) if "no RTL cycles" not in p]
    for p in bad:
        print(f"target missed: {p}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=256, help="size of the C-vs-assembly comparison")
    ap.add_argument("--lanes", type=int, default=8)
    ap.add_argument("--rtl", choices=docs.SIMS, default=os.environ.get("SIM") or None,
                    help="simulator of the RTL runs (default: $SIM, as make bench sets it)")  # fmt: skip
    ap.add_argument("--model", action="store_true", help="golden model only (no RTL)")
    ap.add_argument(
        "--all-sizes", action="store_true", help="with --model: every size of every kernel.cu vs C"
    )
    ap.add_argument("--kernels", help="comma-separated kernel folders (default: all)")
    ap.add_argument("--no-asm", action="store_true",
                    help="on the RTL only the C kernels' sizes, not the assembly at --size (no cycle ratios)")  # fmt: skip
    ap.add_argument(
        "--resume", action="store_true", help="keep the records of an earlier run of this simulator"
    )
    ap.add_argument(
        "--docs", action="store_true", help="save the results to docs/bench/ and regenerate the tables"
    )
    ap.add_argument("--docs-only", action="store_true", help="regenerate the docs tables from docs/bench/")
    args = ap.parse_args(argv)
    only = args.kernels.split(",") if args.kernels else None
    if only:
        unknown = sorted(set(only) - set(suite.names()))
        if unknown:
            ap.error(f"--kernels: no kernel {', '.join(unknown)} (kernels: {', '.join(suite.names())})")
    if args.docs_only:
        print(docs.write_docs())
        return 0
    if args.docs and only:
        ap.error("--docs needs every kernel (drop --kernels; --resume continues a full run)")
    if args.model or not args.rtl:
        return run_model(args, only)
    if args.rtl not in docs.SIMS:
        ap.error(f"SIM={args.rtl}: use one of {', '.join(docs.SIMS)}")
    res, failed = run_rtl(args, only)
    want = {k: sorted(set(suite.sizes(k))) for k in c_kernels(only)}
    missing = docs.coverage_problems({args.rtl: res}, want)
    problems = [*failed, *docs.target_problems(res), *(m for m in missing if f" on {args.rtl}:" in m)]
    text = "\n".join([
        f"# Compiled C on the RTL ({args.rtl})", "",
        "## C against assembly", "", *docs.ratio_table(res), "",
        "## Every size of every C kernel", "", *docs.sizes_table({args.rtl: res}), "",
        *(f"- PROBLEM: {p}" for p in problems),
    ])  # fmt: skip
    (REPORTS / f"cudac_bench-{args.rtl}.md").write_text(text + "\n")
    (REPORTS / f"cudac_bench-{args.rtl}.json").write_text(json.dumps(res, indent=1) + "\n")
    print(text)
    if args.docs:
        docs.RESULTS.mkdir(parents=True, exist_ok=True)
        docs.results_file(args.rtl).write_text(json.dumps(res, indent=1) + "\n")
        print(docs.write_docs())
    return 1 if problems else 0


if __name__ == "__main__":
    cli.run(main)
