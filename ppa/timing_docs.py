"""docs/ppa.md's timing and power tables, written from a checked-in results file (issue 28).

    python -m ppa.timing_docs --collect      # build/ppa/{sta,kernelpower,chain,coldrun,cache} -> docs/ppa/timing.json
    python -m ppa.timing_docs --write        # docs/ppa/timing.json -> docs/ppa.md's generated tables
    python -m ppa.timing_docs --check        # exit 1 when docs/ppa.md's tables differ from docs/ppa/timing.json

``--collect`` gathers what the last `make ppa-timing` / `python -m ppa.coldrun` left under build/ppa: per SM
configuration its Fmax, minimum period, critical path (start/end unit, units it passes, cells) and the
worst path into each unit; cells, buffers and areas (logic from make ppa's synthesis, macros modelled by
ppa/memory.py); the Liberty-vs-SPICE chain error; the power per kernel at Fmax; the per-module energy
model's comparison (ppa/modpower.py's modpower.json); the cold run's per-part times; and the Table 5.2
row of the Tesla configuration (16 × the 8-lane SM) beside the seed's figures scaled by a cited rule.
It merges into docs/ppa/timing.json (a configuration measured before and not now is kept, with its own
date). ``--write`` renders every table between the ``<!-- timing-docs:NAME -->`` and
``<!-- /timing-docs:NAME -->`` markers of docs/ppa.md (sections without markers are added after the
``<!-- timing-results -->`` anchor); ``--check`` (a `make model` test) says which tables no longer match.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "docs" / "ppa" / "timing.json"
DOC = ROOT / "docs" / "ppa.md"
BUILD = ROOT / "build" / "ppa"
ANCHOR = "<!-- timing-results -->"
TESLA_SMS = 16  # Lies 2019 Table 5.1: 16 SMs of 8 lanes
TESLA_LANES = 8
TESLA_KERNEL = "matrixmul/32"  # the named kernel of the Table 5.2 row (the largest of the nine)

# Lies 2019 (seed 000) Table 5.2, 65 nm (published), and the rule that takes it to sky130's 130 nm:
# Dennard 1974 constant-field scaling by kappa = 130/65 = 2: delay x kappa (frequency / 2), area x kappa^2,
# power per circuit x kappa^2 (V and I each x kappa) at the scaled frequency.
SEED = {
    "source": "Lies 2019 (seed 000) Table 5.2, 65 nm; docs/references.md#lies-2019",
    "cells_m": 4.912,
    "mhz": 300.0,
    "mhz_valid": 700.0,
    "area_mm2": 25.41,
    "power_w": 11.55,
}
KAPPA = 130 / 65
SCALING = (
    "Dennard 1974 constant-field scaling (docs/references.md#dennard-1974), kappa = 130/65 = 2: "
    "frequency / kappa, area x kappa^2, power per circuit x kappa^2 at the scaled frequency"
)


class DocsError(RuntimeError):
    """A results file or a docs section is missing or malformed."""


# ----------------------------------------------------------------------------- collect


def _newest(paths: list[Path]) -> Path | None:
    return max(paths, key=lambda p: p.stat().st_mtime) if paths else None


def _areas(cache: Path, name: str) -> dict:
    """Logic and modelled macro area (µm²) of SM *name* from make ppa's cached synthesis result."""
    from ppa import tables

    res = _newest(list(cache.glob(f"sm-{name}-*/result.json")))
    if res is None:
        return {}
    rows = tables.unit_rows(json.loads(res.read_text()))
    return {
        "logic_um2": round(sum(r.logic_um2 for r in rows.values()), 1),
        "macro_um2": round(sum(r.macro_um2 for r in rows.values()), 1),
    }


def _buffer_area(buffers: dict[str, int]) -> float:
    from ppa import liberty

    cells = liberty.load_cells(buffers=True)
    return round(sum(n * cells[b.removeprefix(liberty.PREFIX)].area for b, n in buffers.items()), 1)


