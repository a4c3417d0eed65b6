"""The workflow check of `make lint` (tools/lint_workflows.py) passes the real workflow and fails a broken one."""

from __future__ import annotations

from pathlib import Path

from tools import lint_workflows


def test_the_ci_workflow_is_clean() -> None:
    assert lint_workflows.workflows(), "no workflow under .github/workflows: the CI file is missing"
    assert lint_workflows.lint() == 0


def test_a_broken_workflow_is_caught(tmp_path: Path) -> None:
    """Planted fault: an undefined matrix key and a job without runs-on must fail actionlint."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  test:\n    steps:\n      - run: echo ${{ matrix.nothing }}\n", encoding="utf-8"
    )
    assert lint_workflows.lint([bad]) != 0
