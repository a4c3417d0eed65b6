"""Checks of docs/testplan.yaml: every listed test exists, every coverage name is a cover point.

Used by tb/tests/tools/test_testplan.py (so `make model` fails on a stale plan) and by the coverage
report. A test is ``path::name``: the file must exist and define ``name`` at top level (a pytest
test, a cocotb test or a pyuvm test class).
"""

from __future__ import annotations

import ast
import fnmatch
import functools
from pathlib import Path
from typing import Any

from spec.config import GpuConfig
from tb.coverage.functional import point_names

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def _defined(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(), str(path))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return frozenset(node.name for node in tree.body if isinstance(node, kinds))


def test_exists(ref: str, root: Path = ROOT) -> str | None:
    """None if ``ref`` ("path::name") names a test that exists, else what is wrong."""
    path, _, name = ref.partition("::")
    file = root / path
    if not file.is_file():
        return f"{ref}: no file {path}"
    if name and name not in _defined(file):
        return f"{ref}: {path} defines no test {name!r}"
    return None


def known_points(configs: list[GpuConfig]) -> set[str]:
    return {name for cfg in configs for name in point_names(cfg)}


def check(plan: dict[str, Any], configs: list[GpuConfig], root: Path = ROOT) -> list[str]:
    """Every problem of the testplan (an empty list: the plan is consistent with the code)."""
    problems: list[str] = []
    points = known_points(configs)
    ids: set[str] = set()
    for feat in plan.get("features", []):
        fid = feat.get("id", "?")
        if fid in ids:
            problems.append(f"feature {fid}: id used twice")
        ids.add(fid)
        if not feat.get("tests"):
            problems.append(f"feature {fid}: lists no test")
        for ref in feat.get("tests", []):
            err = test_exists(ref, root)
            if err:
                problems.append(f"feature {fid}: {err}")
        for pat in feat.get("coverage", []):
            if not any(fnmatch.fnmatchcase(p, pat) for p in points):
                problems.append(f"feature {fid}: coverage {pat!r} names no cover point")
    for hole in plan.get("holes", []):
        if not any(fnmatch.fnmatchcase(p, hole["point"]) for p in points):
            problems.append(f"hole {hole['point']!r} names no cover point")
        if not str(hole.get("reason", "")).strip():
            problems.append(f"hole {hole['point']!r} has no reason")
    covered = {
        p
        for feat in plan.get("features", [])
        for pat in feat.get("coverage", [])
        for p in points
        if fnmatch.fnmatchcase(p, pat)
    }
    for p in sorted(points - covered):
        problems.append(f"cover point {p} belongs to no feature")
    return problems
