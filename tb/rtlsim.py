"""Build and run one cocotb testbench on the selected simulator (SIM=icarus|verilator).

Every RTL bench's pytest launcher calls :func:`run`, so the build flags, build folders, waves and
result checking are defined once::

    def test_alu():
        rtlsim.run("simt_alu", ["sm/simt_alu.v"], __name__, parameters={})

``sources`` are paths relative to ``rtl/``. Each (toplevel, simulator, parameter set) gets its own
build folder under ``build/sim/`` so configurations never reuse each other's binaries. ``WAVES=1``
dumps an FST next to the build (its path is printed). ``SEED=n`` fixes cocotb's random seed
(``cocotb.RANDOM_SEED``) so a failing run can be repeated exactly. Builds are reused while the sources
are unchanged (both simulators' runners check timestamps). Verilator runs start from a random initial
state seeded from that seed; ``SIMT_CODE_COVERAGE=1`` adds Verilator line and toggle coverage
(:func:`coverage_data_dir`, ``tools/codecov.py``); ``run(..., sim=...)`` overrides SIM for one call.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from spec.config import GpuConfig, check_parameters
from tb import illegal_probe, vruntime
from tb.benchenv import PARAMETERS_ENV
from tools import envvars, simenv

ROOT = Path(__file__).resolve().parent.parent
# Mutation testing (tools/mutants/) runs the benches on a mutated copy of rtl/: SIMT_RTL_ROOT names that
# copy and SIMT_BUILD_ROOT a build folder of its own, so no mutant ever reuses (or spoils) a real build.
RTL = Path(os.environ.get("SIMT_RTL_ROOT") or ROOT / "rtl")
BUILD = Path(os.environ.get("SIMT_BUILD_ROOT") or ROOT / "build" / "sim")


# Designs whose parameters are the machine parameters of spec/config.py (same names, same
# ranges): rtlsim refuses an out-of-range one before building. A block whose parameter of the same name
# means something else (simt_mem_arbiter's NUM_SMS counts the loader's port too) is left to the RTL.
MACHINE_DESIGNS = frozenset({"simt_gpu", "simt_gpu_tb", "simt_gpu_raw", "simt_sm", "simt_loader"})


_MODULE_PARAMS: dict[str, tuple[str, ...]] = {}


def module_parameters(module: str) -> tuple[str, ...]:
    """The parameter names in ``module``'s header (``#(parameter integer X = ...)``), read from its
    file under rtl/ or tb/hdl/ (one module per file, the file named for the module)."""
    if module not in _MODULE_PARAMS:
        found = [p for base in (RTL, ROOT / "tb" / "hdl") for p in base.rglob(f"{module}.v")]
        if not found:
            raise FileNotFoundError(f"no {module}.v under {RTL} or tb/hdl: is the module name right?")
        text = found[0].read_text()
        start = text.index(f"module {module}")
        header = text[start : text.index(");", start)]
        _MODULE_PARAMS[module] = tuple(re.findall(r"parameter\s+(?:integer\s+)?(\w+)", header))
    return _MODULE_PARAMS[module]


def machine_parameters(cfg: GpuConfig, module: str) -> dict[str, int]:
    """The Verilog parameters that hand machine ``cfg`` to ``module``: every machine parameter
    (spec/config.py PARAMS) that the module's header declares, so no bench keeps its own map."""
    declared = set(module_parameters(module))
    return {name: value for name, value in cfg.verilog_parameters().items() if name in declared}


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


# Every Verilator model is built with --x-initial unique and run with +verilator+rand+reset+2: each
# register and memory bit starts random (a register the RTL forgets to reset then shows up, where
# Icarus would show X and a zero-initialising Verilator would hide it). The seed derives from the
# regression seed, so SEED=n repeats it; SIMT_RANDOM_INIT=0 starts from zeros instead (same build; the
# default of coverage runs).
VERILATOR_BUILD_ARGS = ["--x-initial", "unique"]
# SIMT_CODE_COVERAGE=1 (Verilator only): line and toggle coverage, in builds of their own ("-cov"),
# each run writing its counts to a .dat file of its own in coverage_data_dir() (tools/codecov.py reads them).
CODE_COVERAGE_ARGS = ["--coverage-line", "--coverage-toggle"]
COVERAGE_DATA = ROOT / "build" / "coverage" / "dat"


