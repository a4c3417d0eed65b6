"""Fan-out buffer trees for the timed netlist (issue 28): what a synthesis tool's buffering does, stated.

ABC maps the SM onto drive-strength-1 cells for area (ppa/netlist.py); a decoded control signal then
drives hundreds of pins through one ``o211ai_1`` and that single stage was 19 of the 8-lane SM's 24 ns
(docs/ppa.md). This pass rewrites the Yosys ``write_verilog`` netlist so that no net drives more than
``MAX_FANOUT`` pins: the sinks of a larger net are split into groups of at most ``MAX_FANOUT`` (in netlist
order), each group driven by a buffer, and the buffers' inputs are grouped again until the original
driver drives at most ``MAX_FANOUT`` of them: a balanced tree of depth ⌈log_F(sinks)⌉. Each buffer is the
smallest of ``buf_2`` / ``buf_4`` / ``buf_8`` whose load budget (``LOAD_PER_DRIVE`` × its drive strength)
holds its group's pin capacitance, else ``buf_8``. It is a fan-out rule, not timing-driven sizing: no
gate is upsized and no path is restructured, so the Fmax it gives is what buffering alone buys.

Hierarchy is kept: each module buffers its own nets; a submodule's input pin counts as one sink whose
capacitance is what that port drives inside the (already buffered) submodule (modules are processed
bottom-up). Clock nets (anything reaching a ``CLK``/``clk`` pin) are left alone: the clock is ideal in
ppa/sta.py (no clock tree). Pre-layout, no wires: the loads are pin capacitances only.

MAX_FANOUT = 10: OpenLane 2's maximum fan-out for sky130 designs (``MAX_FANOUT_CONSTRAINT = 10`` in
efabless/openlane2 ``openlane/config/pdk_compat.py``; docs/references.md#openlane).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field

MAX_FANOUT = 10
LOAD_PER_DRIVE = 0.010  # pF of pin load per unit of drive strength a buffer is given (stated rule)
BUFFER_SIZES = (2, 4, 8)
PREFIX = "sky130_fd_sc_hd__"
CLOCK_PINS = ("CLK", "clk")

_MODULE = re.compile(r"^module\s+(\\\S+|[^\s(]+)\s*\(")
_PORT = re.compile(r"^\s*(input|output|inout)\s+(?:\[[^\]]*\]\s*)?(\\\S+\s|[^\s;]+)\s*;")
_INST = re.compile(r"^\s+(\\\S+|[A-Za-z_$][\w$]*)\s+(\\\S+|[A-Za-z_$][\w$]*)\s*\($")
_CONN = re.compile(r"^\s+\.(\\\S+\s|[A-Za-z_$][\w$]*)\s*\((.*)\),?\s*$")
_ASSIGN = re.compile(r"^\s*assign\s+(.+?)\s*=\s*(.+?)\s*;\s*$")


class FanoutError(ValueError):
    """The netlist could not be read (not a Yosys write_verilog netlist?)."""


@dataclass
class Inst:
    type: str
    name: str
    conns: list[list] = field(default_factory=list)  # [pin, net expression, line index or None]


@dataclass
class Module:
    name: str
    lines: list[str]
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    insts: list[Inst] = field(default_factory=list)
    assigns: list[tuple[str, str]] = field(default_factory=list)
    end: int = 0  # index of the endmodule line
    new_lines: list[str] = field(default_factory=list)


def _name(token: str) -> str:
    return token.strip()


def _ref(expr: str) -> str:
    """*expr* as it must be written: an escaped identifier ends at white space."""
    return expr + " " if expr.startswith("\\") else expr


def parse(text: str) -> dict[str, Module]:
    """The modules of a Yosys ``write_verilog -noattr`` netlist (one connection per line)."""
    mods: dict[str, Module] = {}
    cur: Module | None = None
    inst: Inst | None = None
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if cur is None:
            m = _MODULE.match(ln)
            if m:
                cur = Module(_name(m.group(1)), [])
                start = i
            continue
        if ln.startswith("endmodule"):
            cur.lines = lines[start : i + 1]
            cur.end = i - start
            # line indices relative to the module's first line
            for it in cur.insts:
                for c in it.conns:
                    c[2] -= start
            mods[cur.name] = cur
            cur, inst = None, None
            continue
        if inst is not None:
            m = _CONN.match(ln)
            if m:
                inst.conns.append([_name(m.group(1)), m.group(2).strip(), i])
                continue
            if ln.strip() == ");":
                inst = None
                continue
            raise FanoutError(f"line {i + 1}: unexpected text inside instance {inst.name}: {ln.strip()!r}")
        m = _PORT.match(ln)
        if m:
            (cur.inputs if m.group(1) == "input" else cur.outputs).append(_name(m.group(2)))
            continue
        m = _ASSIGN.match(ln)
        if m:
            cur.assigns.append((m.group(1), m.group(2)))
            continue
        m = _INST.match(ln)
        if m and m.group(1) not in ("module", "wire", "reg", "input", "output", "assign"):
            inst = Inst(_name(m.group(1)), _name(m.group(2)))
            cur.insts.append(inst)
    if cur is not None:
        raise FanoutError(f"module {cur.name} has no endmodule")
    return mods


def _single(expr: str) -> bool:
    """One bit of one net (not a constant, a concatenation or a range)."""
    return not (expr.startswith("{") or "'" in expr or ":" in expr or not expr)


def _order(mods: dict[str, Module], top: str) -> list[str]:
    """Modules bottom-up (every submodule before its parents), those reachable from *top*."""
    seen: list[str] = []

    def visit(name: str, stack: tuple[str, ...]) -> None:
        if name in seen or name in stack:
            return
        for it in mods[name].insts:
            if it.type in mods:
                visit(it.type, (*stack, name))
        seen.append(name)

    visit(top, ())
    return seen


@dataclass
class Stats:
    nets_buffered: int = 0
    buffers: dict[str, int] = field(default_factory=dict)
    max_fanout_before: int = 0
    max_depth: int = 0
    skipped_exprs: int = 0  # connections that are not one bit of one net (not counted as loads)

    def as_dict(self) -> dict:
        return {**asdict(self), "max_fanout": MAX_FANOUT, "load_per_drive_pf": LOAD_PER_DRIVE}


def pick(load: float) -> int:
    """The drive strength of the buffer for *load* pF."""
    for size in BUFFER_SIZES:
        if load <= size * LOAD_PER_DRIVE:
            return size
    return BUFFER_SIZES[-1]


def buffer_module(
    mod: Module,
    caps: dict[str, dict[str, float]],
    port_load: dict[str, dict[str, float]],
    stats: Stats,
    max_fanout: int = MAX_FANOUT,
) -> None:
    """Insert the buffer trees of *mod* (in place: rewritten connections, new wires and instances), and
    record in ``port_load[mod.name]`` each input port's load after buffering."""
    sinks: dict[str, list[tuple[list, float]]] = defaultdict(list)
    clock_nets: set[str] = set()
    for it in mod.insts:
        sub = port_load.get(it.type)
        cell = caps.get(it.type)
        for c in it.conns:
            pin, expr = c[0], c[1]
            if not _single(expr):
                stats.skipped_exprs += 1
                continue
            if pin in CLOCK_PINS:
                clock_nets.add(expr)
                continue
            if cell is not None:
                if pin in cell:
                    sinks[expr].append((c, cell[pin]))
            elif sub is not None and pin in sub:
                sinks[expr].append((c, sub[pin]))
    clock_nets.update(p for p in mod.inputs if p in CLOCK_PINS)
    counter = 0
    for net, refs in sinks.items():
        if net in clock_nets or len(refs) <= max_fanout:
            continue
        stats.nets_buffered += 1
        stats.max_fanout_before = max(stats.max_fanout_before, len(refs))
        level, depth = refs, 0
        while len(level) > max_fanout:
            depth += 1
            nxt = []
            for g in range(0, len(level), max_fanout):
                group = level[g : g + max_fanout]
                size = pick(sum(cap for _, cap in group))
                cell = f"{PREFIX}buf_{size}"
                counter += 1
                out = f"_fo_net_{counter}_"
                for ref, _ in group:
                    ref[1] = out
                a = ["A", net, None]
                mod.new_lines.append(f"  wire {out};")
                # Yosys's own layout (one connection per line), so that the output parses again
                mod.new_lines.append(
                    f"  {cell} _fo_buf_{counter}_ (\n    .A(@A{counter}@),\n    .X({out})\n  );"
                )
                mod.insts.append(Inst(cell, f"_fo_buf_{counter}_", [a, ["X", out, None]]))
                stats.buffers[f"buf_{size}"] = stats.buffers.get(f"buf_{size}", 0) + 1
                nxt.append((a, caps.get(cell, {}).get("A", 0.0)))
            level = nxt
        stats.max_depth = max(stats.max_depth, depth)
    # each input port's load after buffering: the pins still connected to it
    ports = set(mod.inputs)
    final: dict[str, float] = defaultdict(float)
    for it in mod.insts:
        for pin, expr, _ in it.conns:
            if expr in ports and pin not in CLOCK_PINS:
                final[expr] += _pin_cap(it.type, pin, caps, port_load)
    port_load[mod.name] = {p: final.get(p, 0.0) for p in mod.inputs}


