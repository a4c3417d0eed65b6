"""The gate-level power sum (issue 28): per-net toggle counts of a mapped netlist -> energy.

For a run of ``seconds`` with per-net toggle counts (0→1 and 1→0 together):

    E = Σ_net toggles(net) · ½ · C(net) · VDD²                         (switching: the net's load)
      + Σ_cell Σ_output toggles(out) · ½ (E_rise + E_fall)(slew, C(out)) (internal: the Liberty's tables)
      + Σ_cell leakage(cell) · seconds                                  (leakage: cell_leakage_power)

C(net) = the input capacitances of the pins the net drives (pre-layout, no wires: the same load model as
ppa/sta.py). The internal energy is looked up at the net's load and a stated input slew (``slew_ns``);
the clock pin of a flip-flop adds its own energy per clock toggle. Units: pF, V, pJ, nW, s; result in pJ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ppa.timedlib import CellPower


@dataclass
class Instance:
    name: str
    cell: str
    pins: dict[str, str]  # pin -> net


@dataclass
class Energy:
    switching_pj: float = 0.0
    internal_pj: float = 0.0
    leakage_pj: float = 0.0
    per_cell: dict[str, float] = field(
        default_factory=dict
    )  # cell type -> internal + switching of its outputs

    @property
    def total_pj(self) -> float:
        return self.switching_pj + self.internal_pj + self.leakage_pj


def net_loads(instances: list[Instance], lib: dict[str, CellPower]) -> dict[str, float]:
    """Net -> pF: Σ input capacitance of the pins it drives."""
    load: dict[str, float] = {}
    for inst in instances:
        cell = _cell(lib, inst)
        for pin, net in inst.pins.items():
            if pin in cell.inputs:
                load[net] = load.get(net, 0.0) + cell.inputs[pin]
    return load


def _cell(lib: dict[str, CellPower], inst: Instance) -> CellPower:
    cell = lib.get(inst.cell)
    if cell is None:
        raise KeyError(f"instance {inst.name}: cell {inst.cell} is not in the Liberty; map onto its cells")
    return cell


def energy(
    instances: list[Instance],
    toggles: dict[str, int],
    lib: dict[str, CellPower],
    vdd: float,
    seconds: float,
    slew_ns: float = 0.1,
    clock_net: str | None = None,
) -> Energy:
    """The energy of a run (see the module docstring)."""
    load = net_loads(instances, lib)
    e = Energy()
    for net, n in toggles.items():
        e.switching_pj += n * 0.5 * load.get(net, 0.0) * vdd * vdd
    for inst in instances:
        cell = _cell(lib, inst)
        e.leakage_pj += cell.leakage_nw * 1e-9 * seconds * 1e12
        own = 0.0
        for pin in cell.outputs:
            net = inst.pins.get(pin)
            if net is None:
                continue
            n = toggles.get(net, 0)
            own += n * 0.5 * load.get(net, 0.0) * vdd * vdd
            if pin in cell.energy and n:
                rise, fall = cell.energy[pin]
                c = load.get(net, 0.0)
                e_int = n * 0.5 * (rise.lookup(slew_ns, c) + fall.lookup(slew_ns, c))
                e.internal_pj += e_int
                own += e_int
        if cell.clock_energy and clock_net is not None:
            clk = next((net for pin, net in inst.pins.items() if net == clock_net), None)
            if clk is not None:
                e_clk = toggles.get(clk, 0) * cell.clock_energy
                e.internal_pj += e_clk
                own += e_clk
        e.per_cell[inst.cell] = e.per_cell.get(inst.cell, 0.0) + own
    return e
