"""The wall-clock bound of a simulator run (tb/rtlsim.py): scaled from the run's last duration, fixed by
SIMT_SIM_TIMEOUT; the simulated time read from the run's output. The bound itself ending a real hung
simulation is tb/tests/unit/test_zero_time_hang.py (both simulators)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tb import rtlsim


def test_bound_scales_with_the_last_duration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIMT_SIM_TIMEOUT", raising=False)
    assert rtlsim.wall_bound(tmp_path, "t") == rtlsim.BOUND_DEFAULT  # never ran: the default
    rtlsim._record_duration(tmp_path, "t", 1.0)
    assert rtlsim.wall_bound(tmp_path, "t") == rtlsim.BOUND_FLOOR  # short: the floor
    rtlsim._record_duration(tmp_path, "t", 100.0)
    assert rtlsim.wall_bound(tmp_path, "t") == rtlsim.BOUND_FACTOR * 100.0
    assert rtlsim.wall_bound(tmp_path, "other") == rtlsim.BOUND_DEFAULT  # per test selection
    monkeypatch.setenv("SIMT_SIM_TIMEOUT", "7")
    assert rtlsim.wall_bound(tmp_path, "t") == 7.0


@pytest.mark.parametrize(
    "line,expect",
    [(b"   1234.00ns INFO     cocotb.regression running", "1234.00ns"), (b"  0.00ns WARNING  x", "0.00ns"),
     (b"     5.50us INFO  y", "5.50us"), (b"VCD info: dumpfile", None)],
)  # fmt: skip
def test_simulated_time_is_read_from_the_log(line: bytes, expect: str | None) -> None:
    m = rtlsim._SIM_TIME.match(line)
    assert (None if m is None else (m.group(1) + m.group(2)).decode()) == expect


def test_a_process_burning_cpu_is_stopped_and_a_slow_one_is_not_by_cpu() -> None:
    import subprocess
    import sys

    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        rc, spent = rtlsim._wait_bounded(burner, 0.3, cpu=True)
        assert rc is None and "CPU time" in spent
    finally:
        burner.kill()
        burner.wait()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        rc, spent = rtlsim._wait_bounded(sleeper, 0.2, cpu=True)  # no CPU spent: the wall backstop (10x)
        assert rc is None and "wall-clock" in spent
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.parametrize("fault", [-1, True, "3"])
def test_a_bad_fault_number_is_refused_before_any_build(fault: object) -> None:
    """rtlsim.run(..., fault=n): a fault number that is not an integer >= 0 is a clear error, not a build."""
    with pytest.raises(ValueError, match="fault must be None or a fault number >= 0"):
        rtlsim.run("simt_alu", ["sm/simt_alu.v"], __name__, fault=fault, sim="icarus")  # type: ignore[arg-type]


def test_a_fault_build_carries_the_hooks_except_a_mutants_fault_free_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """fault=0 shares the planted runs' build (hooks inert); under mutation testing (SIMT_RTL_ROOT) the
    fault-free run builds without them, so a mutant in a hook's `else arm is compiled in."""
    monkeypatch.delenv("SIMT_RTL_ROOT", raising=False)
    assert rtlsim.fault_build(None, {"X": 1}, ["+a"]) == ({"X": 1}, ["+a"])
    assert rtlsim.fault_build(0, None, ()) == ({"SIMT_FAULTS": 1}, [])
    assert rtlsim.fault_build(5, None, ["+a"]) == ({"SIMT_FAULTS": 1}, ["+a", "+SIMT_FAULT=5"])
    monkeypatch.setenv("SIMT_RTL_ROOT", "/tmp/mutant/rtl")
    assert rtlsim.fault_build(0, None, ()) == ({}, [])
    assert rtlsim.fault_build(5, None, ()) == ({"SIMT_FAULTS": 1}, ["+SIMT_FAULT=5"])


def test_simulator_python_caches_bytecode_and_rewrites_only_test_modules(monkeypatch) -> None:
    """The Python inside each simulator run writes its bytecode under the build root even when the
    caller said PYTHONDONTWRITEBYTECODE=1, and pytest's assertion rewriting covers the test modules only,
    unless the caller chose otherwise (tb/rtlsim.py python_startup_env)."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("COCOTB_REWRITE_ASSERTION_FILES", raising=False)
    env = rtlsim.python_startup_env()
    assert env["PYTHONDONTWRITEBYTECODE"] == ""
    assert Path(env["PYTHONPYCACHEPREFIX"]).is_relative_to(rtlsim.BUILD)
    assert env["COCOTB_REWRITE_ASSERTION_FILES"] == "test_*.py *_tests.py"
    monkeypatch.setenv("COCOTB_REWRITE_ASSERTION_FILES", "*.py")
    assert rtlsim.python_startup_env()["COCOTB_REWRITE_ASSERTION_FILES"] == "*.py"
