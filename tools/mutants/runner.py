"""Run the fast regression against mutated copies of rtl/, two mutants at a time.

Each mutant gets a temporary folder with its own copy of ``rtl/`` (one file mutated) and its own build
folder; the benches are pointed at them through ``SIMT_RTL_ROOT`` / ``SIMT_BUILD_ROOT``
(``tb/rtlsim.py``). The fast regression is a list of stages, cheapest and most specific first, each
one pytest process stopped at its first failing cocotb test (its output is watched); the mutant's
verdict is the first stage that fails:

1. ``unit``    the mutated module's own unit bench, every configuration (none for simt_sm and
               simt_gpu: the stages below are theirs)
2. ``gpu``     the GPU on sm2-l8 (two SMs): SmokeTest, DirectedTest, ErrorTest, LaunchErrorTest,
               ResetMidKernelTest, every retire checked against the model
3. ``sm16``    the SM bench on its w16l4 configuration, which no GPU configuration has (16-thread
               warps on 4 lanes, 3 block slots, 16-word segments, a 7-deep stack), on the kernels
               that depend on it most: full_stack, divergence, shared_resident
4. ``random``  two constrained-random kernels on sm2-l8
5. ``pipeline`` the SM pipeline bench's cadence checks on w32l8 (ALU cadence, shared stream, issue
               ahead): a mutant that only makes issue slower passes every lock-step stage
6. ``post``    only for the files with POST_STORES logic (``POST_FILES``: the gmem unit, the SM, the
               GPU): the same machines built with POST_STORES = 1 (the gmem unit's posted bench, the
               posted-stores kernels on sm2-l8), so a mutant inside that logic, which no default build
               elaborates, is judged on a build that runs it instead of surviving unexercised
7. ``formal``  last, only for a mutant every simulation stage passed: the property jobs of make formal
               that read the mutated file (``python -m tools.formal --mutant``), each a BMC from reset;
               a counterexample kills the mutant (files no proof reads pass it at once)

The AXI top's own files (``AXI_FILES``: the AXI4 bridge, the AXI4-Lite host, the AXI top) are read by
none of the stages above; their mutants run ``axi`` (tb/tests/system/test_axi.py: kernels through AXI,
the AXI-Lite register map, and the planted broken slaves that must raise ``axi_error``) and then
``formal``.

Verdicts: ``killed`` (a stage failed), ``timeout`` (a stage overran its wall-clock limit: a hang,
counted as killed), ``survived`` (every stage passed), ``did-not-compile`` (Icarus rejected the mutant:
not a test of the verification, left out of the kill rate).

Before any mutant, the unmutated RTL runs every stage (the baseline: it must pass, and its times set
each stage's limit), then one deliberately wrong mutant (the ALU's ADD made a SUB) must be killed;
either failure stops the run before a misleading report is written.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tools.mutants.generate import ROOT, RTL, Mutant

UNIT = ROOT / "tb" / "tests" / "unit"
GPU_TESTS = "tb/tests/system/test_gpu.py"
SM_TESTS = "tb/tests/unit/test_sm.py"
SM_KERNELS = ["full_stack", "divergence", "shared_resident"]
RANDOM_NODE = f"{GPU_TESTS}::test_random[sm2-l8-RandomTest-80:92]"  # on both simulators
# The SM pipeline's cadence checks (issue overlap, shared streaming, issue ahead; every retire checked):
# a mutant that only slows issue down (an instruction no longer released from DEC) passes every
# lock-step stage and fails these.
PIPELINE_TESTS = "tb/tests/unit/test_sm_pipeline.py"
PIPELINE_NODES = (
    "test_alu_cadence[l8-pipelined]",
    "test_shared_stream[l8-streamed]",
    "test_issue_ahead[l8-ahead]",
)
RANDOM_SEEDS = "20,21"
# POST_STORES = 1 (docs/gpu.md "Posted stores"): every default-parameter stage above builds POST_STORES = 0,
# where the posted logic (the gmem unit's g_post block, the launch end's wait for acks_out) is not
# elaborated or always idle. These files' mutants also run the POST_STORES = 1 benches.
POST_FILES = ("sm/simt_gmem_unit.v", "sm/simt_sm.v", "top/simt_gpu.v")
POST_KERNELS = "tb/tests/system/test_kernels.py::test_posted_stores"
POST_UNIT = "tb/tests/unit/test_gmem_unit.py::test_gmem_unit_posted"
# The AXI top (docs/gpu.md "AXI option"): its files are read only by the AXI benches.
AXI_FILES = ("top/simt_axi_mem_bridge.v", "top/simt_axil_host.v", "top/simt_gpu_axi.v")
AXI_TESTS = "tb/tests/system/test_axi.py"
# the broken AXI slaves (tb/agents/axi_mem_agent.py FAULTS) whose axi_error bits the bridge must raise
AXI_SLAVE_FAULTS = ("slverr_read", "decerr_write", "bad_rlast", "extra_b")
# the formal stage's bound per job (tools/formal: a timeout is "not killed", never a kill)
FORMAL_TIMEOUT = 600
FORMAL_BASELINE = "top/simt_axil_host.v"  # the formal stage's baseline: its one job takes seconds
# Benches use random stimulus (memory latencies, operands): one fixed cocotb seed keeps every verdict
# reproducible. It is the SEED of tb/rtlsim.py, not the sample's seed.
BENCH_SEED = "1"
# A stage may take this many times its baseline time (plus a margin) before it counts as a hang.
TIMEOUT_FACTOR, TIMEOUT_MARGIN = 2.5, 30.0
# The first failing cocotb test of a stage, as cocotb logs it ("<module>.<test> failed"), and the
# pytest node running it (-v prints each node id as it starts).
COCOTB_FAILED = re.compile(r"cocotb\.regression\s+(\S+) failed")
PYTEST_NODE = re.compile(r"^(tb/\S+::\S+)", re.M)
POLL_SECONDS = 0.5
# Settings of the caller's shell that would change what a stage runs or records.
INHERITED_OFF = {"KERNEL_SEEDS", "SIMT_STATS", "SIMT_BENCH", "SIMT_FCOV", "SIMT_CODE_COVERAGE", "SIMT_COVERAGE_DIR",
                 "WAVES", "PYTEST_ADDOPTS", "SIMT_FAULT"}  # fmt: skip
# Icarus' messages for a design it cannot build (a mutant that only fails for some parameters).
COMPILE_ERROR = re.compile(
    r"error\(s\) during elaboration|syntax error|I give up|: error: |Unknown module type"
)


@dataclass(frozen=True)
class Stage:
    name: str
    nodes: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    # formal: not pytest but ``python -m tools.formal --mutant <file>`` (nodes names it in the report)
    formal: bool = False


# Modules split out of a unit-tested module (issue 27) keep being mutated against that module's bench.
BENCH_OF_PART = {"image_check": "loader", "loader_store": "loader"}


def unit_stage(rel: str) -> Stage | None:
    """The unit bench of the module in ``rel`` (rtl-relative), by the tb/tests/unit naming rule."""
    stem = Path(rel).stem.removeprefix("simt_")
    stem = BENCH_OF_PART.get(stem, stem)
    bench = UNIT / f"test_{stem}.py"
    if stem == "sm" or not bench.exists():
        return None  # the SM's bench is the sm16 stage; simt_gpu and the stage modules have none
    return Stage("unit", (f"{bench.relative_to(ROOT)}::test_{stem}",))


COMMON: tuple[Stage, ...] = (
    Stage("gpu", (f"{GPU_TESTS}::test_directed[sm2-l8]",)),
    Stage("sm16", tuple(f"{SM_TESTS}::test_sm[{k}-w16l4]" for k in SM_KERNELS)),
    Stage("random", (RANDOM_NODE,), (("KERNEL_SEEDS", RANDOM_SEEDS),)),
    Stage("pipeline", tuple(f"{PIPELINE_TESTS}::{n}" for n in PIPELINE_NODES)),
)


AXI = Stage(
    "axi",
    (
        f"{AXI_TESTS}::test_axi_kernels",
        *(f"{AXI_TESTS}::test_axi_fault_is_caught[{f}]" for f in AXI_SLAVE_FAULTS),
    ),
)
# after the common stages, so a run's "killed only by post" count is what the runner missed without it
POST_STAGES = {
    f: Stage("post", ((POST_UNIT,) if f == "sm/simt_gmem_unit.v" else ()) + (POST_KERNELS,))
    for f in POST_FILES
}
FORMAL = Stage("formal", ("python -m tools.formal --mutant",), formal=True)


# A generate branch elaborated only with POST_STORES = 1 (the gmem unit's g_post): its header line is
# elaborated by every build (its condition is mutated like any other), its body only by the post stage.
POST_BLOCK = re.compile(r"\bif\s*\(\s*POST_STORES\s*!=\s*0\s*\)\s*begin\b")
BEGIN_END = re.compile(r"\b(begin|end)\b")


def post_only_lines(text: str) -> set[int]:
    """The 1-based lines strictly inside ``if (POST_STORES != 0) begin ... end`` generate branches (not
    the header, not the line of the closing ``end``): no default-parameter build elaborates them."""
    code = [line.split("//")[0] for line in text.splitlines()]
    out: set[int] = set()
    i = 0
    while i < len(code):
        head = POST_BLOCK.search(code[i])
        if head is None:
            i += 1
            continue
        depth, j, rest = 1, i, code[i][head.end() :]
        while True:
            for tok in BEGIN_END.finditer(rest):
                depth += 1 if tok.group(1) == "begin" else -1
                if depth == 0:
                    break
            if depth == 0 or j + 1 >= len(code):
                break
            j += 1
            rest = code[j]
        out.update(range(i + 2, j + 1))  # lines i+2 .. j (1-based): after the header, before the end
        i = j + 1
    return out


def stages_for_mutant(m: Mutant) -> list[Stage]:
    """The stages of one mutant: a mutant inside POST_STORES-only logic runs only the post stage (the
    other stages, formal included, build POST_STORES = 0 and never elaborate it: they would pass it
    unexercised, which is no verdict); every other mutant runs its file's stages."""
    if m.file in POST_STAGES and m.line in post_only_lines((RTL / m.file).read_text()):
        return [POST_STAGES[m.file]]
    return stages_for(m.file)


