"""Power per kernel in watts (issue 28): simulated register activity on the mapped netlist, OpenSTA's power.

    python -m ppa.kernelpower [--lanes 8] [--kernels all|bench|micro]

Method (the industry's "RTL simulation activity, supplemented by vectorless estimation", e.g. Intel's
Power Analyzer guide, docs/references.md#intel-power-activity):

1. **Simulated activity.** Each launch runs on the toggle-coverage raw bench (ppa/toggles.py, Verilator
   ``--coverage-toggle``): every bit of every RTL signal of SM 0, its 0->1 and 1->0 transitions.
2. **Mapped onto the netlist by name.** The timed netlist (ppa/netlist.py, buffered by ppa/fanout.py)
   keeps the RTL name of every net Yosys did not rename: every flip-flop output and many decoded or
   registered signals. A netlist net whose ``<instance path>/<signal bit>`` is an RTL bit of the run gets
   that bit's activity (toggles / cycles, transitions per clock) on its driving cell pin
   (``set_power_activity -pins``; duty 0.5, stated: toggle coverage does not give the time high). The SM's
   input ports get theirs the same way (``-input_ports``).
3. **Sequential outputs without a name** (flip-flops of flattened arrays, the memory boundaries' read data)
   get the mean activity of the annotated flip-flops of their own module (stated rule; the count is in the
   report), so that no register falls back to OpenSTA's default.
4. **Everything else is propagated** by OpenSTA 2.0.17 through the cells' functions (modelled, not
   simulated: glitches are not counted, correlations are ignored).
5. ``report_power`` at the clock period 1/Fmax: internal (the Liberty's internal energies), switching
   (½·C·V² of each net's pin load: pre-layout, no wires), leakage. Energy of the launch = total power ×
   cycles / Fmax. **Logic only:** the memory macros' arrays (register file, shared memory, …) are
   registered boundaries here, their access energy is not included (no cited sky130 per-access energy).

Kind of every number: power *modelled* by OpenSTA from *simulated* register activity on a *synthesised*
netlist timed with the *characterized* Liberty; pre-layout, no wires, ideal clock (the clock pins'
energy counted, no clock tree).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa import fanout  # noqa: E402
from spec import cli  # noqa: E402

OUT = ROOT / "build" / "ppa" / "kernelpower"
DUTY = 0.5
SEQ_OUT = {"Q"}  # output pins of the sequential cells (dfxtp_1, simt_macro_out)


def _esc(name: str) -> str:
    """One OpenSTA path component: brackets of generated names escaped (``gen\\[0\\]``)."""
    return name.replace("[", "\\[").replace("]", "\\]")


def _plain(net: str) -> str:
    return net[1:] if net.startswith("\\") else net


@dataclass
class Site:
    """A netlist net the run's activity can be put on: its driving pin, and the RTL bit it is named for."""

    module: str
    pin: str  # OpenSTA pin path of the driving cell's output (escaped)
    key: str  # <path below the SM>/<signal bit>, as ppa/toggles.py sm_bit_toggles keys them
    sequential: bool


@dataclass
class SiteMap:
    sites: list[Site] = field(default_factory=list)
    ports: dict[str, str] = field(default_factory=dict)  # top input port (escaped) -> key
    unnamed_seq: list[tuple[str, str]] = field(default_factory=list)  # (module, pin) of unnamed registers


def instance_paths(mods: dict[str, fanout.Module], top: str) -> list[tuple[str, list[str]]]:
    """(module, [instance names from the top]) of every module instance below *top*, the top included."""
    out: list[tuple[str, list[str]]] = []

    def walk(mod: str, path: list[str]) -> None:
        out.append((mod, path))
        for it in mods[mod].insts:
            if it.type in mods:
                walk(it.type, [*path, it.name])

    walk(top, [])
    return out


