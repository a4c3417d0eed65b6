"""Power per kernel in watts (issue 28): simulated activity on the mapped netlist, the power sum of ppa/netpower.py.

    python -m ppa.kernelpower [--lanes 8] [--kernels all|bench|micro]

Method (the industry's "RTL simulation activity, supplemented by vectorless estimation", e.g. Intel's
Power Analyzer guide, docs/references.md#intel-power-activity):

1. **Simulated activity.** Each launch runs on the toggle-coverage raw bench (ppa/toggles.py, Verilator
   ``--coverage-toggle``): every bit of every RTL signal of SM 0, its 0->1 and 1->0 transitions.
2. **Mapped onto the netlist by name.** The timed netlist (ppa/netlist.py, buffered by ppa/fanout.py)
   keeps the RTL name of every net Yosys did not rename: every flip-flop output and many decoded or
   registered signals. Such a net gets its bit's toggles / cycles; SM inputs likewise.
3. **Registers without a simulated bit** (flip-flops of flattened arrays, any memory boundary's read data
   whose RTL name were lost) get the mean activity of the simulated registers of their own module (stated
   rule; counted; ppa/meanbias.py measures what it adds: at 8 lanes 54 div-stack/shared-writeback flip-flops,
   under 0.01 % of a launch's energy, every macro read-data net simulated).
4. **Everything else is propagated** through the cells' functions (ppa/netpower.py: transition density,
   duty 0.5; modelled, not simulated: no glitches, no correlations).
5. **Energy** (ppa/netpower.py): per net ½·C·V² + the Liberty's internal energy per transition, the
   flip-flops' clock-pin energy, leakage; time = RTL cycles / Fmax of the same netlist (ppa/sta.py).
   **Logic only:** the memory macros' arrays (register file, shared memory, …) are registered
   boundaries here; their access energy is not included (no cited sky130 per-access energy).

Each launch's row (events, the lanes' ALU-input events ``alu_events`` (ppa/aluactivity.py), energy by
part and ``by_module_pj``: the net energy split by the module whose cell drives the net, which
ppa/modpower.py's per-module model is fitted on, and ``order``, the RTL's retire order, from which
``recount`` counts events added later without a rerun) is cached in build/ppa/kernelpower/L<n>/rows/ by
netlist, Liberty, Fmax, image and RTL (``row_key``): adding a micro-kernel to the refit costs only its
own runs.

Why not OpenSTA's ``report_power`` with the activities: Debian's OpenSTA 2.0.17 has no ``read_vcd`` /
``read_saif``, its ``set_power_activity -pins`` calls a missing ``get_pins_error``, and its
``report_power`` stops on a NaN on the correctly mapped SMs (docs/ppa.md "Timing").

Kind of every number: power *modelled* (our sum, Liberty energies) from *simulated* register activity on
a *synthesised* netlist with the *characterized* Liberty; pre-layout, no wires, ideal clock.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa import fanout  # noqa: E402
from spec import cli  # noqa: E402

OUT = ROOT / "build" / "ppa" / "kernelpower"
DUTY = 0.5  # ppa/netpower.py propagates with every input high half the time
VDD = 1.8
SEQ_OUT = {"Q"}  # output pins of the sequential cells (dfxtp_1, simt_macro_out)


# ----------------------------------------------------------------------------- the flow


def launches(lanes: int, which: str) -> list[tuple[str, str, object, object]]:
    """(name, kind, machine, image) of the micro-kernels, empty launches and benchmark kernels that
    ppa/power.py fits and validates on (same images, same machine)."""
    from kernels.suite import prepare
    from ppa import micro
    from ppa.rtlcycles import CASES, SEED, machine

    cfg = machine(lanes)
    out = []
    if which in ("all", "micro"):
        out += [(f"{k}@{n}", "micro", cfg, micro.image(k, n, cfg)) for k in micro.KERNELS for n in (micro.N_LO, micro.N_HI)]  # fmt: skip
        out += [(f"empty@{t}x{b}", "micro", cfg, micro._empty(cfg, t, b)) for t, b in ((32, 1), (256, 1), (32, 8))]  # fmt: skip
    if which in ("all", "bench"):
        out += [(f"{k}/{s[0]}", "kernel", cfg, prepare(k, s[0], SEED, cfg).image) for k, s in CASES.items()]
    return out


def _sha(parts: list[bytes]) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(hashlib.sha1(p).digest())
    return h.hexdigest()[:16]


def row_key(netkey: str, words: list[int], latency: int, machine: dict, bench: str) -> str:
    """The cache key of one launch's row: the netlist, Liberties and Fmax (*netkey*), the image, the
    memory latency, the simulated machine and the toggle bench (*bench*: its folder, named by the RTL
    sources' hash). The golden model's events are not keyed: a spec change needs build/ppa/kernelpower
    removed."""
    return _sha([netkey.encode(), json.dumps([words, latency, machine]).encode(), bench.encode()])


def driver_modules(flat) -> tuple[list[str], np.ndarray]:
    """The module (type) names and, per net, the index of the module whose cell drives it (-1: no driver,
    e.g. an SM input or a constant): the key of :func:`by_module`."""
    names: dict[str, int] = {}
    of = np.full(flat.nets, -1, dtype=np.int64)
    for c in flat.cells:
        i = names.setdefault(c.module, len(names))
        for n in c.outs.values():
            of[n] = i
    return list(names), of


def by_module(per_toggle_pj, act, cycles: int, modules: list[str], of) -> dict[str, float]:
    """A run's net energy (pJ: switching + internal, no clock pins, no leakage) split by the module that
    drives each net; nets without a driver count under "(undriven)". Sums to energy_pj's switching +
    internal: where the gate-level energy goes, to compare with the per-event model per unit."""
    e = np.asarray(per_toggle_pj) * np.asarray(act) * cycles
    sums = np.bincount(of + 1, weights=e, minlength=len(modules) + 1)
    out = {m: float(sums[i + 1]) for i, m in enumerate(modules)}
    out["(undriven)"] = float(sums[0])
    return out


def finish_row(row: dict, fmax_mhz: float) -> dict:
    """A launch's time and average power from its energy (``energy_pj``, by part) at *fmax_mhz*:
    time = cycles / Fmax, power = energy / time."""
    seconds = row["cycles"] / (fmax_mhz * 1e6)
    e_pj = row["energy_pj"]["total"]
    row.update(
        time_us=seconds * 1e6,
        energy_uj=e_pj * 1e-6,
        total_mw=e_pj * 1e-12 / seconds * 1e3,
        pj_per_thread_instr=e_pj / max(1, row["thread_instrs"]),
    )
    return row


@dataclass
class Prepared:
    """The SM of *lanes* lanes ready for power sums: its Fmax, flattened netlist, per-net coefficients,
    cell functions, and the key of its netlist, Liberties and Fmax (``row_key``)."""

    cfg_syn: object
    fmax: float
    label: str
    flat: object
    coef: object
    functions: dict
    netkey: str
    flat_s: float


def prepare(lanes: int, log=print) -> Prepared:
    """Time the SM (Fmax), map, buffer and flatten its netlist (each step cached by its own module)."""
    from ppa import config, liberty, netlist, netpower, sta, timedlib
    from ppa.yosys import find

    cfg_syn = config.lanes_sweep(True, (lanes,))[0]  # the constant-registers SM (RF_DEPTH 4096 / lanes)
    timing = sta.analyse_config(cfg_syn, log)
    fmax = timing["fmax_mhz"]
    lib, macros, label = sta.libraries(log)
    net = netlist.timed(find(), cfg_syn, macros, log)
    net, _ = fanout.buffered(net, [lib, macros], "simt_sm", log)
    t0 = time.monotonic()
    cells: dict = {}
    for p in (lib, macros):
        cells.update(timedlib.cells_of(timedlib.read(p)))
    flat = netpower.flatten(fanout.parse(net.read_text()), "simt_sm", cells)
    coef = netpower.coefficients(flat, cells, VDD)
    functions = {
        liberty.PREFIX + n: {o: f} for n, (o, f) in {**liberty.COMBINATIONAL, **liberty.BUFFERS}.items()
    }
    flat_s = time.monotonic() - t0
    log(f"  flattened {len(flat.cells):,} cells, {flat.nets:,} nets in {flat_s:.0f} s")
    netkey = _sha([net.read_bytes(), *(p.read_bytes() for p in (lib, macros)), repr(fmax).encode()])
    return Prepared(cfg_syn, fmax, label, flat, coef, functions, netkey, flat_s)


def measure(lanes: int, which: str = "all", log=print) -> dict:
    from ppa import config, netpower, toggles
    from ppa.perf import count_all
    from ppa.power import alu_events_of, events_of
    from ppa.rtlcycles import LATENCY

    pp = prepare(lanes, log)
    cfg_syn, fmax, label, flat, coef, functions, netkey, flat_s = (
        pp.cfg_syn, pp.fmax, pp.label, pp.flat, pp.coef, pp.functions, pp.netkey, pp.flat_s
    )  # fmt: skip
    rows = []
    t0 = time.monotonic()
    modules, module_of_net = driver_modules(flat)
    for name, kind, mcfg, img in launches(lanes, which):
        words = img.to_words()
        cache = OUT / f"L{lanes}" / "rows" / f"{row_key(netkey, words, LATENCY, mcfg.as_dict(), toggles.build(mcfg).parent.name)}.json"  # fmt: skip
        if cache.exists():  # the same netlist, Liberty, Fmax, image and RTL: the same row
            row = json.loads(cache.read_text())
            row.update(name=name, kind=kind)
            rows.append(row)
            log(f"  {name}: cached, {row['energy_uj']:.4f} µJ")
            continue
        r = toggles.run(mcfg, words, LATENCY, per_bit=True)
        ev, counters = count_all(mcfg, img, r["order"])
        a = netpower.activities(flat, functions, r["bit_toggles"], r["cycles"])
        e = netpower.energy_pj(coef, a.act, r["cycles"], fmax)
        row = {
            "name": name, "kind": kind, "cycles": r["cycles"], "warp_instrs": r["warp_instrs"],
            "thread_instrs": counters["thread_instrs"], "events": events_of(counters, ev, r["cycles"]),
            "alu_events": alu_events_of(counters),
            "energy_pj": e,
            "by_module_pj": by_module(coef.per_toggle_pj, a.act, r["cycles"], modules, module_of_net),
            "nets": {"simulated": a.simulated, "registers_at_module_mean": a.at_mean, "propagated": a.propagated,
                     "in_loops": a.unreached},
            "order": r["order"],  # the RTL's retire order: new model events are counted from it without a rerun
        }  # fmt: skip
        rows.append(finish_row(row, fmax))
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(row))
        log(
            f"  {name}: {r['cycles']} cycles, {row['energy_uj']:.4f} µJ, {row['total_mw']:.1f} mW "
            f"({a.simulated:,} nets simulated, {a.at_mean:,} registers at the mean)"
        )
    res = {
        "lanes": lanes,
        "sm": config.name(config.sm_only(cfg_syn)),
        "simulated_machine": "ppa.rtlcycles.machine(lanes): RF 1024 rows, 2048 shared words (the same RTL "
        "names as the synthesised SM's)",
        "fmax_mhz": fmax,
        "library": label,
        "netlist": {"cells": len(flat.cells), "nets": flat.nets, "flip_flops": coef.flops},
        "duty": DUTY,
        "rows": rows,
        "seconds": {"flatten": flat_s, "activity runs + sums": time.monotonic() - t0},
        "kind": "modelled power (ppa/netpower.py sum, characterized Liberty energies) from simulated register "
        "activity on the synthesised, buffered netlist; pre-layout, no wires, ideal clock, logic only "
        "(memory arrays not included)",
    }
    kinds = {r["kind"] for r in rows}
    if {"micro", "kernel"} <= kinds:
        from ppa.energy import FitError

        try:
            res["refit"] = refit(rows)
        except FitError as err:  # too few launches for every event: say so in the report, keep the rest
            res["refit"] = {"error": str(err)}
        from ppa import modpower

        try:  # the per-module model beside the whole-SM refit (ppa/modpower.py), with the ALU-input
            # events: 4.3 % held-out geomean |error| against the refit's 6.9 % at 8 lanes (docs/ppa.md)
            alu = all("alu_events" in r for r in rows)
            res["per_module"] = modpower.fit(rows, modpower.EVENTS_OF_ALU if alu else None)
        except (FitError, modpower.ModelError) as err:
            res["per_module"] = {"error": str(err)}
    work = OUT / f"L{lanes}"
    work.mkdir(parents=True, exist_ok=True)
    (work / "kernelpower.json").write_text(json.dumps(res, indent=1))
    return res


def recount(rows: list[dict], lanes: int, log=print) -> int:
    """Give every row without ``alu_events`` (a row cached before they existed) its ALU-input events
    (ppa/aluactivity.py), counted by the golden model in the row's stored RTL retire order (``order``):
    no toggle or gate-level rerun. Returns how many rows were counted; a row with neither is an error."""
    from ppa.perf import count_all
    from ppa.power import alu_events_of

    todo = [r for r in rows if "alu_events" not in r]
    if not todo:
        return 0
    if any("order" not in r for r in todo):
        missing = [r["name"] for r in todo if "order" not in r]
        raise ValueError(
            f"rows without alu_events nor a retire order (an older run): {missing}: rerun ppa.kernelpower"
        )
    by_name = {name: (mcfg, img) for name, _, mcfg, img in launches(lanes, "all")}
    for r in todo:
        if r["name"] not in by_name:
            raise ValueError(f"row {r['name']} is not a launch of ppa.kernelpower at {lanes} lanes")
        mcfg, img = by_name[r["name"]]
        _, counters = count_all(mcfg, img, r["order"])
        if counters["warp_instrs"] != r["warp_instrs"]:
            raise ValueError(
                f"{r['name']}: recount gives {counters['warp_instrs']} warp-instructions, the row {r['warp_instrs']}"
            )
        r["alu_events"] = alu_events_of(counters)
        log(f"  {r['name']}: ALU-input events counted in the stored retire order")
    return len(todo)


def refit(rows: list[dict]) -> dict:
    """ppa/power.py's per-event model fitted on this gate-level energy (pJ) instead of the area-weighted
    toggle proxy: relative NNLS on the micro-kernels and empty launches, validated on the held-out
    benchmark kernels (never in the fit). Events equal on every run are fitted as one (power.py's rule)."""
    from ppa import energy
    from ppa.power import distinct_events

    events, same = distinct_events(rows)
    samples = {
        k: [energy.Sample(r["name"], {e: r["events"][e] for e in events}, r["energy_uj"] * 1e6) for r in rows if r["kind"] == k]
        for k in ("micro", "kernel")
    }  # fmt: skip
    model = energy.fit(samples["micro"], events, relative=True)
    val = energy.validate(model, samples["kernel"])
    return {
        "pj_per_event": dict(model.energy),
        "same": same,
        "errors": dict(val.errors),
        "geomean_abs": val.geomean_abs,
        "mape": val.mape,
        "worst": val.worst,
        "fitted_on": [s.kernel for s in samples["micro"]],
    }


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=cli.int_list(1, 64), default=[8])
    ap.add_argument("--kernels", default="all", choices=["all", "bench", "micro"])
    args = ap.parse_args(argv)
    for n in args.lanes:
        res = measure(n, args.kernels)
        print(f"L{n}: Fmax {res['fmax_mhz']:.1f} MHz")
        for r in res["rows"]:
            print(
                f"  {r['name']:<18} {r['cycles']:>8} cycles {r['time_us']:>9.2f} µs {r['total_mw']:>8.2f} mW "
                f"{r['energy_uj']:>9.4f} µJ {r['pj_per_thread_instr']:>7.1f} pJ/thread-instr"
            )
    return 0


if __name__ == "__main__":
    cli.run(main)
