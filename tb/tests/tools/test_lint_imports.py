"""The layering check of ``make lint`` (tools/lint_imports.py) passes on the project and can fail."""

from __future__ import annotations

from pathlib import Path

from tools import lint_imports


def test_project_is_layered() -> None:
    assert lint_imports.violations() == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_spec_importing_the_harness_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"spec/model.py": "import numpy\nfrom tb.agents import x\n", "tb/agents.py": ""})
    assert lint_imports.violations(root) == [
        "spec/model.py:2: the spec package imports tb.agents (spec/ must not depend on tb/)",
        "spec/model.py:2: the spec package imports tb.agents.x (spec/ must not depend on tb/)",
    ]


def test_relative_import_out_of_spec_is_resolved(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"spec/a.py": "from .isa import OPS\n", "spec/isa.py": ""})
    assert lint_imports.violations(root) == []


def test_tool_importing_a_test_file_is_caught(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "tools/bench.py": "from tb.tests.system.test_gpu import run_gpu\n",
            "tb/tests/system/test_kernels.py": "from tb.tests.system.test_gpu import CONFIGS\n",
        },
    )
    found = lint_imports.violations(root)
    assert found and all(v.startswith("tools/bench.py:1: imports the test module tb.tests") for v in found)
