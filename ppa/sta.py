"""Static timing of each configuration's mapped SM with OpenSTA (issue 28), and the parsing of its reports.

    python -m ppa.sta [--lanes 4,8,16,32] [--jobs 2]

Per configuration: the timed netlist (ppa/netlist.py: the SM mapped onto the characterized Liberty, memory
macros as registered boundaries) is read by OpenSTA with the Liberty and ``simt_macros`` (ppa/timedlib.py);
one ideal clock on ``clk``; ports are not timed (``set_input_delay``/``set_output_delay`` are not set: only
register-to-register paths count, the macro boundaries being registers).

- **Fmax** = 1 / (the clock period − the worst setup slack) over register-to-register paths.
- **Per unit**, its worst path: the worst endpoint inside the unit (the hierarchical instance the endpoint
  lies in, deepest project module), with its start point, the cells on the path and the arrival (ns).

Wire load: none. A net's load is the input capacitance of its fanout pins (a fanout-based wire-load model
whose wire term is zero): **pre-layout, no wires**; high-fanout nets behind the buffer trees of
ppa/fanout.py (at most 10 pins per net, buf_2/4/8; ``--unbuffered`` times ABC's drive-strength-1 netlist
as it is), no upsizing, no clock tree (ideal clock). Kind: synthesised + characterized, OpenSTA's own version.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ppa import config
from spec import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "build" / "ppa" / "sta"
PERIOD = 20.0  # ns: the clock the reports are computed against (Fmax does not depend on it)
VECTORLESS_ACTIVITY = 0.1  # toggles per clock of every input port (OpenSTA propagates it): a stated default
# OpenSTA's vectorless report_power is off unless asked for (PPA_STA_POWER=1 or ``--sta-power``): Debian's
# OpenSTA 2.0.17 segfaults in report_power on the whole SM netlist (a crash, not a Tcl error its catch
# could keep), which lost the timing of the same run. The power per kernel is ppa/netpower.py's own sum.
STA_POWER_ENV = "PPA_STA_POWER"


def sta_power_default() -> bool:
    """Whether the whole-SM STA also runs OpenSTA's vectorless ``report_power`` (default: no)."""
    v = os.environ.get(STA_POWER_ENV, "0").strip()
    if v not in ("0", "1", ""):
        raise StaError(f"{STA_POWER_ENV} must be 0 or 1, not {v!r}")
    return v == "1"


class StaError(RuntimeError):
    """OpenSTA is missing or failed."""


# ----------------------------------------------------------------------------- netlist hierarchy

_MODULE = re.compile(r"^module\s+(\S+)\s*\(", re.M)
_INST = re.compile(r"^\s+(\\?[^\s(]+)\s+(\\\S+|[^\s(]+)\s*\(", re.M)


def hierarchy(verilog: str) -> dict[str, dict[str, str]]:
    """Module -> {instance name: module/cell type} of a Yosys ``write_verilog`` netlist."""
    mods: dict[str, dict[str, str]] = {}
    parts = re.split(r"^endmodule\s*$", verilog, flags=re.M)
    for part in parts:
        m = _MODULE.search(part)
        if not m:
            continue
        body = part[m.end() :]
        insts = {}
        for t, n in _INST.findall(body):
            if t in ("input", "output", "inout", "wire", "reg", "assign", "module"):
                continue
            insts[n.lstrip("\\").strip()] = t.lstrip("\\")
        mods[m.group(1).lstrip("\\")] = insts
    return mods


def unit_of(pin: str, top: str, mods: dict[str, dict[str, str]]) -> str:
    """The deepest project module an OpenSTA pin path (``a/b/c/D``) lies in (``top`` for the top's own
    cells). OpenSTA escapes the brackets of generated names (``gen\\[0\\]``); both spellings work."""
    from ppa.flow import unit_name

    parts = pin.replace("\\", "").split("/")[:-2]  # drop the cell instance and its pin
    mod, unit = top, unit_name(top)
    i = 0
    while i < len(parts):
        insts = mods.get(mod, {})
        # a name with '/' inside cannot happen in Yosys output; join greedily for safety
        for j in range(len(parts), i, -1):
            name = "/".join(parts[i:j])
            if name in insts and insts[name] in mods:
                mod = insts[name]
                unit = unit_name(mod)
                i = j
                break
        else:
            break
    return unit


# ----------------------------------------------------------------------------- report parsing


