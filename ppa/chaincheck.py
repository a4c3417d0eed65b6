"""The characterized Liberty against transistor-level simulation of a chain of mapped cells (issue 28).

    python -m ppa.chaincheck

A register-to-register chain of the cells the flow maps to: ``dfxtp_1`` → ``inv_1`` (fanout 3) →
``nand2_1`` → ``nor2_1`` → a full adder made of mapped cells (``xor2_1`` → ``xor2_1`` for the sum, then the
next adder's carry ``and2_1`` → ``a21o_1``) → ``mux2_1`` → ``o21ai_1`` → ``inv_1`` → ``dfxtp_1``. The same
chain is (a) simulated in ngspice at transistor level (the cells' SPICE netlists, tt, 1.8 V, 25 °C; side
inputs tied to the values that sensitize the chain; each net loaded by the real input pins of its
fanout) and (b) timed by OpenSTA from the Liberty. Delay = clock 50 % → the last net's 50 %, for the
launching flip-flop's Q rising and falling. Kind: characterized vs simulated; pre-layout, no wires.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa import charlib, liberty  # noqa: E402

OUT = ROOT / "build" / "ppa" / "chain"
CLK_SLEW = 0.04  # ns, 10-90 %

# (instance, cell, {pin: net or constant "0"/"1"}); the chain's nets are n0 .. n10
CHAIN: list[tuple[str, str, dict[str, str]]] = [
    ("ff0", "dfxtp_1", {"CLK": "clk", "D": "d", "Q": "n0"}),
    ("u1", "inv_1", {"A": "n0", "Y": "n1"}),
    ("l1a", "inv_1", {"A": "n1", "Y": "s1"}),  # extra fanout of n1
    ("l1b", "inv_1", {"A": "n1", "Y": "s2"}),
    ("u2", "nand2_1", {"A": "n1", "B": "1", "Y": "n2"}),
    ("u3", "nor2_1", {"A": "n2", "B": "0", "Y": "n3"}),
    ("fa_x1", "xor2_1", {"A": "n3", "B": "1", "X": "n4"}),  # a ^ b (b = 1)
    ("fa_x2", "xor2_1", {"A": "n4", "B": "0", "X": "n5"}),  # sum = (a ^ b) ^ cin (cin = 0)
    ("fb_g", "and2_1", {"A": "n5", "B": "1", "X": "n6"}),  # next adder: generate a & b (b = 1)
    ("fb_c", "a21o_1", {"A1": "0", "A2": "s3", "B1": "n6", "X": "n7"}),  # carry = cin & (a^b) | g
    ("fb_p", "xor2_1", {"A": "n5", "B": "1", "X": "s3"}),  # its propagate (side load on n5)
    ("u8", "mux2_1", {"A0": "0", "A1": "n7", "S": "1", "X": "n8"}),
    ("u9", "o21ai_1", {"A1": "n8", "A2": "0", "B1": "1", "Y": "n9"}),
    ("u10", "inv_1", {"A": "n9", "Y": "n10"}),
    ("ff1", "dfxtp_1", {"CLK": "clk", "D": "n10", "Q": "q1"}),
]
LAST = "n10"
CONST = {"0": "1'b0", "1": "1'b1"}


def verilog() -> str:
    """The chain as a structural Verilog netlist for OpenSTA."""
    nets = sorted({n for _, _, c in CHAIN for n in c.values() if n not in ("0", "1", "clk", "d")})
    lines = ["module chain (clk, d);", "  input clk, d;", *[f"  wire {n};" for n in nets]]
    for inst, cell, conn in CHAIN:
        pins = ", ".join(f".{p}({CONST.get(n, n)})" for p, n in conn.items())
        lines.append(f"  {liberty.PREFIX}{cell} {inst} ({pins});")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def sta_script(libs: list[Path], netlist: Path) -> str:
    return "\n".join(
        [
            *[f"read_liberty {p}" for p in libs],
            f"read_verilog {netlist}",
            "link_design chain",
            "create_clock -name clk -period 20 [get_ports clk]",
            f"set_input_transition {CLK_SLEW} [get_ports clk]",
            "set_input_delay 0 -clock clk [get_ports d]",
            "report_checks -rise_to [get_pins ff1/D] -format full -digits 4",
            "report_checks -fall_to [get_pins ff1/D] -format full -digits 4",
            "exit",
        ]
    )


_ARRIVAL = re.compile(r"^\s*([-0-9.]+)\s+data arrival time", re.M)
_EDGE_AT_END = re.compile(r"^\s*[-0-9.]+\s+[-0-9.]+\s+([v^])\s+ff1/D\b", re.M)


def parse_arrivals(text: str) -> dict[str, float]:
    """{"rise": ns, "fall": ns} of the two reports (the edge at ff1/D: ^ rise, v fall)."""
    out: dict[str, float] = {}
    for block in re.split(r"(?=Startpoint:)", text):
        a, e = _ARRIVAL.search(block), _EDGE_AT_END.search(block)
        if a and e:
            out["rise" if e.group(1) == "^" else "fall"] = float(a.group(1))
    return out


def spice_deck(pins: dict[str, list[str]]) -> list[str]:
    """The chain at transistor level: clock edges at 2, 12, 22 ns; D rises at 7 ns and falls at 17 ns,
    so Q rises after the second edge and falls after the third."""
    vdd = charlib.VDD
    clk = charlib._clock(CLK_SLEW, (2.0, 12.0, 22.0))
    d = charlib._ramp(7.0, 0.04, True) + charlib._ramp(17.0, 0.04, False)
    lines = [
        f"Vdd vdd 0 {vdd}",
        f"Vhi vhi 0 {vdd}",
        "Vclk clk 0 " + charlib._pwl(clk, 0.0),
        "Vd d 0 " + charlib._pwl(d, 0.0),
    ]
    for inst, cell, conn in CHAIN:
        nodes = []
        for p in pins[cell]:
            if p in ("VGND", "VNB"):
                nodes.append("0")
            elif p in ("VPWR", "VPB"):
                nodes.append("vdd")
            else:
                n = conn[p]
                nodes.append({"0": "0", "1": "vhi"}.get(n, n))
        lines.append(f"x{inst} {' '.join(nodes)} {liberty.PREFIX}{cell}")
    for k, t in enumerate((12.0, 22.0)):
        td = t - 0.5
        # n10 follows Q with the chain's parity: an even number of inversions from n0 to n10? measure both
        lines.append(
            f".meas tran chain_{k} trig v(clk) val={vdd / 2} td={td}n rise=1 targ v({LAST}) val={vdd / 2} td={td}n cross=1"
        )
        lines.append(
            f".meas tran q_{k} trig v(clk) val={vdd / 2} td={td}n rise=1 targ v(n0) val={vdd / 2} td={td}n cross=1"
        )
        lines.append(f".meas tran end_{k} find v({LAST}) at={t + 5.0}n")
    return lines


def main(argv: list[str] | None = None) -> int:
    cli.ArgumentParser(prog="python -m ppa.chaincheck", description=__doc__.splitlines()[0]).parse_args(argv)
    from ppa import timedlib

    start = time.monotonic()
    work, data = charlib.characterize()
    lib = timedlib.write(work / "sky130_fd_sc_hd_char.lib", data)
    cells_dir, _, _ = charlib.pdk()
    used = sorted({c for _, c, _ in CHAIN})
    pins = {c: charlib.subckt_pins(charlib.spice_file(c, cells_dir).read_text(), c) for c in used}
    OUT.mkdir(parents=True, exist_ok=True)
    meas = charlib.run_deck(
        charlib.Deck(spice_deck(pins), 30.0), OUT, "chain", [charlib.spice_file(c, cells_dir) for c in used]
    )
    spice = {}
    for k in (0, 1):
        level = meas[f"end_{k}"] > charlib.VDD / 2
        spice["rise" if level else "fall"] = meas[f"chain_{k}"] * 1e9
    if shutil.which("sta") is None:
        print("error: OpenSTA (`sta`) not found: apt-get install opensta", file=sys.stderr)
        return 2
    net = OUT / "chain.v"
    net.write_text(verilog())
    tcl = OUT / "chain.tcl"
    tcl.write_text(sta_script([lib], net))
    proc = subprocess.run(["sta", "-no_splash", "-exit", str(tcl)], capture_output=True, text=True, cwd=OUT)
    (OUT / "sta.log").write_text(proc.stdout + proc.stderr)
    sta = parse_arrivals(proc.stdout)
    if set(sta) != {"rise", "fall"}:
        print(f"error: could not read OpenSTA's arrivals; see {OUT / 'sta.log'}", file=sys.stderr)
        return 1
    result = {
        "kind": "characterized Liberty (OpenSTA) vs simulated (ngspice), pre-layout, no wires",
        "tool": f"{data['tool']}; OpenSTA {sta_version()}",
        "corner": data["corner"],
        "cells": [c for _, c, _ in CHAIN],
        "spice_ns": spice,
        "sta_ns": sta,
        "error": {e: sta[e] / spice[e] - 1 for e in spice},
        "seconds": time.monotonic() - start,
    }
    (OUT / "chain.json").write_text(json.dumps(result, indent=1))
    for e in ("rise", "fall"):
        print(
            f"chain ({e} at the end): ngspice {spice[e]:.4f} ns, OpenSTA {sta[e]:.4f} ns, {result['error'][e]:+.1%}"
        )
    return 0


def sta_version() -> str:
    try:
        return subprocess.run(["sta", "-version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except OSError:
        return "not installed"


if __name__ == "__main__":
    cli.run(main)
