"""CI sessions. `make test` runs `.venv/bin/nox`, i.e. the default sessions below.

Sessions reuse the project's .venv (venv_backend="none": nothing is installed per session) and run
the same `python -m tools.tasks TASK` call as the Make target of the same name, so there is one
definition of each job. Pick one with e.g. `.venv/bin/nox -s "unit(icarus)"`; arguments after `--`
go to pytest: `.venv/bin/nox -s model -- -k isa`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # nox does not put the noxfile's folder on sys.path

from tools.simenv import SIMULATORS  # noqa: E402  (needs the sys.path line above)

# The interpreter running nox is .venv's python: sessions call it, not whatever `python` PATH finds.
PYTHON = sys.executable

nox.options.default_venv_backend = "none"
nox.options.error_on_missing_interpreters = True
# What CI runs (`make test`): everything but bench. Naming a parametrized session runs all its sims.
nox.options.sessions = ["lint", "model", "unit", "system", "differential"]

SIM_PARAMS = nox.parametrize("sim", [nox.param(sim, id=sim) for sim in SIMULATORS])


def _task(session: nox.Session, task: str, sim: str | None = None) -> None:
    cmd = [PYTHON, "-m", "tools.tasks", task]
    if sim is not None:
        cmd += ["--sim", sim]
    if session.posargs:
        cmd += ["--", *session.posargs]
    session.run(*cmd, external=True)


@nox.session(venv_backend="none")
def lint(session: nox.Session) -> None:
    """ruff + verilator --lint-only -Wall over rtl/ (make lint)."""
    _task(session, "lint")


@nox.session(venv_backend="none")
def model(session: nox.Session) -> None:
    """The pure-Python tests, no simulator (make model): tb/tests/{model,cudac,ppa,tools}."""
    _task(session, "model")


@nox.session(venv_backend="none")
@SIM_PARAMS
def unit(session: nox.Session, sim: str) -> None:
    """Block testbenches (make unit SIM=...)."""
    _task(session, "unit", sim)


@nox.session(venv_backend="none")
@SIM_PARAMS
def system(session: nox.Session, sim: str) -> None:
    """Whole-GPU testbenches (make system SIM=...)."""
    _task(session, "system", sim)


@nox.session(venv_backend="none")
def differential(session: nox.Session) -> None:
    """Icarus vs Verilator on the same random kernels: identical traces (make differential)."""
    _task(session, "differential")


@nox.session(venv_backend="none")
def formal(session: nox.Session) -> None:
    """SymbiYosys proofs of the units and their planted faults (make formal); its own CI job, not in make test.
    Installs requirements-formal.txt (--no-deps) into the venv first, as `make formal` does."""
    session.run(PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                "-r", str(ROOT / "requirements-formal.txt"), external=True)  # fmt: skip
    _task(session, "formal")


@nox.session(venv_backend="none")
@SIM_PARAMS
def bench(session: nox.Session, sim: str) -> None:
    """Benchmark scripts, not run by CI (make bench SIM=...)."""
    _task(session, "bench", sim)