def stages_for(rel: str) -> list[Stage]:
    """The stages a mutant of ``rel`` runs, in order (cheapest and most specific first, formal last)."""
    if rel in AXI_FILES:
        return [AXI, FORMAL]
    unit = unit_stage(rel)
    post = [POST_STAGES[rel]] if rel in POST_STAGES else []
    return ([unit] if unit else []) + list(COMMON) + post + [FORMAL]


@dataclass
class Result:
    mutant: Mutant
    status: str  # killed | survived | timeout | did-not-compile | not-run
    stage: str = ""
    test: str = ""  # the failing pytest node, or the compiler's first error
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)


class Runner:
    """Owns the temp folders and the child processes; safe to call :meth:`run_one` from two threads."""

    def __init__(self, sim: str = "icarus", keep: bool = False, log: Callable[[str], None] = print) -> None:
        self.sim, self.keep, self.log = sim, keep, log
        self.work = Path(tempfile.mkdtemp(prefix="simt-mutants-"))
        self.limits: dict[tuple[str, str], float] = {}  # (stage, first node) -> seconds
        self.baseline_seconds: dict[str, float] = {}  # "stage first-node" -> seconds, for the report
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()

    # ------------------------------------------------------------------ processes
    def stop(self) -> None:
        """End every child process group this runner started (Ctrl-C)."""
        self._stop.set()
        with self._lock:
            procs = list(self._procs)
        for p in procs:
            _kill_group(p)

    def cleanup(self) -> None:
        if not self.keep:
            shutil.rmtree(self.work, ignore_errors=True)

    def _env(self, rtl: Path, build: Path, stage: Stage) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in INHERITED_OFF}
        env.update(
            {"SIM": self.sim, "SIMT_RTL_ROOT": str(rtl), "SIMT_BUILD_ROOT": str(build), "SEED": BENCH_SEED}
        )
        env.update(dict(stage.env))
        return env

    def _pytest(
        self, stage: Stage, rtl: Path, build: Path, log: Path, limit: float | None, file: str = ""
    ) -> tuple[str, float]:
        """Run one stage; returns ("pass" | "fail" | "timeout", seconds).

        The output streams to ``log`` (``-s``), which is watched: at the first failing cocotb test the
        stage is stopped, as pytest's ``-x`` would only stop after the whole simulator run (a GPU run
        holds five pyuvm tests, and a hung launch waits for the host watchdog in each)."""
        cmd = [sys.executable, "-m", "pytest", *stage.nodes, "-x", "-v", "-s", "-n0", "-p", "no:cacheprovider",
               "--no-header", "-rf"]  # fmt: skip
        if stage.formal:  # exit 1: a counterexample; 0: none (or no proof reads the file); 2: tool error
            cmd = [sys.executable, "-m", "tools.formal", "--mutant", file, "--rtl", str(rtl),
                   "--work", str(build / "formal"), "--timeout", str(FORMAL_TIMEOUT)]  # fmt: skip
        start = time.monotonic()
        env = self._env(rtl, build, stage) | {"PYTHONUNBUFFERED": "1"}
        with open(log, "w") as out, open(log, errors="replace") as watch:
            proc = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
            with self._lock:
                self._procs.add(proc)
            seen = ""
            try:
                while True:
                    try:
                        rc = proc.wait(timeout=POLL_SECONDS)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    seen = seen[-1000:] + watch.read()
                    if COCOTB_FAILED.search(seen):
                        _kill_group(proc)
                        proc.wait()
                        rc = 1
                        break
                    if limit is not None and time.monotonic() - start > limit:
                        _kill_group(proc)
                        proc.wait()
                        return "timeout", time.monotonic() - start
            finally:
                with self._lock:
                    self._procs.discard(proc)
        if self._stop.is_set():
            raise KeyboardInterrupt
        if stage.formal and rc not in (0, 1):
            return "error", time.monotonic() - start
        return ("pass" if rc == 0 else "fail"), time.monotonic() - start

    def _precheck(self, rtl: Path) -> str | None:
        """Compile the whole GPU once (Icarus, default parameters): the compiler's error, or None."""
        sources = sorted(str(p) for d in ("sm", "top") for p in (rtl / d).glob("*.v"))
        cmd = ["iverilog", "-g2012", "-o", os.devnull, "-s", "simt_gpu", "-I", str(rtl / "include"), *sources]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            return None
        lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "iverilog failed")
        return first.replace(str(rtl) + "/", "")

    # ------------------------------------------------------------------ one mutant
    def prepare(self, name: str, mutant: Mutant | None) -> tuple[Path, Path]:
        """A folder with a copy of rtl/ (``mutant`` applied) and an empty build folder."""
        folder = self.work / name
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(RTL, folder / "rtl")
        if mutant is not None:
            path = folder / "rtl" / mutant.file
            path.write_text(mutant.apply(path.read_text()))
        (folder / "build").mkdir()
        return folder / "rtl", folder / "build"

    def run_one(
        self, mutant: Mutant, stages: Sequence[Stage] | None = None, name: str | None = None
    ) -> Result:
        name = name or re.sub(r"[^A-Za-z0-9_.-]+", "_", mutant.id)
        rtl, build = self.prepare(name, mutant)
        start = time.monotonic()
        result = Result(mutant, "survived")
        try:
            error = self._precheck(rtl)
            if error is not None:
                result.status, result.test = "did-not-compile", error
                return result
            for stage in stages if stages is not None else stages_for_mutant(mutant):
                log = rtl.parent / f"{stage.name}.log"
                limit = None if stage.formal else self.limits.get((stage.name, stage.nodes[0]))
                verdict, seconds = self._pytest(stage, rtl, build, log, limit, mutant.file)
                result.stage_seconds[stage.name] = round(seconds, 1)
                if verdict == "pass":
                    continue
                text = log.read_text(errors="replace")
                if verdict == "error":  # the formal tools failed: not a verdict, the simulation's stands
                    self.log(f"  {mutant.id}: the formal stage failed to run:\n{_tail(log, 12)}")
                    result.test = "formal stage did not run (see its log)"
                    continue
                result.stage = stage.name
                if stage.formal:
                    result.status, result.test = "killed", _formal_kill(text)
                elif verdict == "timeout":
                    result.status, result.test = "timeout", f"over {limit:.0f} s"
                elif _compile_failed(text):
                    result.status = "did-not-compile"
                    result.test = _first_compile_error(text, rtl)
                else:
                    result.status, result.test = "killed", _failed_node(text)
                break
            return result
        finally:
            result.seconds = round(time.monotonic() - start, 1)
            if not self.keep:
                shutil.rmtree(rtl.parent, ignore_errors=True)

    # ------------------------------------------------------------------ baseline
    def baseline(self, files: Sequence[str], jobs: int = 2, also: Sequence[Stage] = ()) -> bool:
        """Run every stage the mutants of ``files`` need, and the stages ``also``, on the unmutated RTL
        (``jobs`` at a time) and record each stage's time limit. False (with the failing log's tail
        printed) unless all passed."""
        rtl, build = self.prepare("baseline", None)
        needed = {s for f in files for s in stages_for(f)} | set(also)
        units = sorted({s for s in needed if s.name == "unit"}, key=lambda s: s.nodes)
        # the slow ones first, so two workers finish together; the formal stage's baseline is one cheap
        # job on the unmutated copy (the tools run, and read the copy): make formal checks the rest
        posts = sorted({s for s in needed if s.name == "post"}, key=lambda s: s.nodes)
        stages = (
            [s for s in (AXI, *COMMON) if s in needed]
            + posts
            + units
            + ([FORMAL] if FORMAL in needed else [])
        )

        def one(n: int) -> tuple[Stage, str, float, Path]:
            log = rtl.parent / f"{stages[n].name}-{n}.log"
            file = FORMAL_BASELINE if stages[n].formal else ""
            verdict, seconds = self._pytest(stages[n], rtl, build, log, None, file)
            self.log(
                f"  baseline {stages[n].name:<7} {verdict:<5} {seconds:6.1f} s  {' '.join(stages[n].nodes)[:90]}"
            )
            return stages[n], verdict, seconds, log

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            done = list(pool.map(one, range(len(stages))))
        ok = True
        for stage, verdict, seconds, log in done:
            if verdict != "pass":
                self.log(_tail(log))
                ok = False
            self.limits[(stage.name, stage.nodes[0])] = TIMEOUT_FACTOR * seconds + TIMEOUT_MARGIN
            self.baseline_seconds[f"{stage.name} {stage.nodes[0]}"] = round(seconds, 1)
        return ok


