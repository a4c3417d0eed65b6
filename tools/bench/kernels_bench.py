"""The benchmark suite on the RTL: every kernel at every size against C, and a cycle report vs FlexGrip.

    SIM=verilator python tools/bench/kernels_bench.py [--kernels a,b] [--lanes 8,16,32] [--latency 20]
                                                   [--resume] [--report-only] [-j 2] [--before OLD.jsonl
                                                   [--same-inputs]]
                                                   [--sm-sweep 8x1,8x16] [--sm-only] [--docs | --docs-only]

Every case runs through the pyuvm environment with every scoreboard on (KernelTest): each retire is
checked in lock-step against the golden model and every output word against the kernel's C program.
At NUM_LANES = 8 every size of every kernel runs (FlexGrip's 16…256 and the unusual sizes); at 16 and
32 lanes the report size (256). The machine is spec/machines.py::bench (one SM, as FlexGrip's
Table 4); global memory answers in a fixed ``--latency`` cycles, in order, without backpressure.
Cases over the simulator's budget (``BUDGET``) are skipped and listed as such in the report.

The report size runs on the same inputs (seed 1) at every lane count; with ``--docs`` its records go
to the committed results file docs/bench/lanes-<sim>.json and the cycle and speed-up tables of
docs/benchmarks.md "Snapshot (Verilator)" are generated from it (tools/bench/_lanes.py; ``--docs-only``
rewrites them from that file, ``make model`` fails when they disagree). The lane sweep alone:
``--report-size-only --sm-sweep ''``.

``--before OLD.jsonl`` adds a before/after table at the report size; with ``--same-inputs`` every case
reuses the earlier run's inputs seed, so a change meant to be cycle-exact (a re-partition of the RTL)
shows identical cycles and lists any performance counter that differs.

``--sm-sweep`` (default 8x1,8x2,8x4,8x8,8x16,16x1,32x1,32x2, LANESxSMS): the report size also runs on
machines of Lies 2019 (seed 000) Table 5.1's family (spec/machines.py::tesla; 16 SMs of 8 lanes is Table
5.1 itself), every retire checked; ``--sm-only`` runs only those. The report's "Scaling with SMs"
section and, with ``--docs``, its generated tables in docs/benchmarks.md (from the committed results file
docs/bench/sm_scaling-<sim>.json; ``make model`` fails when they disagree; ``--docs-only`` rewrites them
from that file) come from those runs (tools/bench/_sm_scaling.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernels import suite  # noqa: E402
from spec import cli  # noqa: E402
from spec.config import GpuConfig  # noqa: E402
from spec.machines import BENCH_LANES, tesla  # noqa: E402
from spec.machines import bench as bench_config  # noqa: E402
from tools.bench import _lanes as lane_sweep  # noqa: E402
from tools.bench import _provenance as provenance  # noqa: E402
from tools.bench import _sm_scaling as sm_scaling  # noqa: E402

REPORTS = ROOT / "build" / "reports"
REPORT_SIZE = 256
FLEXGRIP, FLEXGRIP_NAMES = lane_sweep.FLEXGRIP, lane_sweep.FLEXGRIP_NAMES  # Merchant 2013 Table 4
# What a simulator may spend: Icarus runs ~6x slower than Verilator, so it validates every kernel at
# 8 lanes but leaves its biggest matrices and the 16/32-lane sweep to Verilator (listed in the report).
BUDGET = {
    "verilator": set(),
    "icarus": {
        ("matrixmul", 256),
        ("matrixmul", 128),
        ("matrixmul", 100),
        ("transpose", 256),
        ("stencil3d", 256),
    },
}
SWEEP = {"verilator": True, "icarus": False}


def machine(family: str, lanes: int, sms: int, post_stores: int = 0) -> tuple[str, GpuConfig]:
    """(tag, configuration) of a benchmark machine: ``bench`` (one SM, spec/machines.py::bench) or
    ``tesla`` (Lies 2019 Table 5.1's family, spec/machines.py::tesla); ``post_stores`` 1 the same with
    posted stores (POST_STORES, docs/isa.md 6.4), tagged ``-post``."""
    if family == "bench":
        tag, cfg = f"bench-l{lanes}", bench_config(lanes)
    else:
        tag, cfg = f"tesla-l{lanes}-s{sms}", tesla(sms, lanes)
    return (f"{tag}-post", replace(cfg, post_stores=1).check()) if post_stores else (tag, cfg)


def job(
    sim: str,
    family: str,
    lanes: int,
    sms: int,
    kernel: str,
    sizes: list[int],
    latency: int,
    out: Path,
    seeds: dict[tuple[str, str, int], int] | None = None,
    post_stores: int = 0,
) -> tuple[str, float]:
    """One simulator run: ``kernel`` at ``sizes`` on one benchmark machine (:func:`machine`); ``seeds``
    ((machine tag, kernel, size) -> inputs seed) fixes the inputs of the cases it names."""
    from tb.gpurun import run_gpu

    os.environ["SIM"] = sim
    os.environ["SIMT_BENCH"] = str(out)
    os.environ.pop("SIMT_STATS", None)
    out.unlink(missing_ok=True)
    stamp_file(out).write_text(json.dumps(provenance.stamp()) + "\n")  # the RTL this job runs
    start = time.monotonic()
    tag, cfg = machine(family, lanes, sms, post_stores)
    fixed = {(tag, kernel, n): sm_scaling.INPUTS_SEED for n in sizes if family == "tesla" or n == REPORT_SIZE}
    fixed |= seeds or {}  # the report size on the same inputs on every machine, unless --same-inputs says
    cases = [f"{kernel}:{n}:{fixed[(tag, kernel, n)]}" if (tag, kernel, n) in fixed else f"{kernel}:{n}"
             for n in sizes]  # fmt: skip
    run_gpu(
        tag,
        ["KernelTest"],
        cfg=cfg,
        KERNEL_CASES=",".join(cases),
        GMEM_PROFILE="ideal",
        GMEM_LATENCY=str(latency),
    )
    return f"{kernel} on {tag} {sizes}", time.monotonic() - start


Job = tuple[str, int, int, str, list[int]]  # (family, lanes, SMs, kernel, sizes)


def plan(
    kernels: list[str],
    lanes: list[int],
    sim: str,
    report_size_only: bool = False,
    sm_sweep: Sequence[tuple[int, int]] = (),
    sm_only: bool = False,
) -> tuple[list[Job], list[str]]:
    """Jobs, biggest first, and the cases skipped for the budget: every lane count on the one-SM bench
    machine, then the report size on each (lanes, SMs) machine of ``sm_sweep`` (the Tesla family)."""
    jobs: list[Job] = []
    skipped: list[str] = []
    if not SWEEP[sim] and len(lanes) > 1:
        skipped.append(f"the {', '.join(map(str, lanes[1:]))}-lane runs")
        lanes = lanes[:1]
    if not SWEEP[sim] and sm_sweep:
        skipped.append("the SM sweep (" + ", ".join(f"{n} lanes x {m} SMs" for n, m in sm_sweep) + ")")
        sm_sweep = ()
    machines = [("bench", n, 1) for n in ([] if sm_only else lanes)] + [("tesla", n, m) for n, m in sm_sweep]
    for family, n, m in machines:
        for k in kernels:
            full = family == "bench" and n == lanes[0] and not report_size_only
            want = suite.sizes(k) if full else [REPORT_SIZE]
            sizes = [s for s in want if (k, s) not in BUDGET[sim]]
            tag = machine(family, n, m)[0]
            skipped += [f"{k}/{s} on {tag}" for s in want if (k, s) in BUDGET[sim]]
            if sizes:
                jobs.append((family, n, m, k, sizes))
    jobs.sort(key=lambda j: -max(j[4]) * (3 if j[3] in ("matrixmul", "transpose") else 1))
    return jobs, skipped


def stamp_file(part: Path) -> Path:
    """Beside a job's records: the RTL it ran on (tools/bench/_provenance.py)."""
    return part.with_suffix(".rtl.json")


def measured_on(parts: list[Path]) -> provenance.Stamp:
    """The one RTL that the jobs of ``parts`` ran on; jobs on different RTLs are refused, and jobs run
    before stamps existed are taken to have run on the work tree's RTL (said on stdout)."""
    stamps = {p.name: json.loads(stamp_file(p).read_text()) for p in parts if stamp_file(p).is_file()}
    hashes = {s["rtl_hash"] for s in stamps.values()}
    if len(hashes) > 1:
        newest = max(stamps.values(), key=lambda s: s["date"])["rtl_hash"]
        old = sorted(n for n, s in stamps.items() if s["rtl_hash"] != newest)
        raise SystemExit(
            f"--docs: the jobs ran on {len(hashes)} RTLs; run these again on this RTL "
            f"(without --resume, or delete them): {', '.join(old)}"
        )
    unstamped = sorted(p.name for p in parts if p.name not in stamps)
    if unstamped:
        print(f"bench: no RTL stamp for {', '.join(unstamped)}: taken as run on the work tree's RTL")
    st = next(iter(stamps.values()), None) or provenance.stamp()
    if st["rtl_hash"] != provenance.rtl_hash():
        print("bench: WARNING: these results were measured on another RTL than the work tree's")
    return st


def part_file(sim: str, family: str, lanes: int, sms: int, kernel: str, post_stores: int = 0) -> Path:
    """Where one job's records go (the bench machine's name unchanged, so earlier results resume)."""
    name = f"{sim}-{lanes}-{kernel}" if family == "bench" else f"{sim}-tesla-l{lanes}-s{sms}-{kernel}"
    return REPORTS / "kernels_bench" / f"{name}{'-post' if post_stores else ''}.jsonl"


# ------------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------------
def _fmt(n: float) -> str:
    return f"{n:,.0f}"


# Fields of a result record that are not performance results of the case (what ran, and how).
_NOT_COUNTERS = {
    "kernel",
    "size",
    "seed",
    "config",
    "sim",
    "lanes",
    "sms",
    "blocks",
    "latency",
    "golden_words",
}


def _counters_diff(a: dict, b: dict) -> str:
    """ "identical" when every counter of two records of one case agrees, else the ones that differ; runs
    on different inputs are not compared."""
    if a.get("seed") != b.get("seed"):
        return "other inputs (--same-inputs compares them)"
    keys = sorted((set(a) | set(b)) - _NOT_COUNTERS)
    diff = [key for key in keys if a.get(key) != b.get(key)]
    return "identical" if not diff else "differ: " + ", ".join(diff)


def before_after(rows: list[dict], old: list[dict], label: str) -> list[str]:
    """A before/after table at the report size: the cycles of an earlier run (``--before``, its raw
    .jsonl) next to this run's, for every kernel and lane count both have."""
    was = {(r["kernel"], r["lanes"]): r for r in old if r["size"] == REPORT_SIZE}
    now = {(r["kernel"], r["lanes"]): r for r in rows if r["size"] == REPORT_SIZE}
    keys = sorted(set(was) & set(now), key=lambda kn: (kn[0] not in FLEXGRIP, kn[0], kn[1]))
    lines = [
        "",
        f"## Before and after ({label}, size {REPORT_SIZE})",
        "",
        "| kernel | lanes | cycles before | cycles after | speed-up | cycles / warp-instr before → after | "
        "other counters |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, n in keys:
        a, b = was[(k, n)], now[(k, n)]
        lines.append(
            f"| {k} | {n} | {_fmt(a['cycles'])} | {_fmt(b['cycles'])} | {a['cycles'] / b['cycles']:.2f}x | "
            f"{a['cycles'] / max(a['warp_instrs'], 1):.2f} → {b['cycles'] / max(b['warp_instrs'], 1):.2f} | "
            f"{_counters_diff(a, b)} |"
        )
    lanes = sorted({n for _, n in keys})
    if len(lanes) > 1:
        lo, hi = lanes[0], lanes[-1]
        for name, table in (("before", was), ("after", now)):
            su = [table[(k, lo)]["cycles"] / table[(k, hi)]["cycles"] for k in FLEXGRIP
                  if (k, lo) in table and (k, hi) in table and (k, lo) in was and (k, lo) in now]  # fmt: skip
            if su:
                lines.append(
                    f"\nMean {lo}→{hi}-lane speed-up {name}, FlexGrip's kernels measured here "
                    f"({len(su)}): **{sum(su) / len(su):.2f}x**."
                )
    return lines


def report(
    rows: list[dict],
    sim: str,
    latency: int,
    skipped: list[str],
    seconds: float,
    before: list[dict] | None = None,
    before_label: str = "",
) -> str:
    multi = [r for r in rows if r["config"].startswith("tesla-")]
    rows = [r for r in rows if not r["config"].startswith("tesla-")]
    by = {(r["kernel"], r["size"], r["lanes"]): r for r in rows}
    lanes = sorted({r["lanes"] for r in rows})
    kernels = sorted({r["kernel"] for r in rows}, key=lambda k: (k not in FLEXGRIP, k))
    cfg = bench_config(8)
    lines = [
        f"# Benchmark kernels on the RTL ({sim})",
        "",
        f"One SM (spec/machines.py: {cfg.num_warps} warps, {cfg.shared_words} shared words, banks = lanes, "
        f"{cfg.seg_words}-word segments); global memory with a fixed latency of **{latency} cycles**, in order, "
        "no backpressure. Every case ran with every scoreboard on and matched its C reference word for word. "
        "Cycles are the GPU's own `cycles` counter (START to done).",
        "",
        "Columns: *warp-instr* = warp-instructions retired; *idle* = cycles the SM's back end had no warp "
        "ready (all waiting on memory or a barrier); *SIMT eff.* = active threads per warp-instruction "
        "/ 32; *lane util.* = thread-instructions / (cycles × NUM_LANES); *passes* = shared-memory passes "
        "(bank conflicts replayed); *txns* = global-memory transactions.",
        "",
        f"## Size {REPORT_SIZE}: cycles against FlexGrip ({lane_sweep.SOURCE})",
        "",
    ]
    sweep = {"rows": lane_sweep.trim(rows)}
    lines += lane_sweep.cycles_table(sweep)
    if len(lanes) > 1:
        lines += [
            "",
            f"## Speed-up from {lanes[0]} to {lanes[-1]} lanes (size {REPORT_SIZE})",
            "",
            *lane_sweep.speedup_table(sweep),
        ]
    lines += [
        "",
        "## Every case run (all matched C)",
        "",
        "| kernel | lanes | sizes (cycles) |",
        "|---|---|---|",
    ]
    for k in kernels:
        for n in lanes:
            cases = sorted((s, r["cycles"]) for (kk, s, nn), r in by.items() if kk == k and nn == n)
            if cases:
                lines.append(f"| {k} | {n} | " + ", ".join(f"{s} ({_fmt(c)})" for s, c in cases) + " |")
    if before:
        lines += before_after(rows, before, before_label)
    if multi:
        lines += ["", "## Scaling with SMs", "", *sm_scaling.table(sm_scaling.results(multi, sim, latency))]
    words = sum(r["golden_words"] for r in [*rows, *multi])
    lines += [
        "",
        f"{len(rows) + len(multi)} cases, {_fmt(words)} output words compared with C, {seconds / 60:.1f} min wall.",
    ]
    if skipped:
        lines += [
            "",
            f"Over the {sim} budget, not run here (run them on Verilator): " + ", ".join(skipped) + ".",
        ]
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing (make venv installs it): no plot")
        return False
    by = {(r["kernel"], r["lanes"]): r["cycles"] for r in rows if r["size"] == REPORT_SIZE}
    kernels = [k for k in FLEXGRIP if all((k, n) in by for n in BENCH_LANES)]
    if not kernels:
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.13
    for i, n in enumerate(BENCH_LANES):
        xs = [j + (i - 1) * 2 * width for j in range(len(kernels))]
        ax1.bar([x - width / 2 for x in xs], [by[(k, n)] for k in kernels], width, label=f"ours, {n} lanes")
        ax1.bar(
            [x + width / 2 for x in xs],
            [FLEXGRIP[k][i] for k in kernels],
            width,
            hatch="//",
            alpha=0.6,
            label=f"FlexGrip, {n} cores",
        )
    ax1.set_yscale("log")
    ax1.set_xticks(range(len(kernels)), [FLEXGRIP_NAMES[k] for k in kernels])
    ax1.set_ylabel(f"cycles (size {REPORT_SIZE}, log scale)")
    ax1.legend(fontsize=7, ncol=2)
    ax1.set_title("Cycles per kernel")
    for label, series in (
        ("ours", [[by[(k, 8)] / by[(k, n)] for n in BENCH_LANES] for k in kernels]),
        ("FlexGrip", [[FLEXGRIP[k][0] / c for c in FLEXGRIP[k]] for k in kernels]),
    ):
        mean = [sum(s[i] for s in series) / len(series) for i in range(len(BENCH_LANES))]
        ax2.plot(BENCH_LANES, mean, marker="o", label=f"{label} (mean of {len(kernels)})")
    ax2.plot(BENCH_LANES, [n / 8 for n in BENCH_LANES], linestyle=":", color="grey", label="ideal")
    ax2.set_xticks(BENCH_LANES)
    ax2.set_xlabel("lanes (cores)")
    ax2.set_ylabel("speed-up over 8 lanes")
    ax2.legend()
    ax2.set_title("Scaling with lanes")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default=",".join(suite.names()))
    ap.add_argument("--lanes", default=",".join(map(str, BENCH_LANES)))
    ap.add_argument(
        "--sm-sweep",
        default=sm_scaling.DEFAULT,
        help="LANESxSMS machines of Lies 2019 Table 5.1's family that run the report size "
        f"(default {sm_scaling.DEFAULT}; '' for none)",
    )
    ap.add_argument(
        "--docs",
        action="store_true",
        help="save the lane sweep's (every kernel at size 256 on 8, 16 and 32 lanes) and the SM sweep's results "
        "to docs/bench/ and regenerate their tables in docs/benchmarks.md",
    )
    ap.add_argument(
        "--docs-only", action="store_true", help="regenerate those tables from the committed results files"
    )
    ap.add_argument("--sm-only", action="store_true", help="only the SM sweep (not the one-SM lane sweep)")
    ap.add_argument("--latency", type=int, default=20, help="global-memory latency in cycles (fixed)")
    ap.add_argument(
        "--post-stores",
        type=int,
        choices=(0, 1),
        default=0,
        help="1: every machine with posted stores (POST_STORES = 1, docs/isa.md 6.4; results apart, -post)",
    )
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--report-only", action="store_true", help="rewrite the report from the last results")
    ap.add_argument("--resume", action="store_true", help="skip the runs whose results exist")
    ap.add_argument(
        "--report-size-only",
        action="store_true",
        help=f"only size {REPORT_SIZE} at every lane count (the cycle table), not every size at 8 lanes",
    )
    ap.add_argument(
        "--before",
        type=Path,
        help="raw results (.jsonl) of an earlier run: adds a before/after table at the report size",
    )
    ap.add_argument("--before-label", default="before: --before file", help="what the earlier run was")
    ap.add_argument(
        "--same-inputs",
        action="store_true",
        help="with --before: run every case on the earlier run's inputs (its seeds), for a cycle-exact comparison",
    )
    args = ap.parse_args(argv)
    before = None
    if args.before is not None:
        if not args.before.is_file():
            raise cli.InputError(f"--before {args.before}: no such file (give the .jsonl of an earlier run)")
        before = [json.loads(line) for line in args.before.read_text().splitlines() if line.strip()]
    if args.post_stores and (args.docs or args.docs_only):
        raise cli.InputError("--post-stores: the committed tables are the default machine's (drop --docs)")
    if args.same_inputs and before is None:
        raise cli.InputError("--same-inputs needs --before OLD.jsonl (the run whose inputs to reuse)")
    seeds = (
        {(r["config"], r["kernel"], r["size"]): r["seed"] for r in before or []} if args.same_inputs else None
    )
    sim = os.environ.get("SIM", "verilator")
    if args.docs_only:
        for what in (sm_scaling, lane_sweep):
            if not what.results_file(sim).is_file():
                raise cli.InputError(
                    f"--docs-only: no {what.results_file(sim).relative_to(ROOT)} (run with --docs)"
                )
        print(sm_scaling.write_docs(json.loads(sm_scaling.results_file(sim).read_text())))
        print(lane_sweep.write_docs(lane_sweep.load(sim)))
        return 0
    kernels = [k for k in args.kernels.split(",") if k]
    unknown = sorted(set(kernels) - set(suite.names()))
    if unknown:
        raise cli.InputError(
            f"--kernels: no kernel {', '.join(unknown)} (kernels: {', '.join(suite.names())})"
        )
    lanes = sorted(int(n) for n in args.lanes.split(","))
    sm_sweep = sm_scaling.parse(args.sm_sweep)
    for n in lanes:
        bench_config(n)  # an illegal machine is refused here, before any build
    if args.docs and not args.sm_only:
        docs_check(sim, kernels, lanes)
    REPORTS.mkdir(parents=True, exist_ok=True)
    post = "-post" if args.post_stores else ""
    raw = REPORTS / f"kernels_bench-{sim}{post}.jsonl"
    jobs, skipped = plan(kernels, lanes, sim, args.report_size_only, sm_sweep, args.sm_only)
    start = time.monotonic()
    parts = [part_file(sim, f, n, m, k, args.post_stores) for f, n, m, k, _ in jobs]
    todo = [(j, p) for j, p in zip(jobs, parts) if not (args.report_only or (args.resume and p.exists()))]
    if todo:
        parts[0].parent.mkdir(parents=True, exist_ok=True)
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [
                pool.submit(job, sim, *j[:4], j[4], args.latency, part, seeds, args.post_stores)
                for j, part in todo
            ]
            for f in futures:
                what, secs = f.result()
                print(f"bench: {what} matched C ({secs:.0f} s)", flush=True)
    missing = [p.name for p in parts if not p.exists()]
    if missing and not (args.report_only and len(missing) < len(parts)):
        raise SystemExit(f"no results for {', '.join(missing)}: run without --report-only")
    if missing:  # --report-only over a partial sweep: the tables say "not run" for these
        print(f"bench: not run yet, reported as such: {', '.join(missing)}")
    raw.write_text("".join(p.read_text() for p in parts if p.exists()))
    rows = [json.loads(line) for line in raw.read_text().splitlines() if line.strip()]
    assert rows, "the benchmark ran no case"
    text = report(rows, sim, args.latency, skipped, time.monotonic() - start, before, args.before_label)
    (REPORTS / f"kernels_bench-{sim}{post}.md").write_text(text)
    png = REPORTS / f"kernels_bench-{sim}{post}.png"
    if plot(rows, png):
        text += f"\n![cycles and scaling]({png.name})\n"
        (REPORTS / f"kernels_bench-{sim}{post}.md").write_text(text)
    print(text)
    print(f"report: {REPORTS / f'kernels_bench-{sim}.md'}")
    if args.docs:
        for family, what in (("bench", lane_sweep), ("tesla", sm_scaling)):
            done = [p for p, j in zip(parts, jobs) if j[0] == family and p.exists()]
            recs = [r for r in rows if r["config"].startswith(f"{family}-")]
            if done and recs:
                print(what.write_docs(what.results(recs, sim, args.latency, measured_on(done)), save=True))
    return 0


def docs_check(sim: str, kernels: list[str], lanes: list[int]) -> None:
    """--docs saves the lane sweep only whole: every kernel at every lane count of the docs' table."""
    if not SWEEP[sim]:
        raise cli.UsageError(
            "--docs: the lane sweep runs on Verilator only (SIM=verilator), or add --sm-only"
        )
    want = ",".join(map(str, BENCH_LANES))
    if lanes != list(BENCH_LANES) or set(kernels) != set(suite.names()):
        raise cli.UsageError(
            f"--docs: the lane-sweep tables hold every kernel at {want} lanes; run without --kernels and with "
            f"--lanes {want}, or add --sm-only to save only the SM sweep"
        )


if __name__ == "__main__":
    cli.run(main)