@dataclass
class Path_:
    startpoint: str
    endpoint: str
    arrival: float  # ns, data arrival time
    required: float | None  # ns
    slack: float | None  # ns
    cells: list[str] = field(default_factory=list)  # cell types along the path, launch flip-flop first
    instances: list[str] = field(default_factory=list)


_START = re.compile(r"^Startpoint:\s+(\S+)", re.M)
_END = re.compile(r"^Endpoint:\s+(\S+)", re.M)
_ARR = re.compile(r"^\s*(-?[0-9.]+)\s+data arrival time", re.M)
_REQ = re.compile(r"^\s*(-?[0-9.]+)\s+data required time", re.M)
_SLACK = re.compile(r"^\s*(-?[0-9.]+)\s+slack \((MET|VIOLATED)\)", re.M)
_STEP = re.compile(r"^\s*-?[0-9.]+\s+-?[0-9.]+\s+[v^]\s+(\S+)\s+\(([^)]+)\)", re.M)


def parse_paths(text: str) -> list[Path_]:
    """Every ``report_checks -format full`` path of *text*."""
    out = []
    for block in re.split(r"(?=^Startpoint:)", text, flags=re.M):
        s, e, a = _START.search(block), _END.search(block), _ARR.search(block)
        if not (s and e and a):
            continue
        data_part = block[: a.end()]
        cells, insts = [], []
        for pin, cell in _STEP.findall(data_part):
            inst = pin.rsplit("/", 1)[0]
            if not insts or insts[-1] != inst:
                insts.append(inst)
                cells.append(cell)
        r, sl = _REQ.search(block), _SLACK.search(block)
        out.append(
            Path_(
                s.group(1),
                e.group(1),
                float(a.group(1)),
                float(r.group(1)) if r else None,
                float(sl.group(1)) if sl else None,
                cells,
                insts,
            )
        )
    return out


_END_ROW = re.compile(
    r"^(\S+)\s+\(([^)]*)\)\s+(-?[0-9.]+)\s+(-?[0-9.]+)\s+(-?[0-9.]+)\s+\((MET|VIOLATED)\)", re.M
)


def parse_endpoints(text: str) -> list[tuple[str, float]]:
    """(endpoint pin, slack ns) of every row of ``report_checks -format end``."""
    return [(m.group(1), float(m.group(5))) for m in _END_ROW.finditer(text)]


_POWER_ROW = re.compile(
    r"^(Sequential|Combinational|Macro|Pad|Total)\s+([-0-9.eE+]+)\s+([-0-9.eE+]+)\s+([-0-9.eE+]+)\s+([-0-9.eE+]+)",
    re.M,
)


def parse_power(source: Path | str) -> dict[str, dict[str, float]] | None:
    """``report_power``'s group rows: {group: {internal, switching, leakage, total}} in watts (a file or
    its text; None for a missing file)."""
    if isinstance(source, Path):
        if not source.is_file():
            return None
        source = source.read_text()
    keys = ("internal", "switching", "leakage", "total")
    rows = {m.group(1): dict(zip(keys, map(float, m.groups()[1:]))) for m in _POWER_ROW.finditer(source)}
    return rows or None


def fmax_mhz(period: float, slack: float) -> float:
    """Fmax of a path with *slack* at clock *period* (ns): 1 / (period − slack)."""
    need = period - slack
    if need <= 0:
        raise ValueError(f"slack {slack} ns is not less than the period {period} ns")
    return 1000.0 / need


# ----------------------------------------------------------------------------- running OpenSTA


def sta_exe() -> str:
    exe = shutil.which("sta")
    if exe is None:
        raise StaError(
            "OpenSTA not found: `apt-get install opensta` (Debian) — a named prerequisite of make ppa"
        )
    return exe


def sta_version() -> str:
    return (
        "OpenSTA "
        + subprocess.run([sta_exe(), "-version"], capture_output=True, text=True, timeout=60).stdout.strip()
    )


REG_CELLS = {"sky130_fd_sc_hd__dfxtp_1", "simt_macro_in"}  # cells whose D pin ends a register path


