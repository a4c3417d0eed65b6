"""Per-module energy model (issue 28): each SM module's gate-level energy from that module's own events.

    python -m ppa.modpower [--lanes 8]      # reads build/ppa/kernelpower/L<n>/kernelpower.json

ppa/kernelpower.py's ``refit`` fits ONE event mix to the whole SM's energy. At 32 lanes that form
under-predicts the datapath modules even on their own training micro-kernels (docs/ppa.md "Why the
32-lane refit misses"): a single set of per-event energies must serve the ALUs, the commit stage and the
control at once. Here the model is

    energy(launch) = Σ_module Σ_{e ∈ EVENTS_OF[module]} count(launch, e) · pJ(module, e)

where each module's energies are fitted (NNLS, ppa/energy.py ``nnls``, residuals relative to the launch's
total energy: ``relative_to``, :data:`FLOOR`) against that module's
reference energy ``by_module_pj`` of the gate-level rows (ppa/kernelpower.py: the switching + internal
energy of the nets the module's cells drive) on the micro-kernels and empty launches only, and validated
on the held-out benchmark kernels, per module and in total. The flip-flops' clock pins and the leakage,
which ``by_module_pj`` leaves out, are two more "modules" of their own (``energy_pj`` "clock" and
"leakage"); both are per cycle by construction (no clock gating; leakage × cycles / Fmax), so their event
is ``cycles``.

Every fitted number comes from that fit: ``pJ(module, e)`` is the NNLS solution on the training rows
listed in the result's ``fitted_on``; the only number set by hand is :data:`FLOOR` (below, with why).
:func:`check` fails when a fitted energy is negative or a module with nonzero reference energy has no
event to carry it (tb/tests/ppa/test_ppa_modpower.py plants both).

``EVENTS_OF_ALU`` gives simt_alu (and EX) the lanes' ALU-input events of ppa/aluactivity.py instead:
the ALU is combinational, so its gate-level energy is its inputs' transitions propagated through its
cells (linear in them, ppa/netpower.py), and those events count the inputs' flips as the RTL presents
them; rows cached before they existed get them from their stored retire order (kernelpower.recount).

Kind: *modelled* (a linear model) fitted to *modelled* gate-level energy (ppa/netpower.py), logic only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa.energy import geomean_abs  # noqa: E402
from spec import cli  # noqa: E402

OUT = ROOT / "build" / "ppa" / "kernelpower"

# Relative fit, two weightings (``relative_to``): "launch" (the default) divides each training residual
# of a module by the launch's TOTAL energy, so the modules' fits add up to the fit of the total's relative
# error, the quantity validated (a module is fitted where it matters to the launch); "module" divides by
# the module's own energy on that launch, floored at FLOOR × the launch's total energy (without the
# floor a module that spends nothing on a launch, the coalescer on an ALU micro-kernel, would weigh that
# launch without limit; at 1e-3 a launch counts fully once the module is 0.1 % of it). Measured at
# 8 lanes (docs/ppa.md "The per-module model"): "module" follows the ALU's small share of the memory
# micro-kernels and under-predicts it by 58 % on the held-out kernels; "launch" by 17 %.
FLOOR = 1e-3

# What drives each module's nets (docs/ppa.md "The per-module model" says why per module). Event names:
# ppa/power.py EVENTS. A module missing here, or given no event, with nonzero energy fails `check`.
EVENTS_OF: dict[str, tuple[str, ...]] = {
    # the lanes' combinational ALUs: inputs change (operand_hd), the result (lane_hd), the op mix
    "simt_alu": ("alu_thread", "operand_hd", "lane_hd"),
    # EX: operand registers and muxes, address adders, the row sequencer (per cycle of a multi-row op)
    "simt_execute": ("cycles", "warp_instr", "alu_thread", "operand_hd", "lane_hd", "gaddr_hd", "saddr_hd"),
    # the register file's logic around its macro: read data (operand_hd), write data (lane_hd), ports
    "simt_regfile": ("cycles", "warp_instr", "operand_hd", "lane_hd"),
    # CM: the retiring rows' data and masks, the scoreboard release
    "simt_commit": ("cycles", "warp_instr", "lane_hd", "slot_hd", "data_bit"),
    # the SM's own logic: the per-instruction result buffer (one word per thread slot), port glue
    "simt_sm": ("cycles", "warp_instr", "lane_hd", "slot_hd", "gmem_txn"),
    # F + DEC: the instruction word and its fields, the fetch/issue handshakes
    "simt_issue": ("cycles", "warp_instr", "instr_hd", "stack_visit"),
    "simt_decode": ("warp_instr", "instr_hd"),
    "simt_scoreboard": ("cycles", "warp_instr"),
    "simt_warp_sched": ("cycles", "warp_instr", "barrier"),
    "simt_warp_table": ("cycles", "warp_instr", "stack_visit", "barrier", "gmem_access"),
    "simt_div_stack": ("warp_instr", "stack_visit"),
    "simt_barrier": ("cycles", "barrier"),
    # block launch: no per-block event exists, the empty launches carry it in cycles and warp_instr
    "simt_block_init": ("cycles", "warp_instr"),
    # read by special registers (part of alu_thread), written at block launch
    "simt_tid_table": ("cycles", "alu_thread"),
    # 64-bit counters of these very events, incremented per event, the cycle counter every cycle
    "simt_perf": (
        "cycles",
        "warp_instr",
        "alu_thread",
        "shared_pass",
        "gmem_access",
        "gmem_txn",
        "stack_visit",
        "barrier",
    ),
    "simt_shared_lsu": ("shared_pass", "saddr_hd", "lane_hd", "data_bit"),
    "simt_shared_wb": ("shared_pass", "lane_hd"),
    "simt_coalescer": ("gmem_access", "gmem_txn", "gaddr_hd", "slot_hd"),
    "simt_gmem_unit": ("cycles", "gmem_access", "gmem_txn", "gaddr_hd", "slot_hd"),
    # nets no cell drives: the SM's inputs (memory responses, launch), set by the bench
    "(undriven)": ("cycles", "gmem_txn", "slot_hd"),
    "(clock pins)": ("cycles",),
    "(leakage)": ("cycles",),
}

_BASE = re.compile(r"(simt_\w+?)(?:[^\w]|$)")


class ModelError(ValueError):
    """A per-module fit that cannot be right (a negative energy, a module with energy and no events)."""


def unit_of(module: str) -> str:
    """The RTL module name of a netlist module (Yosys names a parameterised copy
    ``$paramod$<hash>\\simt_alu`` or ``$paramod\\simt_alu\\NUM_LANES=...``): the ``simt_*`` name in it."""
    if module.startswith("("):
        return module
    hits = _BASE.findall(module.replace("\\", " "))
    return hits[-1] if hits else module


def counts(row: dict) -> dict[str, float]:
    """A row's event counts: ppa/power.py's ``events`` and, where counted, the ALU-input events
    (``alu_events``, ppa/aluactivity.py)."""
    return {**row["events"], **row.get("alu_events", {})}


def module_energy(row: dict) -> dict[str, float]:
    """A gate-level row's energy (pJ) per RTL module, plus its clock pins and leakage: sums to the row's
    total energy."""
    out: dict[str, float] = {}
    for m, e in row["by_module_pj"].items():
        u = unit_of(m)
        out[u] = out.get(u, 0.0) + float(e)
    out["(clock pins)"] = float(row["energy_pj"]["clock"])
    out["(leakage)"] = float(row["energy_pj"]["leakage"])
    return out


@dataclass(frozen=True)
class ModuleFit:
    module: str
    events: tuple[str, ...]  # the module's events that the training rows exercise
    energy: dict[str, float]  # pJ per event (the NNLS solution)

    def predict(self, counts: dict[str, float]) -> float:
        return sum(self.energy[e] * counts[e] for e in self.events)


def check(fits: dict[str, ModuleFit], rows: list[dict], events_of: dict[str, tuple[str, ...]]) -> None:
    """Fail on a fit that cannot be right: a negative per-module energy, or a module with nonzero
    reference energy on some launch that has no event (none listed, or none the training exercises)."""
    bad = [f"{m}.{e} = {v:.4g} pJ" for m, f in fits.items() for e, v in f.energy.items() if v < 0]
    if bad:
        raise ModelError(f"negative fitted per-module energies: {', '.join(bad)}")
    used = {m for r in rows for m, e in module_energy(r).items() if e > 0}
    orphans = sorted(m for m in used if not events_of.get(m) or m not in fits or not fits[m].events)
    if orphans:
        raise ModelError(
            f"modules with nonzero reference energy but no events: {orphans}: list their events in "
            "ppa/modpower.py EVENTS_OF (what drives their nets)"
        )


def fit_module(
    module: str, events: tuple[str, ...], rows: list[dict], solve=None, relative_to: str = "launch"
) -> ModuleFit:
    """Relative NNLS of *module*'s energy on its *events* over the training *rows* (residual over the
    launch's total energy, or with *relative_to* "module" over max(module energy, FLOOR × launch
    energy)). Events no training row counts are left out (no data); *solve*: the solver (a, b) -> x,
    ppa/energy.py ``nnls`` unless a test plants another."""
    from ppa import energy

    solve = solve or energy.nnls
    live = tuple(e for e in events if any(counts(r).get(e) for r in rows))
    if not live:
        return ModuleFit(module, (), {})
    a = np.array([[counts(r)[e] for e in live] for r in rows], dtype=float)
    b = np.array([module_energy(r).get(module, 0.0) for r in rows])
    total = np.array([r["energy_pj"]["total"] for r in rows], dtype=float)
    if relative_to not in ("launch", "module"):
        raise ModelError(f"relative_to must be 'launch' or 'module', not {relative_to!r}")
    scale = total if relative_to == "launch" else np.maximum(b, FLOOR * total)
    x = solve(a / scale[:, None], b / scale)
    return ModuleFit(module, live, {e: float(v) for e, v in zip(live, x)})


def _errors(pred: dict[str, float], ref: dict[str, float]) -> dict[str, float]:
    return {k: (pred[k] - ref[k]) / ref[k] for k in ref if ref[k] > 0}


def fit(
    rows: list[dict],
    events_of: dict[str, tuple[str, ...]] | None = None,
    solve=None,
    relative_to: str = "launch",
) -> dict:
    """The per-module model on kernelpower rows: fitted on kind "micro", validated on kind "kernel".
    Returns per module its events, pJ per event, held-out errors and share of the held-out energy, and
    the total's held-out errors (geomean |error|, MAPE, worst); :func:`check` has passed on it."""
    events_of = EVENTS_OF if events_of is None else events_of
    train = [r for r in rows if r["kind"] == "micro"]
    held = [r for r in rows if r["kind"] == "kernel"]
    if not train or not held:
        raise ModelError("need micro-kernel rows to fit and benchmark rows to validate on")
    modules = sorted({m for r in rows for m in module_energy(r)})
    fits = {
        m: fit_module(m, events_of.get(m, ()), train, solve, relative_to) for m in modules if events_of.get(m)
    }
    check(fits, rows, events_of)
    per_mod = {}
    held_total = sum(r["energy_pj"]["total"] for r in held)
    for m in modules:
        f = fits[m] if m in fits else ModuleFit(m, (), {})
        ref = {r["name"]: module_energy(r).get(m, 0.0) for r in held}
        pred = {r["name"]: f.predict(counts(r)) for r in held}
        tr_ref = {r["name"]: module_energy(r).get(m, 0.0) for r in train}
        tr_pred = {r["name"]: f.predict(counts(r)) for r in train}
        errs = _errors(pred, ref)
        tr_errs = _errors(tr_pred, tr_ref)
        per_mod[m] = {
            "events": list(f.events),
            "pj_per_event": f.energy,
            "share_held_out": sum(ref.values()) / held_total,
            "errors": errs,
            "geomean_abs": geomean_abs(errs.values()),
            "train_geomean_abs": geomean_abs(tr_errs.values()),
            "sum_error": (sum(pred.values()) - sum(ref.values())) / sum(ref.values()) if sum(ref.values()) else 0.0,
        }  # fmt: skip
    total = {r["name"]: sum(fits[m].predict(counts(r)) for m in fits) for r in held}
    errs = _errors(total, {r["name"]: r["energy_pj"]["total"] for r in held})
    return {
        "modules": per_mod,
        "errors": errs,
        "geomean_abs": geomean_abs(errs.values()),
        "mape": sum(abs(e) for e in errs.values()) / len(errs),
        "worst": max(errs, key=lambda k: abs(errs[k])),
        "fitted_on": [r["name"] for r in train],
        "relative_to": relative_to,
        "floor": FLOOR if relative_to == "module" else None,
    }


