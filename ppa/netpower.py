"""The power sum of a mapped netlist from per-net activities (issue 28): flatten, propagate, add up.

OpenSTA 2.0.17 (Debian's) cannot do this part here: its ``set_power_activity -pins`` calls a procedure
that does not exist (``get_pins_error``), and its ``report_power`` stops on a NaN on the correctly mapped
SMs. So the sum is ours, in the same terms as OpenSTA's:

1. **Flatten** the hierarchical Yosys netlist (ports and ``assign``s joined by union-find): every leaf
   cell with its pins on global nets.
2. **Activity per net** (transitions per clock): a net named for an RTL bit the simulation counted gets
   that bit's toggles / cycles (*simulated*); a register output without one gets the mean of its module's
   simulated registers (stated rule); an SM input without one 0; every other net is **propagated** in
   topological order by the transition-density rule (Najm 1993, the rule OpenSTA's propagation uses):
   D(y) = Σ_i P(∂y/∂x_i) · D(x_i), P(∂y/∂x_i) the fraction of the other inputs' values for which x_i
   decides y, every input taken high half the time (duty 0.5: toggle coverage gives no time-high).
   Glitches and correlations are not modelled.
3. **Energy** of a run of *cycles* clocks, per net n driven by a cell: activity(n) · cycles ·
   (½ · C(n) · VDD² + the driver's internal energy per output transition at C(n) and a 0.1 ns input
   slew), C(n) = Σ input capacitance of the pins n drives (pre-layout, no wires); plus every flip-flop's
   clock-pin energy × 2 clock edges per cycle (ideal clock: no clock tree); plus Σ leakage × time.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import numpy as np

from ppa import fanout
from ppa.timedlib import CellPower

SLEW_NS = 0.1  # input slew at which the internal energy is looked up (stated)
SEQ = {"sky130_fd_sc_hd__dfxtp_1", "simt_macro_out"}  # cells whose output starts a cycle
CONST = {"1'h0": 0, "1'h1": 1, "1'b0": 0, "1'b1": 1}


def _plain(name: str) -> str:
    return name[1:] if name.startswith("\\") else name


class _UF:
    def __init__(self) -> None:
        self.parent: list[int] = []
        self.ids: dict[tuple[str, str], int] = {}

    def node(self, key: tuple[str, str]) -> int:
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.parent)
            self.parent.append(i)
        return i

    def find(self, i: int) -> int:
        p = self.parent
        while p[i] != i:
            p[i] = p[p[i]]
            i = p[i]
        return i

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a


@dataclass
class Cell:
    type: str
    module: str
    ins: dict[str, int]  # input pin -> net
    outs: dict[str, int]  # output pin -> net


@dataclass
class Flat:
    cells: list[Cell]
    nets: int
    named: dict[int, list[str]] = field(default_factory=dict)  # net -> RTL bit keys naming it
    inputs: dict[int, str] = field(default_factory=dict)  # net of an SM input port -> its key
    clock: int = -1
    const: dict[int, int] = field(default_factory=dict)  # net -> constant value


def flatten(mods: dict[str, fanout.Module], top: str, lib: dict[str, CellPower]) -> Flat:
    """The leaf cells of *top* on global nets; *lib*: the cells' pins (inputs / outputs)."""
    uf = _UF()
    const_nodes = {0: uf.node(("", "'0")), 1: uf.node(("", "'1"))}
    cells: list[tuple[str, str, str, dict[str, int], dict[str, int], str]] = []
    named: list[tuple[int, str]] = []

    def net(path: str, expr: str) -> int:
        if expr in CONST:
            return const_nodes[CONST[expr]]
        return uf.node((path, _plain(expr)))

    def walk(mod: str, path: str, scope: str) -> None:
        m = mods[mod]
        for lhs, rhs in m.assigns:
            if fanout._single(lhs) and (fanout._single(rhs) or rhs in CONST):
                uf.union(net(path, lhs), net(path, rhs))
        for it in m.insts:
            if it.type in mods:
                child = f"{path}/{_plain(it.name)}"
                for pin, expr, _ in it.conns:
                    if fanout._single(expr) or expr in CONST:
                        uf.union(net(child, pin), net(path, expr))
                walk(it.type, child, f"{scope}.{_plain(it.name)}" if scope else _plain(it.name))
                continue
            cp = lib.get(it.type)
            if cp is None:
                raise KeyError(f"cell {it.type} ({path}/{it.name}) is not in the Liberty")
            ins, outs = {}, {}
            for pin, expr, _ in it.conns:
                if not (fanout._single(expr) or expr in CONST):
                    continue
                n = net(path, expr)
                if pin in cp.outputs:
                    outs[pin] = n
                    plain = _plain(expr)
                    if not (plain.startswith("_") and plain.endswith("_")):
                        # Verilator's coverage names a generate block's signal "blk[3].sig[5]" in its
                        # module's scope, as Yosys names the net
                        named.append((n, f"{scope}/{plain}"))
                else:
                    ins[pin] = n
            cells.append((it.type, mod, path, ins, outs, it.name))

    walk(top, "", "")
    find = uf.find
    roots: dict[int, int] = {}

    def gid(n: int) -> int:
        r = find(n)
        if r not in roots:
            roots[r] = len(roots)
        return roots[r]

    flat = Flat([], 0)
    for typ, mod, _, ins, outs, _ in cells:
        flat.cells.append(
            Cell(typ, mod, {p: gid(n) for p, n in ins.items()}, {p: gid(n) for p, n in outs.items()})
        )
    for n, key in named:
        flat.named.setdefault(gid(n), []).append(key)
    for p in mods[top].inputs:
        g = gid(net("", p))
        if p in fanout.CLOCK_PINS:
            flat.clock = g
        else:
            flat.inputs[g] = f"/{_plain(p)}"
    for v, node in const_nodes.items():
        flat.const[gid(node)] = v
    flat.nets = len(roots)
    return flat


