"""Where a checked retire's Python time goes, without the simulator: a full run's trace replayed through
the real trace monitor, launch checker, scoreboards and functional coverage (a benchmark script).

    SIM=verilator python tools/bench/check_replay.py --case matrixmul:64 --lanes 8 [--trace FILE]
        [--repeat 3] [--profile] [--fast]

Without ``--trace`` it first runs the case fully checked on the simulator and keeps the run's trace
(build/reports/check_replay-<case>-l<lanes>.trace). Then, ``--repeat`` times, it builds the pyuvm
components outside cocotb (their build phases read a ConfigDB filled here), begins the launch as the
host driver would and hands the whole trace to :meth:`TraceMonitor.drain` in batches of 512 lines
(as the wrapper flushes them). It prints CPU microseconds per retire of: the whole replay; the model
stepping the same retires alone (``Model.step`` in the trace's order: also paid by the end-only run);
and the difference, what checking adds in Python. ``--fast`` also replays with the compiled fast path
(tb/fastcheck, ``SIMT_FAST_CHECK=1``) and fails unless both replays end with the same model, board counts
and coverage. ``--profile`` prints a cProfile of one replay (of the fast path's with ``--fast``).
Not a timed test: the numbers are for comparing before and after on one machine.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from spec import cli  # noqa: E402

REPORTS = ROOT / "build" / "reports"
BATCH = 512  # lines per flush: the wrapper's default when docs/benchmarks.md's replay figures were measured (now 4096)


def record_trace(case: str, lanes: int, sim: str) -> Path:
    """Run ``case`` fully checked and keep its trace."""
    from tools.bench.check_overhead import harness

    out = REPORTS / f"check_replay-{case.replace(':', '-')}-l{lanes}.trace"
    harness(case, lanes, "full", sim)
    runs = sorted((ROOT / "build" / "sim").glob(f"simt_gpu_tb/verilator-bench-l{lanes}-*/runs/*/trace.txt"))
    if sim != "verilator":
        runs = sorted((ROOT / "build" / "sim").glob(f"simt_gpu_tb/{sim}-bench-l{lanes}-*/runs/*/trace.txt"))
    newest = max(runs, key=lambda p: p.stat().st_mtime)
    REPORTS.mkdir(parents=True, exist_ok=True)
    out.write_bytes(newest.read_bytes())
    return out


_SERIAL = itertools.count()
_PARTS: tuple[tuple[Any, str], ...] = ()


class _Port:
    """Stands in for the DUT's trace_batch/trace_sync signals (never awaited in a replay)."""

    value = 0


def components(cfg: Any, trace: Path) -> tuple[Any, Any, Any]:
    """The trace monitor, launch checker and coverage collector, connected as GpuEnv connects them."""
    import numpy as np
    import pyuvm

    from tb.agents.trace_monitor import TraceMonitor
    from tb.coverage.collector import CoverageCollector
    from tb.env.checker import LaunchChecker

    global _PARTS
    _PARTS = ((TraceMonitor, "trace"), (LaunchChecker, "checker"), (CoverageCollector, "coverage"))
    db = pyuvm.ConfigDB()
    db.set(None, "*", "DUT", SimpleNamespace(trace_batch=_Port(), trace_sync=_Port()))
    db.set(None, "*", "GPU_CFG", cfg)
    db.set(None, "*", "GMEM", np.zeros(cfg.global_words, np.uint32))
    db.set(None, "*", "CHECK_MODE", "full")
    db.set(None, "*", "TRACE_PATH", trace)
    n = next(_SERIAL)  # (pyuvm names the root's children uniquely)
    mon, chk, cov = (cls(f"{name}{n}", None) for cls, name in _PARTS)
    for c in (mon, chk, cov):
        c.build_phase()
    mon.dispatch_ap.connect(chk.dispatch_export)
    mon.retire_ap.connect(chk.retire_export)
    mon.shared_ap.connect(chk.shared_export)
    mon.request_ap.connect(chk.request_export)
    mon.response_ap.connect(chk.response_export)
    chk.checked_ap.connect(cov.retire_export)
    mon.dispatch_ap.connect(cov.dispatch_export)
    mon.request_ap.connect(cov.request_export)
    mon.response_ap.connect(cov.response_export)
    return mon, chk, cov


def replay(cfg: Any, image: Any, lines: list[str], trace: Path, fast: bool = False) -> tuple[float, int]:
    """CPU seconds of one replay of ``lines`` and the retires it checked (``fast``: with the compiled
    fast path, SIMT_FAST_CHECK=1, which must end with the same model, counts and coverage)."""
    old = os.environ.get("SIMT_FAST_CHECK")
    os.environ["SIMT_FAST_CHECK"] = "1" if fast else "0"
    try:
        spent, chk, cov = _replay(cfg, image, lines, trace)
    finally:
        if old is None:
            del os.environ["SIMT_FAST_CHECK"]
        else:
            os.environ["SIMT_FAST_CHECK"] = old
    outcome = outcome_of(chk, cov)
    if fast:
        global _FAST_TOOK
        _FAST_TOOK = chk.fast.handled if chk.fast is not None else 0
    _OUTCOMES.setdefault(fast, outcome)
    if _OUTCOMES.get(not fast, outcome) != outcome:
        raise AssertionError("the fast path's replay ended differently from the Python path's")
    return spent, chk.retire.compared