def all_events(rows: list[dict]) -> dict[str, tuple[str, ...]]:
    """Every module given every event ppa/power.py knows (the whole-SM model's event set per module):
    the baseline that says whether choosing each module's events matters."""
    from ppa.power import distinct_events

    evs, _ = distinct_events(rows)
    return {m: evs for m in {m for r in rows for m in module_energy(r)}}


# The per-module model with the lanes' ALU-input events (ppa/aluactivity.py): simt_alu is combinational
# and its gate-level energy is the activity of its inputs propagated through its cells
# (ppa/netpower.py: linear in the input nets' transitions), so its events are its inputs' flips as the
# RTL presents them, per port (a and b feed the multiplier and the adders, c only MAD's addend), a's and
# b's low halves apart (a bit's cone in the multiplier depends on its position; small operands flip only
# low bits), and the selected result's. Chosen on the training launches only (docs/ppa.md: the ALU's own
# training error 6.5 % against 7.8 % without the halves and 36.5 % with EVENTS_OF); EX keeps its events
# (its training error is lower with them than with the ALU-input ones, 13.3 against 13.7 %).
EVENTS_OF_ALU: dict[str, tuple[str, ...]] = {
    **EVENTS_OF,
    "simt_alu": ("alu_a_hd", "alu_a_lo_hd", "alu_b_hd", "alu_b_lo_hd", "alu_c_hd", "alu_y_hd"),
}