class SimulationTimeout(AssertionError):
    """A simulator run passed its wall-clock bound (stuck in zero simulated time, where no cocotb
    watchdog runs): the message names the test, the seed and the last simulated time the run printed."""


# One cocotb log line starts with the simulated time: "  1234.00ns INFO  ..."
_SIM_TIME = re.compile(rb"^\s*(\d+(?:\.\d+)?)\s*(fs|ps|ns|us|ms|s)\s")
# The bound is on the simulator's CPU time (a run stuck in zero time burns CPU; one that is only slow on a
# loaded machine does not), 10x as much wall clock as a backstop. A run without a recorded duration gets
# BOUND_DEFAULT; a known run BOUND_FACTOR times its last duration, at least BOUND_FLOOR.
# SIMT_SIM_TIMEOUT=s overrides both and is wall clock.
BOUND_DEFAULT = 3600.0
BOUND_FACTOR = 20.0
BOUND_FLOOR = 600.0
DURATIONS = "durations.json"  # per build folder: the last wall time of each run, by test selection


class _Bounded:
    """A runner mixin: the simulation commands (not the build) end after ``bound`` seconds of wall
    clock, with a :class:`SimulationTimeout`; the output is passed through as it comes, and the last
    simulated time in it remembered."""

    bound: float | None = None
    cpu_bound: bool = False  # count the simulator's CPU time, not the wall clock (a scaled bound)
    what: str = ""

    def _execute_cmds(self, cmds, cwd, stdout=None) -> None:  # type: ignore[no-untyped-def]
        if self.bound is None:
            super()._execute_cmds(cmds, cwd, stdout)  # type: ignore[misc]
            return
        for cmd in cmds:
            self._run_bounded([str(c) for c in cmd], cwd, stdout)

    def _run_bounded(self, cmd: list[str], cwd: object, stdout: object) -> None:
        import signal
        import sys
        import threading

        proc = subprocess.Popen(
            cmd, cwd=cwd, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,  # type: ignore[attr-defined]
            start_new_session=True,
        )  # fmt: skip
        last = ["0 (no simulated time printed)"]

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                if m := _SIM_TIME.match(line):
                    last[0] = (m.group(1) + m.group(2)).decode()
                if stdout is not None:
                    stdout.write(line.decode(errors="replace"))  # type: ignore[attr-defined]
                else:
                    sys.stdout.write(line.decode(errors="replace"))
                    sys.stdout.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        rc, spent = _wait_bounded(proc, self.bound, self.cpu_bound)
        if rc is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join(timeout=5)
            raise SimulationTimeout(
                f"{self.what}: the simulator ran {spent} without finishing "
                f"(stuck in zero simulated time? a combinational loop, or a for loop that never ends); "
                f"last simulated time printed: {last[0]}; killed. Raise the bound with SIMT_SIM_TIMEOUT=s "
                "if the run is only slow"
            ) from None
        reader.join(timeout=5)
        if rc != 0:
            raise RuntimeError(f"Command failed with return code: {rc}")


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), None where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _wait_bounded(proc: subprocess.Popen, bound: float, cpu: bool) -> tuple[int | None, str]:
    """Wait for ``proc``: (its exit code, "") or (None, what was spent) once past ``bound``. With
    ``cpu`` the bound is on the simulator's CPU time (a run stuck in zero time burns CPU; a run that is
    only slow on a loaded machine does not), with 10 times the bound of wall clock as a backstop."""
    start = time.monotonic()
    while True:
        try:
            return proc.wait(timeout=2.0), ""
        except subprocess.TimeoutExpired:
            wall = time.monotonic() - start
            used = _cpu_seconds(proc.pid) if cpu else None
            if used is not None and used > bound:
                return None, f"{used:.0f} s of CPU time ({wall:.0f} s wall clock, bound {bound:.0f} s CPU)"
            if wall > (10 * bound if used is not None else bound):
                return None, f"{wall:.0f} s of wall-clock time (bound {bound:.0f} s)"


