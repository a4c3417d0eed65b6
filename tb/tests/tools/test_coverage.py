"""The functional-coverage model (tb/coverage/): its classifications, its sampling of real model runs,
and the merged report (holes explained or not). Pure Python: the model stands in for the RTL."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from cocotb_coverage.coverage import coverage_db

from kernels.directed import image_of
from spec.model import Model, WarpState
from tb.coverage import functional as fc
from tb.coverage import report
from tb.gpurun import CONFIGS
from tb.sequences.random_kernel import generate

CFG = CONFIGS["sm2-l8"]


@pytest.fixture(autouse=True)
def fresh_db() -> Iterator[None]:
    """cocotb-coverage keeps one database per process: every test starts from an empty one."""
    coverage_db.clear()
    yield
    coverage_db.clear()


def drive(cov: fc.GpuCoverage, cfg, image) -> None:  # noqa: ANN001
    """Feed a whole model run to ``cov`` as the environment feeds checked RTL retires."""
    item = SimpleNamespace(expect_error=None, expect_launch_error=None, interrupt=None)
    cov.launch("begin", item)
    m = Model(cfg, image)
    cap = cfg.num_sms * min(cfg.num_blocks, cfg.num_warps // m.image.warps_per_block(m.W))
    pending, resident = list(range(m.image.num_blocks))[::-1], []
    while pending or resident:
        while pending and len(resident) < max(1, cap):
            block = m.start_block(pending.pop())
            resident.append(block)
            cov.dispatch(block.bid, block.sm)
        for block in resident:
            for w in block.warps:
                if w.state is WarpState.READY:
                    cov.retire(m.step(block.bid, w.wid), block.sm, w)
        resident = [b for b in resident if not b.done]
    cov.launch("end", item)


def hits(name: str) -> dict:
    fc.flush_all()  # samples are counted, then handed to cocotb-coverage in one go
    return dict(coverage_db[name].detailed_coverage)


def test_classifications() -> None:
    assert fc.mask_class(0xFFFF_FFFF, 0xFFFF_FFFF) == "all"
    assert fc.mask_class(0b111, 0b111) == "all"  # a partial warp's launched threads are all of it
    assert fc.mask_class(0b100, 0xFF) == "single" and fc.mask_class(0b110, 0xFF) == "partial"
    assert fc.mask_class(0, 0xFF) == "none"
    assert fc.sharing_class([4, 4, 4]) == "broadcast" and fc.sharing_class([4, 4, 5]) == "partial_sharing"
    assert fc.sharing_class([1, 2, 3]) == "distinct" and fc.sharing_class([7]) == "distinct"
    assert fc.coalescing_class(list(range(32)), 4, 8) == "coalesced"
    assert fc.coalescing_class([0, 8, 16, 24], 4, 8) == "scattered"
    assert fc.coalescing_class([0, 1, 8, 16], 3, 8) == "partial"
    assert fc.coalescing_class([3, 3, 5], 1, 8) == "single"
    assert fc.row_conflicts([0, 8, 16, 1] + [0] * 4, 0xFF, 8, 4, 8) == [3, 1]
    assert fc.row_conflicts([0] * 8, 0b11110000, 8, 4, 8) == [1]
    assert [fc.latency_bucket(c) for c in (1, 4, 5, 64, 65)] == ["1", "2-4", "5-16", "17-64", "65+"]
    assert [fc.arrival_class(o) for o in ([3], [0, 1, 2], [2, 1, 0], [1, 0, 2])] == [
        "one_warp",
        "ascending",
        "descending",
        "mixed",
    ]


def test_masks_kernel_covers_every_instruction_under_partial_and_single_masks() -> None:
    """The directed `masks` kernel closes gpu.instr.opcode_x_mask on its own (but BAR/EXIT `all`)."""
    cov = fc.GpuCoverage(CFG)
    drive(cov, CFG, image_of("masks", random.Random(1)))
    cross = hits("gpu.instr.opcode_x_mask.cross")
    missing = [b for b, h in cross.items() if not h and b[1] in ("partial", "single")]
    assert not missing, f"masks kernel misses {missing}"
    assert all(hits(f"gpu.shared.passes_b{CFG.num_banks}").values())
    assert all(hits("gpu.shared.sharing").values())
    assert hits("gpu.div.shape")["partial_exit"] and hits("gpu.div.shape")["if_only"]


def test_random_kernels_reach_divergence_and_memory_bins() -> None:
    cov = fc.GpuCoverage(CFG)
    for seed in range(12):
        drive(cov, CFG, generate(seed, CFG).image)
    shape = hits("gpu.div.shape")
    for b in ("uniform_branch", "if_else", "nested", "loop"):
        assert shape[b], f"random kernels 0..11 never made a {b} branch: {shape}"
    depth = hits(f"gpu.div.stack_depth_s{CFG.stack_depth}")
    assert depth[0] and depth[2] and not depth[fc.OVERFLOW]
    assert sum(hits("gpu.global.coalescing.cross").values()) > 0
    assert hits(f"gpu.sched.resident_b{CFG.num_blocks}")[1]


def test_launch_history_and_memory_bins() -> None:
    cov = fc.GpuCoverage(CFG)
    ok = SimpleNamespace(expect_error=None, expect_launch_error=None, interrupt=None)
    err = SimpleNamespace(expect_error="STACK_OVERFLOW", expect_launch_error=None, interrupt=None)
    cut = SimpleNamespace(expect_error=None, expect_launch_error=None, interrupt="abort")
    for what, item in (
        ("begin", ok),
        ("end", ok),
        ("begin", err),
        ("end", err),
        ("begin", cut),
        ("abandon", cut),
        ("begin", ok),
    ):
        cov.launch(what, item)
    after = hits("gpu.launch.after")
    assert (after["reset"], after["launch"], after["kernel_error"], after["abort"]) == (1, 1, 1, 1)
    assert hits(f"gpu.div.stack_depth_s{CFG.stack_depth}")[fc.OVERFLOW] == 1
    cov.response(3, True)
    cov.response(70, False)
    assert hits("gpu.memory.order") == {"in_order": 1, "overtaking": 1}
    assert hits("gpu.memory.latency")["2-4"] == 1 and hits("gpu.memory.latency")["65+"] == 1


def _export(tmp: Path, name: str, sample) -> Path:  # noqa: ANN001
    coverage_db.clear()
    cov = fc.GpuCoverage(CFG)
    sample(cov)
    fc.export(tmp / name)
    return tmp / name


def test_merge_adds_runs_and_explains_holes(tmp_path: Path) -> None:
    a = _export(tmp_path, "icarus-sm2-l8-1.yml", lambda c: c.response(1, False))
    b = _export(tmp_path, "verilator-sm2-l8-2.yml", lambda c: (c.response(2, True), c.response(1, False)))
    plan = {
        "holes": [
            {"point": "gpu.memory.latency", "bins": ["5-16", "17-64", "65+"], "reason": "test"},
            {"point": "gpu.instr.*", "reason": "test"},
        ]
    }
    m = report.merge([a, b], tmp_path / "merged.yml", plan)
    assert m.points["gpu.memory.latency"] == {"1": 2, "2-4": 1, "5-16": 0, "17-64": 0, "65+": 0}
    assert m.points["gpu.memory.order"] == {"in_order": 2, "overtaking": 1}
    holes = {(h.point, h.bin): h.reason for h in m.holes}
    assert holes[("gpu.memory.latency", "65+")] == "test"
    assert ("gpu.memory.order", "in_order") not in holes
    assert holes[("gpu.div.shape", "loop")] is None  # nobody explained it: the report must fail
    text = report.markdown(m, {"features": []})
    assert "NOT EXPLAINED" in text and "`gpu.div.shape` bin `loop`" in text


def test_report_cli_fails_on_unexplained_holes_and_on_no_input(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    _export(tmp_path / "runs", "icarus-x-1.yml", lambda c: None)
    assert report.main([str(tmp_path / "runs"), "--out", str(tmp_path / "out")]) == 1
    assert "unexplained hole: gpu.div.shape [loop]" in capsys.readouterr().out
    assert (tmp_path / "out" / "functional.md").exists()
    assert report.main([str(tmp_path / "empty"), "--out", str(tmp_path / "out")]) == 2
    assert "no functional-coverage files" in capsys.readouterr().err
    assert yaml.safe_load((tmp_path / "out" / "functional-merged.yml").read_text())


def test_counted_samples_reach_the_database_with_exact_hits() -> None:
    """Samples are counted and handed over in one go: the hit counts must be what one call per sample
    gives, in points and crosses alike, and nothing reaches the database before a flush."""
    cov = fc.GpuCoverage(CFG)
    before = hits("gpu.memory.order")["overtaking"]
    cross_before = hits("gpu.global.coalescing.cross")[("coalesced", "load")]
    for _ in range(5):
        cov.response(3, True)
    cov.coalescing("coalesced", "load")
    cov.coalescing("coalesced", "load")
    assert dict(coverage_db["gpu.memory.order"].detailed_coverage)["overtaking"] == before  # not yet flushed
    assert hits("gpu.memory.order")["overtaking"] == before + 5
    assert hits("gpu.global.coalescing.cross")[("coalesced", "load")] == cross_before + 2
    assert hits("gpu.global.coalescing.kind")["coalesced"] >= 2