def instances(mods: dict[str, dict[str, str]], top: str) -> list[tuple[str, str]]:
    """(OpenSTA instance path, module) of every project-module instance below *top* ('' for the top),
    brackets of generated names escaped as OpenSTA wants them in patterns (``lane\\[0\\].u_alu``)."""
    out: list[tuple[str, str]] = []

    def walk(mod: str, path: str) -> None:
        out.append((path, mod))
        for name, typ in mods.get(mod, {}).items():
            if typ in mods:
                esc = name.replace("[", "\\[").replace("]", "\\]")
                walk(typ, f"{path}/{esc}" if path else esc)

    walk(top, "")
    return out


def script(
    libs: list[Path], netlist: Path, top: str, work: Path, units: list[str], power: bool = False
) -> str:
    """One OpenSTA run: the worst register-to-register path (``critical.rpt``), the worst path ending at
    a register data pin directly inside each instance path of *units* (``unit_<i>.rpt``), and, only if
    *power*, the vectorless power at PERIOD (``power.rpt``; ppa/sta.py scales it to Fmax)."""
    reg = "-from [all_registers -clock_pins] -to [all_registers -data_pins]"
    lines = [
        *[f"read_liberty {p}" for p in libs],
        f"read_verilog {netlist}",
        f"link_design {top}",
        f"create_clock -name clk -period {PERIOD} [get_ports clk]",
        "set_input_transition 0.04 [get_ports clk]",
        f"report_checks -path_delay max {reg} -format full -digits 4 > {work / 'critical.rpt'}",
    ]
    for i, path in enumerate(units):
        pattern = f"{path}/*/D" if path else "*/D"
        lines.append(
            f"report_checks -path_delay max -from [all_registers -clock_pins] -to [get_pins {{{pattern}}}] "
            f"-format full -digits 4 > {work / f'unit_{i}.rpt'}"
        )
    if power:  # off by default (STA_POWER_ENV): OpenSTA 2.0.17 segfaults here on the whole SM
        # a Tcl error must not lose the timing above: its message goes to the log (report_power also stops
        # on a NaN on some SMs; set_power_activity -pins calls a missing get_pins_error)
        catch = f'if {{[catch {{report_power -digits 6 > {work / "power.rpt"}}} err]}} {{ puts "report_power failed: $err" }}'
        lines += [f"set_power_activity -input -activity {VECTORLESS_ACTIVITY} -duty 0.5", catch]
    lines.append("exit")
    return "\n".join(lines) + "\n"


def scale_power(rows: dict[str, dict[str, float]], period: float, at: float) -> dict[str, dict[str, float]]:
    """``report_power`` groups computed at clock *period* (ns) restated at clock *at* (ns): with
    activities per clock (OpenSTA's vectorless inputs, the clock itself) internal and switching power
    scale with the frequency, leakage does not."""
    k = period / at
    out = {}
    for g, v in rows.items():
        dyn = {"internal": v["internal"] * k, "switching": v["switching"] * k, "leakage": v["leakage"]}
        out[g] = {**dyn, "total": sum(dyn.values())}
    return out


def run_sta(tcl: Path, log: Path) -> float:
    cmd = [sta_exe(), "-no_splash", "-exit", str(tcl)]
    if shutil.which("nice"):
        cmd = ["nice", "-n", "10", *cmd]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tcl.parent)
    log.write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0 or "Error:" in proc.stdout + proc.stderr:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise StaError(f"OpenSTA failed on {tcl} (see {log}):\n{tail}")
    return time.monotonic() - start