_OUTCOMES: dict[bool, Any] = {}
_FAST_TOOK = 0


def outcome_of(chk: Any, cov: Any) -> Any:
    """What a replay leaves: the model's counters and pcs, every board's counts, coverage's counts."""
    from collections import Counter

    chk.fast_flush()
    m = chk.model
    cov.cov._classify()
    warps = {(b, w.wid): (w.pc, w.count, w.mask) for b, blk in m.blocks.items() for w in blk.warps}
    boards = [(b.name, b.compared, *(getattr(b, k) for k in b.counts)) for b in chk.boards]
    tallies = {k: Counter(t.counts) for k, t in vars(cov.cov).items() if hasattr(t, "counts")}
    left = [b.end() for b in chk.boards]  # (unmatched traffic, the loader's words never written)
    return (m.counters.as_dict(), m.retires, warps, boards, left, cov.cov.samples, tallies, m.gmem.tobytes())


def _replay(cfg: Any, image: Any, lines: list[str], trace: Path) -> tuple[float, Any, Any]:
    mon, chk, cov = components(cfg, trace)
    item = SimpleNamespace(image=image, words=None, start=True, expect_launch_error=None, seed=None)
    chk.begin(item)
    chunks = ["".join(lines[i : i + BATCH]).encode("latin-1") for i in range(0, len(lines), BATCH)]
    feed = iter(chunks)
    mon._file = SimpleNamespace(read=lambda: next(feed, b""))  # (the monitor reads the trace as bytes)
    t0 = time.process_time()
    for _ in chunks:
        mon.drain()
    spent = time.process_time() - t0
    if chk.fault is not None:
        raise chk.fault
    return spent, chk, cov


def model_alone(cfg: Any, image: Any, lines: list[str]) -> float:
    """CPU seconds of the model stepping the trace's dispatches and retires in the trace's order."""
    from spec.model import Model
    from spec.retire_record import decode

    steps: list[tuple[int, ...]] = []
    for line in lines:
        if line[:1] == "D":
            t = line.split()
            steps.append((0, int(t[2], 16), int(t[3])))
        elif line[:1] == "R":
            r = decode(line.split()[3:], cfg.warp_size)
            steps.append((1, r.block, r.warp))
    model = Model(cfg, image)
    t0 = time.process_time()
    for kind, a, b in steps:
        if kind:
            model.step(a, b)
        else:
            model.start_block(a, sm=b)
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="matrixmul:64")
    ap.add_argument("--lanes", type=cli.positive_int, default=8)
    ap.add_argument("--trace", type=Path, help="a full run's trace.txt of this case (default: run one)")
    ap.add_argument("--repeat", type=cli.positive_int, default=3)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of one replay")
    ap.add_argument(
        "--fast",
        action="store_true",
        help="also replay with the compiled fast path (SIMT_FAST_CHECK=1), checked equal",
    )
    args = ap.parse_args(argv)
    from kernels.suite import prepare
    from spec.machines import bench as bench_config

    name, _, size = args.case.partition(":")
    if not size.isdigit():
        raise cli.InputError(f"--case {args.case}: write <kernel>:<size>, e.g. matrixmul:64")
    try:
        cfg = bench_config(args.lanes)
    except ValueError as err:
        raise cli.InputError(f"--lanes {args.lanes}: {err}") from None
    image = prepare(name, int(size), 1, cfg).image
    trace = args.trace or record_trace(args.case, args.lanes, os.environ.get("SIM", "verilator"))
    lines = trace.read_text().splitlines(keepends=True)
    best = min(replay(cfg, image, lines, trace) for _ in range(args.repeat))
    model = min(model_alone(cfg, image, lines) for _ in range(args.repeat))
    spent, retires = best
    us = 1e6 / retires
    print(
        f"{args.case} at {args.lanes} lanes: {retires:,} retires, {len(lines):,} trace lines, best of {args.repeat}"
    )
    print(f"  replay (monitor, checker, scoreboards, coverage, model): {spent * us:6.2f} us/retire")
    print(f"  model step alone (in the end-only run too):              {model * us:6.2f} us/retire")
    print(f"  checking without the model step:                         {(spent - model) * us:6.2f} us/retire")
    if args.fast:
        fast = min(replay(cfg, image, lines, trace, fast=True) for _ in range(args.repeat))[0]
        print(f"  replay with the fast path (SIMT_FAST_CHECK=1):          {fast * us:6.2f} us/retire")
        print(
            f"  the same less the model step alone (what checking adds):  {(fast - model) * us:6.2f} us/retire"
        )
        print(
            f"    (the same model, counts and coverage; {_FAST_TOOK:,} of {retires:,} retires checked in C)"
        )
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        replay(cfg, image, lines, trace, fast=args.fast)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    cli.run(main)
