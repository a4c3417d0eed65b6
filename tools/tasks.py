"""The project's tasks, defined once: the Makefile targets and the nox sessions both call these.

    python -m tools.tasks lint
    python -m tools.tasks model                       [-- PYTEST_ARGS...]
    python -m tools.tasks unit    --sim verilator     [-- PYTEST_ARGS...]
    python -m tools.tasks system  --sim icarus        [-- PYTEST_ARGS...]
    python -m tools.tasks bench   --sim verilator     [-- SCRIPT_ARGS...]
    python -m tools.tasks regress --sim verilator     (model + unit + system, then a summary)
    python -m tools.tasks differential                (Icarus vs Verilator traces)  [-- PYTEST_ARGS...]
    python -m tools.tasks mutants                     (mutation testing of rtl/)  [-- --count N --seed S ...]
    python -m tools.tasks soak --sim verilator        (the fault soak)  [-- --launches N --shard I/N]
    python -m tools.tasks seeds                       (the seed sweep)  [-- --count N --sim both --shard I/N]
    python -m tools.tasks formal                      (SymbiYosys proofs, tools/formal/)  [-- --only NAME ...]

``--sim`` defaults to the SIM environment variable (default verilator). A task whose tests do not
exist yet says so and succeeds. Simulator tasks first select and check the tools (tools/simenv.py) and
pass SIM (and WAVES) on to the tests in the environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from spec import cli
from tools import envvars, lint_imports, lint_rtl, lint_workflows, simenv

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tb" / "tests"
BENCH = ROOT / "tools" / "bench"
REPORTS = ROOT / "build" / "reports"
FCOV = ROOT / "build" / "coverage" / "functional"  # functional-coverage files of the system runs
# Python that ruff checks.
LINT_PY = ["spec", "cudac", "tb", "tools", "ppa", "kernels", "noxfile.py", "conftest.py"]

PYTEST_EXIT_NO_TESTS = 5


@dataclass
class Outcome:
    name: str
    status: str  # "passed" | "failed" | "nothing to run"
    detail: str = ""
    seconds: float = 0.0
    table: list[str] | None = None  # extra summary lines (the system stage's checking counts)

    @property
    def ok(self) -> bool:
        return self.status != "failed"


def _say(msg: str) -> None:
    print(msg, flush=True)


def _run(cmd: Sequence[str], env: dict[str, str] | None = None) -> int:
    _say("$ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, env=env).returncode


def _has_tests(folder: Path) -> bool:
    return any(folder.rglob("test_*.py")) or any(folder.rglob("*_test.py"))


def _junit_counts(report: Path) -> str:
    """'N passed, N failed[, N skipped]' from a pytest junit report ('' if unreadable)."""
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return ""
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    tests = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    xfailed = sum(1 for e in root.iter("skipped") if e.get("type") == "pytest.xfail")
    text = f"{tests - failed - skipped} passed, {failed} failed"
    text += f", {skipped - xfailed} skipped" if skipped - xfailed else ""
    return text + (f", {xfailed} xfailed" if xfailed else "")


def _pytest(
    name: str,
    folder: Path | Sequence[Path],
    missing: str,
    extra: Sequence[str],
    sim: str | None,
    env_extra: dict[str, str] | None = None,
) -> Outcome:
    """Run pytest on *folder* (or several, in one session) on all cores; no tests is 'nothing to run'."""
    folders = [folder] if isinstance(folder, Path) else list(folder)
    rels = [str(f.relative_to(ROOT)) for f in folders if f.is_dir() and _has_tests(f)]
    rel = ", ".join(str(f.relative_to(ROOT)) for f in folders)
    if not rels:
        _say(f"{name}: {missing} ({rel} has no test_*.py files) — nothing to run")
        return Outcome(name, "nothing to run")
    env = dict(os.environ)
    if sim is not None:
        env["SIM"] = sim
    env.update(env_extra or {})
    REPORTS.mkdir(parents=True, exist_ok=True)
    report = REPORTS / f"{name.replace(' ', '-')}.xml"
    report.unlink(missing_ok=True)
    start = time.monotonic()
    # -n auto: pytest-xdist spreads tests over the cores; pass `-n0` in the extra args to debug one.
    # --maxschedchunk 1: a free worker takes the next test, the slowest first (conftest.py orders them
    # by tools/durations.py), so the workers finish together.
    xdist = ["-n", "auto", "--maxschedchunk", "1"]
    rc = _run([sys.executable, "-m", "pytest", *rels, *xdist, f"--junitxml={report}", *extra], env)
    seconds = time.monotonic() - start
    if rc == PYTEST_EXIT_NO_TESTS and not extra:
        _say(f"{name}: no tests collected in {rel} — nothing to run")
        return Outcome(name, "nothing to run", seconds=seconds)
    counts = _junit_counts(report)
    return Outcome(name, "passed" if rc == 0 else "failed", counts or f"pytest exit {rc}", seconds)


# --------------------------------------------------------------------------- tasks


def task_lint(sim: str, extra: Sequence[str]) -> Outcome:
    """ruff check and ruff format --check on the Python, then `verilator --lint-only -Wall` on every RTL file."""
    start = time.monotonic()
    targets = [p for p in LINT_PY if (ROOT / p).exists()]
    rc_py = _run([sys.executable, "-m", "ruff", "check", *extra, *targets])
    # the formatter's verdict too: run `.venv/bin/ruff format` to fix what it reports
    rc_py |= _run([sys.executable, "-m", "ruff", "format", "--check", *targets])
    rc_rtl = lint_rtl.lint()
    rc_wf = lint_workflows.lint()
    rc_imp = lint_imports.lint()
    ok = rc_py == 0 and rc_rtl == 0 and rc_wf == 0 and rc_imp == 0
    detail = ", ".join(
        [
            ("python ok" if rc_py == 0 else "ruff failed"),
            ("rtl ok" if rc_rtl == 0 else f"{rc_rtl} rtl file(s) failed"),
            ("workflows ok" if rc_wf == 0 else "actionlint failed"),
            ("imports ok" if rc_imp == 0 else "layering failed (tools/lint_imports.py)"),
        ]
    )
    return Outcome("lint", "passed" if ok else "failed", detail, time.monotonic() - start)


# `make model`: everything that needs no simulator, one pytest session over these folders
MODEL_FOLDERS = (TESTS / "model", TESTS / "cudac", TESTS / "ppa", TESTS / "tools")


def task_model(sim: str, extra: Sequence[str]) -> Outcome:
    """The simulator-free tests: the specification (tb/tests/model: ISA, golden model, assembler, image
    rules, kernels on the model, scoreboards), the CUDA-C compiler (tb/tests/cudac), the PPA model code
    (tb/tests/ppa) and the project's tooling (tb/tests/tools: CLIs, lint, coverage, formal, mutants)."""
    return _pytest("model", MODEL_FOLDERS, "no simulator-free tests yet", extra, sim=None)


