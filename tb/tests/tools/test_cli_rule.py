"""The one command-line rule (spec/cli.py, docs/cli.md) holds for every entry point of the project.

- The entry points are *found* (every module of spec, tb, kernels, tools and ppa with a
  ``if __name__ == "__main__":`` block): each must end in ``cli.run(...)`` and be listed in ENTRY_POINTS
  below with its bad command lines, so a new command without the rule's tests fails here.
- Directed cases: each bad command line ends in exactly one stderr line and exit code 2.
- Property (hypothesis): random command lines of bad values for the entry point's own options, junk
  files, empty and odd strings never raise (no traceback) and change no file but the declared output.
  Work that a command would start (a simulator, a synthesis, pytest) is stopped at its subprocess, so
  an accepted command line costs nothing here.
"""

from __future__ import annotations

import ast
import concurrent.futures
import contextlib
import importlib
import io
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spec import cli

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("spec", "tb", "kernels", "tools", "ppa", "cudac")

# module -> (function, bad command lines that must each give exit 2 and one stderr line)
UNKNOWN = ["--no-such-option"]
ENTRY_POINTS: dict[str, tuple[str, list[list[str]]]] = {
    "spec.asm": ("main", [UNKNOWN, ["missing.s"], [], ["k.s", "-o", ""]]),
    "spec.disasm": ("main", [UNKNOWN, ["--word", "zz"], ["missing.hex"], []]),
    "spec.gen": ("main", [UNKNOWN, ["junk"]]),
    "spec.machines": ("main", [UNKNOWN]),
    "kernels.suite": ("main", [["vecad"], ["vecadd", "--size", "-5"], ["vecadd", "--size", "0"],
                               ["vecadd", "--lanes", "12"], ["vecadd", "--seed", "-1"],
                               ["matrixmul", "--machine", "system/sm2-l8", "--size", "4096"],
                               ["vecadd", "--machine", "nope"]]),
    "tb.coverage.report": ("main", [UNKNOWN, []]),
    "tb.coverage.unitmap": ("main", [UNKNOWN]),
    "tb.sequences.random_kernel": ("main", [UNKNOWN, [], ["--seed", "x"]]),
    "tools.timeline.__main__": ("main", [UNKNOWN, ["missing.txt"], ["junk.txt"], ["."], ["trace.txt", "--window", "5"]]),
    "tools.tasks": ("main", [UNKNOWN, ["nosuch"], ["unit", "--sim", "questa"]]),
    "tools.seeds": ("main", [[], ["--count", "0"], ["--count", "2", "--shard", "3/2"], ["--seeds", "1,,2"]]),
    "tools.envvars": ("main", [UNKNOWN, ["x"]]),
    "tools.soak": ("main", [UNKNOWN, ["--launches", "1"], ["--shard", "0/2"], ["--sim", "questa"]]),
    "tools.simenv": ("_main", [UNKNOWN, ["--sim", "questa"]]),
    "tools.codecov": ("main", [UNKNOWN]),
    "tools.lint_rtl": ("main", [UNKNOWN]),
    "tools.lint_imports": ("main", [UNKNOWN, ["x"]]),
    "tools.lint_workflows": ("main", [UNKNOWN, ["missing.yml"]]),
    "tools.formal.__main__": ("main", [UNKNOWN, ["--only", "nosuch"], ["--jobs", "0"], ["--timeout", "x"]]),
    "tools.formal.gen_decode": ("main", [UNKNOWN, ["x"]]),
    "tools.formal.gen_image_rules": ("main", [UNKNOWN, ["x"]]),
    "tools.formal.holes": ("main", [UNKNOWN, ["--results", "missing.json"], ["--results", "spec/isa.py"]]),
    "tools.mutants.__main__": ("main", [UNKNOWN, [], ["nosuch"]]),
    "tools.bench.check_overhead": ("main", [UNKNOWN]),
    "tools.bench.check_replay": ("main", [UNKNOWN, ["--repeat", "0"], ["--case", "matrixmul"]]),
    "tools.bench.kernels_bench": ("main", [UNKNOWN, ["--docs", "--lanes", "8"], ["--docs", "--kernels", "vecadd"]]),
    "tools.bench.model_throughput": ("main", [UNKNOWN]),
    "tools.bench.load_ahead_reach": ("main", [UNKNOWN, ["--kernels", "vecad"], ["--size", "0"]]),
    "tools.bench.raw_bench": ("main", [UNKNOWN]),
    "tools.bench.timeline_bench": ("main", [UNKNOWN]),
    "ppa.__main__": ("main", [UNKNOWN, ["nosuch"], ["--jobs", "x"]]),
    "ppa.ice40": ("main", [UNKNOWN]),
    "ppa.micro": ("main", [UNKNOWN, ["--lanes", "x"]]),
    "ppa.perf": ("main", [UNKNOWN, ["--lanes", "x"]]),
    "ppa.power": ("main", [UNKNOWN, ["--lanes", "x"]]),
    "ppa.rtlcycles": ("main", [UNKNOWN, ["--lanes", "x"]]),
    "ppa.sweep": ("main", [UNKNOWN, ["--jobs", "x"]]),
    "ppa.toggles": ("main", [UNKNOWN, ["--lanes", "0"]]),
    "ppa.chaincheck": ("main", [UNKNOWN]),
    "ppa.charlib": ("main", [UNKNOWN]),
    "ppa.sta": ("main", [UNKNOWN]),
    "ppa.timing": ("main", [UNKNOWN]),
    "ppa.kernelpower": ("main", [UNKNOWN, ["--lanes", "x"]]),
    "ppa.modpower": ("main", [UNKNOWN, ["--lanes", "x"], ["--lanes", "3"]]),
    "ppa.coldrun": ("main", [UNKNOWN, ["--lanes", "x"], ["--lanes", "0"], ["--parts", "nosuch"]]),
    "ppa.timing_docs": ("main", [UNKNOWN, []]),
    "ppa.aluactivity": ("main", [UNKNOWN, ["--lanes", "x"], ["--lanes", "0"], ["--kernels", "nosuch"]]),
    "ppa.meanbias": ("main", [UNKNOWN, ["--lanes", "x"], ["--kernels", "nosuch"]]),
    "cudac.__main__": ("main", [UNKNOWN, [], ["missing.cu"], ["k.cu", "--regs", "0"]]),
    "cudac.fuzz": ("main", [UNKNOWN, ["--shard", "3/2"], ["-n", "x"]]),
    "tools.bench.cudac_bench": ("main", [UNKNOWN]),
    "tools.durations": ("main", [UNKNOWN, [], ["update", "missing.xml"], ["show", "--top", "x"]]),
    "tools.bench._tables": ("main", [UNKNOWN, ["x"]]),
    "tools.bench._recorded": ("main", [UNKNOWN, ["x"], ["--measure-round3"]]),
}  # fmt: skip


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _main_guard(tree: ast.Module) -> ast.If | None:
    for node in tree.body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name)
            and node.test.left.id == "__name__"
        ):
            return node
    return None


