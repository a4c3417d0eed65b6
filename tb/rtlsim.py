"""Build and run one cocotb testbench on the selected simulator (SIM=icarus|verilator).

Every RTL bench's pytest launcher calls :func:`run`, so the build flags, build folders, waves and
result checking are defined once::

    def test_alu():
        rtlsim.run("simt_alu", ["sm/simt_alu.v"], __name__, parameters={})

``sources`` are paths relative to ``rtl/``. Each (toplevel, simulator, parameter set) gets its own
build folder under ``build/sim/`` so configurations never reuse each other's binaries. ``WAVES=1``
dumps an FST next to the build (its path is printed). ``SEED=n`` fixes cocotb's random seed
(``cocotb.RANDOM_SEED``) so a failing run can be repeated exactly. Builds are reused while the sources
are unchanged (both simulators' runners check timestamps).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from cocotb_tools.runner import get_runner

from tb import illegal_probe, simenv

ROOT = Path(__file__).resolve().parent.parent
RTL = ROOT / "rtl"
BUILD = ROOT / "build" / "sim"


def build_dir(
    toplevel: str, sim: str, parameters: Mapping[str, object], tag: str = "", sources: Sequence[object] = ()
) -> Path:
    key = json.dumps([{k: parameters[k] for k in sorted(parameters)}, sorted(map(str, sources))], default=str)
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    return BUILD / toplevel / f"{sim}-{tag + '-' if tag else ''}{digest}"


def _run_name() -> str:
    """A folder name unique to the calling pytest test (or process)."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", current.split("::")[-1]) if current else "run"
    return f"{name}-{os.getpid()}"