def collect_sta(sta_dir: Path, cache: Path) -> dict[str, dict]:
    """Per SM name, the newest whole-SM OpenSTA result (ppa/sta.py ``analyse_config``), condensed."""
    by_name: dict[str, list[Path]] = {}
    for p in sta_dir.glob("*/sta.json"):
        r = json.loads(p.read_text())
        if "unit" in r or "name" not in r:
            continue  # a unit alone: collect_units
        by_name.setdefault(r["name"], []).append(p)
    out = {}
    for name, paths in by_name.items():
        path = _newest(paths)
        assert path is not None
        r = json.loads(path.read_text())
        c = r["critical"]
        buf = (r.get("buffering") or {}).get("buffers", {})
        out[name] = {
            "when": time.strftime("%Y-%m-%d", time.gmtime(path.stat().st_mtime)),
            "lanes": r["config"]["lanes"],
            "cells": r["cells"],
            "buffers": sum(buf.values()),
            "buffer_um2": _buffer_area(buf) if buf else 0.0,
            **_areas(cache, name),
            "min_period_ns": round(r["min_period_ns"], 4),
            "fmax_mhz": round(r["fmax_mhz"], 2),
            "critical": {
                "start_unit": c["start_unit"],
                "end_unit": c["end_unit"],
                "through": c.get("through", []),
                "cells": len(c["cells"]),
                "startpoint": c["startpoint"],
                "endpoint": c["endpoint"],
            },
            "units": {
                u: {
                    "delay_ns": round(v["delay_ns"], 3),
                    "start_unit": v.get("start_unit"),
                    "through": v.get("through", []),
                }
                for u, v in r["units"].items()
            },
            "tool": r.get("tool"),
            "library": r.get("library"),
            "sta_power": r.get("sta_power", False),
        }
    return out


def collect_units(sta_dir: Path) -> dict[str, dict]:
    """Per ``unit@SM``, the newest unit-alone OpenSTA result (ppa/sta.py ``analyse_unit``), condensed."""
    by_key: dict[str, list[Path]] = {}
    for p in sta_dir.glob("*/sta.json"):
        r = json.loads(p.read_text())
        if "unit" in r and "delay_ns" in r:
            by_key.setdefault(f"{r['unit']}@{r['config']}", []).append(p)
    out = {}
    for k, paths in sorted(by_key.items()):
        path = _newest(paths)
        assert path is not None
        r = json.loads(path.read_text())
        out[k] = {
            "when": time.strftime("%Y-%m-%d", time.gmtime(path.stat().st_mtime)),
            "unit": r["unit"],
            "lanes": r["lanes"],
            "delay_ns": round(r["delay_ns"], 3),
            "cells_on_path": len(r["path"]["cells"]),
            "buffers": sum(((r.get("buffering") or {}).get("buffers") or {}).values()),
        }
    return out


def collect_power(kp_dir: Path) -> dict[str, dict]:
    """Per SM name, ppa/kernelpower.py's power per launch, condensed."""
    out = {}
    for p in sorted(kp_dir.glob("L*/kernelpower.json")):
        r = json.loads(p.read_text())
        out[r["sm"]] = {
            "when": time.strftime("%Y-%m-%d", time.gmtime(p.stat().st_mtime)),
            "lanes": r["lanes"],
            "fmax_mhz": round(r["fmax_mhz"], 2),
            "kind": r["kind"],
            "netlist": r["netlist"],
            "rows": [
                {
                    "name": x["name"],
                    "kind": x["kind"],
                    "cycles": x["cycles"],
                    "time_us": round(x["time_us"], 2),
                    "energy_uj": round(x["energy_uj"], 4),
                    "power_mw": round(x["total_mw"], 2),
                    "pj_per_thread_instr": round(x["pj_per_thread_instr"], 1),
                    "clock_share": round(x["energy_pj"]["clock"] / sum(x["energy_pj"].values()), 3),
                }
                for x in r["rows"]
                if x["kind"] != "micro"  # the refit's own launches: summarised by the refit below
            ],
        }
        fit = r.get("refit")
        if fit and "error" not in fit:
            out[r["sm"]]["refit"] = {
                "pj_per_event": {k: round(v, 3) for k, v in fit["pj_per_event"].items()},
                "same": fit["same"],
                "errors": {k: round(v, 4) for k, v in fit["errors"].items()},
                "geomean_abs": round(fit["geomean_abs"], 4),
                "mape": round(fit["mape"], 4),
                "worst": fit["worst"],
                "fitted_on": len(fit["fitted_on"]),
            }
    return out


