"""A cold run of the timing/power flow, each part timed on its own (issue 28: "cold run ≤ 60 min").

    python -m ppa.coldrun [--lanes 8] [--parts synth,charlib,chain,sta,power] [--warm]

Runs the parts of `make ppa-timing` for one SM in order, each in a child process of its own, and records
per part its wall seconds and its CPU seconds (user + system of the child and everything it waited for:
Yosys, ngspice, OpenSTA, Verilator): on a shared machine the wall time says more about the other
sessions than about the flow, the CPU time does not. Parts:

- ``synth``: the SM's mapped netlist (make ppa's synthesis, ppa/synth.py ``sm_netlist``);
- ``charlib``: the characterized Liberty (ppa/charlib.py, ten ngspice runs);
- ``chain``: the Liberty-vs-SPICE cell chain (ppa/chaincheck.py);
- ``sta``: fan-out buffering and OpenSTA on the SM (ppa/sta.py ``analyse_config``);
- ``power``: the power of the nine benchmark kernels (ppa/kernelpower.py, ``bench``);
- ``units``: Lies 2019 §5.2's two units alone (the ALU, the shared-memory unit at these lanes), synthesised,
  buffered and timed as `make ppa-timing` does (ppa/sta.py ``analyse_unit``).

A cold run needs empty caches: it refuses to start when build/ppa exists unless ``--warm`` (the rows
then say "warm"). Results go to build/ppa/coldrun/coldrun.json (``--out``: another directory, e.g. build/ppa/coldrun-L4) (merged per part, so a run that stopped
can be continued with ``--parts``) and a markdown table, coldrun.md; ppa/timing_docs.py --collect copies
them into docs/ppa/timing.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "build" / "ppa" / "coldrun"
PARTS = ("synth", "charlib", "chain", "sta", "power", "units")
TARGET_MIN = 60.0  # issue 28: the whole flow, characterization included, on the 2-core machine


def run_part(part: str, lanes: int) -> None:
    """One part, in this (child) process."""
    from ppa import config

    cfg = config.lanes_sweep(True, (lanes,))[0]
    if part == "synth":
        from ppa import synth
        from ppa.yosys import find

        synth.sm_netlist(find(), cfg, print)
    elif part == "charlib":
        from ppa import sta

        sta.libraries()
    elif part == "chain":
        from ppa import chaincheck

        if chaincheck.main([]) != 0:
            raise SystemExit("chain check failed")
    elif part == "sta":
        from ppa import sta

        r = sta.analyse_config(cfg)
        print(f"coldrun: {r['name']} Fmax {r['fmax_mhz']:.1f} MHz")
    elif part == "power":
        from ppa import kernelpower

        kernelpower.measure(lanes, "bench")
    elif part == "units":
        from ppa import sta

        for job in ((config.machine("L8-W16-R512-B8"), "simt_alu", True), (cfg, "simt_shared_lsu", True)):
            r = sta.analyse_unit(job)
            print(f"coldrun: {r['unit']}@{r['config']}: {r['delay_ns']:.2f} ns")
    else:
        raise SystemExit(f"unknown part {part!r}: one of {', '.join(PARTS)}")


def timed(part: str, lanes: int, log: Path) -> dict:
    """Run *part* in a child process; its wall and CPU seconds (children's rusage difference)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with log.open("a") as f:
        f.write(f"==== {part} (lanes {lanes}) {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}\n")
        f.flush()
        proc = subprocess.run(
            [sys.executable, "-m", "ppa.coldrun", "--child", part, "--lanes", str(lanes)],
            cwd=ROOT,
            stdout=f,
            stderr=subprocess.STDOUT,
        )
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "ok": proc.returncode == 0}


def table(res: dict) -> str:
    """The per-part table (markdown)."""
    rows = res["parts"]
    L = [
        f"Cold run of the flow for L{res['lanes']} ({res['kind']}), {res['when']}, load average at start "
        f"{res['load_start']}:",
        "",
        "| part | wall (s) | CPU (s) | ok |",
        "|---|---:|---:|---|",
    ]
    for p in PARTS:
        if p in rows:
            r = rows[p]
            L.append(f"| {p} | {r['wall_s']:,.0f} | {r['cpu_s']:,.0f} | {'yes' if r['ok'] else 'NO'} |")
    wall = sum(r["wall_s"] for r in rows.values())
    cpu = sum(r["cpu_s"] for r in rows.values())
    L.append(f"| **total** | **{wall:,.0f}** ({wall / 60:.1f} min) | **{cpu:,.0f}** ({cpu / 60:.1f} min) | |")
    return "\n".join(L) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=int, default=8)
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--warm", action="store_true", help="run although build/ppa exists (rows say 'warm')")
    ap.add_argument("--out", type=Path, default=OUT, help="results directory (default build/ppa/coldrun)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        run_part(args.child, args.lanes)
        return 0
    if not 1 <= args.lanes <= 64:
        ap.error(f"--lanes {args.lanes}: between 1 and 64")
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    bad = [p for p in parts if p not in PARTS]
    if bad:
        ap.error(f"unknown part(s) {', '.join(bad)}: choose from {', '.join(PARTS)}")
    out: Path = args.out
    path = out / "coldrun.json"
    cache = ROOT / "build" / "ppa"
    resume = path.is_file()
    if cache.exists() and not args.warm and not resume:
        ap.error(f"{cache} exists: not a cold run (remove it, or pass --warm)")
    out.mkdir(parents=True, exist_ok=True)
    res = json.loads(path.read_text()) if resume else {}
    if res.get("lanes", args.lanes) != args.lanes:
        ap.error(f"{path} holds a run for {res['lanes']} lanes: remove it first")
    res.setdefault("parts", {})
    res.update(
        lanes=args.lanes,
        kind="warm" if args.warm else "cold",
        when=res.get("when") or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        load_start=res.get("load_start") or " / ".join(f"{x:.1f}" for x in os.getloadavg()),
        cpus=os.cpu_count(),
    )
    log = out / "coldrun.log"
    for p in parts:
        r = timed(p, args.lanes, log)
        r["load_end"] = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        res["parts"][p] = r
        path.write_text(json.dumps(res, indent=1))
        (out / "coldrun.md").write_text(table(res))
        print(f"coldrun: {p}: {r['wall_s']:.0f} s wall, {r['cpu_s']:.0f} s CPU, ok={r['ok']}", flush=True)
        if not r["ok"]:
            print(f"error: part {p} failed (see {log})", file=sys.stderr)
            return 1
    print(table(res))
    return 0


if __name__ == "__main__":
    cli.run(main)