def sites(mods: dict[str, fanout.Module], top: str, cells: dict[str, set[str]]) -> SiteMap:
    """Every cell-driven net of every module instance, keyed as the RTL coverage keys its bit.
    *cells*: cell type -> its output pins (the Liberty's)."""
    sm = SiteMap()
    for mod, path in instance_paths(mods, top):
        names = [_plain(p) for p in path]
        prefix = ".".join(names)  # Verilator's hierarchy below the SM joins instance names with '.'
        stapath = "/".join(_esc(p) for p in names)
        for it in mods[mod].insts:
            outs = cells.get(it.type)
            if outs is None or it.name.startswith("_fo_buf_"):
                continue
            for pin, expr, _ in it.conns:
                if pin not in outs or not fanout._single(expr):
                    continue
                net = _plain(expr)
                inst = _esc(_plain(it.name))
                where = f"{stapath}/{inst}/{pin}" if stapath else f"{inst}/{pin}"
                seq = pin in SEQ_OUT
                if net.startswith("_") and net.endswith("_"):  # a Yosys-generated name: no RTL bit
                    if seq:
                        sm.unnamed_seq.append((mod, where))
                    continue
                sm.sites.append(Site(mod, where, _key(prefix, net), seq))
    for p in mods[top].inputs:
        if p not in fanout.CLOCK_PINS:  # the clock's activity is its own (two transitions a period)
            sm.ports[_esc(_plain(p))] = _key("", _plain(p))
    return sm


def _key(prefix: str, net: str) -> str:
    """``u_issue/dec_txns[0]``: a net ``a.b.sig[3]`` of a generate block is the coverage point ``sig[3]``
    of scope ``a.b``."""
    scope, _, sig = net.rpartition(".")
    below = ".".join(x for x in (prefix, scope) if x)
    return f"{below}/{sig}"


@dataclass
class Annotation:
    lines: list[str]
    named: int  # sites whose RTL bit was simulated
    named_seq: int
    unnamed_seq: int  # registers given their module's mean
    ports: int
    missing: int  # named sites with no simulated bit (renamed by synthesis or not instrumented)


def annotate(sm: SiteMap, bits: dict[str, int], cycles: int) -> Annotation:
    """``set_power_activity`` lines for one run (activity = toggles / cycles)."""
    lines: list[str] = []
    per_mod: dict[str, list[float]] = defaultdict(list)
    at_mean: list[tuple[str, str]] = list(sm.unnamed_seq)  # (module, pin) of registers without a bit
    named = named_seq = missing = ports = 0
    for s in sm.sites:
        t = bits.get(s.key)
        if t is None:
            missing += 1
            if s.sequential:
                at_mean.append((s.module, s.pin))
            continue
        a = t / cycles
        named += 1
        if s.sequential:
            named_seq += 1
            per_mod[s.module].append(a)
        lines.append(f"set_power_activity -pins [get_pins {{{s.pin}}}] -activity {a:.6g} -duty {DUTY}")
    for port, key in sm.ports.items():
        t = bits.get(key)
        if t is not None:
            ports += 1
            lines.append(
                f"set_power_activity -input_ports [get_ports {{{port}}}] -activity {t / cycles:.6g} -duty {DUTY}"
            )
    everything = [a for v in per_mod.values() for a in v]
    overall = sum(everything) / len(everything) if everything else 0.0
    for mod, pin in at_mean:
        v = per_mod.get(mod)
        a = sum(v) / len(v) if v else overall
        lines.append(f"set_power_activity -pins [get_pins {{{pin}}}] -activity {a:.6g} -duty {DUTY}")
    return Annotation(lines, named, named_seq, len(at_mean), ports, missing)


def script(libs: list[Path], netlist: Path, top: str, period: float, runs: list[tuple[str, Path]]) -> str:
    """One OpenSTA session: read once, then per run its activity file and ``report_power``."""
    lines = [
        *[f"read_liberty {p}" for p in libs],
        f"read_verilog {netlist}",
        f"link_design {top}",
        f"create_clock -name clk -period {period:.4f} [get_ports clk]",
        "set_input_transition 0.1 [all_inputs]",
    ]
    for name, act in runs:
        lines += [f"source {act}", f"report_power -digits 6 > {act.with_suffix('.rpt')}"]
        del name
    lines.append("exit")
    return "\n".join(lines) + "\n"


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


