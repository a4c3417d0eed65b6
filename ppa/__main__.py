"""`make ppa`: python -m ppa [sweep|report] [--sweep quick|full] [--ice40] [--force]

sweep   synthesise every configuration of the sweep (cached), then write the report
report  write the report from the cached results only (no synthesis)
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from ppa import synth
from ppa.config import SWEEPS, name, sweep
from ppa.yosys import YosysError, find
from spec import cli


def _size(c) -> int:
    """Sort key: the largest SM (its Yosys run the longest) first."""
    return -(c.num_lanes * 64 + c.num_warps)


def _synthesise(job: tuple) -> str:
    """One cached synthesis (a worker process of --jobs): an SM with its add-ons, or a GPU top; the
    error text if Yosys failed."""
    kind, cfg, ice40, depth, force = job
    try:
        y = find()
        if kind == "gpu":
            synth.synth_gpu(y, cfg, force=force)
        else:
            synth.synth_sm(y, cfg, ice40=ice40, force=force)
            if depth:
                synth.unit_depths(y, cfg, force=force)
    except YosysError as err:
        return str(err)
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="python -m ppa", description=__doc__.splitlines()[0])
    parser.add_argument("action", nargs="?", default="sweep", choices=["sweep", "report"])
    parser.add_argument("--sweep", default="full", choices=SWEEPS)
    parser.add_argument(
        "--ice40",
        default="",
        help="comma-separated SM names that also get a whole-SM synth_ice40 (default none: on the 8-lane SM "
        "it ran over 20 minutes in ABC9; per-unit counts and Fmax are python -m ppa.ice40)",
    )
    parser.add_argument(
        "--depth",
        default="L8-W16-R512-B8",
        help="comma-separated SM names whose units get a logic-depth run ('' for none)",
    )
    parser.add_argument("--force", action="store_true", help="ignore the cache")
    parser.add_argument("--docs", action="store_true", help="also copy the figures and report to docs/ppa/")
    parser.add_argument("--only-cached", action="store_true", help="skip configurations not synthesised yet")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="Yosys runs at a time (default: the cores)"
    )
    args = parser.parse_args(argv)
    sm_cfgs, gpu_cfgs = sweep(args.sweep)
    start = time.monotonic()
    try:
        y = find()
    except YosysError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"ppa: {len(sm_cfgs)} SM and {len(gpu_cfgs)} GPU configurations, {y.short_version}", flush=True)
    ice = {s for s in args.ice40.split(",") if s}
    depth = {s for s in args.depth.split(",") if s}
    cached = args.only_cached or args.action == "report"
    if not cached and args.jobs > 1:  # fill the cache in parallel, largest SM first; the loop below reads it
        jobs = [("sm", c, name(c) in ice, name(c) in depth, args.force) for c in sorted(sm_cfgs, key=_size)]
        jobs += [("gpu", c, False, False, args.force) for c in gpu_cfgs]
        with ProcessPoolExecutor(max_workers=args.jobs) as ex:
            for err in ex.map(_synthesise, jobs):
                if err:
                    print(f"error: {err}", file=sys.stderr)
                    return 1
        args.force = False  # done above: the loop below only reads the cache
    sms: list[dict] = []
    gpus: list[dict] = []
    try:
        for cfg in sm_cfgs:
            t = time.monotonic()
            r = synth.synth_sm(y, cfg, ice40=name(cfg) in ice, force=args.force, cached_only=cached)
            print(
                f"  SM {name(cfg)}: {'not synthesised yet' if r is None else f'{time.monotonic() - t:.1f} s'}",
                flush=True,
            )
            if r is not None:
                d = synth.unit_depths(y, cfg, force=args.force, cached_only=cached or name(cfg) not in depth)
                r["depths"] = d or {}
                sms.append(r)
        for cfg in gpu_cfgs:
            t = time.monotonic()
            r = synth.synth_gpu(y, cfg, force=args.force, cached_only=cached)
            print(
                f"  GPU {name(cfg)}: {'not synthesised yet' if r is None else f'{time.monotonic() - t:.1f} s'}",
                flush=True,
            )
            if r is not None:
                gpus.append(r)
    except YosysError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    from ppa import report

    out = report.write(sms, gpus, sweep_seconds=time.monotonic() - start, docs=args.docs)
    print(f"ppa: report in {out} ({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    cli.run(main)