def analyse(libs: list[Path], netlist: Path, top: str, work: Path, power: bool = False) -> dict:
    """Fmax, the critical path, and the worst path into every unit instance's registers (one OpenSTA
    run; with *power* also OpenSTA's vectorless power)."""
    from ppa.flow import unit_name

    work.mkdir(parents=True, exist_ok=True)
    mods = hierarchy(netlist.read_text())
    # instances with register data pins of their own (OpenSTA's get_pins fails on a pattern matching none)
    insts = [(p, m) for p, m in instances(mods, top) if set(mods[m].values()) & REG_CELLS]
    tcl = _write(work / "sta.tcl", script(libs, netlist, top, work, [p for p, _ in insts], power))
    seconds = run_sta(tcl, work / "sta.log")
    found = parse_paths((work / "critical.rpt").read_text())
    if not found or found[0].slack is None:
        raise StaError(f"no register-to-register path in {work / 'critical.rpt'}")
    critical = found[0]
    worst_slack = critical.slack
    units: dict[str, dict] = {}
    for i, (path, mod) in enumerate(insts):
        ps = parse_paths((work / f"unit_{i}.rpt").read_text())
        if not ps or ps[0].slack is None:
            continue  # no register inside (a combinational unit: its paths end in its parent's registers)
        q = ps[0]
        u = unit_name(mod)
        if u in units and units[u]["slack_ns"] <= q.slack:
            continue
        units[u] = {
            "instance": path or top,
            "endpoint": q.endpoint,
            "slack_ns": q.slack,
            "delay_ns": PERIOD - q.slack,
            "fmax_mhz": fmax_mhz(PERIOD, q.slack),
            "path": asdict(q),
            "start_unit": unit_of(q.startpoint + "/X", top, mods),
            "through": sorted({unit_of(x + "/X", top, mods) for x in q.instances}),
        }
    units = dict(sorted(units.items(), key=lambda kv: kv[1]["slack_ns"]))
    power = parse_power(work / "power.rpt") if power else None
    min_period = PERIOD - worst_slack
    return {
        "fmax_mhz": fmax_mhz(PERIOD, worst_slack),
        "min_period_ns": min_period,
        "critical": {
            **asdict(critical),
            "end_unit": unit_of(critical.endpoint + "/X", top, mods),
            "start_unit": unit_of(critical.startpoint + "/X", top, mods),
            "through": sorted({unit_of(x + "/X", top, mods) for x in critical.instances}),
        },
        "units": units,
        "power_vectorless_w": scale_power(power, PERIOD, min_period) if power else None,
        "seconds": seconds,
    }


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------- the flow


def libraries(log=print) -> tuple[Path, Path, str]:
    """(the standard-cell Liberty, the macro boundary Liberty, a label): PPA_LIBERTY or ours."""
    from ppa import charlib, timedlib

    OUT.mkdir(parents=True, exist_ok=True)
    macros = OUT / "simt_macros.lib"
    text = timedlib.macro_liberty_text()
    if not macros.is_file() or macros.read_text() != text:
        macros.write_text(text)
    user = timedlib.user_liberty()
    if user is not None:
        return user.resolve(), macros, f"PPA_LIBERTY={user}"
    work, data = charlib.characterize(log=log)
    lib = work / "sky130_fd_sc_hd_char.lib"
    text = timedlib.liberty_text(data)
    if not lib.is_file() or lib.read_text() != text:
        lib.write_text(text)
    return lib, macros, f"characterized ({data['tool']}, tt 1.8 V 25 C)"


def analyse_config(cfg, log=print, buffer: bool = True, power: bool | None = None) -> dict:
    """Synthesis (cached), fan-out buffering (ppa/fanout.py, unless *buffer* is False), OpenSTA (cached
    by the netlist and libraries) of one SM configuration; OpenSTA's vectorless power only if *power*
    (None: ``PPA_STA_POWER``, default off)."""
    from ppa import fanout, netlist
    from ppa.yosys import find

    lib, macros, label = libraries(log)
    y = find()
    t0 = time.monotonic()
    net = netlist.timed(y, cfg, macros, log)
    synth_s = time.monotonic() - t0
    fo = None
    if buffer:
        t1 = time.monotonic()
        net, fo = fanout.buffered(net, [lib, macros], "simt_sm", log)
        fo["seconds"] = time.monotonic() - t1
    power = sta_power_default() if power is None else power
    key = netlist.key(
        [net.read_text(), lib.read_text(), macros.read_text(), Path(__file__).read_text(), f"power={power}"]
    )
    work = OUT / f"{config.name(config.sm_only(cfg))}-{key}"
    res_path = work / "sta.json"
    if res_path.is_file():
        return json.loads(res_path.read_text())
    log(f"  OpenSTA on SM {config.name(config.sm_only(cfg))}")
    res = analyse([lib, macros], net, "simt_sm", work, power)
    cells = json.loads((net.parent / "cells.json").read_text())
    res.update(
        name=config.name(config.sm_only(cfg)),
        config=config.as_dict(config.sm_only(cfg)),
        library=label,
        tool=sta_version(),
        yosys=y.version,
        wire_load="none: net load = fanout pin capacitance (pre-layout, no wires)",
        macro_model=f"registered boundary, access {__import__('ppa.timedlib').timedlib.MACRO_ACCESS_NS} ns",
        cells=cells.get("design", {}).get("num_cells"),
        area_um2=cells.get("design", {}).get("area"),
        seconds_synth=synth_s,
        buffering=fo,
        sta_power=power,
    )
    res_path.write_text(json.dumps(res, indent=1))
    return res


