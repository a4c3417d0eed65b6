"""`make ppa-timing`: the characterized library, its accuracy, and static timing per configuration (issue 28).

    python -m ppa.timing [--configs lanes|all] [--jobs N]

1. characterize the cells the flow maps to (ppa/charlib.py, cached in build/ppa/charlib/) or take
   ``PPA_LIBERTY``; write the Liberty;
2. its accuracy: the cell chain of ppa/chaincheck.py in ngspice vs OpenSTA, and the inverter/NAND2 beside
   the foundry's published figures (ppa/published.py);
3. OpenSTA on each configuration's mapped SM (ppa/sta.py): Fmax and every unit's worst path.

Writes build/ppa/timing/report.md and timing.json (``fmax`` per SM name: what make ppa-sweep reads to turn
cycles into µs) and prints the wall time of each part.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

from ppa import tables  # noqa: E402
from spec import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "build" / "ppa" / "timing"

# The area report's unit names (ppa/tables.py), one table for both reports; the timing report keeps its
# shorter name for the global unit.
UNIT_LABEL = {**tables.UNIT_OF_MODULE, "simt_gmem_unit": "global unit"}


def configs(kind: str):
    from ppa.config import lanes_sweep, machine, sm_only

    if kind == "lanes":
        return lanes_sweep(True)
    from ppa.sweep import CONFIGS

    return list(
        dict.fromkeys([*lanes_sweep(True), *(sm_only(c) for c in CONFIGS), machine("L8-W16-R512-B8")])
    )


def published_rows(lib_path: Path) -> list[dict]:
    """Our INV/NAND2 beside the foundry's at the foundry's own table points."""
    from ppa import published, timedlib

    lib = timedlib.parse(lib_path.read_text())
    templates = {g.name: g for g in lib.groups if g.kind in ("lu_table_template", "power_lut_template")}
    rows = []
    for cell, pub in published.FOUNDRY_TT.items():
        g = lib.one("cell", f"sky130_fd_sc_hd__{cell}")
        if g is None:
            continue
        pin_a = g.one("pin", "A")
        out = next(p for p in g.sub("pin") if p.attrs.get("direction") == "output")
        timing = next(t for t in out.sub("timing") if t.attrs.get("related_pin") == "A")
        rise = timedlib.table(timing.one("cell_rise"), templates)
        fall = timedlib.table(timing.one("cell_fall"), templates)
        rows.append({"cell": cell, "what": "pin A capacitance (fF)", "ours": float(pin_a.attrs["capacitance"]) * 1e3,
                     "published": pub["cap_A"] * 1e3})  # fmt: skip
        for slew, load, r, f in pub["points"]:
            at = f"slew {slew * 1e3:.0f} ps, load {load * 1e3:.2f} fF"
            rows.append({"cell": cell, "what": f"cell_rise (ps) at {at}", "ours": rise.lookup(slew, load) * 1e3,
                         "published": r * 1e3})  # fmt: skip
            rows.append({"cell": cell, "what": f"cell_fall (ps) at {at}", "ours": fall.lookup(slew, load) * 1e3,
                         "published": f * 1e3})  # fmt: skip
    return rows


def report(res: dict) -> str:
    lib = res["library"]
    L = [
        "# Timing report (`make ppa-timing`, issue 28)",
        "",
        f"Library: {lib['label']} — `{lib['path']}`. Characterization (this run's reduction; ngspice runs are memoized per netlist) {lib['seconds']:.0f} s "
        f"(cached reruns read data.json). Corner tt, 1.8 V, 25 °C. Every figure is **pre-layout, no wires**.",
        "",
    ]
    ch = res.get("chain")
    if ch:
        L += [
            "## Liberty vs transistor-level simulation (a chain of mapped cells)",
            "",
            f"Chain: {' → '.join(ch['cells'])}; {ch['tool']}.",
            "",
            "| edge at the end | ngspice (ns, simulated) | OpenSTA + our Liberty (ns, characterized) | error |",
            "|---|---:|---:|---:|",
        ]
        for e in ("rise", "fall"):
            L.append(f"| {e} | {ch['spice_ns'][e]:.4f} | {ch['sta_ns'][e]:.4f} | {ch['error'][e]:+.1%} |")
        L.append("")
    if res.get("published"):
        from ppa.published import SOURCE

        L += [
            "## Our cells beside the foundry's published Liberty (tt_025C_1v80)",
            "",
            f"Published: {SOURCE}. Ours: interpolated in our 3 × 3 tables at the foundry's table points.",
            "",
            "| cell | quantity | ours (characterized) | published | ours / published |",
            "|---|---|---:|---:|---:|",
        ]
        for r in res["published"]:
            L.append(
                f"| {r['cell']} | {r['what']} | {r['ours']:.2f} | {r['published']:.2f} | {r['ours'] / r['published']:.2f} |"
            )
        L.append("")
    if res.get("units_alone"):
        L += [
            "## Lies 2019 §5.2's two candidates, each unit synthesised alone",
            "",
            "Each unit synthesised alone as make ppa maps it, its ports treated as registered (input/output "
            "delay 0): the worst path of its own logic. Kind: synthesised + characterized, pre-layout, no wires.",
            "",
            "| unit | configuration | worst path (ns) | Fmax alone (MHz) | cells on it | start → end |",
            "|---|---|---:|---:|---:|---|",
        ]
        for u in res["units_alone"]:
            p = u["path"]
            L.append(
                f"| {UNIT_LABEL.get(u['unit'], u['unit'])} | {u['config']} | {u['delay_ns']:.3f} | "
                f"{u['fmax_mhz']:.1f} | {len(p['cells'])} | `{p['startpoint']}` → `{p['endpoint']}` |"
            )
        L.append("")
    if res.get("sta"):
        L += [
            "## Static timing per configuration (OpenSTA, register to register)",
            "",
            "Wire load: none (a net's load is its fanout pins' capacitance). Memory macros: registered "
            "boundary, 2.5 ns access. Fan-out: buffer trees of ppa/fanout.py (at most 10 pins per net, "
            "buf_2/4/8; 'unbuffered' rows are ABC's drive-strength-1 netlist as it is), no upsizing, ideal "
            "clock. Kind: synthesised + characterized, pre-layout, no wires.",
            "",
            "| configuration | cells (+ buffers) | Fmax (MHz) | min period (ns) | critical path: start unit → end unit | through | cells on it | vectorless power at Fmax (mW) |",
            "|---|---:|---:|---:|---|---|---:|---:|",
        ]
        for r in res["sta"]:
            c = r["critical"]
            fo = r.get("buffering")
            nbuf = f" + {sum(fo['buffers'].values()):,}" if fo else " (unbuffered)"
            pw = (r.get("power_vectorless_w") or {}).get("Total", {}).get("total")
            L.append(
                f"| {r['name']} | {r['cells']:,}{nbuf} | {r['fmax_mhz']:.1f} | {r['min_period_ns']:.3f} | "
                f"{UNIT_LABEL.get(c['start_unit'], c['start_unit'])} → {UNIT_LABEL.get(c['end_unit'], c['end_unit'])} | "
                f"{', '.join(UNIT_LABEL.get(u, u) for u in c.get('through', []))} | {len(c['cells'])} | "
                f"{'' if pw is None else f'{pw * 1e3:.1f}'} |"
            )
        L.append("")
        for r in res["sta"]:
            L += [f"### Worst path into each unit's registers, {r['name']}", "",
                  "| unit (endpoint's) | path delay (ns) | Fmax alone (MHz) | start unit | through | start → end | cells |",
                  "|---|---:|---:|---|---|---|---:|"]  # fmt: skip
            for u, v in r["units"].items():
                p = v.get("path") or {}
                thr = ", ".join(UNIT_LABEL.get(x, x) for x in v.get("through", []))
                L.append(
                    f"| {UNIT_LABEL.get(u, u)} | {v['delay_ns']:.3f} | {v['fmax_mhz']:.1f} | "
                    f"{UNIT_LABEL.get(v.get('start_unit'), v.get('start_unit'))} | {thr} | "
                    f"`{p.get('startpoint', '?')}` → `{p.get('endpoint', v['endpoint'])}` | {len(p.get('cells', []))} |"
                )
            L.append("")
    for kp in res.get("kernel_power", []):
        L += kernel_power_section(kp)
    L += ["## Wall time of each part", "", "| part | seconds |", "|---|---:|"]
    for k, v in res["seconds"].items():
        L.append(f"| {k} | {v:.0f} |")
    return "\n".join(L) + "\n"


def kernel_power_section(kp: dict) -> list[str]:
    """The power-per-kernel table of one SM (ppa/kernelpower.py's result)."""
    L = [
        f"## Power per kernel, {kp['sm']} at its Fmax {kp['fmax_mhz']:.1f} MHz",
        "",
        f"Kind: {kp['kind']}. Activity duty {kp['duty']} where propagated. Launches on "
        f"{kp['simulated_machine']}. Time = RTL cycles / Fmax; power = energy / time.",
        "",
        "| launch | kind | cycles | time (µs) | power (mW) | energy (µJ) | pJ per thread-instr | internal / switching / clock / leakage (nJ) | nets simulated | registers at module mean |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in kp["rows"]:
        e = r["energy_pj"]
        n = r["nets"]
        L.append(
            f"| {r['name']} | {r['kind']} | {r['cycles']:,} | {r['time_us']:.2f} | {r['total_mw']:.2f} | "
            f"{r['energy_uj']:.4f} | {r['pj_per_thread_instr']:.1f} | {e['internal'] / 1e3:.1f} / "
            f"{e['switching'] / 1e3:.1f} / {e['clock'] / 1e3:.1f} / {e['leakage'] / 1e3:.2f} | "
            f"{n['simulated']:,} | {n['registers_at_module_mean']:,} |"
        )
    rf = kp.get("refit")
    if rf and "pj_per_event" in rf:
        L += [
            "",
            "Per-event model (ppa/power.py's events) refitted on this gate-level energy: relative NNLS on the "
            f"micro-kernels and empty launches, validated on the held-out benchmark kernels: geomean |error| "
            f"{rf['geomean_abs']:.1%}, MAPE {rf['mape']:.1%}, worst {rf['worst']} {rf['errors'][rf['worst']]:+.1%}.",
            "",
            "| event | pJ per event (fitted) |",
            "|---|---:|",
            *[f"| {e} | {v:.3f} |" for e, v in rf["pj_per_event"].items()],
            "",
            "| held-out kernel | error |",
            "|---|---:|",
            *[f"| {k} | {v:+.1%} |" for k, v in rf["errors"].items()],
        ]
    elif rf:
        L += ["", f"Per-event refit: not done ({rf.get('error')})."]
    return [*L, ""]


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default="lanes", choices=["lanes", "all"])
    ap.add_argument(
        "--jobs", type=int, default=1, help="Yosys/OpenSTA runs at a time (default 1: each takes GBs)"
    )
    ap.add_argument(
        "--unbuffered", action="store_true", help="time ABC's netlist without ppa/fanout.py's buffer trees"
    )
    ap.add_argument("--no-chain", action="store_true")
    ap.add_argument("--no-sm", action="store_true", help="units alone only (no whole-SM STA)")
    ap.add_argument(
        "--lanes", default="", help="only these lane counts, e.g. 8,32 (default: all of --configs)"
    )
    ap.add_argument(
        "--power-lanes",
        default="8",
        help="power per kernel (ppa/kernelpower.py) on these SMs, e.g. 8,32; '' for none (default 8)",
    )
    ap.add_argument("--power-kernels", default="all", choices=["all", "bench", "micro"])
    ap.add_argument("--sta-power", action="store_true", help=__import__("ppa.sta").sta.STA_POWER_HELP)
    args = ap.parse_args(argv)
    from ppa import chaincheck, charlib, sta, timedlib

    OUT.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    t = time.monotonic()
    try:
        lib, macros, label = sta.libraries()
    except (charlib.CharError, timedlib.LibertyReadError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    seconds["library (cached or characterized)"] = time.monotonic() - t
    data_path = lib.parent / "data.json"
    char_s = json.loads(data_path.read_text())["seconds"] if data_path.is_file() else 0.0
    res: dict = {"library": {"label": label, "path": str(lib), "seconds": char_s}, "seconds": seconds}
    if timedlib.user_liberty() is None and not args.no_chain:
        t = time.monotonic()
        if chaincheck.main([]) == 0:
            res["chain"] = json.loads((chaincheck.OUT / "chain.json").read_text())
        seconds["chain check"] = time.monotonic() - t
        res["published"] = published_rows(lib)
    t = time.monotonic()
    from concurrent.futures import ProcessPoolExecutor

    from ppa.config import lanes_sweep

    lane_cfgs = [c for c in lanes_sweep(True) if not args.lanes or str(c.num_lanes) in args.lanes.split(",")]
    from ppa.config import machine

    # the ALU has no parameters: one synthesis (the default SM's) serves every lane count
    buffer = not args.unbuffered
    jobs = [(machine("L8-W16-R512-B8"), "simt_alu", buffer)] + [
        (c, "simt_shared_lsu", buffer) for c in lane_cfgs
    ]
    try:
        with ProcessPoolExecutor(max_workers=max(1, min(args.jobs, len(jobs)))) as ex:
            res["units_alone"] = list(ex.map(sta.analyse_unit, jobs))
    except (sta.StaError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    seconds["units alone: synthesis + OpenSTA"] = time.monotonic() - t
    _save(res)
    if args.no_sm:
        return 0
    t = time.monotonic()
    cfgs = configs(args.configs)
    if args.lanes:
        keep = {int(x) for x in args.lanes.split(",")}
        cfgs = [c for c in cfgs if c.num_lanes in keep]
    try:
        with ProcessPoolExecutor(max_workers=max(1, min(args.jobs, len(cfgs)))) as ex:
            power = args.sta_power or sta.sta_power_default()
            res["sta"] = list(ex.map(functools.partial(sta.analyse_config, buffer=buffer, power=power), cfgs))
    except (sta.StaError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    seconds["synthesis + OpenSTA"] = time.monotonic() - t
    res["fmax"] = {r["name"]: r["fmax_mhz"] for r in res["sta"]}
    _save(res)
    if args.power_lanes:
        from ppa import kernelpower

        t = time.monotonic()
        res["kernel_power"] = [
            kernelpower.measure(int(n), args.power_kernels) for n in args.power_lanes.split(",")
        ]
        seconds["power per kernel (activity runs + OpenSTA)"] = time.monotonic() - t
        _save(res)
    for r in res["sta"]:
        c = r["critical"]
        print(
            f"timing: {r['name']}: Fmax {r['fmax_mhz']:.1f} MHz, critical {c['start_unit']} -> {c['end_unit']}"
        )
    print(f"timing: report {OUT / 'report.md'}; docs/ppa.md's tables: python -m ppa.timing_docs --collect")
    return 0


def _save(res: dict) -> None:
    (OUT / "timing.json").write_text(json.dumps(res, indent=1))
    (OUT / "report.md").write_text(report(res))


def fmax_of(sm_name: str) -> float | None:
    """Fmax (MHz) of an SM configuration from the last `make ppa-timing`, or None."""
    path = OUT / "timing.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text()).get("fmax", {}).get(sm_name)


if __name__ == "__main__":
    cli.run(main)