def discover() -> dict[str, ast.If]:
    """Every module (outside test folders) with a ``__main__`` block: the project's entry points."""
    found = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if "tests" in path.parts or "__pycache__" in path.parts:
                continue
            guard = _main_guard(ast.parse(path.read_text()))
            if guard is not None:
                found[_module_name(path)] = guard
    return found


FOUND = discover()


def test_every_entry_point_is_listed_and_follows_the_rule() -> None:
    assert set(FOUND) == set(ENTRY_POINTS), (
        f"entry points without the CLI rule's tests: {sorted(set(FOUND) - set(ENTRY_POINTS))}; "
        f"listed but gone: {sorted(set(ENTRY_POINTS) - set(FOUND))} (add them to ENTRY_POINTS)"
    )
    for name, guard in FOUND.items():
        calls = [n for n in ast.walk(guard) if isinstance(n, ast.Call)]
        assert any(ast.unparse(c.func) == "cli.run" for c in calls), (
            f"{name}: its __main__ block must call cli.run(main)"
        )


class _WouldRun(Exception):
    """The command line was accepted: the command tried to start a process (stopped here)."""


def _refuse(*args: object, **kwargs: object) -> None:
    raise _WouldRun(str(args[:1])[:80])


@contextlib.contextmanager
def _no_processes():
    """Stop any process a command would start (simulator, Yosys, pytest): its arguments were accepted."""
    saved = (subprocess.Popen, os.system, concurrent.futures.ProcessPoolExecutor)
    subprocess.Popen = _refuse  # type: ignore[assignment,misc]
    os.system = _refuse  # type: ignore[assignment]
    concurrent.futures.ProcessPoolExecutor = _refuse  # type: ignore[assignment,misc]
    try:
        yield
    finally:
        subprocess.Popen, os.system, concurrent.futures.ProcessPoolExecutor = saved  # type: ignore[misc]