STA_POWER_HELP = (
    "also run OpenSTA's vectorless report_power on the whole SM (off by default: OpenSTA 2.0.17 "
    f"segfaults in it on the SM netlist; or {STA_POWER_ENV}=1)"
)


def main(argv: list[str] | None = None) -> int:
    from ppa.config import lanes_sweep

    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", default="4,8,16,32")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--sta-power", action="store_true", help=STA_POWER_HELP)
    args = ap.parse_args(argv)
    cfgs = lanes_sweep(True, tuple(int(x) for x in args.lanes.split(",")))
    from concurrent.futures import ProcessPoolExecutor

    try:
        power = args.sta_power or sta_power_default()
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            results = list(ex.map(functools.partial(analyse_config, power=power), cfgs))
    except (StaError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for r in results:
        c = r["critical"]
        print(
            f"{r['name']}: Fmax {r['fmax_mhz']:.1f} MHz ({r['min_period_ns']:.3f} ns), critical "
            f"{c['start_unit']} -> {c['end_unit']} ({len(c['cells'])} cells)"
        )
    (OUT / "summary.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    cli.run(main)


# ----------------------------------------------------------------------------- one unit alone

UNITS_ALONE = ("simt_alu", "simt_shared_lsu")  # Lies 2019 §5.2's two candidates for the critical path


def unit_script(libs: list[Path], netlist: Path, top: str, paths: Path) -> str:
    """A unit synthesised alone: its ports are treated as registered (input and output delay 0 against
    the clock; a virtual clock for a unit without one), so its worst path is its own logic's."""
    return (
        "\n".join(
            [
                *[f"read_liberty {p}" for p in libs],
                f"read_verilog {netlist}",
                f"link_design {top}",
                "if {[llength [get_ports -quiet clk]]} "
                f"{{ create_clock -name clk -period {PERIOD} [get_ports clk] }} "
                f"else {{ create_clock -name clk -period {PERIOD} }}",
                "set_input_delay 0 -clock clk [all_inputs]",
                "set_output_delay 0 -clock clk [all_outputs]",
                "set_input_transition 0.1 [all_inputs]",
                f"report_checks -path_delay max -format full -digits 4 > {paths}",
                "exit",
            ]
        )
        + "\n"
    )


def analyse_unit(job: tuple) -> dict:
    """(GpuConfig, unit[, buffer]) -> the unit's worst path alone (synthesised as make ppa maps it, buffered
    by ppa/fanout.py unless buffer is False; cached)."""
    from ppa import fanout, flow, netlist
    from ppa.yosys import find

    cfg, unit, *rest = job
    buffer = rest[0] if rest else True
    lib, macros, label = libraries()
    y = find()
    params = flow.unit_params(config.sm_params(cfg))[unit]
    t0 = time.monotonic()
    net = netlist.timed(y, cfg, macros, print, top=unit, params=params)
    synth_s = time.monotonic() - t0
    fo = None
    if buffer:
        net, fo = fanout.buffered(net, [lib, macros], unit)
    key = netlist.key([net.read_text(), lib.read_text(), macros.read_text(), Path(__file__).read_text()])
    work = OUT / f"{netlist.label(cfg, unit)}-{key}"
    res_path = work / "sta.json"
    if res_path.is_file():
        return json.loads(res_path.read_text())
    work.mkdir(parents=True, exist_ok=True)
    paths = work / "paths.rpt"
    seconds = run_sta(
        _write(work / "unit.tcl", unit_script([lib, macros], net, unit, paths)), work / "unit.log"
    )
    found = parse_paths(paths.read_text())
    if not found:
        raise StaError(f"no timed path in {paths}")
    p = found[0]
    res = {
        "unit": unit,
        "config": config.name(config.sm_only(cfg)),
        "lanes": cfg.num_lanes,
        "params": params,
        "delay_ns": PERIOD - (p.slack or 0.0),
        "fmax_mhz": fmax_mhz(PERIOD, p.slack or 0.0),
        "path": asdict(p),
        "library": label,
        "seconds_sta": seconds,
        "seconds_synth": synth_s,
        "buffering": fo,
    }
    res_path.write_text(json.dumps(res, indent=1))
    return res
