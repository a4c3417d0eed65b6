"""`make ppa-sweep`: area, cycles and energy of 12 machine configurations, every step cached.

    python -m ppa.sweep [--no-rtl] [--no-energy]

Per configuration (``CONFIGS``: lanes 4-32 with constant total registers, lanes 4/16 with 512 rows per
lane, 8/16/32 warps, 1/2/4 SMs; the 32-lane SM is synthesised once, its Yosys run is the longest):

- **area**: the SM synthesised by Yosys (ppa/synth.py, cached per configuration and RTL version), GPU =
  top logic + SMs x SM total (synthesised logic + modelled macros, docs/ppa.md);
- **cycles, modelled**: ppa/perf.py from the golden model's events of every benchmark case of
  ppa.rtlcycles.CASES that fits the machine, with the machine parameters of ppa/micro.py;
- **cycles, RTL**: the same cases on Verilator (ppa/rtlcycles.py), to check the model (``--no-rtl`` skips);
- **energy, modelled**: the per-event energies fitted on the RTL of the same lane count (ppa/power.py,
  constant-total-registers SM as the area weights) x the configuration's events (``--no-energy`` skips).

Writes build/ppa/sweep/report.md, sweep.json and the figures (perf/area, perf/energy, predicted vs RTL);
prints the wall time of each step. Simulations and syntheses run one at a time under nice.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa import config  # noqa: E402
from ppa.config import machine, name, sm_only  # noqa: E402
from spec import cli  # noqa: E402
from spec.config import GpuConfig  # noqa: E402

OUT = ROOT / "build" / "ppa" / "sweep"
SHARED_WORDS = 1024  # the SM's default, so the simulated machine is the synthesised one

# The 12 configurations: named machines of spec/machines.py PPA (lanes x banks, register rows, warps, SMs)
SWEEP = [
    "L4-W16-R1024-B4",  # constant total registers (4096 x 32 bit)
    "L8-W16-R512-B8",
    "L16-W16-R256-B16",
    "L32-W16-R128-B32",
    "L4-W16-R512-B4",  # 512 rows per lane: registers grow with the lanes
    "L16-W16-R512-B16",
    "L8-W8-R512-B8",  # warps
    "L4-W8-R1024-B4",
    "L8-W32-R1024-B8",
    "L8-W16-R512-B8-S2",  # SMs
    "L8-W16-R512-B8-S4",
    "L32-W16-R128-B32-S2",
]
CONFIGS: list[GpuConfig] = [machine(n) for n in SWEEP]


def machine_of(c: GpuConfig) -> GpuConfig:
    """The machine the sweep simulates for *c*: the benchmark machine with *c*'s lanes, warps, register
    rows, SMs and shared words (ppa/rtlcycles.py)."""
    from ppa.rtlcycles import machine as bench_machine

    return bench_machine(c.num_lanes, c.num_warps, c.rf_depth, c.num_sms, shared_words=c.shared_words)


def area(c: GpuConfig, log, cached_only: bool = False) -> dict | None:
    """{sm_mm2, gpu_mm2, logic_mm2, macro_mm2} of ``c`` (synthesising what is not cached, unless
    ``cached_only``: then None for a configuration not synthesised yet)."""
    from ppa import synth
    from ppa.tables import summary
    from ppa.yosys import find

    y = find()
    sm = synth.synth_sm(y, sm_only(c), cached_only=cached_only)
    if sm is None:
        return None
    s = summary(sm)
    out = {"sm_mm2": s.total_um2 / 1e6, "logic_mm2": s.logic_um2 / 1e6, "macro_mm2": s.macro_um2 / 1e6,
           "ffs": s.ffs, "gpu_mm2": s.total_um2 / 1e6, "top_mm2": 0.0, "sm": sm["name"], "tool": sm["tool"],
           "synth_seconds": sum(sm.get("seconds", {}).values())}  # fmt: skip
    if c.num_sms > 1:
        g = synth.synth_gpu(y, c, cached_only=cached_only)
        if g is None:
            return None
        top = sum(u["area_um2"] for u in g["units"].values()) / 1e6
        out.update(
            top_mm2=top,
            gpu_mm2=top + c.num_sms * out["sm_mm2"],
            gpu_synth_seconds=sum(g.get("seconds", {}).values()),
        )
    return out


def cycles(c: GpuConfig, rtl: bool) -> tuple[list[dict], list[str]]:
    """Per runnable case: predicted cycles (and the RTL's when ``rtl``), and the cases that do not fit."""
    from ppa import micro, perf, rtlcycles

    cfg = machine_of(c)
    cases, skipped = rtlcycles.runnable(cfg)
    params = perf.Params.from_micro(micro.measure(c.num_lanes)["params"])
    mach = perf.Machine(
        lanes=c.num_lanes,
        num_warps=c.num_warps,
        num_blocks=c.num_blocks,
        num_sms=c.num_sms,
        params=params,
        rf_depth=c.rf_depth,
        shared_words=c.shared_words,
    )
    measured = {}
    if rtl:
        measured = {(r["kernel"], r["size"]): r["cycles"] for r in rtlcycles.collect(cfg, cases)}
        cycles.rtl_seconds = json.loads(rtlcycles.cache_path(cfg, cases).read_text())["seconds"]
    rows = []
    for k, sizes in cases.items():
        for n in sizes:
            ev = perf._events_cached(cfg, k, n, rtlcycles.SEED)
            p = perf.predict(ev, mach)
            rows.append(
                {
                    "kernel": k,
                    "size": n,
                    "predicted": p.cycles,
                    "rtl": measured.get((k, n)),
                    "case": p.case,
                    "events": perf.asdict(ev),
                }
            )
    return rows, skipped


def energies(lanes: int) -> dict | None:
    """The per-event energies fitted at ``lanes`` (ppa/power.py, cached in build/ppa/power)."""
    from ppa import power

    path = power.OUT / f"L{lanes}.json"
    if not path.exists():
        power.main(["--lanes", str(lanes)])
    fits = json.loads(path.read_text())
    # the sweep counts each configuration's activity in the golden model's order (it has no RTL retire
    # order for them), so it applies the energies fitted on that order
    return fits.get("fits_model_order", fits["fits"])["logic"]


def launch_energy(fit: dict, c: GpuConfig, row: dict) -> float:
    """Modelled energy of one launch (µm²·toggles): the fitted per-event energies x its events."""
    from ppa import perf, power, rtlcycles

    ev, counters = perf.counts_cached(machine_of(c), row["kernel"], row["size"], rtlcycles.SEED)
    events = power.events_of(counters, ev, round(row["predicted"]))
    return sum(fit["energy"].get(e, 0.0) * v for e, v in events.items())  # a dropped twin: its twin counts it


def _synth_sm(c: GpuConfig) -> None:
    from ppa import synth
    from ppa.yosys import find

    synth.synth_sm(find(), c)


def _synth_gpu(c: GpuConfig) -> None:
    from ppa import synth
    from ppa.yosys import find

    synth.synth_gpu(find(), c)


def _micro(lanes: int) -> None:
    from ppa import micro

    micro.measure(lanes)


def _rtl(c: GpuConfig) -> None:
    from ppa import rtlcycles

    cfg = machine_of(c)
    rtlcycles.collect(cfg, rtlcycles.runnable(cfg)[0])


def _energy(lanes: int) -> None:
    energies(lanes)


def _pool(kind: str, fn, items: list, jobs: int) -> float:
    """Run ``fn`` over ``items``, ``jobs`` at a time in worker processes (each job is a Yosys or
    Verilator run driven by Python: processes, not threads); returns the wall seconds."""
    from concurrent.futures import ProcessPoolExecutor

    start = time.monotonic()
    if items:
        with ProcessPoolExecutor(max_workers=max(1, min(jobs, len(items)))) as ex:
            list(ex.map(fn, items))
    seconds = time.monotonic() - start
    print(f"sweep: {kind}: {len(items)} jobs, {jobs} at a time, {seconds:.0f} s", flush=True)
    return seconds


def warm(configs: list[GpuConfig], jobs: int, rtl: bool, energy: bool) -> dict[str, float]:
    """Fill every cache the sweep reads, ``jobs`` runs at a time, in an order that keeps two runs from
    building the same thing: SM syntheses (largest first: the longest run starts first), GPU tops, the
    micro-benchmarks per lane count (their raw benches), then the RTL cycles per configuration and the
    energy fits per lane count (each builds its own bench). Wall seconds per phase."""
    sms = sorted(dict.fromkeys(sm_only(c) for c in configs), key=lambda c: -(c.num_lanes * 64 + c.num_warps))
    lanes = sorted({c.num_lanes for c in configs}, reverse=True)
    wall = {
        "synthesis (SMs)": _pool("synthesis of the SMs", _synth_sm, sms, jobs),
        "synthesis (GPU tops)": _pool(
            "synthesis of the GPU tops", _synth_gpu, [c for c in configs if c.num_sms > 1], jobs
        ),
        "micro-benchmarks": _pool("micro-benchmarks", _micro, lanes, jobs),
    }
    if energy:
        from ppa import toggles

        toggles.checked()  # once, before the energy runs that rely on it
        wall["energy fits"] = _pool("energy fits", _energy, lanes, jobs)
    if rtl:
        wall["RTL cycles"] = _pool("RTL cycles", _rtl, configs, jobs)
    return wall


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-rtl", action="store_true")
    ap.add_argument("--no-energy", action="store_true")
    ap.add_argument("--only-cached", action="store_true", help="skip configurations not synthesised yet")
    ap.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="runs at a time (default: the cores)"
    )
    args = ap.parse_args(argv)
    start = time.monotonic()
    OUT.mkdir(parents=True, exist_ok=True)
    wall = {} if args.only_cached else warm(CONFIGS, args.jobs, not args.no_rtl, not args.no_energy)
    results = []
    for c in CONFIGS:
        t0 = time.monotonic()
        a = area(c, print, args.only_cached)
        t1 = time.monotonic()
        if a is None:
            print(f"sweep: {name(c)}: not synthesised yet (--only-cached): left out", flush=True)
            continue
        rows, skipped = cycles(c, not args.no_rtl)
        t2 = time.monotonic()
        if not args.no_energy:
            try:
                fit = energies(c.num_lanes)
            except SystemExit as err:  # the lane count's SM is not synthesised: no area weights
                print(f"sweep: {name(c)}: no energy ({err})", flush=True)
                fit = None
            for r in rows:
                r["energy"] = launch_energy(fit, c, r) if fit else None
        t3 = time.monotonic()
        # what each step cost when it ran uncached (recorded by the step itself)
        cold = {
            "synthesis": a["synth_seconds"] + a.get("gpu_synth_seconds", 0.0),
            "rtl": getattr(cycles, "rtl_seconds", 0.0) if not args.no_rtl else 0.0,
        }
        from ppa.timing import fmax_of

        fmax = fmax_of(name(sm_only(c)))  # OpenSTA's, when make ppa-timing has run for this SM (else None)
        for r in rows:
            r["time_us"] = (r["rtl"] or r["predicted"]) / fmax if fmax else None
        results.append(
            {
                "name": name(c),
                "config": config.as_dict(c),
                "fmax_mhz": fmax,
                "area": a,
                "rows": rows,
                "skipped": skipped,
                "seconds": {"area": t1 - t0, "cycles": t2 - t1, "energy": t3 - t2},
                "cold": cold,
            }
        )
        print(
            f"sweep: {name(c)}: area {t1 - t0:.0f} s, cycles {t2 - t1:.0f} s, energy {t3 - t2:.0f} s",
            flush=True,
        )
    total = time.monotonic() - start
    from ppa import micro, power

    lanes = {r["config"]["lanes"] for r in results}
    fits = [power.OUT / f"L{n}.json" for n in (lanes if not args.no_energy else ())]
    cold_power = sum(json.loads(f.read_text()).get("seconds", 0.0) for f in fits if f.exists())
    results_cold = {
        "synthesis": sum(r["cold"]["synthesis"] for r in results if not r["config"]["sms"] > 1)
        + sum(r["area"].get("gpu_synth_seconds", 0.0) for r in results),
        "rtl": sum(r["cold"]["rtl"] for r in results),
        "energy fits": cold_power,
        "micro-benchmarks": sum(micro.measure(n).get("seconds", 0.0) for n in lanes),
    }
    (OUT / "cold.json").write_text(json.dumps({**results_cold, "wall": wall, "jobs": args.jobs}, indent=1))
    (OUT / "sweep.json").write_text(json.dumps({"seconds": total, "configs": results}, indent=1))
    from ppa import sweep_report

    fitted = {int(f.stem[1:]): json.loads(f.read_text())["fits"] for f in sorted(fits) if f.exists()}
    path = sweep_report.write(results, total, results_cold, wall, args.jobs, fitted)
    print(f"sweep: {len(results)} configurations in {total:.0f} s; report {path}")
    return 0


if __name__ == "__main__":
    cli.run(main)