def _function(module: str) -> Callable[..., int | None]:
    func, _ = ENTRY_POINTS[module]
    return getattr(importlib.import_module(module), func)


def _call(module: str, argv: list[str]) -> tuple[int | str, list[str]]:
    """Run the entry point in-process: (exit code or 'accepted', stderr lines)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), _no_processes():
        try:
            rc: int | str = cli.entry(_function(module), argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
            if not isinstance(e.code, int) and e.code is not None:
                err.write(f"{e.code}\n")
        except _WouldRun:
            rc = "accepted"
    return rc, err.getvalue().splitlines()


def _workdir(tmp: Path) -> None:
    (tmp / "k.s").write_text("EXIT\n")
    (tmp / "junk.txt").write_text("hello world\n1 2 x\n")
    (tmp / "trace.txt").write_text("D 00000001 0 0\n")
    (tmp / "bin.dat").write_bytes(bytes(range(256)))
    (tmp / "empty").write_text("")
    (tmp / "dir").mkdir()


CASES = [(m, argv) for m, (_, cases) in ENTRY_POINTS.items() for argv in cases]


@pytest.mark.parametrize("module,argv", CASES, ids=[f"{m}:{' '.join(a) or '(none)'}" for m, a in CASES])
def test_bad_command_line_is_one_line_and_exit_2(
    module: str, argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _workdir(tmp_path)
    rc, lines = _call(module, argv)
    assert rc == 2 and len(lines) == 1 and "Traceback" not in lines[0], (
        f"{module} {argv}: exit {rc}, {lines[:3]}"
    )


# ---- property: random bad command lines -----------------------------------------------------------
BAD_VALUES = ["-5", "0", "-1", "99999999999999999999", "", " ", "x", "nan", "1e3", "0x", "1:0", "3/2", "a=b",
              "\u00e9\u00e8", "nosuch.file", "dir", "junk.txt", "bin.dat", "empty", "k.s", "/dev/null"]  # fmt: skip
OUTPUT_OPTIONS = ("-o", "--out", "--output", "--stalls")
_OPTIONS: dict[str, list[str]] = {}


def _options(module: str) -> list[str]:
    """The entry point's own option names, read from its --help."""
    if module not in _OPTIONS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), _no_processes():
            with contextlib.suppress(SystemExit, _WouldRun):
                cli.entry(_function(module), ["--help"])
        names = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", out.getvalue())) - {"-h", "--help"}
        _OPTIONS[module] = sorted(names - {"--force", "--docs"})  # (accepted alone, they would act)
    return _OPTIONS[module]


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in folder.rglob("*")
        if p.is_file()
    }


@st.composite
def bad_command_lines(draw: st.DrawFn, module: str) -> list[str]:
    opts = _options(module)
    argv: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        if opts and draw(st.booleans()):
            argv.append(draw(st.sampled_from(opts)))
        argv.append(draw(st.sampled_from(BAD_VALUES)))
    argv.append(draw(st.sampled_from(BAD_VALUES)))  # a junk positional, at least: never a valid command
    return argv


@pytest.mark.parametrize("module", sorted(ENTRY_POINTS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_bad_command_lines_never_traceback(module: str, data: st.DataObject) -> None:
    argv = data.draw(bad_command_lines(module), label="argv")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _workdir(work)
        before = _snapshot(work)
        cwd = os.getcwd()
        os.chdir(work)
        try:
            rc, lines = _call(module, argv)  # an exception here is the traceback the rule forbids
        finally:
            os.chdir(cwd)
        after = _snapshot(work)
    declared = {argv[i + 1] for i, a in enumerate(argv[:-1]) if a in OUTPUT_OPTIONS}
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)} - declared
    assert not changed, f"{module} {argv} changed {sorted(changed)}"
    if rc == 2:
        assert len(lines) == 1, f"{module} {argv}: exit 2 with {len(lines)} stderr lines: {lines[:3]}"


# ---- run from the wrong folder --------------------------------------------------------------------
BY_PATH = ["tools/bench/model_throughput.py", "tools/bench/raw_bench.py"]


@pytest.mark.parametrize("script", BY_PATH)
def test_a_script_runs_from_any_folder(script: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / script), "--help"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-500:]


def test_a_module_outside_the_root_says_so_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-m", "kernels.suite"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