def task_unit(sim: str, extra: Sequence[str]) -> Outcome:
    """Block-level cocotb/pyuvm testbenches of rtl/sm modules."""
    simenv.apply([sim])
    return _pytest(f"unit {sim}", TESTS / "unit", "no unit testbenches yet", extra, sim)


def task_system(sim: str, extra: Sequence[str]) -> Outcome:
    """Whole-GPU testbenches (the pyuvm environment) running kernels against the reference model.
    Every run also writes its functional coverage to build/coverage/functional/<sim>/ (make coverage)."""
    simenv.apply([sim])
    stats = REPORTS / f"system-{sim}-stats.jsonl"
    REPORTS.mkdir(parents=True, exist_ok=True)
    stats.unlink(missing_ok=True)
    fcov = FCOV / sim
    shutil.rmtree(fcov, ignore_errors=True)  # this stage's runs, not an older regression's
    out = _pytest(
        f"system {sim}",
        TESTS / "system",
        "no system testbenches yet",
        extra,
        sim,
        {"SIMT_STATS": str(stats), "SIMT_FCOV": str(fcov)},
    )
    out.table = system_table(stats)
    for line in out.table:
        _say(line)
    return out


def system_table(stats: Path) -> list[str]:
    """The regression's checking counts per pyuvm test, from the JSON lines the tests append."""
    import json

    try:
        rows = [json.loads(line) for line in stats.read_text().splitlines() if line.strip()]
    except OSError:
        return []
    if not rows:
        return []
    agg: dict[str, dict[str, float]] = {}
    for r in rows:
        a = agg.setdefault(
            r["test"],
            dict.fromkeys(("runs", "launches", "retires", "transactions", "seeds", "cycles", "seconds"), 0),
        )
        a["runs"] += 1
        for k in ("launches", "retires", "transactions", "seeds", "cycles", "seconds"):
            a[k] += r.get(k, 0)
    head = (
        f"  {'pyuvm test':<20}{'runs':>5}{'launches':>9}{'retires':>10}{'transactions':>13}{'seeds':>6}"
        f"{'cycles':>10}{'wall s':>8}{'cycles/s':>10}"
    )
    lines = ["", "system checking summary (every retire, transaction and shared write checked):", head]
    total = dict.fromkeys(("runs", "launches", "retires", "transactions", "seeds", "cycles", "seconds"), 0.0)
    for name, a in sorted(agg.items()):
        for k in total:
            total[k] += a[k]
        rate = a["cycles"] / a["seconds"] if a["seconds"] else 0
        lines.append(
            f"  {name:<20}{a['runs']:>5.0f}{a['launches']:>9.0f}{a['retires']:>10.0f}"
            f"{a['transactions']:>13.0f}{a['seeds']:>6.0f}{a['cycles']:>10.0f}{a['seconds']:>8.1f}{rate:>10.0f}"
        )
    rate = total["cycles"] / total["seconds"] if total["seconds"] else 0
    lines.append(
        f"  {'total':<20}{total['runs']:>5.0f}{total['launches']:>9.0f}{total['retires']:>10.0f}"
        f"{total['transactions']:>13.0f}{total['seeds']:>6.0f}{total['cycles']:>10.0f}"
        f"{total['seconds']:>8.1f}{rate:>10.0f}"
    )
    return lines