def _pin_cap(cell: str, pin: str, caps: dict[str, dict[str, float]], port_load: dict) -> float:
    """An input pin's capacitance (pF): the Liberty's for a cell, the port's load for a submodule, 0 for
    an output pin."""
    if cell in caps:
        return caps[cell].get(pin, 0.0)
    return port_load.get(cell, {}).get(pin, 0.0)


def render(mod: Module) -> str:
    """The module's text with its rewritten connections and its new wires and buffers."""
    lines = list(mod.lines)
    for it in mod.insts:
        for pin, expr, idx in it.conns:
            if idx is None:
                continue
            old = lines[idx]
            m = _CONN.match(old)
            if m and m.group(2).strip() != expr:
                comma = "," if old.rstrip().endswith(",") else ""
                lines[idx] = f"{old[: old.index('.')]}.{_ref(pin)}({_ref(expr)}){comma}"
    extra = []
    by_a = {it.name: it.conns[0][1] for it in mod.insts if it.name.startswith("_fo_buf_")}
    for ln in mod.new_lines:
        m = re.search(r"@A(\d+)@", ln)
        if m:
            ln = ln.replace(m.group(0), _ref(by_a[f"_fo_buf_{m.group(1)}_"]))
        extra.append(ln)
    return "\n".join(lines[: mod.end] + extra + lines[mod.end :])