def _durations(bdir: Path) -> dict[str, float]:
    try:
        return json.loads((bdir / DURATIONS).read_text())
    except (OSError, ValueError):
        return {}


def wall_bound(bdir: Path, key: str) -> float:
    """The wall-clock bound of a run: SIMT_SIM_TIMEOUT, else scaled from the run's last duration."""
    if text := os.environ.get("SIMT_SIM_TIMEOUT", "").strip():
        return float(text)
    last = _durations(bdir).get(key)
    return BOUND_DEFAULT if last is None else max(BOUND_FLOOR, BOUND_FACTOR * last)


def _record_duration(bdir: Path, key: str, seconds: float) -> None:
    with open(bdir / ".build.lock", "w") as lock:  # the build lock also guards the durations file
        fcntl.flock(lock, fcntl.LOCK_EX)
        table = _durations(bdir)
        table[key] = round(seconds, 1)
        tmp = bdir / f".{DURATIONS}.{os.getpid()}"
        tmp.write_text(json.dumps(table, indent=0, sort_keys=True))
        os.replace(tmp, bdir / DURATIONS)


# The build of a bench with planted faults (``run(..., fault=n)``): every hook of rtl/include/simt_fault.vh
# compiled in, each reading +SIMT_FAULT=n at time 0 and inert when the plusarg is absent (n = 0). So the
# fault-free tests run on the build their meta-tests use, one build per configuration instead of two;
# measured (issue 29): the same simulated time, test for test, as a build without the hooks under the
# same SEED (docs/verification.md "Where the time of make test goes").
FAULT_HOOKS: dict[str, object] = {"SIMT_FAULTS": 1}


def fault_build(
    fault: int | None, defines: Mapping[str, object] | None, plusargs: Sequence[str]
) -> tuple[dict[str, object], list[str]]:
    """The defines and plusargs of a run with ``fault`` (``run(..., fault=n)``): the fault hooks
    (FAULT_HOOKS) and ``+SIMT_FAULT=n`` for n > 0; for n = 0 the hooks too, except under mutation testing
    (``SIMT_RTL_ROOT``, tools/mutants/): a mutated copy is tested as it ships, so a mutant in a hook's
    `` `else `` arm (the real design) is in the fault-free build. ``None``: neither."""
    defs, args = dict(defines or {}), list(plusargs)
    if fault is None:
        return defs, args
    if not isinstance(fault, int) or isinstance(fault, bool) or fault < 0:
        raise ValueError(
            f"fault must be None or a fault number >= 0 (rtl/include/simt_fault.vh), not {fault!r}"
        )
    if fault or not os.environ.get("SIMT_RTL_ROOT"):
        defs = FAULT_HOOKS | defs
    return defs, [*args, f"+SIMT_FAULT={fault}"] if fault else args


# Python's start-up inside each simulator run (one per test): cocotb imports the bench, the harness and the
# model afresh every time. Measured (issue 29, 6 unit tests on Verilator, idle machine): 22.5 s with
# PYTHONDONTWRITEBYTECODE=1 in the caller's environment and cocotb's default assertion rewriting of every
# imported *.py (each module parsed, rewritten and compiled in every run); 16.6 s with the bytecode cached;
# 15.7 s cached and rewriting only the test modules. So every run writes and reads its bytecode under the build
# root (never beside the sources, whatever the caller's PYTHONDONTWRITEBYTECODE says), and pytest's
# assertion rewriting (richer messages for a failing `assert`) applies to the cocotb test modules only:
# the harness's and the model's own checks raise errors with their messages. A caller's
# COCOTB_REWRITE_ASSERTION_FILES still wins.
REWRITE_FILES = "test_*.py *_tests.py"


def python_startup_env() -> dict[str, str]:
    """The environment for the Python inside a simulator run: cached bytecode, assertion rewriting of the
    test modules only (see above)."""
    return {
        "PYTHONDONTWRITEBYTECODE": "",  # empty: bytecode is written (Python reads only a non-empty value)
        "PYTHONPYCACHEPREFIX": str(BUILD / "pycache"),
        "COCOTB_REWRITE_ASSERTION_FILES": os.environ.get("COCOTB_REWRITE_ASSERTION_FILES", REWRITE_FILES),
    }


