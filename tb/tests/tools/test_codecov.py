"""tools/codecov.py on hand-made Verilator coverage files: parsing, merging, measuring, reports, errors.

Pure Python, no simulator: the .dat lines below have the exact shape Verilator 5.048 writes
(``C '<\\x01key\\x02value...>' count``, see tools/codecov.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import codecov

SRC = """\
module m (input wire clk, input wire [1:0] a, output reg y);
    always @(posedge clk) begin
        if (a[0]) y <= 1'b1;
        else y <= 1'b0;
    end
`ifdef SIMT_FAULTS
    wire f_x = a[1];
`else
    wire n_x = a[1];
`endif
endmodule
"""


def point(
    rtl: Path,
    line: int,
    col: int,
    kind: str,
    comment: str,
    count: int,
    hier: str = "m",
    span: str = "",
    module: str = "m",
) -> str:
    f = {
        "f": str(rtl / "sm" / "m.v"),
        "l": str(line),
        "n": str(col),
        "t": kind,
        "page": f"v_{kind}/{module}",
        "o": comment,
        "S": span or str(line),
        "h": hier,
    }
    return "C '" + "".join(f"\x01{k}\x02{v}" for k, v in f.items()) + f"' {count}"


def dat(path: Path, lines: list[str]) -> Path:
    path.write_text("# SystemC::Coverage-3\n" + "\n".join(lines) + "\n", encoding="latin-1")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    rtl = tmp_path / "rtl"
    (rtl / "sm").mkdir(parents=True)
    (rtl / "sm" / "m.v").write_text(SRC)
    (rtl / "sm" / "unbuilt.v").write_text("module unbuilt; endmodule\n")
    return rtl


def run_a(rtl: Path) -> list[str]:
    return [
        point(rtl, 2, 5, "line", "block", 10, span="2-3"),
        point(rtl, 3, 9, "branch", "cond_then", 4),
        point(rtl, 3, 10, "branch", "cond_else", 0),
        point(rtl, 1, 40, "toggle", "a[0]:0->1", 3),
        point(rtl, 1, 40, "toggle", "a[0]:1->0", 0),
        point(rtl, 1, 40, "toggle", "a[1]:0->1", 0),
        point(rtl, 1, 40, "toggle", "a[1]:1->0", 0),
        point(rtl, 7, 10, "toggle", "f_x:0->1", 0),  # fault hook: never in the totals
        point(rtl, 9, 10, "toggle", "n_x:0->1", 0),  # the `else arm: a normal build's, counted
    ]


def run_b(rtl: Path) -> list[str]:
    # another instance (other h) of the same points, and the missing arm and rise now hit
    return [
        point(rtl, 2, 5, "line", "block", 5, hier="top.u1", span="2-3"),
        point(rtl, 3, 10, "branch", "cond_else", 2, hier="top.u1"),
        point(rtl, 1, 40, "toggle", "a[1]:0->1", 1, hier="top.u1"),
    ]


def test_merge_adds_counts_of_the_same_point_across_files_and_instances(tree: Path, tmp_path: Path) -> None:
    a = dat(tmp_path / "a.dat", run_a(tree))
    b = dat(tmp_path / "b.dat", run_b(tree))
    points = codecov.merge([a, b])
    assert len(points) == 9  # b's three points are a's, under another instance
    by = {(p.line, p.comment): p for p in points.values()}
    assert by[(2, "block")].count == 15 and by[(2, "block")].hiers == {"m", "top.u1"}
    assert by[(2, "block")].lines == [2, 3] and by[(2, "block")].kind == "line"
    assert by[(3, "cond_else")].count == 2
    assert by[(1, "a[1]:0->1")].count == 1