def _kill_group(proc: subprocess.Popen) -> None:
    """End a stage: the pytest process's group and every process it started. The simulator (vvp, or a
    Verilator model) runs in a session of its own, so killing the group alone left it running on,
    orphaned, through the rest of its tests: one leaked simulator per mutant stopped at its first failure."""
    for pid in _descendants(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (read from /proc; none where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        ppid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after "(command)" and the state
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _compile_failed(text: str) -> bool:
    return (
        "Command failed with return code" in text and "iverilog" in text and bool(COMPILE_ERROR.search(text))
    )


def _first_compile_error(text: str, rtl: Path) -> str:
    for line in text.splitlines():
        if COMPILE_ERROR.search(line):
            return line.strip().replace(str(rtl) + "/", "")[:200]
    return "build failed"


def _failed_node(text: str) -> str:
    """The failing pytest node and, when the stage was stopped at it, the cocotb test."""
    m = re.search(r"^FAILED (\S+)", text, re.M)
    if m:
        return m.group(1)
    failed = COCOTB_FAILED.search(text)
    if failed:
        nodes = PYTEST_NODE.findall(text[: failed.start()])
        where = nodes[-1] if nodes else "?"
        return f"{where} ({failed.group(1).rsplit('.', 1)[-1]})"
    m = re.search(r"^ERROR (\S+)", text, re.M)
    return m.group(1) if m else "pytest failed (see the stage log)"


def _formal_kill(text: str) -> str:
    """The formal job and the assertion that killed a mutant (tools/formal --mutant's last lines)."""
    m = re.search(r"^formal: killed by (.*)$", text, re.M)
    return m.group(1).strip()[:200] if m else "formal counterexample (see the stage log)"


def _tail(log: Path, lines: int = 40) -> str:
    text = log.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])