def _build_and_test(
    toplevel: str,
    sources: Sequence[str | Path],
    test_module: str,
    *,
    parameters: Mapping[str, object] | None,
    testcase: str | Sequence[str] | None,
    extra_env: Mapping[str, str] | None,
    tag: str,
    log_file: Path | None = None,
    defines: Mapping[str, object] | None = None,
    plusargs: Sequence[str] = (),
) -> Path:
    sim = simenv.sim_from_env()
    simenv.apply([sim])
    waves = simenv.waves_from_env()
    params = dict(parameters or {})
    srcs = [p if Path(p).is_absolute() else RTL / p for p in sources]
    defs = dict(defines or {})
    bdir = build_dir(toplevel, sim, params | {f"`{k}": v for k, v in defs.items()},
                     tag + ("-waves" if waves else ""), srcs)  # fmt: skip
    bdir.mkdir(parents=True, exist_ok=True)
    build_args: list[str] = []
    if sim == "verilator" and waves:
        build_args += ["--trace-fst", "--trace-structs"]
    runner = get_runner(sim)
    with open(bdir / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent tests of one configuration build it once
        runner.build(
            sources=srcs,
            includes=[RTL / "include"],
            hdl_toplevel=toplevel,
            parameters=params,
            defines=defs,
            build_dir=bdir,
            timescale=("1ns", "1ps"),
            build_args=build_args,
            waves=waves,
            log_file=log_file,
        )
    run_dir = bdir / "runs" / _run_name()
    run_dir.mkdir(parents=True, exist_ok=True)
    seed = os.environ.get("SEED")
    # The runner's own `testcase` filter is `\.(.*name)$`, so "KernelTest" would also pick
    # "ResetMidKernelTest": anchor each name at the dot before it.
    names = [n.strip() for n in testcase.split(",") if n.strip()] if isinstance(testcase, str) else list(testcase or [])
    test_filter = r"\.(" + "|".join(re.escape(n) for n in names) + ")$" if names else None
    results = runner.test(
        hdl_toplevel=toplevel,
        hdl_toplevel_lang="verilog",
        test_module=test_module,
        test_filter=test_filter,
        build_dir=bdir,
        test_dir=run_dir,
        results_xml=str(run_dir / "results.xml"),
        seed=int(seed) if seed else None,
        plusargs=list(plusargs),
        waves=waves,
        extra_env=dict(extra_env or {}),
        log_file=log_file,
    )
    if waves:
        print(f"waves: {run_dir} or {bdir} ({'dump.fst' if sim == 'verilator' else toplevel + '.fst'})")
    return Path(results)


def run(
    toplevel: str,
    sources: Sequence[str | Path],
    test_module: str,
    *,
    parameters: Mapping[str, object] | None = None,
    testcase: str | Sequence[str] | None = None,
    extra_env: Mapping[str, str] | None = None,
    tag: str = "",
    defines: Mapping[str, object] | None = None,
    plusargs: Sequence[str] = (),
) -> Path:
    """Build ``toplevel`` from ``sources`` and run the cocotb tests of ``test_module``.

    Safe under ``pytest -n``: one build per (toplevel, simulator, parameters, sources, waves), made
    under a file lock, and every run gets its own folder and results file. Raises (failing the
    calling pytest test) when the build fails or any cocotb test fails. Returns the results.xml path.
    ``defines`` are Verilog macros (part of the build's identity), ``plusargs`` go to this run only.
    """
    results = _build_and_test(toplevel, sources, test_module, parameters=parameters, testcase=testcase,
                              extra_env=extra_env, tag=tag, defines=defines, plusargs=plusargs)  # fmt: skip
    _check(results)
    return results


def expect_fatal(toplevel: str, sources: Sequence[str | Path], parameters: Mapping[str, object],
                 message: str) -> None:  # fmt: skip
    """Assert that ``toplevel`` refuses ``parameters`` with ``message`` (rtl/include/simt_check.vh).

    Verilator stops at elaboration, so ``verilator --lint-only`` proves it without compiling C++;
    Icarus stops at time 0, so the design is built and the probe ``tb.illegal_probe`` (which fails if
    the simulation survives 1 us) is run.
    """
    sim = simenv.sim_from_env()
    simenv.apply([sim])
    srcs = [str(p if Path(p).is_absolute() else RTL / p) for p in sources]
    if sim == "verilator":
        cmd = ["verilator", "--lint-only", "-Wall", f"-I{RTL / 'include'}", "--top-module", toplevel,
               *(f"-G{k}={v}" for k, v in parameters.items()), *srcs]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        text = proc.stdout + proc.stderr
        if proc.returncode == 0:
            raise AssertionError(f"{toplevel} accepted illegal parameters {dict(parameters)}")
        if message not in text:
            raise AssertionError(f"{toplevel} with {dict(parameters)} did not print {message!r}:\n{text[-2000:]}")
        return
    log = BUILD / toplevel / "illegal" / f"{_run_name()}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        results = _build_and_test(toplevel, sources, "tb.illegal_probe", parameters=parameters,
                                  testcase="illegal_probe", extra_env=None, tag="illegal", log_file=log)  # fmt: skip
        _check(results)
    except (Exception, SystemExit):  # noqa: BLE001 - the build or run must fail; the log says why
        pass
    else:
        raise AssertionError(f"{toplevel} accepted illegal parameters {dict(parameters)}")
    text = log.read_text(errors="replace") if log.exists() else ""
    if message not in text:
        raise AssertionError(f"{toplevel} with {dict(parameters)} did not print {message!r}; see {log}")
    if illegal_probe.RAN_ON in text:  # the probe failed, not the simulator: it ran on past time 0
        raise AssertionError(f"{toplevel} with {dict(parameters)} printed {message!r} but did not stop; see {log}")


def _check(results: Path) -> None:
    """Fail unless results.xml holds at least one test and no failure (the runner can exit 0)."""
    from cocotb_tools.check_results import get_results

    total, failed = get_results(results)
    if total == 0:
        raise AssertionError(f"{results}: no cocotb test ran — a bench that checks nothing is a defect")
    if failed:
        raise AssertionError(f"{failed} of {total} cocotb test(s) failed; see {results} and the log above")