def test_measure_splits_line_branch_toggle_and_keeps_fault_hooks_out(tree: Path, tmp_path: Path) -> None:
    a = dat(tmp_path / "a.dat", run_a(tree))
    cov = codecov.measure(codecov.merge([a]), [a], rtl_root=tree)
    assert (cov.line.hit, cov.line.total) == (1, 1)
    assert (cov.branch.hit, cov.branch.total) == (1, 2)
    assert (cov.toggle.hit, cov.toggle.total) == (1, 5)  # a[1:0] both ways + n_x rise; not f_x
    assert (cov.fault_hooks.toggle.hit, cov.fault_hooks.toggle.total) == (0, 1)
    assert list(cov.files) == ["sm/m.v"] and cov.files["sm/m.v"].branch.percent == 50.0
    assert cov.unreached_files == ["sm/unbuilt.v"]
    assert any("SIMT_FAULTS" in n for n in cov.notes) and any("unbuilt.v" in n for n in cov.notes)

    b = dat(tmp_path / "b.dat", run_b(tree))
    both = codecov.measure(codecov.merge([a, b]), [a, b], rtl_root=tree)
    assert (both.branch.hit, both.toggle.hit) == (2, 2)


def test_a_source_point_counts_once_across_module_parameterizations(tree: Path, tmp_path: Path) -> None:
    """Verilator names each parameterization of a module in ``page`` (m__W8, m__W16): merged.dat keeps
    them apart, the measure counts the place in the source once, hit if any of them ran it."""
    a = dat(
        tmp_path / "a.dat",
        [
            point(tree, 2, 5, "line", "block", 0, module="m__W8", span="2-3"),
            point(tree, 2, 5, "line", "block", 7, module="m__W16", span="2-3"),
            point(tree, 3, 9, "branch", "cond_then", 0, module="m__W8"),
            point(tree, 3, 9, "branch", "cond_then", 0, module="m__W16"),
        ],
    )
    points = codecov.merge([a])
    assert len(points) == 4
    assert len(codecov.source_points(points)) == 2
    assert codecov.source_points(codecov.source_points(points)).keys() == codecov.source_points(points).keys()
    cov = codecov.measure(points, [a], rtl_root=tree)
    assert (cov.line.hit, cov.line.total, cov.branch.hit, cov.branch.total) == (1, 1, 0, 1)


def test_fault_hook_lines_follow_the_preprocessor() -> None:
    assert codecov.fault_hook_lines(SRC) == {7}
    nested = "`ifndef SIMT_FAULTS\na\n`else\nb\n`ifdef X\nc\n`endif\n`endif\nd\n"
    assert codecov.fault_hook_lines(nested) == {4, 6}


def test_report_writes_every_output(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    dat(tmp_path / "runs" / "a.dat", run_a(tree))
    out = tmp_path / "out"
    cov = codecov.report([tmp_path / "runs"], out, rtl_root=tree)  # a folder: its .dat files
    assert cov.line.total == 1 and len(cov.dat_files) == 1
    for name in (
        "merged.dat",
        "merged.info",
        "index.html",
        "summary.md",
        "summary.json",
        "files/sm_m.v.html",
    ):
        assert (out / name).is_file(), name
    info = (out / "merged.info").read_text()
    assert "DA:2,10" in info and "DA:3,10" in info and "BRDA:3,0,1,-" in info and "end_of_record" in info
    assert "DA:1," not in info  # toggle points are not lines
    summary = (out / "summary.md").read_text()
    assert "sm/m.v" in summary and "cond_else" in summary and "never rose: a[1]" in summary
    assert "SIMT_FAULTS" in summary
    # merged.dat is Verilator's format again: reading it back gives the same points
    again = codecov.merge([out / "merged.dat"])
    assert {k: p.count for k, p in again.items()} == {
        k: p.count for k, p in codecov.merge([tmp_path / "runs" / "a.dat"]).items()
    }


def test_missing_or_empty_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(codecov.CodecovError, match="does not exist.*SIMT_CODE_COVERAGE=1"):
        codecov.report([tmp_path / "nowhere"], tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(codecov.CodecovError, match="no .dat coverage files"):
        codecov.report([tmp_path / "empty"], tmp_path / "out")
    with pytest.raises(codecov.CodecovError, match="no coverage input"):
        codecov.report([], tmp_path / "out")
    (tmp_path / "x.dat").write_text("")
    with pytest.raises(codecov.CodecovError, match="not a Verilator coverage file"):
        codecov.merge([tmp_path / "x.dat"])
    with pytest.raises(codecov.CodecovError, match="holds no coverage points"):
        codecov.merge([dat(tmp_path / "y.dat", [])])
    assert codecov.main([str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
