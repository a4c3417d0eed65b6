"""What the module-mean rule adds to the gate-level energy (issue 28).

    python -m ppa.meanbias [--lanes 8] [--kernels bench]   # after python -m ppa.kernelpower --lanes 8

ppa/kernelpower.py gives a register without a simulated bit (a flip-flop whose RTL name Yosys lost, a
memory macro's read-data boundary whose net carries no RTL name) its module's mean activity every cycle
(ppa/netpower.py ``activities``). Energy is linear in the nets' activities (the propagation and the
sum are), so the part of a launch's energy that hangs on those registers, their own nets and everything
propagated from them, is E(mean) − E(0): the same launch summed with those registers silent. This
prints, per launch, which registers took the mean (count per driving module) and that part, in pJ and as
a share of the launch's energy: a bound on the rule's bias (the true activity is between 0 and a
register's maximum, not known without simulating those bits). The toggle runs are the cached ones of
ppa/kernelpower.py (ppa/toggles.py caches them with their per-bit toggles).

Kind: *modelled* (ppa/netpower.py's sum) from *simulated* activity, as kernelpower's rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spec import cli  # noqa: E402

OUT = ROOT / "build" / "ppa" / "kernelpower"


def measure(lanes: int, which: str = "bench", log=print) -> dict:
    """Per launch: the at-mean registers by module, the energy with the rule and with them silent."""
    from ppa import kernelpower, netpower, toggles
    from ppa.modpower import unit_of
    from ppa.rtlcycles import LATENCY

    pp = kernelpower.prepare(lanes, log)
    modules, of = kernelpower.driver_modules(pp.flat)
    rows = []
    for name, _kind, mcfg, img in kernelpower.launches(lanes, which):
        r = toggles.run(mcfg, img.to_words(), LATENCY, per_bit=True)
        e = {}
        for scale in (1.0, 0.0):
            a = netpower.activities(pp.flat, pp.functions, r["bit_toggles"], r["cycles"], mean_scale=scale)
            e[scale] = netpower.energy_pj(pp.coef, a.act, r["cycles"], pp.fmax)["total"]
            if scale == 1.0:
                by_mod = Counter(
                    unit_of(modules[of[n]]) if of[n] >= 0 else "(undriven)" for n in a.at_mean_nets
                )
        part = e[1.0] - e[0.0]
        rows.append(
            {
                "name": name,
                "at_mean": dict(by_mod),
                "energy_pj": e[1.0],
                "at_mean_part_pj": part,
                "share": part / e[1.0],
            }
        )
        log(
            f"  {name}: {sum(by_mod.values())} registers at the mean {dict(by_mod)}: {part:.0f} pJ, {part / e[1.0]:.2%}"
        )
    res = {"lanes": lanes, "fmax_mhz": pp.fmax, "rows": rows}
    work = OUT / f"L{lanes}"
    work.mkdir(parents=True, exist_ok=True)
    (work / "meanbias.json").write_text(json.dumps(res, indent=1))
    return res


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=cli.int_list(1, 64), default=[8])
    ap.add_argument("--kernels", default="bench", choices=["all", "bench", "micro"])
    args = ap.parse_args(argv)
    for n in args.lanes:
        res = measure(n, args.kernels)
        shares = [r["share"] for r in res["rows"]]
        print(
            f"L{n}: the module-mean registers carry {min(shares):.2%}–{max(shares):.2%} of each launch's energy"
        )
    return 0


if __name__ == "__main__":
    cli.run(main)
