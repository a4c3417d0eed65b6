"""Run the Yosys flow of ppa/flow.py for one configuration, cached.

A configuration's results live in ``build/ppa/cache/<name>-<key>/result.json``; the key is a hash of
everything that can change them (the RTL sources, the scripts, the Yosys version, the area library),
so editing rtl/ re-synthesises and a rerun without changes reads the file back in milliseconds.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import shutil
import time
from pathlib import Path

from ppa import config, flow, liberty, memory
from ppa.yosys import Yosys, run
from spec.config import GpuConfig

BUILD = flow.ROOT / "build" / "ppa"
CACHE = BUILD / "cache"
KEEP = {"result.json", "flop_arrays.txt", "generic.json", "cells.json", "ice40.json", "netlist.v"}


def sky130_version() -> str:
    try:
        return importlib.metadata.version("sky130")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def library(build: Path = BUILD) -> tuple[Path, dict[str, liberty.Cell]]:
    """The area-only library, (re)written under build/ppa/ (cheap: 29 small LEF files)."""
    path = build / "sky130_fd_sc_hd_area.lib"
    cells = liberty.write_liberty(path)
    return path, cells


def macro_cells(build: Path = BUILD) -> Path:
    """The Liberty of a memory macro's two boundary cells (ppa/timedlib.py), which the SM's timed netlist
    instantiates (ppa/flow.py ``timed_netlist``); only their names and pins matter to the mapping."""
    from ppa import timedlib

    path = build / "simt_macros.lib"
    text = timedlib.macro_liberty_text()
    if not path.is_file() or path.read_text() != text:
        build.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


def _key(parts: list[str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()[:12]


def _sources(files: list[Path]) -> list[str]:
    incs = sorted(flow.INCLUDE.glob("*.vh"))
    return [f"{f.name}:{f.read_text()}" for f in [*files, *incs]]


def _module_table(cells: dict, generic: dict, depth: dict[str, int], top: str) -> dict[str, dict]:
    """Per unit (module): instances and its own numbers per instance."""
    lib_mods = cells["modules"]
    gen_mods = generic["modules"]
    # Yosys's per-module "area" includes the sub-units' area: a unit's own area is recomputed from its
    # own library cells (LEF areas), so nothing is counted twice.
    areas = {liberty.PREFIX + n: c.area for n, c in liberty.load_cells().items()}
    mult = flow.multiplicity(lib_mods, top)
    units: dict[str, dict] = {}
    for mod, stats in lib_mods.items():
        if mod not in mult:
            continue
        name = flow.unit_name(mod)
        by_type = stats.get("num_cells_by_type", {})
        lib_cells = sum(n for t, n in by_type.items() if t.startswith(liberty.PREFIX))
        ffs = by_type.get(liberty.PREFIX + liberty.FLOP, 0)
        gates, gen_ffs = flow.generic_counts(gen_mods.get(mod, {}).get("num_cells_by_type", {}), gen_mods)
        units[name] = {
            "instances": mult[mod],
            "cells": lib_cells,
            "area_um2": sum(n * areas[t] for t, n in by_type.items() if t in areas),
            "seq_area_um2": ffs * areas[liberty.PREFIX + liberty.FLOP],
            "ffs": ffs,
            "generic_gates": gates,
            "generic_ffs": gen_ffs,
            "depth": depth.get(name),  # None: not measured (see ppa/flow.py)
        }
    return units


def _reparse(work: Path, result: dict, top: str) -> None:
    """Recompute the unit table from the kept Yosys statistics (parsing fixes need no re-synthesis)."""
    cells, generic = work / "cells.json", work / "generic.json"
    if cells.is_file() and generic.is_file():
        depth = {k: v["depth"] for k, v in result["units"].items() if v.get("depth") is not None}
        result["units"] = _module_table(flow.load_json(cells), flow.load_json(generic), depth, top)


def _tidy(work: Path) -> None:
    for p in work.iterdir():
        if p.name not in KEEP and p.is_file():
            p.unlink()


def synth_sm(
    yosys: Yosys,
    cfg: GpuConfig,
    ice40: bool = False,
    force: bool = False,
    log=print,
    cached_only: bool = False,
) -> dict | None:
    """Synthesise one SM configuration (or read its cached result)."""
    sm_name = config.name(config.sm_only(cfg))
    lib_path, _ = library()
    scripts = [
        flow.coarse_script(config.sm_params(cfg)),
        flow.map_script(lib_path, macro_cells()),
        flow.ice40_script(config.sm_params(cfg)),
    ]
    # the boundary cells' timing (the macros Liberty's numbers) does not change the netlist: not keyed
    key = _key(
        [
            yosys.version,
            lib_path.read_text(),
            *scripts[:2],
            flow.BOUNDARY_V.read_text(),
            *_sources(flow.SM_FILES),
        ]
    )
    work = CACHE / f"sm-{sm_name}-{key}"
    result_path = work / "result.json"
    if result_path.is_file() and not force:
        result = json.loads(result_path.read_text())
        _reparse(work, result, "simt_sm")
        if ice40 and "ice40" not in result and not cached_only:  # an add-on run, same key
            log(f"  synth_ice40 of SM {sm_name}")
            result["seconds"]["ice40"] = run(yosys, scripts[2], work, "ice40")
            result["ice40"] = ice40_counts(flow.load_json(work / "ice40.json"))
            result_path.write_text(json.dumps(result, indent=1))
            _tidy(work)
        return result
    if cached_only:
        return None
    shutil.rmtree(work, ignore_errors=True)
    log(f"  synthesising SM {sm_name} with {yosys.short_version} (nice 10) in {work.relative_to(flow.ROOT)}")
    seconds = {"coarse": run(yosys, scripts[0], work, "coarse")}
    design = flow.load_json(work / "coarse.json")
    seconds["map"] = run(yosys, scripts[1], work, "map")
    cells = flow.load_json(work / "cells.json")
    flow.check_mapped(cells, f"SM {sm_name} ({work / 'cells.json'})")
    generic = flow.load_json(work / "generic.json")
    depth = flow.parse_abc_levels((work / "map.log").read_text())
    units = _module_table(cells, generic, depth, "simt_sm")
    mult = {m: units[flow.unit_name(m)]["instances"] for m in cells["modules"] if flow.unit_name(m) in units}
    arrays = memory.inventory(design, mult)
    result = {
        "kind": "sm",
        "config": config.as_dict(config.sm_only(cfg)),
        "name": sm_name,
        "key": key,
        "tool": yosys.version,
        "sky130": sky130_version(),
        "units": units,
        "memories": [a.as_dict() for a in arrays],
        "flop_arrays": (work / "flop_arrays.txt").read_text().split(),
    }
    from ppa import netlist

    net = work / "netlist.v"
    netlist.check_mapped(net)  # no generic cell, and every macro with its registered boundary
    netlist.check_boundaries(net.read_text(), result["memories"], f"SM {sm_name} ({net})")
    if ice40:
        seconds["ice40"] = run(yosys, scripts[2], work, "ice40")
        result["ice40"] = ice40_counts(flow.load_json(work / "ice40.json"))
    result["seconds"] = seconds
    result["created"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    result_path.write_text(json.dumps(result, indent=1))
    _tidy(work)
    return result


def sm_netlist(yosys: Yosys, cfg: GpuConfig, log=print) -> Path:
    """The SM's mapped netlist with its macros as registered boundaries (``netlist.v``, for OpenSTA): the
    same Yosys run as its area (synthesised now unless cached)."""
    r = synth_sm(yosys, cfg, log=log)
    net = CACHE / f"sm-{r['name']}-{r['key']}" / "netlist.v"
    if not net.is_file():
        raise FileNotFoundError(f"{net} is missing: delete {net.parent} and rerun `make ppa`")
    return net


def ice40_counts(stats: dict) -> dict[str, int]:
    """LUT4s, flip-flops, carry cells and 4 kbit block RAMs of a synth_ice40 design."""
    by_type = stats.get("design", {}).get("num_cells_by_type", {})
    return {
        "lut4": by_type.get("SB_LUT4", 0),
        "ff": sum(n for t, n in by_type.items() if t.startswith("SB_DFF")),
        "carry": by_type.get("SB_CARRY", 0),
        "bram_4k": sum(n for t, n in by_type.items() if t.startswith("SB_RAM40")),
    }


def synth_gpu(
    yosys: Yosys, cfg: GpuConfig, force: bool = False, log=print, cached_only: bool = False
) -> dict | None:
    """Synthesise the GPU top of *cfg* (its SMs as black boxes) or read the cached result."""
    lib_path, _ = library()
    script = flow.gpu_script(config.gpu_params(cfg), lib_path)
    key = _key(
        [
            yosys.version,
            lib_path.read_text(),
            script,
            *_sources(flow.TOP_FILES + [flow.RTL / "sm" / "simt_sm.v"]),
        ]
    )
    work = CACHE / f"gpu-{config.name(cfg)}-{key}"
    result_path = work / "result.json"
    if result_path.is_file() and not force:
        result = json.loads(result_path.read_text())
        _reparse(work, result, "simt_gpu")
        result["units"].pop("simt_sm", None)
        return result
    if cached_only:
        return None
    shutil.rmtree(work, ignore_errors=True)
    log(f"  synthesising GPU top {config.name(cfg)} (SMs as black boxes)")
    seconds = {"top": run(yosys, script, work, "gpu")}
    design = flow.load_json(work / "coarse.json")
    cells = flow.load_json(work / "cells.json")
    flow.check_mapped(cells, f"GPU top {config.name(cfg)} ({work / 'cells.json'})")
    generic = flow.load_json(work / "generic.json")
    depth = flow.parse_abc_levels((work / "gpu.log").read_text())
    units = _module_table(cells, generic, depth, "simt_gpu")
    units.pop("simt_sm", None)  # the black box: its numbers come from the SM synthesis
    mult = {m: units[flow.unit_name(m)]["instances"] for m in cells["modules"] if flow.unit_name(m) in units}
    arrays = [a for a in memory.inventory(design, mult) if a.unit != "simt_sm"]
    result = {
        "kind": "gpu",
        "config": config.as_dict(cfg),
        "name": config.name(cfg),
        "key": key,
        "tool": yosys.version,
        "sky130": sky130_version(),
        "units": units,
        "memories": [a.as_dict() for a in arrays],
        "seconds": seconds,
        "created": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    result_path.write_text(json.dumps(result, indent=1))
    _tidy(work)
    return result


def synth_module(yosys: Yosys, top: str, params: dict[str, int], work: Path, timed: bool = False) -> dict:
    """One rtl/sm module on its own (no cache): its units and memory inventory, as in synth_sm (and with
    *timed*, its timed netlist ``work/netlist.v`` as synth_sm writes the SM's)."""
    lib_path, _ = library()
    run(yosys, flow.coarse_script(params, top), work, "coarse")
    design = flow.load_json(work / "coarse.json")
    run(yosys, flow.map_script(lib_path, macro_cells() if timed else None), work, "map")
    cells = flow.load_json(work / "cells.json")
    flow.check_mapped(cells, f"{top} ({work / 'cells.json'})")
    generic = flow.load_json(work / "generic.json")
    units = _module_table(cells, generic, {}, top)
    return {"units": units, "memories": [a.as_dict() for a in memory.inventory(design)]}


def unit_depths(
    yosys: Yosys, cfg: GpuConfig, force: bool = False, log=print, cached_only: bool = False
) -> dict[str, int] | None:
    """Logic depth (generic two-input gates, ``ltp -noff``) of every rtl/sm unit of *cfg*, cached."""
    sm_name = config.name(config.sm_only(cfg))
    params = flow.unit_params(config.sm_params(cfg))
    scripts = {u: flow.depth_script(u, p) for u, p in params.items()}
    key = _key([yosys.version, *scripts.values(), *_sources(flow.SM_FILES)])
    work = CACHE / f"depth-{sm_name}-{key}"
    result_path = work / "depth.json"
    if result_path.is_file() and not force:
        return json.loads(result_path.read_text())
    if cached_only:
        return None
    shutil.rmtree(work, ignore_errors=True)
    depths: dict[str, int] = {}
    for unit, script in scripts.items():
        log(f"  logic depth of {unit} ({sm_name})")
        sub = work / unit
        run(yosys, script, sub, "depth")
        depths[unit] = flow.parse_ltp((sub / "ltp.txt").read_text()).get(unit, -1)
        shutil.rmtree(sub)
    result_path.write_text(json.dumps(depths, indent=1))
    return depths
