"""The mapped gate-level netlist that static timing reads (issue 28), cached per configuration.

A whole SM's netlist is make ppa's own synthesis (ppa/synth.py ``sm_netlist``): its mapping (flip-flop
arrays to gates, flip-flops onto ``dfxtp_1``, ABC onto the area library's 28 cells: the cells
ppa/charlib.py characterizes) also writes the design with every memory macro (ppa/memory.py's rule)
replaced by its **registered boundary** (ppa/macro_boundary.v: each address/data/enable bit ends at a
``simt_macro_in`` endpoint, each read data bit starts at a ``simt_macro_out`` whose clock-to-output is
the macro's access time) as ``netlist.v`` (hierarchical: one module per unit), so area and timing come
from one mapping and a cold run maps each SM once.

One rtl/sm unit alone (Lies 2019 §5.2's candidates, ppa/sta.py ``analyse_unit``) takes two Yosys runs,
each cached under ``build/ppa/sta/``:

1. ``coarse``: ppa/flow.py's coarse script (the same as make ppa's), kept as ``coarse.il``; keyed by the
   RTL sources (every ``rtl/sm/*.v``, globbed), the script and the Yosys version;
2. ``timed``: the coarse design mapped as above, macros first replaced by their boundaries.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from ppa import config, flow
from ppa.yosys import Yosys, run
from spec.config import GpuConfig

STA_BUILD = flow.ROOT / "build" / "ppa" / "sta"
BOUNDARY_V = flow.BOUNDARY_V


def key(parts: list[str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()[:12]


def sources(files: list[Path]) -> list[str]:
    incs = sorted(flow.INCLUDE.glob("*.vh"))
    return [f"{f.name}:{f.read_text()}" for f in [*files, *incs]]


def timed_script(liberty: Path, macros: Path) -> str:
    """coarse.il -> netlist.v: flop arrays to gates, macros to registered boundaries (the cells of the
    *macros* Liberty), ABC onto *liberty*."""
    return (
        "\n".join(
            [
                "read_rtlil coarse.il",
                f"read_liberty -lib {liberty}",
                f"read_liberty -lib {macros}",
                f"select -set flopmem {flow.FLOP_ARRAYS}",
                *flow._MAP_FLOP_ARRAYS,
                # what is left of $mem_v2 are the macros: each becomes its registered boundary
                f"techmap -map {BOUNDARY_V} t:$mem_v2",
                "opt_clean",
                # flip-flops first: dfflibmap legalizes an enable flip-flop into dfxtp_1 + a generic $_MUX_,
                # which ABC must see (after ABC they stayed unmapped: 37,773 black boxes in the 8-lane SM)
                f"dfflibmap -liberty {liberty}",
                "opt_clean",
                f"abc -liberty {liberty}",
                "opt_clean",
                "splitnets -ports",
                "opt_clean -purge",
                f"tee -q -o cells.json stat -liberty {liberty} -json",
                "write_verilog -noattr -noexpr -nohex -nodec netlist.v",
            ]
        )
        + "\n"
    )


def coarse(yosys: Yosys, cfg: GpuConfig, log=print, top: str = "simt_sm", params: dict | None = None) -> Path:
    """The cached ``coarse.il`` of *cfg*'s SM, or of one rtl/sm unit *top* with *params* (ppa/flow.py's
    coarse script)."""
    params = config.sm_params(cfg) if params is None else params
    script = flow.coarse_script(params, top)
    k = key([yosys.version, script, *sources(flow.SM_FILES)])
    work = STA_BUILD / f"coarse-{label(cfg, top)}-{k}"
    il = work / "coarse.il"
    if il.is_file():
        return il
    shutil.rmtree(work, ignore_errors=True)
    log(f"  coarse synthesis of {label(cfg, top)} ({yosys.short_version}, nice 10) in {work}")
    seconds = run(yosys, script.replace("write_json coarse.json\n", ""), work, "coarse")
    (work / "seconds.txt").write_text(f"{seconds:.1f}\n")
    return il


def label(cfg: GpuConfig, top: str = "simt_sm") -> str:
    """``L8-W16-R512-B8`` for the SM, ``simt_alu@L8-W16-R512-B8`` for one of its units."""
    sm = config.name(config.sm_only(cfg))
    return sm if top == "simt_sm" else f"{top}@{sm}"


def timed(
    yosys: Yosys, cfg: GpuConfig, macros: Path, log=print, top: str = "simt_sm", params: dict | None = None
) -> Path:
    """The cached gate-level netlist (``netlist.v``) of *cfg*'s SM (make ppa's own mapping, ppa/synth.py
    ``sm_netlist``) or of one unit *top* alone: mapped exactly as make ppa maps it (ABC onto the area
    library of ppa/liberty.py, whose cells the characterized Liberty times), with the memory macros as
    registered boundaries (*macros*)."""
    from ppa import synth

    if top == "simt_sm" and params is None:
        return synth.sm_netlist(yosys, cfg, log)
    il = coarse(yosys, cfg, log, top, params)
    area_lib, _ = synth.library()
    script = timed_script(area_lib, macros)
    k = key(
        [
            il.read_text(),
            script,
            area_lib.read_text(),
            macros.read_text(),
            BOUNDARY_V.read_text(),
            yosys.version,
        ]
    )
    work = STA_BUILD / f"timed-{label(cfg, top)}-{k}"
    net = work / "netlist.v"
    if net.is_file():
        return net
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copy(il, work / "coarse.il")
    log(f"  mapping {label(cfg, top)} (the area flow's mapping, macros as boundaries) in {work}")
    seconds = run(yosys, script, work, "timed")
    (work / "seconds.txt").write_text(f"{seconds:.1f}\n")
    (work / "coarse.il").unlink()
    check_mapped(net)
    return net


_GENERIC = re.compile(r"^\s+\\(\$_\w+_)\s", re.M)


class UnmappedError(RuntimeError):
    """The mapped netlist still holds Yosys generic cells (no Liberty cell: black boxes for OpenSTA)."""


def unmapped(verilog: str) -> dict[str, int]:
    """Yosys generic cells (``$_MUX_``, ``$_DFF_P_``, …) left in a mapped netlist, per type."""
    out: dict[str, int] = {}
    for t in _GENERIC.findall(verilog):
        out[t] = out.get(t, 0) + 1
    return out


def check_mapped(net: Path) -> None:
    left = unmapped(net.read_text())
    if left:
        raise UnmappedError(
            f"{net}: generic cells left after mapping ({', '.join(f'{n} {t}' for t, n in sorted(left.items()))}): "
            "OpenSTA would treat them as black boxes; map them (ppa/netlist.py timed_script)"
        )


_BOUNDARY = re.compile(r"^\s+(simt_macro_in|simt_macro_out)\s", re.M)


class BoundaryError(RuntimeError):
    """A timed netlist whose memory macros lack their registered boundary's endpoints."""