BUILD_LOG = "build.json"  # per build folder: what the last build that compiled anything cost (tools/durations.py builds)


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (the compiler, make, vvp's iverilog)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _record_build(
    bdir: Path, toplevel: str, sim: str, params: Mapping[str, object], defines: Mapping[str, object],
    make_vars: Sequence[str], cpu: float, wall: float,
) -> None:  # fmt: skip
    """Write what a build cost into its folder's build.json, when it compiled something (an up-to-date
    build, which only checks timestamps, leaves the last real build's figures): the profile of issue 29."""
    if cpu < 0.5:
        return
    record = {
        "toplevel": toplevel, "sim": sim, "parameters": dict(params), "defines": dict(defines),
        "make_vars": [v for v in make_vars if not v.startswith("OBJCACHE=")],
        "objcache": any(v.startswith("OBJCACHE=") for v in make_vars),  # ccache in use (unless CCACHE_DISABLE)
        "cpu_s": round(cpu, 1), "wall_s": round(wall, 1), "test": _run_name().rsplit("-", 1)[0],
    }  # fmt: skip
    (bdir / BUILD_LOG).write_text(json.dumps(record, default=str, sort_keys=True))


# cocotb's runners (cocotb_tools.runner) are imported only where a bench is built and run, never at import:
# every simulator run imports its test module, and with it this one, and measured (issue 29, process CPU
# time of the import after cocotb's own, eight runs, load 7) the runner module cost 0.06-0.075 s of each
# of the ~400 simulator runs of `make test`, for code that only the pytest side uses.
@functools.cache
def _project_verilator() -> type:
    """cocotb's Verilator runner with the project's choices (ProjectVerilator below), the class made on first use."""
    from cocotb_tools.runner import Verilator

    class ProjectVerilator(_Bounded, Verilator):
        """cocotb's Verilator runner with two project choices: ``selective`` drops ``--public-flat-rw`` (only
        what a Verilator control file, ``visibility=``, marks public is visible to the harness, so Verilator
        optimises the rest), and ``make_vars`` go to the C++ build (e.g. the optimisation of small benches,
        whose build costs more than their run)."""

        def __init__(self, selective: bool = False, make_vars: Sequence[str] = ()) -> None:
            super().__init__()
            self.selective, self.make_vars = selective, list(make_vars)

        def _build_command(self) -> list:
            cmds = super()._build_command()
            if self.selective:
                cmds[0] = [arg for arg in cmds[0] if arg != "--public-flat-rw"]
            cmds[1] = [*cmds[1], *self.make_vars]
            return cmds

        def _execute_cmds(self, cmds, cwd, stdout=None) -> None:  # type: ignore[no-untyped-def]
            if self.bound is not None:  # a simulation run
                super()._execute_cmds(cmds, cwd, stdout)
                return
            for cmd in cmds:  # the build: Verilator's run-time library comes from the shared cache
                is_make = Path(str(cmd[0])).name == "make"
                args = [str(c) for c in cmd]
                keys = vruntime.prefill(args, self.build_dir, BUILD, self.env) if is_make else {}
                super()._execute_cmds([cmd], cwd, stdout)
                vruntime.store(keys, self.build_dir, BUILD)

    return ProjectVerilator


# The C++ optimisation of Verilator builds: the unit benches are small and short, so their build (mostly
# compiling the model) costs more than their run; the GPU benches (``visibility=``) run long.
FAST_BUILD = ("OPT_FAST=-O0", "OPT_SLOW=-O0")


def compiler_cache() -> tuple[str, ...]:
    """The make variable that puts Verilator's C++ compiles behind ccache (Verilator's ``OBJCACHE``),
    when ccache is installed (an optional prerequisite, README) and ``SIMT_CCACHE`` is not 0: a build
    whose generated C++ was compiled before (another clone, ``make clean``, the other test stage) then
    takes its objects from ccache's store instead of compiling them."""
    if not _flag("SIMT_CCACHE", "1"):
        return ()
    exe = shutil.which("ccache")
    return (f"OBJCACHE={exe}",) if exe else ()