def buffer_netlist(
    text: str, caps: dict[str, dict[str, float]], top: str, max_fanout: int = MAX_FANOUT
) -> tuple[str, Stats]:
    """*text* with every net of fan-out > *max_fanout* behind a buffer tree. *caps*: cell type (with
    the library prefix) -> input pin -> capacitance (pF); it must hold the buffers."""
    for size in BUFFER_SIZES:
        if f"{PREFIX}buf_{size}" not in caps:
            raise FanoutError(
                f"the Liberty has no {PREFIX}buf_{size}: characterize it (ppa/charlib.py BUFFERS)"
            )
    mods = parse(text)
    if top not in mods:
        raise FanoutError(f"no module {top} in the netlist")
    stats = Stats()
    port_load: dict[str, dict[str, float]] = {}
    for name in _order(mods, top):
        buffer_module(mods[name], caps, port_load, stats, max_fanout)
    out = [render(mods[name]) for name in mods]
    return "\n\n".join(out) + "\n", stats


def fanout_of(text: str, caps: dict[str, dict[str, float]]) -> dict[str, int]:
    """``module/net`` -> its number of non-clock sink pins (cell input pins, submodule input ports)."""
    mods = parse(text)
    out: dict[str, int] = {}
    for mod in mods.values():
        n: dict[str, int] = defaultdict(int)
        for it in mod.insts:
            ins = caps.get(it.type) or (set(mods[it.type].inputs) if it.type in mods else set())
            for pin, expr, _ in it.conns:
                if _single(expr) and pin not in CLOCK_PINS and pin in ins:
                    n[expr] += 1
        for net, k in n.items():
            out[f"{mod.name}/{net}"] = k
    return out


def pin_caps(libs: list) -> dict[str, dict[str, float]]:
    """Cell -> input pin -> capacitance (pF) of every cell of the Liberty files *libs* (Paths)."""
    from ppa import timedlib

    caps: dict[str, dict[str, float]] = {}
    for lib in libs:
        for name, cell in timedlib.cells_of(timedlib.read(lib)).items():
            caps[name] = dict(cell.inputs)
    return caps


def buffered(net, libs: list, top: str, log=print):
    """The cached buffered copy of netlist *net* (a Path) beside it, and the pass's statistics."""
    import hashlib
    import json
    from pathlib import Path

    caps = pin_caps(libs)
    h = hashlib.sha256()
    for part in (net.read_text(), json.dumps(caps, sort_keys=True), Path(__file__).read_text(), top):
        h.update(part.encode())
        h.update(b"\0")
    out = net.parent / f"netlist-fo{MAX_FANOUT}-{h.hexdigest()[:12]}.v"
    meta = out.with_suffix(".json")
    if out.is_file() and meta.is_file():
        return out, json.loads(meta.read_text())
    log(f"  fan-out buffering (max fan-out {MAX_FANOUT}) of {net}")
    text, stats = buffer_netlist(net.read_text(), caps, top)
    out.write_text(text)
    info = stats.as_dict()
    meta.write_text(json.dumps(info, indent=1))
    return out, info
