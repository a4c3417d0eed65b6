"""Per-event energies fitted on our own RTL, validated on held-out kernels (issue 17, energy part).

    python -m ppa.power [--lanes 8]

1. Reference energy of a launch (ppa/toggles.py): Verilator toggle coverage of the raw bench gives
   every SM module's toggles (0->1 and 1->0, all bits up to 2,048-bit signals); each module's toggles
   are weighted by its synthesised area per instance / its instrumented bits (the mean area behind a
   toggling bit: a capacitance proxy) and summed, in µm²·toggles. Two weightings, both reported:
   ``logic`` (library cells only) and ``logic+macros`` (plus the modelled memory-macro area of the
   unit's arrays, ppa/memory.py). Areas: the synthesised SM of ppa/config.py ``lanes_sweep(True)``
   (n lanes and banks, RF_DEPTH 4096/n; make ppa's cache), the closest synthesised machine to the simulated one
   (ppa.rtlcycles.machine: 2,048 shared words, 1,024 register rows; weights only).
2. Events per launch: the golden model's counters (``EVENTS``) plus the launch's RTL cycles, the
   model stepped in the RTL's retire order (the raw bench's trace), as the lockstep checker steps it,
   so that the switching activity follows the RTL's interleaving. A second fit counts the activity in
   the model's own round-robin (``fits_model_order``): what make ppa-sweep applies to configurations
   it has no retire order for.
3. Fit (ppa/energy.py NNLS on relative residuals: the validation's errors are relative too) on the
   micro-kernels of ppa/micro.py (each stresses one event) and the empty launches; validate on the
   benchmark kernels (kernels/, never in the fit): per-kernel error, geomean |error|, MAPE. An event
   whose count equals another's on every run (lane_hd and slot_hd at 32 lanes) is fitted as that one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa import energy  # noqa: E402
from spec import cli  # noqa: E402

OUT = ROOT / "build" / "ppa" / "power"
EVENTS = ("cycles", "warp_instr", "alu_thread", "data_bit", "shared_pass", "gmem_access", "gmem_txn",
          "stack_visit", "barrier", "instr_hd", "lane_hd", "slot_hd", "gaddr_hd", "saddr_hd", "operand_hd")  # fmt: skip


def events_of(counters: dict, ev, cycles: int) -> dict[str, float]:
    """The energy model's events from the golden model's counters (Counters.as_dict()), its perf.Events
    (``stacked``: warp-instructions under a non-empty stack) and the cycles. ``stack_visit``: every
    warp-instruction that visits the divergence-stack unit (branches, and any instruction of a warp whose
    stack is not empty: docs/sm.md). ``data_bit``: 1 bits of every value an active lane writes to a
    register or stores (the golden model's values): the data activity an event count alone misses."""
    c = counters
    return {
        "cycles": float(cycles),
        "warp_instr": float(c["warp_instrs"]),
        "alu_thread": float(c["thread_alu"] + c["thread_sreg"] + c["thread_const"]),
        "data_bit": float(c["data_bits"]),
        "shared_pass": float(c["shared_passes"]),
        "gmem_access": float(c["global_accesses"]),
        "gmem_txn": float(c["global_transactions"]),
        "stack_visit": float(c["warp_branch"] + ev.stacked),
        "barrier": float(c["barrier_releases"]),
        **{k: float(c[k]) for k in ("instr_hd", "lane_hd", "slot_hd", "gaddr_hd", "saddr_hd", "operand_hd")},
    }


def alu_events_of(counters: dict) -> dict[str, float]:
    """The lanes' ALU-input events (ppa/aluactivity.py ``NAMES``) from count_all's counters: kept apart
    from ``events`` so that the whole-SM model's event set stays what it was."""
    from ppa.aluactivity import NAMES

    return {k: float(counters[k]) for k in NAMES}


def weights(lanes: int) -> dict[str, dict[str, float]]:
    """Per SM module: {"logic": µm² per instance, "macros": modelled macro µm² per instance}."""
    from ppa import config, synth
    from ppa.yosys import find

    cfg = next(c for c in config.lanes_sweep(True) if c.num_lanes == lanes)
    r = synth.synth_sm(find(), cfg, cached_only=True)
    if r is None:
        raise SystemExit(f"ppa.power: SM {config.name(cfg)} is not synthesised yet: run make ppa first")
    out = {}
    for name, u in r["units"].items():
        out[name] = {"logic": u["area_um2"] / u["instances"], "macros": 0.0, "instances": u["instances"]}
    for a in r["memories"]:
        unit = a.get("unit") or a.get("module")
        if unit in out and a.get("kind") == "macro":
            out[unit]["macros"] += a["area_um2"] / out[unit]["instances"]
    return out


def reference(run: dict, w: dict[str, dict[str, float]], with_macros: bool) -> float:
    """Σ_module toggles × (area per instance / bits): µm²·toggles (Verilator sums a module's instances)."""
    per_bit = {
        m: (w[m]["logic"] + (w[m]["macros"] if with_macros else 0.0)) / run["bits"][m]
        for m in run["toggles"]
        if m in w and run["bits"].get(m)
    }
    return energy.toggle_energy({m: t for m, t in run["toggles"].items() if m in per_bit}, per_bit)


def collect(lanes: int) -> list[dict]:
    """Toggle runs of every micro-kernel and every benchmark kernel (first size of ppa.rtlcycles.CASES),
    with the golden model's events counted in the RTL's retire order (``events``) and in the model's own
    round-robin (``events_model``: what a configuration without an RTL run has)."""
    from kernels.suite import prepare
    from ppa import micro, toggles
    from ppa.perf import count_all
    from ppa.rtlcycles import CASES, LATENCY, SEED, machine

    cfg = machine(lanes)
    rows = []
    images = [
        (f"{k}@{n}", "micro", micro.image(k, n, cfg)) for k in micro.KERNELS for n in (micro.N_LO, micro.N_HI)
    ]
    images += [(f"empty@{t}x{b}", "micro", micro._empty(cfg, t, b)) for t, b in ((32, 1), (256, 1), (32, 8))]
    images += [
        (f"{k}/{sizes[0]}", "kernel", prepare(k, sizes[0], SEED, cfg).image) for k, sizes in CASES.items()
    ]
    for name, kind, img in images:
        r = toggles.run(cfg, img.to_words(), LATENCY)
        ev, counters = count_all(cfg, img, r["order"])
        ev_m, counters_m = count_all(cfg, img)
        assert r["warp_instrs"] == counters["warp_instrs"] == counters_m["warp_instrs"], name
        rows.append(
            {
                "name": name,
                "kind": kind,
                "events": events_of(counters, ev, r["cycles"]),
                "events_model": events_of(counters_m, ev_m, r["cycles"]),
                "thread_instrs": counters["thread_instrs"],
                **{k: v for k, v in r.items() if k != "order"},
            }
        )
        print(f"  toggles {name}: {r['cycles']} cycles, {sum(r['toggles'].values()):,} toggles", flush=True)
    return rows


def distinct_events(rows: list[dict], key: str = "events") -> tuple[tuple[str, ...], dict[str, str]]:
    """``EVENTS`` without those whose count equals an earlier event's on every run, and which event each
    dropped one equals (with as many lanes as threads per warp a lane carries one thread: lane_hd and
    slot_hd count the same flips, and two equal columns have no separate energies)."""
    keep: list[str] = []
    same: dict[str, str] = {}
    for e in EVENTS:
        twin = next((k for k in keep if all(r[key][k] == r[key][e] for r in rows)), None)
        if twin is None:
            keep.append(e)
        else:
            same[e] = twin
    return tuple(keep), same


def fit_and_validate(
    rows: list[dict], w: dict, with_macros: bool, key: str = "events"
) -> tuple[energy.EventFit, energy.Validation]:
    """Relative NNLS (energy.fit(relative=True)) on the micro-kernels, validated on the benchmark kernels;
    ``key``: the events counted in the RTL's order ("events") or the model's ("events_model")."""
    events, _ = distinct_events(rows, key)
    samples = {
        k: [
            energy.Sample(r["name"], {e: r[key][e] for e in events}, reference(r, w, with_macros))
            for r in rows
            if r["kind"] == k
        ]
        for k in ("micro", "kernel")
    }
    model = energy.fit(samples["micro"], events, relative=True)
    return model, energy.validate(model, samples["kernel"])


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=int, default=8)
    args = ap.parse_args(argv)
    import time

    start = time.monotonic()
    rows = collect(args.lanes)
    w = weights(args.lanes)
    events, same = distinct_events(rows)
    for e, twin in same.items():
        print(
            f"{e} counts the same as {twin} on every run at {args.lanes} lanes: fitted as one event ({twin})"
        )
    result = {
        "lanes": args.lanes,
        "events": events,
        "same": same,
        "weights": w,
        "runs": rows,
        "seconds": time.monotonic() - start,
    }
    for fits, key in (("fits", "events"), ("fits_model_order", "events_model")):
        result[fits] = {}
        print(f"activity counted in the {'RTL' if key == 'events' else 'model'}'s order:")
        for label, macros in (("logic", False), ("logic+macros", True)):
            model, val = fit_and_validate(rows, w, macros, key)
            result[fits][label] = {
                "energy": dict(model.energy),
                "residual_rms": model.residual_rms,
                "errors": dict(val.errors),
                "geomean_abs": val.geomean_abs,
                "mape": val.mape,
                "worst": val.worst,
                # the reference itself (measured toggles x areas, not the model) per thread-instruction of
                # each held-out kernel: what one thread-instruction costs at this lane count
                "per_thread_instr": {
                    r["name"]: reference(r, w, macros) / r["thread_instrs"]
                    for r in rows
                    if r["kind"] == "kernel"
                },
            }
            print(f"{label}: per event " + ", ".join(f"{e} {v:,.1f}" for e, v in model.energy.items()))
            print(
                f"  held-out kernels: geomean |error| {val.geomean_abs:.1%}, MAPE {val.mape:.1%}, worst "
                f"{val.worst} {val.errors[val.worst]:+.1%}"
            )
            for k, e in val.errors.items():
                print(f"    {k:<16} {e:+.1%}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"L{args.lanes}.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    cli.run(main)
