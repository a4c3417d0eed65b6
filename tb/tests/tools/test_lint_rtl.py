"""The RTL lint (tools/lint_rtl.py) lints non-default parameters too: a warning that only a
parameter override elaborates is caught, and each PARAM_VARIANTS entry names a real source and
parameters its top declares."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools import lint_rtl

# Clean with the default W = 1; W = 2 elaborates a generate branch with an unused signal.
PLANTED = """\
module planted #(
    parameter integer W = 1  // legal: 1, 2
) (
    input  wire a,
    output wire y
);
    generate
        if (W == 2) begin : g_two
            wire spare = a;  // never read: Verilator -Wall warns (UNUSEDSIGNAL) only when W = 2
        end
    endgenerate
    assign y = a;
endmodule
"""


@pytest.fixture
def rtl(tmp_path: Path) -> Path:
    (tmp_path / "include").mkdir()
    (tmp_path / "planted.v").write_text(PLANTED)
    return tmp_path


def test_default_parameters_are_clean(rtl: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint_rtl.lint(rtl=rtl) == 0
    assert "-GW=2" not in capsys.readouterr().out


def test_a_warning_only_an_override_elaborates_is_caught(
    rtl: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = lint_rtl.lint(rtl=rtl, param_variants=[(rtl / "planted.v", ("W=2",))])
    out = capsys.readouterr().out
    assert failed == len(lint_rtl.VARIANTS), out  # the override fails in every build variant
    assert re.search(r"FAIL \S*planted\.v \(top planted, -GW=2\)", out), out
    assert "UNUSED" in out, out


@pytest.mark.parametrize("source,params", lint_rtl.PARAM_VARIANTS)
def test_param_variants_name_declared_parameters(source: str, params: tuple[str, ...]) -> None:
    path = lint_rtl.ROOT / source
    assert path.is_file(), f"PARAM_VARIANTS names {source}, which does not exist"
    text = path.read_text()
    for override in params:
        name = override.split("=", 1)[0]
        assert re.search(rf"parameter\s+(?:integer\s+)?{name}\b", text), (
            f"{source} declares no parameter {name}"
        )