# The compared models, in the report's column order: key -> column title.
MODELS = {
    "whole_sm": "whole-SM (old)",
    "all_events": "per-module, all events",
    "chosen": "per-module, chosen events",
    "chosen_module_relative": "chosen, module-relative",
    "alu_events": "per-module, ALU-input events",
}


def compare(rows: list[dict]) -> dict:
    """The whole-SM refit (kernelpower.refit, the old model), the per-module model with every event per
    module, with EVENTS_OF, with EVENTS_OF weighted per module, and (when the rows carry ``alu_events``)
    with EVENTS_OF_ALU: the same training and held-out rows."""
    from ppa import kernelpower

    res = {
        "whole_sm": kernelpower.refit(rows),
        "all_events": fit(rows, all_events(rows)),
        "chosen": fit(rows),
        "chosen_module_relative": fit(rows, relative_to="module"),
    }
    if all("alu_events" in r for r in rows):
        res["alu_events"] = fit(rows, EVENTS_OF_ALU)
    return res


def summary(res: dict) -> dict:
    """What the report shows of :func:`compare`'s result, rounded (docs/ppa/timing.json keeps this)."""
    out: dict = {}
    for k, f in res.items():
        if k not in MODELS:
            continue
        out[k] = {
            "errors": {n: round(v, 4) for n, v in f["errors"].items()},
            "geomean_abs": round(f["geomean_abs"], 4),
            "mape": round(f["mape"], 4),
            "fitted_on": len(f["fitted_on"]),
        }
        if "modules" in f:
            out[k]["modules"] = {
                m: {
                    "events": v["events"],
                    "share_held_out": round(v["share_held_out"], 4),
                    "geomean_abs": round(v["geomean_abs"], 4),
                    "train_geomean_abs": round(v["train_geomean_abs"], 4),
                    "sum_error": round(v["sum_error"], 4),
                    "pj_per_event": {e: round(x, 4) for e, x in v["pj_per_event"].items()},
                }
                for m, v in f["modules"].items()
            }
    return out