def collect_modpower(kp_dir: Path) -> dict[str, dict]:
    """Per SM name, ppa/modpower.py's comparison of the whole-SM and per-module models (its
    ``modpower.json``, already rounded by ``modpower.summary``), dated."""
    out = {}
    for p in sorted(kp_dir.glob("L*/modpower.json")):
        r = json.loads(p.read_text())
        if "sm" not in r:  # written before modpower kept its SM's name: rerun python -m ppa.modpower
            continue
        out[r.pop("sm")] = {"when": time.strftime("%Y-%m-%d", time.gmtime(p.stat().st_mtime)), **r}
    return out


def table52(sms: dict, power: dict) -> dict | None:
    """The Tesla configuration (16 × the 8-lane SM; the GPU top's own logic not included) beside the seed."""
    sm = next((v for v in sms.values() if v["lanes"] == TESLA_LANES), None)
    if sm is None or "logic_um2" not in sm:
        return None
    name = next(k for k, v in sms.items() if v is sm)
    row = next((x for x in power.get(name, {}).get("rows", []) if x["name"] == TESLA_KERNEL), None)
    scaled_mhz = SEED["mhz"] / KAPPA
    scaled_w = SEED["power_w"] * KAPPA**2
    return {
        "sm": name,
        "sms": TESLA_SMS,
        "cells_m": round(TESLA_SMS * (sm["cells"] + sm["buffers"]) / 1e6, 2),
        "fmax_mhz": sm["fmax_mhz"],
        "logic_mm2": round(TESLA_SMS * (sm["logic_um2"] + sm["buffer_um2"]) / 1e6, 1),
        "macro_mm2": round(TESLA_SMS * sm["macro_um2"] / 1e6, 1),
        "kernel": TESLA_KERNEL,
        "power_w": None if row is None else round(TESLA_SMS * row["power_mw"] / 1e3, 3),
        "seed": SEED,
        "scaling": SCALING,
        "seed_scaled": {
            "mhz": round(scaled_mhz, 1),
            "mhz_valid": round(SEED["mhz_valid"] / KAPPA, 1),
            "area_mm2": round(SEED["area_mm2"] * KAPPA**2, 1),
            "power_w": round(scaled_w, 1),
            "power_w_at_our_fmax": round(scaled_w * sm["fmax_mhz"] / scaled_mhz, 1),
        },
    }


def collect(build: Path = BUILD, old: dict | None = None) -> dict:
    """Everything under *build* merged into *old* (the previous results file's content)."""
    res = dict(old or {})
    chain = build / "chain" / "chain.json"  # ppa/chaincheck.py OUT
    if chain.is_file():
        c = json.loads(chain.read_text())
        res["chain"] = {
            "cells": c["cells"],
            "tool": c["tool"],
            "spice_ns": {k: round(v, 4) for k, v in c["spice_ns"].items()},
            "sta_ns": {k: round(v, 4) for k, v in c["sta_ns"].items()},
            "error": {k: round(v, 4) for k, v in c["error"].items()},
        }
    res["sms"] = {**res.get("sms", {}), **collect_sta(build / "sta", build / "cache")}
    res["power"] = {**res.get("power", {}), **collect_power(build / "kernelpower")}
    res["units_alone"] = {**res.get("units_alone", {}), **collect_units(build / "sta")}
    res["modpower"] = {**res.get("modpower", {}), **collect_modpower(build / "kernelpower")}
    if not res["modpower"]:
        del res["modpower"]
    for cold in sorted(build.glob("coldrun*/coldrun.json")):
        res.setdefault("coldrun", {})[cold.parent.name] = json.loads(cold.read_text())
    t = table52(res["sms"], res["power"])
    if t:
        res["table52"] = t
    if not res["sms"] and "chain" not in res:
        raise DocsError(
            f"nothing to collect under {build}: run `make ppa-timing` (or python -m ppa.coldrun) first"
        )
    return res


# ----------------------------------------------------------------------------- render


def _units(us: list[str]) -> str:
    from ppa.timing import UNIT_LABEL

    return ", ".join(UNIT_LABEL.get(u, u) for u in us)


def _unit(u: str | None) -> str:
    from ppa.timing import UNIT_LABEL

    return UNIT_LABEL.get(u, str(u))