def _flag(name: str, default: str = "0") -> bool:
    return os.environ.get(name, default).strip().lower() in ("1", "true", "yes", "on")


def code_coverage_enabled() -> bool:
    """True when ``SIMT_CODE_COVERAGE=1``: Verilator runs then collect line and toggle coverage."""
    return _flag("SIMT_CODE_COVERAGE")


def coverage_data_dir() -> Path:
    """Where coverage runs write their .dat files: ``SIMT_COVERAGE_DIR``, else build/coverage/dat."""
    return Path(os.environ.get("SIMT_COVERAGE_DIR") or COVERAGE_DATA)


def verilator_seed(regression_seed: int) -> int:
    """The ``+verilator+seed`` of a run (1..2**31-1; 0 would mean "pick one") from its regression seed."""
    return regression_seed % 0x7FFFFFFF + 1


def _build_and_test(
    toplevel: str,
    sources: Sequence[str | Path],
    test_module: str,
    *,
    sim: str | None = None,
    parameters: Mapping[str, object] | None,
    testcase: str | Sequence[str] | None,
    extra_env: Mapping[str, str] | None,
    tag: str,
    log_file: Path | None = None,
    defines: Mapping[str, object] | None = None,
    plusargs: Sequence[str] = (),
    visibility: Path | None = None,
    trace: bool = False,
    precheck: bool = True,
    machine: GpuConfig | None = None,
    cpu_timeout: float | None = None,
    fast_build: bool | None = None,
    fault: int | None = None,
) -> Path:
    defines, plusargs = fault_build(fault, defines, plusargs)
    sim = simenv.check_sim_name(sim) if sim else simenv.sim_from_env()
    if machine is not None:  # the machine's parameters first; explicit ones (non-machine, or overrides) win
        parameters = machine_parameters(machine, toplevel) | dict(parameters or {})
    seed_given = simenv.check_seed()  # a bad SEED stops here, before any build
    envvars.check(names=envvars.USER_VARS)  # so does any other bad variable (WAVES=2, KERNEL_SEEDS=1-3, ...)
    if precheck and toplevel in MACHINE_DESIGNS:  # an illegal parameter's readable message first, on
        check_parameters(dict(parameters or {}), toplevel)  # both simulators (expect_fatal skips it)
    simenv.apply([sim])
    waves = simenv.waves_from_env()
    params = dict(parameters or {})
    srcs = [p if Path(p).is_absolute() else RTL / p for p in sources]
    defs = dict(defines or {})
    coverage = code_coverage_enabled() and sim == "verilator"
    if code_coverage_enabled() and not coverage:
        print(f"note: SIMT_CODE_COVERAGE=1 is Verilator-only; this {sim} run collects no code coverage")
    # -O0 C++ (FAST_BUILD): by default for the unit benches; a GPU bench asks for it (a build of its own,
    # "-O0" in its folder's name, so a benchmark never runs an -O0 build)
    fast = fast_build if fast_build is not None else visibility is None
    unusual_o0 = sim == "verilator" and fast and visibility is not None
    bdir = build_dir(
        toplevel,
        sim,
        params | {f"`{k}": v for k, v in defs.items()},
        "-".join(t for t in (tag, "O0" * unusual_o0, "cov" * coverage, "waves" * waves) if t),
        srcs,
    )
    bdir.mkdir(parents=True, exist_ok=True)
    build_args: list[str] = []
    if sim == "verilator":
        build_args += VERILATOR_BUILD_ARGS + (CODE_COVERAGE_ARGS if coverage else [])
    if sim == "verilator" and waves:
        build_args += ["--trace-fst", "--trace-structs"]
    if sim == "verilator" and visibility is not None:
        build_args.append(str(visibility))
    make_vars: tuple[str, ...] = ()
    if sim == "verilator":
        make_vars = (FAST_BUILD if fast else ()) + compiler_cache()
        runner = _project_verilator()(visibility is not None, make_vars)
    else:
        runner = _bounded_runner(sim)
    with open(bdir / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent tests of one configuration build it once
        cpu0, wall0 = _children_cpu(), time.monotonic()
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
        _record_build(
            bdir, toplevel, sim, params, defs, make_vars, _children_cpu() - cpu0, time.monotonic() - wall0
        )
    run_dir = bdir / "runs" / _run_name()
    run_dir.mkdir(parents=True, exist_ok=True)
    # The regression seed is chosen here (not left to cocotb) so the Verilator seed can derive from it.
    seed = seed_given if seed_given is not None else secrets.randbelow(1 << 31)
    # What the bench is handed, in one encoding each (tb/benchenv.py reads them back).
    env = {**(extra_env or {}), "SIM": sim, PARAMETERS_ENV: json.dumps(params, sort_keys=True, default=str)}
    # cocotb's runner lays os.environ over extra_env, so the simulator's Python settings go into os.environ
    os.environ.update(python_startup_env())
    if machine is not None:
        env |= machine.to_env()
    run_plusargs = list(plusargs)
    if trace:  # the test wrapper's trace file (tb/hdl/simt_tb_trace.v), read by tb/agents/trace_monitor.py
        trace_file = run_dir / "trace.txt"
        trace_file.unlink(missing_ok=True)
        run_plusargs.append(f"+SIMT_TRACE={trace_file}")
        env["SIMT_TRACE_FILE"] = str(trace_file)
        # ... and their HDL image driver's file (tb/hdl/simt_tb_loader.v), written by tb/agents/host_agent.py
        image_file = run_dir / "image.hex"
        image_file.unlink(missing_ok=True)
        run_plusargs.append(f"+SIMT_IMAGE={image_file}")
        env["SIMT_IMAGE_FILE"] = str(image_file)
    if sim == "verilator":
        vseed = verilator_seed(seed)
        # Coverage runs start from zeros: Verilator's toggle counters start from 0, so a random start
        # would credit about half of all bits with toggles that are only the random start being reset.
        rand = _flag("SIMT_RANDOM_INIT", "0" if coverage else "1")
        run_plusargs += [f"+verilator+rand+reset+{2 if rand else 0}", f"+verilator+seed+{vseed}"]
        env["SIMT_VERILATOR_SEED"] = str(vseed)
        print(
            f"verilator: {'random' if rand else 'zero'} initial state, +verilator+seed+{vseed} "
            f"(from regression seed {seed}: rerun with SEED={seed})"
        )
        if coverage:
            cov_dir = coverage_data_dir()
            cov_dir.mkdir(parents=True, exist_ok=True)
            dat = cov_dir / f"{bdir.name}.{run_dir.name}.{time.time_ns()}.dat"
            run_plusargs.append(f"+verilator+coverage+file+{dat}")
    # The runner's own `testcase` filter is `\.(.*name)$`, so "KernelTest" would also pick
    # "ResetMidKernelTest": anchor each name at the dot before it.
    names = (
        [n.strip() for n in testcase.split(",") if n.strip()]
        if isinstance(testcase, str)
        else list(testcase or [])
    )
    test_filter = r"\.(" + "|".join(re.escape(n) for n in names) + ")$" if names else None
    key = ",".join(names) or "*"
    runner.bound = wall_bound(bdir, key) if cpu_timeout is None else cpu_timeout
    # an explicit SIMT_SIM_TIMEOUT is wall clock; a caller's cpu_timeout is CPU time
    runner.cpu_bound = cpu_timeout is not None or not os.environ.get("SIMT_SIM_TIMEOUT", "").strip()
    runner.what = f"{os.environ.get('PYTEST_CURRENT_TEST', toplevel).split(' ')[0]} ({toplevel} {key}, {sim}, seed {seed}: rerun with SEED={seed})"
    started = time.monotonic()
    try:
        results = _run_tests(
            runner,
            hdl_toplevel=toplevel,
            hdl_toplevel_lang="verilog",
            test_module=test_module,
            test_filter=test_filter,
            build_dir=bdir,
            test_dir=run_dir,
            results_xml=str(run_dir / "results.xml"),
            seed=seed,
            plusargs=run_plusargs,
            waves=waves,
            extra_env=env,
            log_file=log_file,
        )
    finally:
        runner.bound = None
    _record_duration(bdir, key, time.monotonic() - started)
    if waves:
        print(f"waves: {run_dir} or {bdir} ({'dump.fst' if sim == 'verilator' else toplevel + '.fst'})")
    return Path(results)


def _bounded_runner(sim: str):  # type: ignore[no-untyped-def]
    """cocotb's runner of ``sim`` with the wall-clock bound of :class:`_Bounded`."""
    from cocotb_tools.runner import get_runner

    base = type(get_runner(sim))
    return type(f"Bounded{base.__name__}", (_Bounded, base), {})()


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
    sim: str | None = None,
    visibility: Path | None = None,
    trace: bool = False,
    machine: GpuConfig | None = None,
    cpu_timeout: float | None = None,
    fast_build: bool | None = None,
    fault: int | None = None,
) -> Path:
    """Build ``toplevel`` from ``sources`` and run the cocotb tests of ``test_module``.

    Safe under ``pytest -n``: one build per (toplevel, simulator, parameters, sources, waves), made
    under a file lock, and every run gets its own folder and results file. Raises (failing the
    calling pytest test) when the build fails or any cocotb test fails. Returns the results.xml path.
    ``defines`` are Verilog macros (part of the build's identity), ``plusargs`` go to this run only.
    ``sim`` picks the simulator of this call (default: ``SIM``); the tests see it as ``SIM``.
    ``visibility`` (a Verilator control file) builds without ``--public-flat-rw``: only what it marks
    public is visible. ``trace`` passes ``+SIMT_TRACE=<run folder>/trace.txt`` and ``SIMT_TRACE_FILE``, and
    the test wrappers' image file ``+SIMT_IMAGE=<run folder>/image.hex`` and ``SIMT_IMAGE_FILE``.
    ``machine`` hands a machine to the bench: its parameters that ``toplevel`` declares
    (:func:`machine_parameters`, overridden by ``parameters``) and the whole machine to the bench's
    module (``tb.benchenv.machine()``). Every bench also gets its parameters (``tb.benchenv.parameters()``).
    ``cpu_timeout`` bounds the simulator's CPU time of this run (instead of the bound of :func:`wall_bound`).
    ``fast_build`` (Verilator) compiles the model's C++ at -O0 (FAST_BUILD) or not; by default the unit
    benches (no ``visibility``) are, the GPU benches are not. ``fault`` (a unit bench with planted faults)
    builds with the fault hooks (:data:`FAULT_HOOKS`) and plants fault ``fault`` in this run (0: none, the
    hooks inert), so a bench's fault-free and planted-fault runs share one build per configuration.
    """
    results = _build_and_test(
        toplevel,
        sources,
        test_module,
        parameters=parameters,
        testcase=testcase,
        extra_env=extra_env,
        tag=tag,
        defines=defines,
        plusargs=plusargs,
        sim=sim,
        visibility=visibility,
        trace=trace,
        machine=machine,
        cpu_timeout=cpu_timeout,
        fast_build=fast_build,
        fault=fault,
    )
    _check(results)
    return results