def boundary_cells(verilog: str) -> tuple[int, int]:
    """(``simt_macro_in`` endpoints, ``simt_macro_out`` start points) instantiated in a netlist's text."""
    found = _BOUNDARY.findall(verilog)
    return found.count("simt_macro_in"), found.count("simt_macro_out")


def check_boundaries(verilog: str, arrays: list[dict], where: str) -> tuple[int, int]:
    """Every macro of *arrays* (ppa/memory.py inventory rows of one netlist's module definitions) has its
    boundary: a start point per read-data bit, and endpoints for at least every write-data and
    write-enable bit and read enable (address bits come on top). The netlists timed before 2026-11-26
    had no endpoints at all (opt_clean removed the output-less cells): no path into a macro was timed."""
    macros = [a for a in arrays if a["kind"] == "macro"]
    outs_expected = sum(a["read_ports"] * a["width"] for a in macros)
    ins_at_least = sum(a["read_ports"] + 2 * a["write_ports"] * a["width"] for a in macros)
    ins, outs = boundary_cells(verilog)
    if outs != outs_expected or ins < ins_at_least:
        raise BoundaryError(
            f"{where}: {ins} macro endpoints (at least {ins_at_least} expected) and {outs} macro start points "
            f"({outs_expected} expected) for {len(macros)} macros: the registered boundary "
            "(ppa/macro_boundary.v) must keep its endpoints (* keep *)"
        )
    return ins, outs


def coarse_seconds(cfg_dir: Path) -> float:
    p = cfg_dir / "seconds.txt"
    return float(p.read_text()) if p.is_file() else 0.0