def finish_row(row: dict, power: dict[str, dict[str, float]], fmax_mhz: float) -> dict:
    """A launch's time, power and energy from its ``report_power`` groups (W) at *fmax_mhz*:
    time = cycles / Fmax, energy = total power × time."""
    total_w = power["Total"]["total"]
    seconds = row["cycles"] / (fmax_mhz * 1e6)
    row.update(
        power_w=power,
        total_mw=total_w * 1e3,
        time_us=seconds * 1e6,
        energy_uj=total_w * seconds * 1e6,
        pj_per_thread_instr=total_w * seconds * 1e12 / max(1, row["thread_instrs"]),
    )
    return row


def measure(lanes: int, which: str = "all", log=print) -> dict:
    from ppa import sta, timedlib, toggles
    from ppa.config import Config
    from ppa.perf import count_all
    from ppa.power import events_of
    from ppa.rtlcycles import LATENCY

    cfg_syn = Config(lanes=lanes, banks=lanes, rf_depth=4096 // lanes)
    timing = sta.analyse_config(cfg_syn, log)
    fmax = timing["fmax_mhz"]
    lib, macros, label = sta.libraries(log)
    from ppa import netlist
    from ppa.yosys import find

    net = netlist.timed(find(), cfg_syn, macros, log)
    net, _ = fanout.buffered(net, [lib, macros], "simt_sm", log)
    mods = fanout.parse(net.read_text())
    outs = {}
    for p in (lib, macros):
        for name, c in timedlib.cells_of(timedlib.read(p)).items():
            outs[name] = set(c.outputs)
    smap = sites(mods, "simt_sm", outs)
    work = OUT / f"L{lanes}"
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    runs = []
    t0 = time.monotonic()
    for name, kind, mcfg, img in launches(lanes, which):
        r = toggles.run(mcfg, img.to_words(), LATENCY, per_bit=True)
        ev, counters = count_all(mcfg, img, r["order"])
        ann = annotate(smap, r["bit_toggles"], r["cycles"])
        act = work / (re.sub(r"[^\w@.-]", "_", name) + ".tcl")
        act.write_text("\n".join(ann.lines) + "\n")
        runs.append((name, act))
        rows.append({
            "name": name, "kind": kind, "cycles": r["cycles"], "warp_instrs": r["warp_instrs"],
            "thread_instrs": counters["thread_instrs"], "events": events_of(counters, ev, r["cycles"]),
            "annotated": {"named": ann.named, "named_registers": ann.named_seq, "registers_at_module_mean": ann.unnamed_seq,
                          "input_ports": ann.ports, "named_not_simulated": ann.missing},
        })  # fmt: skip
        log(
            f"  activity {name}: {r['cycles']} cycles, {ann.named} named nets, {ann.unnamed_seq} registers at the mean"
        )
    sim_s = time.monotonic() - t0
    tcl = work / "power.tcl"
    tcl.write_text(script([lib, macros], net, "simt_sm", 1000.0 / fmax, runs))
    t1 = time.monotonic()
    sta.run_sta(tcl, work / "power.log")
    sta_s = time.monotonic() - t1
    for row, (_, act) in zip(rows, runs):
        p = sta.parse_power(act.with_suffix(".rpt"))
        if not p or "Total" not in p:
            raise sta.StaError(f"no report_power total in {act.with_suffix('.rpt')}")
        finish_row(row, p, fmax)
    res = {
        "lanes": lanes,
        "sm": cfg_syn.sm_only().name,
        "simulated_machine": "ppa.rtlcycles.machine(lanes): RF 1024 rows, 2048 shared words (names match the synthesised SM's)",
        "fmax_mhz": fmax,
        "library": label,
        "tool": sta.sta_version(),
        "duty": DUTY,
        "rows": rows,
        "seconds": {"activity runs": sim_s, "OpenSTA power": sta_s},
        "kind": "modelled power (OpenSTA) from simulated register activity, synthesised netlist, characterized "
        "Liberty; pre-layout, no wires, logic only (memory arrays not included)",
    }
    kinds = {r["kind"] for r in rows}
    if {"micro", "kernel"} <= kinds:
        from ppa.energy import FitError

        try:
            res["refit"] = refit(rows)
        except FitError as err:  # too few launches for every event: say so in the report, keep the rest
            res["refit"] = {"error": str(err)}
    (work / "kernelpower.json").write_text(json.dumps(res, indent=1))
    return res


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