# Verilator evaluates the parameter checks (rtl/include/simt_check.vh) at elaboration, the first of its
# passes; a whole --lint-only run goes on through every later pass before it exits with the error: measured
# (issue 29) 19.6 s of CPU for simt_gpu with NUM_SMS=17 (17 SMs linted), 0.3 s stopping after elaboration.
DEBUG_EXIT_ELAB = "--debug-exit-elab"
# A refusal: the $fatal's message on a USERFATAL warning line (fatal unless -Wno-fatal, which lint never
# passes) or an error line.
_REFUSAL = re.compile(r"^%(?:Warning-USERFATAL|Error)\b.*$", re.MULTILINE)


def refused_at_elaboration(lint_cmd: Sequence[str], message: str) -> bool:
    """True when Verilator, stopped right after elaboration (``--debug-exit-elab``, which exits 0 whatever
    it printed), refuses ``lint_cmd``'s design with ``message``. False otherwise: the caller then runs the
    whole lint, whose exit code and output are the verdict (and the failure message), as before."""
    cmd = [lint_cmd[0], DEBUG_EXIT_ELAB, *lint_cmd[1:]]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return any(message in line for line in _REFUSAL.findall(proc.stdout + proc.stderr))


def expect_fatal(
    toplevel: str, sources: Sequence[str | Path], parameters: Mapping[str, object], message: str
) -> None:
    """Assert that ``toplevel`` refuses ``parameters`` with ``message`` (rtl/include/simt_check.vh).

    Verilator stops at elaboration, so ``verilator --lint-only`` proves it without compiling C++;
    Icarus stops at time 0, so the design is built and the probe ``tb.illegal_probe`` (which fails if
    the simulation survives 1 us) is run.
    """
    sim = simenv.sim_from_env()
    simenv.apply([sim])
    srcs = [str(p if Path(p).is_absolute() else RTL / p) for p in sources]
    if sim == "verilator":
        cmd = [
            "verilator",
            "--lint-only",
            "-Wall",
            f"-I{RTL / 'include'}",
            "--top-module",
            toplevel,
            *(f"-G{k}={v}" for k, v in parameters.items()),
            *srcs,
        ]
        if refused_at_elaboration(cmd, message):
            return
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        text = proc.stdout + proc.stderr
        if proc.returncode == 0:
            raise AssertionError(f"{toplevel} accepted illegal parameters {dict(parameters)}")
        if message not in text:
            raise AssertionError(
                f"{toplevel} with {dict(parameters)} did not print {message!r}:\n{text[-2000:]}"
            )
        return
    log = BUILD / toplevel / "illegal" / f"{_run_name()}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        results = _build_and_test(
            toplevel,
            sources,
            "tb.illegal_probe",
            parameters=parameters,
            testcase="illegal_probe",
            extra_env=None,
            tag="illegal",
            log_file=log,
            precheck=False,
        )
        _check(results)
    except (Exception, SystemExit):  # noqa: BLE001 - the build or run must fail; the log says why
        pass
    else:
        raise AssertionError(f"{toplevel} accepted illegal parameters {dict(parameters)}")
    text = log.read_text(errors="replace") if log.exists() else ""
    if message not in text:
        raise AssertionError(f"{toplevel} with {dict(parameters)} did not print {message!r}; see {log}")
    if illegal_probe.RAN_ON in text:  # the probe failed, not the simulator: it ran on past time 0
        raise AssertionError(
            f"{toplevel} with {dict(parameters)} printed {message!r} but did not stop; see {log}"
        )