_FUNC_CACHE: dict[str, tuple[list[str], list[float]]] = {}


def sensitivities(func: str) -> tuple[list[str], list[float]]:
    """(inputs, P(∂f/∂x_i)) of a Liberty function, every other input high half the time."""
    from ppa.charlib import evaluate

    if func not in _FUNC_CACHE:
        ins = sorted(set(re.findall(r"\b[A-Z][A-Z0-9_]*\b", func)))
        probs = []
        for x in ins:
            others = [i for i in ins if i != x]
            hits = 0
            combos = list(itertools.product((0, 1), repeat=len(others)))
            for bits in combos:
                side = dict(zip(others, bits))
                hits += evaluate(func, {**side, x: 0}) != evaluate(func, {**side, x: 1})
            probs.append(hits / len(combos))
        _FUNC_CACHE[func] = (ins, probs)
    return _FUNC_CACHE[func]


_INDEX = re.compile(r"\[\d+\]")


def wildcard(key: str) -> str:
    """``u_ex.lane[2].u_alu/sum[3]`` -> ``u_ex.lane[*].u_alu/sum[3]``: how Verilator's coverage names the
    copies of an instance inside a generate loop (one point for all of them, their toggles summed)."""
    scope, _, sig = key.partition("/")
    return f"{_INDEX.sub('[*]', scope)}/{sig}" if "[" in scope else key


def merged_instances(flat: Flat) -> dict[str, int]:
    """Wildcard key -> how many netlist nets (instances) it stands for."""
    out: dict[str, int] = {}
    for keys in flat.named.values():
        for k in keys:
            w = wildcard(k)
            if w != k:
                out[w] = out.get(w, 0) + 1
    return out


@dataclass
class Activity:
    act: np.ndarray  # transitions per clock, per net
    simulated: int  # nets with a simulated bit
    at_mean: int  # register outputs given their module's mean
    propagated: int
    unreached: int  # combinational outputs in a loop (left at 0)
    at_mean_nets: tuple[int, ...] = ()  # which nets took their module's mean (ppa/meanbias.py)