def report(res: dict, lanes: int) -> list[str]:
    """Markdown: total held-out error of the models per kernel, then per module (of :func:`summary` or
    :func:`compare`'s result)."""
    cols = [k for k in MODELS if k in res]
    new = res["chosen"]
    n_fit = new["fitted_on"] if isinstance(new["fitted_on"], int) else len(new["fitted_on"])
    L = [
        f"Held-out benchmark kernels at {lanes} lanes (fitted on {n_fit} micro-kernel and "
        "empty launches): model − gate-level, total energy",
        "",
        "| kernel | " + " | ".join(MODELS[k] for k in cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for k in new["errors"]:
        L.append(f"| {k} | " + " | ".join(f"{res[c]['errors'][k]:+.1%}" for c in cols) + " |")
    L.append(
        "| **geomean \\|error\\|** | " + " | ".join(f"**{res[c]['geomean_abs']:.1%}**" for c in cols) + " |"
    )
    L.append("| MAPE | " + " | ".join(f"{res[c]['mape']:.1%}" for c in cols) + " |")
    mcols = [k for k in ("all_events", "chosen", "alu_events") if k in res]
    short = {"all_events": "all events", "chosen": "chosen", "alu_events": "ALU-input"}
    L += [
        "",
        "| module | share of held-out energy | events ("
        + short[mcols[-1]]
        + ") | "
        + " | ".join(f"held-out geomean \\|error\\|: {short[c]}" for c in mcols)
        + " | "
        + " | ".join(f"training geomean: {short[c]}" for c in mcols)
        + " | "
        + " | ".join(f"sum over held-out: {short[c]}" for c in mcols[1:])
        + " |",
        "|---|---:|---|" + "---:|" * (3 * len(mcols) - 1),
    ]
    last = res[mcols[-1]]["modules"]
    for m in sorted(last, key=lambda m: -last[m]["share_held_out"]):
        v = [res[c]["modules"][m] for c in mcols]
        L.append(
            f"| {m} | {last[m]['share_held_out']:.1%} | {', '.join(last[m]['events'])} | "
            + " | ".join(f"{x['geomean_abs']:.1%}" for x in v)
            + " | "
            + " | ".join(f"{x['train_geomean_abs']:.1%}" for x in v)
            + " | "
            + " | ".join(f"{x['sum_error']:+.1%}" for x in v[1:])
            + " |"
        )
    return L


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=cli.int_list(1, 64), default=[8])
    args = ap.parse_args(argv)
    from ppa import kernelpower

    for n in args.lanes:
        src = OUT / f"L{n}" / "kernelpower.json"
        if not src.exists():
            raise cli.UsageError(f"{src} does not exist: run python -m ppa.kernelpower --lanes {n} first")
        kp = json.loads(src.read_text())
        rows = kp["rows"]
        if not all("by_module_pj" in r for r in rows):
            raise cli.UsageError(f"{src}: rows without by_module_pj (an older run): rerun ppa.kernelpower")
        try:
            if kernelpower.recount(rows, n):  # rows cached before the ALU-input events: count them now
                src.write_text(json.dumps(kp, indent=1))
        except ValueError as err:
            raise cli.UsageError(str(err)) from err
        res = compare(rows)
        out = {"sm": kp["sm"], "lanes": n, **summary(res)}
        (src.parent / "modpower.json").write_text(json.dumps(out, indent=1))
        print("\n".join(report(res, n)))
    return 0


if __name__ == "__main__":
    cli.run(main)