class CocotbTestsFailed(AssertionError):
    """Some cocotb test of a run failed; ``messages`` are their failure messages from results.xml (what a
    meta-test checks to know the run failed for the planted reason)."""

    def __init__(self, text: str, results: Path, messages: list[str]) -> None:
        super().__init__(text)
        self.results = results
        self.messages = messages


def _run_tests(runner, **kwargs):  # type: ignore[no-untyped-def]
    """``runner.test``; under pytest cocotb's runner exits (SystemExit) when a test failed, which loses
    the failure messages: a failed run is raised as :class:`CocotbTestsFailed` instead."""
    try:
        return runner.test(**kwargs)
    except SystemExit:
        results = Path(kwargs["results_xml"])
        if results.exists():
            _check(results)  # raises CocotbTestsFailed when the file records a failure
        raise


def _check(results: Path) -> None:
    """Fail unless results.xml holds at least one test and no failure (the runner can exit 0)."""
    import xml.etree.ElementTree as ET

    from cocotb_tools.check_results import get_results

    total, failed = get_results(results)
    if total == 0:
        raise AssertionError(f"{results}: no cocotb test ran — a bench that checks nothing is a defect")
    if failed:
        found = ET.parse(results).getroot().iter("failure")
        messages = [f.get("message", "") for f in found]
        text = f"{failed} of {total} cocotb test(s) failed; see {results} and the log above"
        raise CocotbTestsFailed(text, results, messages)