def activities(
    flat: Flat,
    functions: dict[str, dict[str, str]],
    bits: dict[str, int],
    cycles: int,
    mean_scale: float = 1.0,
) -> Activity:
    """Per-net activity of one run (see the module docstring). *functions*: cell -> output -> function.
    *mean_scale* multiplies the activity given to registers without a simulated bit (1: their module's
    mean, the rule; 0: silent): ppa/meanbias.py measures what the rule adds to the energy."""
    act = np.zeros(flat.nets)
    known = np.zeros(flat.nets, dtype=bool)
    simulated = 0
    shared = merged_instances(flat)
    for n, keys in flat.named.items():
        t = next((bits[k] for k in keys if k in bits), None)
        if t is None:  # an instance of a generate loop: Verilator sums its copies under "lane[*]"
            t = next((bits[w] / shared[w] for k in keys if (w := wildcard(k)) in bits and w in shared), None)
        if t is not None:
            act[n] = t / cycles
            known[n] = True
            simulated += 1
    for n, key in flat.inputs.items():
        if not known[n]:
            act[n] = bits.get(key, 0) / cycles
            known[n] = True
    for n in flat.const:
        act[n], known[n] = 0.0, True
    # registers without a simulated bit: their module's mean over simulated registers
    per_mod: dict[str, list[float]] = {}
    seq_missing = []
    for c in flat.cells:
        if c.type in SEQ:
            for n in c.outs.values():
                (
                    per_mod.setdefault(c.module, []).append(act[n])
                    if known[n]
                    else seq_missing.append((c.module, n))
                )
    allv = [v for vs in per_mod.values() for v in vs]
    overall = float(np.mean(allv)) if allv else 0.0
    for mod, n in seq_missing:
        vs = per_mod.get(mod)
        act[n] = (float(np.mean(vs)) if vs else overall) * mean_scale
        known[n] = True
    # combinational: topological order from the known nets
    driven_by: dict[int, list[int]] = {}
    comb = [
        c for c in flat.cells if c.type not in SEQ and c.outs and not all(known[n] for n in c.outs.values())
    ]
    comb_driven = {n for c in comb for n in c.outs.values()}
    for c in comb:  # a net nothing drives (a floating input): no transitions
        for n in c.ins.values():
            if not known[n] and n not in comb_driven:
                known[n] = True
    pending = []
    for k, c in enumerate(comb):
        need = {n for n in c.ins.values() if not known[n]}
        pending.append(len(need))
        for n in need:
            driven_by.setdefault(n, []).append(k)
    ready = [k for k, p in enumerate(pending) if p == 0]
    propagated = 0
    while ready:
        k = ready.pop()
        c = comb[k]
        for pin, n in c.outs.items():
            if known[n]:
                continue
            ins, probs = sensitivities(functions[c.type][pin])
            act[n] = sum(p * act[c.ins[x]] for x, p in zip(ins, probs) if x in c.ins)
            known[n] = True
            propagated += 1
            for k2 in driven_by.get(n, []):
                pending[k2] -= 1
                if pending[k2] == 0:
                    ready.append(k2)
    unreached = sum(1 for c in comb for n in c.outs.values() if not known[n])
    return Activity(act, simulated, len(seq_missing), propagated, unreached, tuple(n for _, n in seq_missing))


@dataclass
class Coefficients:
    """Per net, pJ per transition (switching ½CV² + the driver's internal energy), and the constant terms."""

    per_toggle_pj: np.ndarray
    switching_pj: np.ndarray
    clock_pj_per_cycle: float
    leakage_w: float
    flops: int


def coefficients(flat: Flat, lib: dict[str, CellPower], vdd: float) -> Coefficients:
    load = np.zeros(flat.nets)
    for c in flat.cells:
        cp = lib[c.type]
        for pin, n in c.ins.items():
            load[n] += cp.inputs.get(pin, 0.0)
    sw = 0.5 * load * vdd * vdd
    internal = np.zeros(flat.nets)
    clock = 0.0
    leak = 0.0
    flops = 0
    for c in flat.cells:
        cp = lib[c.type]
        leak += cp.leakage_nw * 1e-9
        if cp.clock_energy:
            clock += 2 * cp.clock_energy  # a rising and a falling clock edge per cycle
            flops += 1
        for pin, n in c.outs.items():
            if pin in cp.energy:
                rise, fall = cp.energy[pin]
                internal[n] += 0.5 * (rise.lookup(SLEW_NS, load[n]) + fall.lookup(SLEW_NS, load[n]))
    return Coefficients(sw + internal, sw, clock, leak, flops)


def energy_pj(coef: Coefficients, act: np.ndarray, cycles: int, fmax_mhz: float) -> dict[str, float]:
    """The run's energy (pJ) by part: nets (switching + internal), clock pins, leakage at Fmax."""
    seconds = cycles / (fmax_mhz * 1e6)
    nets = float(coef.per_toggle_pj @ act) * cycles
    switching = float(coef.switching_pj @ act) * cycles
    clock = coef.clock_pj_per_cycle * cycles
    leakage = coef.leakage_w * seconds * 1e12
    return {"switching": switching, "internal": nets - switching, "clock": clock, "leakage": leakage,
            "total": nets + clock + leakage}  # fmt: skip
