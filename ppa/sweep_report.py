"""The report of `make ppa-sweep` (ppa/sweep.py): tables and figures in build/ppa/sweep/."""

from __future__ import annotations

import math
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "build" / "ppa" / "sweep"


def _geo(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def common_cases(results: list[dict]) -> list[tuple[str, int]]:
    """(kernel, size) cases every configuration ran: the set perf/area and perf/energy compare on."""
    sets = [{(r["kernel"], r["size"]) for r in c["rows"]} for c in results]
    return sorted(set.intersection(*sets)) if sets else []


def summary_rows(results: list[dict]) -> list[dict]:
    common = common_cases(results)
    out = []
    for c in results:
        by = {(r["kernel"], r["size"]): r for r in c["rows"]}
        rows = [by[k] for k in common]
        pred = _geo([r["predicted"] for r in rows])
        rtl = _geo([r["rtl"] for r in rows]) if all(r["rtl"] for r in rows) else None
        errs = [abs(r["predicted"] / r["rtl"] - 1) for r in c["rows"] if r["rtl"]]
        energy = _geo([r["energy"] for r in rows]) if all(r.get("energy") for r in rows) else None
        mm2 = c["area"]["gpu_mm2"]
        cyc = rtl or pred
        fmax = c.get("fmax_mhz")
        out.append(
            {
                "name": c["name"],
                "sms": c["config"]["sms"],
                "mm2": mm2,
                "logic": c["area"]["logic_mm2"],
                "macro": c["area"]["macro_mm2"],
                "cases": len(c["rows"]),
                "skipped": len(c["skipped"]),
                "pred": pred,
                "rtl": rtl,
                "err": _geo([max(e, 1e-4) for e in errs]) if errs else None,
                "perf_area": 1e6 / (cyc * mm2),
                "energy": energy,
                "perf_energy": 1e12 / (cyc * energy) if energy else None,
                "fmax": fmax,
                "time_us": cyc / fmax if fmax else None,
            }
        )
    return out


def plots(results: list[dict], summary: list[dict]) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    names = [s["name"] for s in summary]
    made = []
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.bar(range(len(names)), [s["perf_area"] for s in summary], color="tab:blue")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("launches per 10⁶ cycles per mm²\n(geomean over the common cases)")
    ax.set_title("Performance per area (RTL cycles; area synthesised + modelled macros)")
    fig.tight_layout()
    fig.savefig(OUT / "perf_area.png", dpi=110)
    plt.close(fig)
    made.append("perf_area.png")
    if all(s["energy"] for s in summary):
        fig, ax = plt.subplots(figsize=(6.5, 5))
        for s in summary:
            ax.scatter(s["energy"], 1e6 / (s["rtl"] or s["pred"]), s=30)
            ax.annotate(s["name"], (s["energy"], 1e6 / (s["rtl"] or s["pred"])), fontsize=6)
        ax.set_xscale("log")
        ax.set_xlabel("modelled energy per launch, µm²·toggles (geomean)")
        ax.set_ylabel("launches per 10⁶ cycles (geomean)")
        ax.set_title("Performance vs energy (energy modelled, fitted on RTL toggles)")
        fig.tight_layout()
        fig.savefig(OUT / "perf_energy.png", dpi=110)
        plt.close(fig)
        made.append("perf_energy.png")
    pts = [(r["rtl"], r["predicted"], c["config"]["lanes"]) for c in results for r in c["rows"] if r["rtl"]]
    if pts:
        fig, ax = plt.subplots(figsize=(5.5, 5.5))
        for lanes, color in ((4, "tab:purple"), (8, "tab:blue"), (16, "tab:green"), (32, "tab:red")):
            xs = [p[0] for p in pts if p[2] == lanes]
            ys = [p[1] for p in pts if p[2] == lanes]
            ax.scatter(xs, ys, s=10, color=color, label=f"{lanes} lanes")
        lo, hi = min(min(p[0], p[1]) for p in pts), max(max(p[0], p[1]) for p in pts)
        ax.plot([lo, hi], [lo, hi], color="grey", linestyle=":", label="y = x")
        ax.plot([lo, hi], [lo * 0.9, hi * 0.9], color="grey", linewidth=0.5)
        ax.plot([lo, hi], [lo * 1.1, hi * 1.1], color="grey", linewidth=0.5, label="±10 %")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("RTL cycles (Verilator)")
        ax.set_ylabel("modelled cycles (ppa/perf.py)")
        ax.legend(fontsize=8)
        ax.set_title("Cycle model vs RTL, every sweep case")
        fig.tight_layout()
        fig.savefig(OUT / "pred_vs_rtl.png", dpi=110)
        plt.close(fig)
        made.append("pred_vs_rtl.png")
    return made


def energy_lines(fits: dict[int, dict]) -> list[str]:
    """The energy model's held-out errors per lane count and weighting, and the reference energy per
    thread-instruction per lane doubling beside Lies 2019 Table 5.3's power column. ``fits``: lanes ->
    the "fits" of build/ppa/power/L<n>.json (ppa/power.py)."""
    from ppa import trend

    if not fits:
        return []
    lanes = sorted(fits)
    labels = list(fits[lanes[0]])
    lines = [
        "",
        "## Energy model (ppa/power.py): held-out kernels, modelled vs RTL toggle proxy",
        "",
        "| weighting | " + " | ".join(f"{n} lanes geomean abs(error) | {n} lanes MAPE" for n in lanes) + " |",
        "|---|" + "---:|---:|" * len(lanes),
    ]
    for label in labels:
        cells = [f"{fits[n][label]['geomean_abs']:.1%} | {fits[n][label]['mape']:.1%}" for n in lanes]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    per_ti = {
        label: {n: _geo(list(fits[n][label]["per_thread_instr"].values())) for n in lanes}
        for label in labels
        if all("per_thread_instr" in fits[n][label] for n in lanes)
    }
    if per_ti and len(lanes) > 1:
        lines += [
            "",
            "Reference energy per thread-instruction (geomean over the held-out kernels; measured toggles x "
            "synthesised areas, µm²·toggles) per lane doubling, beside [Lies 2019] Table 5.3's change of the "
            "total power per processor (published, 65 nm, 300 MHz; a different quantity, the trend compared):",
            "",
            "| lanes | "
            + " | ".join(f"{label}: per thread-instr (n → 2n) | change" for label in per_ti)
            + " | Table 5.3 power per processor |",
            "|---|" + "---:|---:|" * len(per_ti) + "---:|",
        ]
        tables = {label: trend.energy_doubling_table(v) for label, v in per_ti.items()}
        first = next(iter(tables.values()))
        for i, row in enumerate(first):
            a, b = row["from"], row["to"]
            cells = [
                f"{per_ti[label][a]:,.0f} → {per_ti[label][b]:,.0f} | {tables[label][i]['change']:+.0%}"
                for label in per_ti
            ]
            seed = "" if row["seed000"] is None else f"{row['seed000']:+.0%}"
            lines.append(f"| {a}→{b} | " + " | ".join(cells) + f" | {seed} |")
    return lines


def write(
    results: list[dict],
    seconds: float,
    cold: dict | None = None,
    wall: dict | None = None,
    jobs: int = 1,
    fits: dict[int, dict] | None = None,
) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    summary = summary_rows(results)
    common = common_cases(results)
    errs = [r["predicted"] / r["rtl"] - 1 for c in results for r in c["rows"] if r["rtl"]]
    lines = [
        "# PPA sweep (make ppa-sweep)",
        "",
        f"{len(results)} configurations in {seconds / 60:.1f} min wall. Area: synthesised logic (Yosys, sky130 cell "
        "areas) + modelled memory macros, GPU = top + SMs x SM. Cycles: RTL = Verilator, modelled = ppa/perf.py. "
        "Energy: modelled from per-event energies fitted on RTL toggles (µm²·toggles, a proxy, not joules).",
        "",
        f"Common cases (every configuration ran them, the geomeans below): {', '.join(f'{k}/{n}' for k, n in common)}.",
        "",
        "| configuration | SMs | area mm² | logic mm² (per SM) | macros mm² (per SM) | cases (skipped) | cycles RTL (geomean) "
        "| cycles model (geomean) | model abs(error) (geomean, all cases) | perf/area | energy (geomean, µm²·toggles) "
        "| perf/energy | Fmax MHz (OpenSTA) | time µs (geomean) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]  # fmt: skip
    for s in summary:
        err = "" if s["err"] is None else f"{s['err']:.1%}"
        energy = "" if s["energy"] is None else f"{s['energy']:.3g}"
        perf_energy = "" if s["perf_energy"] is None else f"{s['perf_energy']:.3g}"
        rtl = "" if s["rtl"] is None else f"{s['rtl']:,.0f}"
        fmax = "" if s["fmax"] is None else f"{s['fmax']:.1f}"
        time_us = "" if s["time_us"] is None else f"{s['time_us']:.2f}"
        lines.append(
            f"| {s['name']} | {s['sms']} | {s['mm2']:.2f} | {s['logic']:.2f} | {s['macro']:.2f} | "
            f"{s['cases']} ({s['skipped']}) | {rtl} | {s['pred']:,.0f} | {err} | {s['perf_area']:.3g} | "
            f"{energy} | {perf_energy} | {fmax} | {time_us} |"
        )
    if errs:
        geo = _geo([max(abs(e), 1e-4) for e in errs])
        worst = sorted(
            (
                (r["predicted"] / r["rtl"] - 1, c["name"], r["kernel"], r["size"])
                for c in results
                for r in c["rows"]
                if r["rtl"]
            ),
            key=lambda t: -abs(t[0]),
        )[:8]
        lines += [
            "",
            f"Cycle model over all {len(errs)} sweep cases: geomean abs(error) **{geo:.1%}**, mean abs(error) "
            f"{sum(map(abs, errs)) / len(errs):.1%}.",
            "",
            "Worst cases: " + "; ".join(f"{n} {k}/{sz} {e:+.1%}" for e, n, k, sz in worst) + ".",
        ]
    lines += [
        "",
        "perf/area: launches per 10⁶ cycles per mm² (geomean over the common cases, RTL cycles). perf/energy: "
        "launches per 10⁶ cycles per 10⁶ µm²·toggles. Fmax: the SM's register-to-register Fmax from OpenSTA "
        "with the characterized sky130 Liberty (make ppa-timing; synthesised + characterized, pre-layout, no "
        "wires; empty when not run for that SM); time µs = cycles (RTL, else modelled) / Fmax.",
    ]
    skipped = [f"{c['name']}: {s}" for c in results for s in c["skipped"]]
    if skipped:
        lines += ["", "Cases that do not fit a configuration (the loader's verdict):", ""] + [
            f"- {s}" for s in skipped
        ]
    lines += ["", "| configuration | area s | cycles s | energy s |", "|---|---:|---:|---:|"]
    lines += [
        f"| {c['name']} | {c['seconds']['area']:.0f} | {c['seconds']['cycles']:.0f} | {c['seconds']['energy']:.0f} |"
        for c in results
    ]
    if cold:
        lines += [
            "",
            "Cold cost (each step's own recorded wall time when it ran uncached; synthesis of an SM "
            "shared by several configurations counted once): "
            + ", ".join(f"{k} {v / 60:.1f} min" for k, v in cold.items())
            + f"; total **{sum(cold.values()) / 60:.1f} min** of runs. This run: {seconds:.0f} s.",
        ]
    if wall:
        lines += [
            "",
            f"This run filled the caches {jobs} jobs at a time (wall time per phase): "
            + ", ".join(f"{k} {v / 60:.1f} min" for k, v in wall.items())
            + f"; the whole run **{seconds / 60:.1f} min** of wall time.",
        ]
    lines += energy_lines(fits or {})
    for fig in plots(results, summary):
        lines += ["", f"![{fig}]({fig})"]
    path = OUT / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path