def render(res: dict) -> dict[str, str]:
    """Section name -> its markdown table (what goes between the markers)."""
    out: dict[str, str] = {}
    sms = res.get("sms", {})
    if sms:
        L = [
            "| SM | measured | cells + buffers | logic + buffers (mm²) | macros (mm², modelled) | min period (ns) | Fmax (MHz) | critical path: start → end | units on it (by name) | cells on it |",
            "|---|---|---:|---:|---:|---:|---:|---|---|---:|",
        ]
        for name, s in sorted(sms.items(), key=lambda kv: kv[1]["lanes"]):
            c = s["critical"]
            logic = (s.get("logic_um2", 0) + s["buffer_um2"]) / 1e6
            L.append(
                f"| {name} | {s['when']} | {s['cells']:,} + {s['buffers']:,} | {logic:.3f} | "
                f"{s.get('macro_um2', 0) / 1e6:.3f} | {s['min_period_ns']:.3f} | {s['fmax_mhz']:.1f} | "
                f"{_unit(c['start_unit'])} → {_unit(c['end_unit'])} | {_units(c['through'])} | {c['cells']} |"
            )
        out["sta"] = "\n".join(L)
        for name, s in sms.items():
            L = [
                "| unit (its registers) | worst path (ns) | start | units on the path (by name) |",
                "|---|---:|---|---|",
            ]
            for u, v in sorted(s["units"].items(), key=lambda kv: -kv[1]["delay_ns"]):
                L.append(
                    f"| {_unit(u)} | {v['delay_ns']:.2f} | {_unit(v['start_unit'])} | {_units(v['through'])} |"
                )
            out[f"units-{name}"] = "\n".join(L)
    ua = res.get("units_alone")
    if ua:
        L = ["| unit alone | lanes | measured | worst path (ns) | Fmax alone (MHz) | cells on it | buffers added |",
             "|---|---:|---|---:|---:|---:|---:|"]  # fmt: skip
        for v in sorted(ua.values(), key=lambda v: (v["unit"], v["lanes"])):
            L.append(
                f"| {_unit(v['unit'])} | {v['lanes']} | {v['when']} | {v['delay_ns']:.2f} | "
                f"{1e3 / v['delay_ns']:.1f} | {v['cells_on_path']} | {v['buffers']:,} |"
            )
        out["units-alone"] = "\n".join(L)
    ch = res.get("chain")
    if ch:
        L = ["| edge at the end | ngspice (ns, simulated) | OpenSTA + our Liberty (ns, characterized) | error |",
             "|---|---:|---:|---:|"]  # fmt: skip
        for e in ("rise", "fall"):
            L.append(f"| {e} | {ch['spice_ns'][e]:.4f} | {ch['sta_ns'][e]:.4f} | {ch['error'][e]:+.1%} |")
        out["chain"] = "\n".join(L)
    for name, p in res.get("power", {}).items():
        L = [
            f"{name} at its Fmax {p['fmax_mhz']:.1f} MHz, measured {p['when']}:",
            "",
            "| launch | cycles | time (µs) | energy (µJ) | power (mW) | pJ per thread-instr | clock pins' share |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for x in p["rows"]:
            L.append(
                f"| {x['name']} | {x['cycles']:,} | {x['time_us']:.2f} | {x['energy_uj']:.4f} | "
                f"{x['power_mw']:.2f} | {x['pj_per_thread_instr']:.1f} | {x['clock_share']:.0%} |"
            )
        out[f"power-{name}"] = "\n".join(L)
        fit = p.get("refit")
        if fit:
            L = [
                f"Per-event energies of ppa/power.py refitted on {name}'s gate-level energy (relative NNLS on "
                f"{fit['fitted_on']} micro-kernel and empty launches; the benchmark kernels held out):",
                "",
                "| event | pJ per event |",
                "|---|---:|",
            ]
            L += [f"| {e} | {v:.2f} |" for e, v in fit["pj_per_event"].items()]
            L += ["", "| held-out kernel | model − gate-level |", "|---|---:|"]
            L += [f"| {k} | {v:+.1%} |" for k, v in fit["errors"].items()]
            L.append(
                f"| **geomean \\|error\\|** | **{fit['geomean_abs']:.1%}** (MAPE {fit['mape']:.1%}, worst {fit['worst']}) |"
            )
            out[f"refit-{name}"] = "\n".join(L)
    for name, m in res.get("modpower", {}).items():
        from ppa import modpower

        out[f"modpower-{name}"] = "\n".join(modpower.report(m, m["lanes"]))
    t = res.get("table52")
    if t:
        sd, sc = t["seed"], t["seed_scaled"]
        pw = "not measured" if t["power_w"] is None else f"{t['power_w']:.2f} W on {t['kernel']}, logic only"
        L = [
            f"| quantity | Lies 2019 Table 5.2 (65 nm, published) | scaled to 130 nm (κ = {KAPPA:g}) | ours (sky130, {t['sms']} × {t['sm']}) |",
            "|---|---:|---:|---:|",
            f"| cells | {sd['cells_m']:.3f} M | – | {t['cells_m']:.2f} M (with buffers) |",
            f"| frequency | {sd['mhz']:.0f} MHz closed, valid up to {sd['mhz_valid']:.0f} MHz | {sc['mhz']:.0f} / {sc['mhz_valid']:.0f} MHz | {t['fmax_mhz']:.1f} MHz (Fmax, pre-layout) |",
            f"| area | {sd['area_mm2']:.2f} mm² | {sc['area_mm2']:.1f} mm² | {t['logic_mm2']:.1f} mm² logic + {t['macro_mm2']:.1f} mm² macros (modelled) |",
            f"| power | {sd['power_w']:.2f} W | {sc['power_w']:.1f} W at {sc['mhz']:.0f} MHz; {sc['power_w_at_our_fmax']:.1f} W at our Fmax | {pw} |",
        ]
        out["table52"] = "\n".join(L)
    for tag, cr in res.get("coldrun", {}).items():
        from ppa import coldrun

        out[tag] = coldrun.table(cr).rstrip("\n")
    return out


# ----------------------------------------------------------------------------- write / check

_SECTION = re.compile(r"<!-- timing-docs:(\S+) -->\n(.*?)\n<!-- /timing-docs:\1 -->", re.S)


def sections(md: str) -> dict[str, str]:
    """The generated sections now in *md* (name -> content)."""
    return {m.group(1): m.group(2) for m in _SECTION.finditer(md)}


def mismatches(md: str, res: dict) -> list[str]:
    """Section names whose table in *md* differs from what *res* renders (or is missing)."""
    want = render(res)
    have = sections(md)
    bad = [n for n, t in want.items() if have.get(n) != t]
    bad += [f"{n} (in docs, not in the results)" for n in have if n not in want]
    return bad


def write(md: str, res: dict) -> str:
    """*md* with every generated section replaced (new ones added after the anchor)."""
    want = render(res)

    def sub(m: re.Match) -> str:
        n = m.group(1)
        return (
            m.group(0) if n not in want else f"<!-- timing-docs:{n} -->\n{want[n]}\n<!-- /timing-docs:{n} -->"
        )

    md = _SECTION.sub(sub, md)
    have = sections(md)
    new = [
        f"<!-- timing-docs:{n} -->\n{t}\n<!-- /timing-docs:{n} -->\n"
        for n, t in want.items()
        if n not in have
    ]
    if new:
        if ANCHOR not in md:
            raise DocsError(f"{DOC} has no {ANCHOR} anchor for the new sections {', '.join(want)}")
        md = md.replace(ANCHOR, ANCHOR + "\n\n" + "\n".join(new), 1)
    return md


def load(path: Path = RESULTS) -> dict:
    if not path.is_file():
        raise DocsError(f"{path} not found: run python -m ppa.timing_docs --collect")
    return json.loads(path.read_text())


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--collect", action="store_true", help="build/ppa -> docs/ppa/timing.json, then --write")
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    try:
        if args.collect:
            old = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
            res = collect(BUILD, old)
            RESULTS.parent.mkdir(parents=True, exist_ok=True)
            RESULTS.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
            print(
                f"timing_docs: {RESULTS.relative_to(ROOT)}: {len(res['sms'])} SM(s), {len(res['power'])} power table(s)"
            )
        res = load()
        md = DOC.read_text()
        if args.check:
            bad = mismatches(md, res)
            if bad:
                print(f"error: {DOC.relative_to(ROOT)}'s tables differ from {RESULTS.relative_to(ROOT)}: "
                      f"{', '.join(bad)} (python -m ppa.timing_docs --write)", file=sys.stderr)  # fmt: skip
                return 1
            return 0
        new = write(md, res)
        if new != md:
            DOC.write_text(new)
            print(f"timing_docs: {DOC.relative_to(ROOT)} updated")
    except DocsError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    cli.run(main)
