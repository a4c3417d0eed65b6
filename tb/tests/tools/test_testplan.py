"""docs/testplan.yaml stays true: listed tests exist, coverage names are cover points, holes have reasons."""

from __future__ import annotations

import copy

from tb.coverage.report import load_testplan
from tb.coverage.testplan import check
from tb.gpurun import CONFIGS

REGRESSION = list(CONFIGS.values())  # the configurations the system regression runs


def test_testplan_is_consistent_with_the_code() -> None:
    problems = check(load_testplan(), REGRESSION)
    assert not problems, "docs/testplan.yaml:\n  " + "\n  ".join(problems)


def test_every_feature_area_is_planned() -> None:
    ids = {f["id"] for f in load_testplan()["features"]}
    for area in (
        "isa-alu",
        "div-if-else",
        "div-nested-loop",
        "shared-banks",
        "global-coalescing",
        "global-port",
        "barriers",
        "scheduler",
        "block-scheduler",
        "launch",
        "kernel-errors",
        "reset-abort",
    ):
        assert area in ids


def test_a_missing_test_or_point_is_reported() -> None:
    """Meta-test: the check can fail."""
    plan = copy.deepcopy(load_testplan())
    plan["features"][0]["tests"].append("tb/tests/system/gpu_tests.py::NoSuchTest")
    plan["features"][0]["tests"].append("tb/tests/unit/test_nothing.py::test_x")
    plan["features"][0]["coverage"].append("gpu.no.such.point")
    plan["holes"].append({"point": "gpu.div.shape", "reason": " "})
    problems = "\n".join(check(plan, REGRESSION))
    assert "defines no test 'NoSuchTest'" in problems
    assert "no file tb/tests/unit/test_nothing.py" in problems
    assert "'gpu.no.such.point' names no cover point" in problems
    assert "has no reason" in problems