def task_bench(sim: str, extra: Sequence[str]) -> Outcome:
    """Benchmark scripts tools/bench/*.py, each run with SIM set."""
    scripts = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_")) if BENCH.is_dir() else []
    if not scripts:
        _say("bench: no benchmark scripts yet (tools/bench/*.py) — nothing to run")
        return Outcome(f"bench {sim}", "nothing to run")
    simenv.apply([sim])
    env = {
        **os.environ,
        "SIM": sim,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    start = time.monotonic()
    failed = [s.name for s in scripts if _run([sys.executable, str(s.relative_to(ROOT)), *extra], env) != 0]
    status = "failed" if failed else "passed"
    detail = f"{len(scripts) - len(failed)} passed, {len(failed)} failed"
    # which docs tables were measured on another RTL: a listed warning, not a failure (tools/bench/_tables.py)
    _run([sys.executable, "-m", "tools.bench._tables"], env)
    return Outcome(f"bench {sim}", status, detail, time.monotonic() - start)


def task_regress(sim: str, extra: Sequence[str]) -> Outcome:
    """The verification regression for one simulator: model + unit + system, then a summary."""
    start = time.monotonic()
    outcomes = [task(sim, extra) for task in (task_model, task_unit, task_system)]
    _say("")
    _say(f"regress summary (SIM={sim}):")
    for o in outcomes:
        detail = f"  {o.detail}" if o.detail else ""
        timing = f"  ({o.seconds:.1f}s)" if o.seconds else ""
        _say(f"  {o.name:<18} {o.status}{detail}{timing}")
    for o in outcomes:
        for line in o.table or []:
            _say(line)
    ok = all(o.ok for o in outcomes)
    ran = [o for o in outcomes if o.status != "nothing to run"]
    detail = f"{sum(o.status == 'passed' for o in ran)} of {len(ran)} stage(s) with tests passed"
    return Outcome(f"regress {sim}", "passed" if ok else "failed", detail, time.monotonic() - start)


def task_coverage(sim: str, extra: Sequence[str]) -> Outcome:
    """make coverage: the system regression on both simulators (functional coverage, merged across
    seeds, configurations and simulators), Verilator's built with line and toggle coverage (code
    coverage of rtl/); then both reports. ``--unit`` adds the unit benches on Verilator to the code
    coverage (every unit configuration is then a coverage build of its own: slow); ``--report-only``
    reuses the data of the last run. Fails if a test fails or a coverage hole has no explanation."""
    from tb import rtlsim
    from tb.coverage import report as fcov_report
    from tools import codecov

    start = time.monotonic()
    args = [a for a in extra if a not in ("--report-only", "--unit")]
    outcomes: list[Outcome] = []
    if "--report-only" not in extra:
        shutil.rmtree(rtlsim.coverage_data_dir(), ignore_errors=True)
        for s in simenv.SIMULATORS:  # the test processes inherit SIMT_CODE_COVERAGE
            os.environ["SIMT_CODE_COVERAGE"] = "1" if s == "verilator" else "0"
            if s == "verilator" and "--unit" in extra:
                outcomes.append(task_unit(s, args))
            outcomes.append(task_system(s, args))
    out = REPORTS / "coverage"
    _say("")
    rc_f = fcov_report.main([str(FCOV), "--out", str(out)])
    try:
        code = codecov.report([rtlsim.coverage_data_dir()], out / "code")
        code_line = (
            f"code coverage of rtl/: line {code.line.text()}, branch {code.branch.text()}, "
            f"toggle {code.toggle.text()}: {out / 'code' / 'index.html'}"
        )
    except codecov.CodecovError as err:
        code, code_line = None, f"code coverage: {err}"
    _say(code_line)
    _say("")
    _say("coverage summary:")
    for o in outcomes:
        _say(f"  {o.name:<18} {o.status}  {o.detail}  ({o.seconds:.1f}s)")
    ok = all(o.ok for o in outcomes) and rc_f == 0 and code is not None
    why = (
        []
        if rc_f == 0
        else ["functional coverage has unexplained holes" if rc_f == 1 else "no functional data"]
    )
    why += [] if code is not None else ["no code-coverage data"]
    why += [f"{o.name} failed" for o in outcomes if not o.ok]
    detail = "; ".join(why) if why else f"reports in {out.relative_to(ROOT)}"
    return Outcome("coverage", "passed" if ok else "failed", detail, time.monotonic() - start)


def task_differential(sim: str, extra: Sequence[str]) -> Outcome:
    """Icarus (4-state) and Verilator (2-state, random initial state) on the same random kernels and
    seeds: identical retire traces and final memory (tb/tests/differential). Needs both simulators."""
    simenv.apply(["icarus", "verilator"])
    return _pytest("differential", TESTS / "differential", "no differential tests yet", extra, sim=None)


def task_mutants(sim: str, extra: Sequence[str]) -> Outcome:
    """make mutants: mutation testing of rtl/ (tools/mutants/, docs/verification.md): a seeded sample of
    mutants, each through the fast regression on Icarus, two at a time; report in
    build/reports/mutants.md. Not a CI session (about 20 minutes). ``extra`` goes to
    ``python -m tools.mutants run`` (--count N, --seed S, --only ID..., --sim); ``sim`` is not used: the
    mutation run picks its own simulator (Icarus, measured cheaper per mutant)."""
    from tools.mutants.__main__ import main as mutants_main

    start = time.monotonic()
    rc = mutants_main(["run", *extra])
    detail = {
        0: "every survivor killed or explained",
        1: "survivors NOT EXPLAINED (build/reports/mutants.md)",
        2: "no run: the baseline or the self-check failed",
    }.get(rc, f"exit {rc}")
    return Outcome("mutants", "passed" if rc == 0 else "failed", detail, time.monotonic() - start)


def task_seeds(sim: str, extra: Sequence[str]) -> Outcome:
    """make seeds: every unit bench and meta-test under N random seeds on both simulators (or the one
    ``--sim`` names), each failing seed listed with its rerun command (tools/seeds.py). ``extra`` goes
    to ``python -m tools.seeds`` (--count N, --seeds a,b, --base B, --sim, --shard I/N, --jobs J)."""
    from tools.seeds import main as seeds_main

    start = time.monotonic()
    rc = seeds_main(list(extra))
    detail = {0: "no failing seed", 1: "failing seeds: build/reports/seeds*.md"}.get(rc, f"exit {rc}")
    return Outcome("seeds", "passed" if rc == 0 else "failed", detail, time.monotonic() - start)


def task_soak(sim: str, extra: Sequence[str]) -> Outcome:
    """make soak: the fault soak (tools/soak.py), thousands of launches with faults injected, native and
    AXI tops; ``extra`` goes to ``python -m tools.soak`` (--launches N, --chunk C, --shard I/N)."""
    from tools.soak import main as soak_main

    start = time.monotonic()
    rc = soak_main(["--sim", sim, *extra])
    detail = {0: "every fault survived, every launch exact", 1: "failed runs: build/reports/soak*.md"}.get(
        rc, f"exit {rc}"
    )
    return Outcome("soak", "passed" if rc == 0 else "failed", detail, time.monotonic() - start)


def task_fuzz(sim: str, extra: Sequence[str]) -> Outcome:
    """make fuzz: the CUDA-C compiler's random-program campaign (cudac/fuzz.py): each program compiled
    by gcc with the host header and by cudac on the golden model, outputs compared, failures shrunk.
    ``extra`` goes to ``python -m cudac.fuzz`` (-n N, --start S, --shard I/N, --fault F); ``sim`` is not
    used (the model needs no simulator)."""
    from cudac.fuzz import main as fuzz_main

    start = time.monotonic()
    rc = fuzz_main(list(extra))
    detail = "0 mismatches" if rc == 0 else "FAILING programs (shrunk sources printed above)"
    return Outcome("fuzz", "passed" if rc == 0 else "failed", detail, time.monotonic() - start)


def task_formal(sim: str, extra: Sequence[str]) -> Outcome:
    """make formal: SymbiYosys proofs of the units and their planted faults (tools/formal/,
    docs/verification.md "Formal"); ``extra`` goes to ``python -m tools.formal`` (--only NAME..., --docs).
    No simulator; not a `make test` session (its own CI job)."""
    from tools.formal.__main__ import main as formal_main

    start = time.monotonic()
    rc = formal_main(list(extra))
    detail = {
        0: "every property proved, every planted fault caught",
        2: "tools missing or bad arguments",
    }.get(rc, "a proof failed or a planted fault was not caught (build/reports/formal.md)")
    return Outcome("formal", "passed" if rc == 0 else "failed", detail, time.monotonic() - start)


TASKS: dict[str, Callable[[str, Sequence[str]], Outcome]] = {
    "lint": task_lint,
    "model": task_model,
    "unit": task_unit,
    "system": task_system,
    "bench": task_bench,
    "regress": task_regress,
    "differential": task_differential,
    "coverage": task_coverage,
    "mutants": task_mutants,
    "seeds": task_seeds,
    "soak": task_soak,
    "fuzz": task_fuzz,
    "formal": task_formal,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = cli.ArgumentParser(prog="python -m tools.tasks", description="Run one project task.")
    parser.add_argument("task", choices=sorted(TASKS))
    parser.add_argument("--sim", default=None, help="icarus|verilator (default: $SIM, else verilator)")
    args = parser.parse_args(argv)
    try:
        envvars.check(names=envvars.USER_VARS)  # every variable, before anything runs (SIM, SEED: simenv)
        sim = simenv.check_sim_name(args.sim) if args.sim else simenv.sim_from_env()
        outcome = TASKS[args.task](sim, extra)
    except simenv.SimEnvError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except envvars.EnvError as err:
        print(err, file=sys.stderr)
        return 2
    if outcome.status != "nothing to run":  # (that case was already said, with the reason)
        detail = f" ({outcome.detail})" if outcome.detail else ""
        _say(f"{outcome.name}: {outcome.status.upper()}{detail}")
    return 0 if outcome.ok else 1


if __name__ == "__main__":
    cli.run(main)
