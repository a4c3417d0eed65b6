"""The unit map in docs/verification.md (tb/coverage/unitmap.py) is current and complete.

A stale map fails here (and `make model` fails), telling the user to run `python -m tb.coverage.unitmap`;
a new RTL module fails until the map has its row and the module a bench or a NO_BENCH entry.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tb.coverage import unitmap


@pytest.fixture(scope="module")
def tree() -> unitmap.Tree:
    return unitmap.Tree()


def _rows(text: str) -> dict[str, str]:
    """Module -> its row, from the generated block of ``text``."""
    block = text[text.index(unitmap.BEGIN) : text.index(unitmap.END)]
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", block, re.M)}


def test_committed_unit_map_is_current(tree: unitmap.Tree) -> None:
    assert not tree.problems(), "unit map:\n  " + "\n  ".join(tree.problems())
    stale = unitmap.stale(tree)
    assert not stale, f"stale {stale}: run `python -m tb.coverage.unitmap` and commit"
    assert unitmap.main(["--check"]) == 0


def test_every_rtl_module_has_a_row(tree: unitmap.Tree) -> None:
    names = {
        m.group(1)
        for p in unitmap.RTL.rglob("*.v")
        for m in re.finditer(r"^\s*module\s+(\w+)", p.read_text(), re.M)
    }
    assert len(names) >= 18
    assert set(_rows(unitmap.DOC.read_text())) == names == set(tree.rtl_mods)


def test_derived_relations(tree: unitmap.Tree) -> None:
    """Spot checks of what the generator reads from the tree (benches, hierarchy, boards, features)."""
    rows = _rows(tree.render_table())
    assert "[test_alu.py](../tb/tests/unit/test_alu.py)" in rows["simt_alu"] and "isa-alu" in rows["simt_alu"]
    assert "`simt_execute`" in rows["simt_alu"]  # held by the SM's execute stage
    assert (
        "test_gpu.py" in rows["simt_gpu"] and "test_axi.py" in rows["simt_gpu_axi"]
    )  # through tb/hdl wrappers
    assert "divergence" in rows["simt_div_stack"] and "`gpu.div.shape`" in rows["simt_div_stack"]
    assert {b.launcher.name for b in tree.own_benches("simt_gmem_unit")} == {"test_gmem_unit.py"}
    sm = next(b for b in tree.benches if b.launcher.name == "test_sm.py")
    assert sm.scoreboards == {"retire", "divergence"}
    gpu = next(b for b in tree.benches if b.launcher.name == "test_gpu.py")
    assert gpu.scoreboards == set(tree.boards)  # the pyuvm environment's LaunchChecker runs them all


def test_check_detects_a_corrupted_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tree: unitmap.Tree
) -> None:
    doc = tmp_path / "verification.md"
    good = unitmap.DOC.read_text()
    row = _rows(good)["simt_alu"]
    doc.write_text(good.replace(row, row.replace("test_alu.py", "test_decode.py")))
    monkeypatch.setattr(unitmap, "DOC", doc)
    assert unitmap.stale(tree) == [doc]
    assert unitmap.main(["--check"]) == 1
    assert unitmap.main([]) == 0  # regenerating repairs it
    assert unitmap.stale(tree) == [] and doc.read_text() == good


def test_a_dropped_row_is_detected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tree: unitmap.Tree
) -> None:
    doc = tmp_path / "verification.md"
    doc.write_text(unitmap.DOC.read_text().replace(_rows(unitmap.DOC.read_text())["simt_perf"] + "\n", ""))
    monkeypatch.setattr(unitmap, "DOC", doc)
    assert unitmap.stale(tree) == [doc]


def test_a_new_rtl_module_without_a_row_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module added to rtl/: the committed map lacks its row (stale), and until it has a bench or a
    NO_BENCH entry the check names it; with one, regenerating gives it its row."""
    rtl = tmp_path / "rtl"
    shutil.copytree(unitmap.RTL, rtl)
    (rtl / "sm" / "simt_newunit.v").write_text("module simt_newunit (input wire clk);\nendmodule\n")
    tree = unitmap.Tree(rtl=rtl)
    assert "simt_newunit" in tree.rtl_mods
    assert unitmap.stale(tree) == [unitmap.DOC]
    problems = "\n".join(tree.problems())
    assert "simt_newunit (rtl/sm/simt_newunit.v) has no bench of its own" in problems
    monkeypatch.setitem(unitmap.NO_BENCH, "simt_newunit", "nowhere yet")
    assert unitmap.Tree(rtl=rtl).problems() == []
    # a scoreboard said to guard it must run in a bench whose design holds it: none does
    monkeypatch.setitem(unitmap.GUARDS, "retire", (*unitmap.GUARDS["retire"], "simt_newunit"))
    assert unitmap.Tree(rtl=rtl).problems() == [
        "GUARDS['retire'] names simt_newunit, but no bench runs retire over a design holding it"
    ]
    assert (
        "| `simt_newunit` | [simt_newunit.v](../rtl/sm/simt_newunit.v) | — (nowhere yet) |"
        in tree.render_table()
    )


def test_explicit_tables_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """GUARDS naming a scoreboard or a module that does not exist, and a NO_BENCH entry for a module
    that has a bench, are reported."""
    monkeypatch.setitem(unitmap.GUARDS, "no_such_board", ("simt_alu",))
    monkeypatch.setitem(unitmap.GUARDS, "divergence", ("simt_div_stack", "simt_gone"))
    monkeypatch.setitem(unitmap.NO_BENCH, "simt_alu", "stale")
    problems = "\n".join(unitmap.Tree().problems())
    assert "GUARDS names scoreboard 'no_such_board'" in problems
    assert "GUARDS['divergence'] names simt_gone, which is no RTL module" in problems
    assert "simt_alu has a bench now: drop its NO_BENCH entry" in problems
