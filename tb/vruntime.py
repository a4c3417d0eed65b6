"""Verilator's run-time library compiled once, shared by every Verilator build of the project.

Every Verilator model links the same run-time library (``verilated.cpp``, ``verilated_vpi.cpp``,
``verilated_dpi.cpp``, ``verilated_threads.cpp``, and with waves or coverage a few more), and
Verilator's generated Makefile compiles it again in each build folder: measured here, 10–11 s of the
12 s that a small unit bench's build takes, in each of the ~55 unit-bench builds of a fresh clone.
cocotb's C++ main for Verilator (``verilator.cpp``) is the same in every build too, and cached the same way.
The objects depend only on their compile command, the compiler and the Verilator install, never on the
design, so :func:`prefill` asks the build's own Makefile which commands it would run (``make -n``), and
copies an object compiled earlier by the very same command into the build folder before ``make`` runs;
:func:`store` keeps the objects a build compiled for the next one. No new tool is needed (ccache would
do the same for these files, but is one more prerequisite).

The cache is ``<build root>/.verilator-runtime/`` (deleted with the build folder). Safe under
``pytest -n``: entries are written to a temporary name and renamed; two builds that miss at the same
moment both compile, and either's object is right. An object already in the build folder is never
replaced, so Make keeps deciding what is out of date.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

CACHE_NAME = ".verilator-runtime"
# One compile command of the dry run: "<compiler> ... -c -o <name>.o <VERILATOR_ROOT>/include/<name>.cpp"
_OUT = re.compile(r"^[\w.-]+\.o$")


def main_dirs() -> list[Path]:
    """Folders of the other design-independent sources every build compiles: cocotb's Verilator main
    (``verilator.cpp``, measured 1.1 s of CPU of a unit bench's 3.1 s make at -O0)."""
    try:
        from cocotb_tools import config
    except ImportError:
        return []
    return [Path(config.share_dir) / "lib" / "verilator"]


def runtime_commands(
    make_cmd: Sequence[str], build_dir: Path, env: Mapping[str, str]
) -> dict[str, list[str]]:
    """The compile commands that ``make_cmd`` would run for the run-time library and the other
    design-independent sources (:func:`main_dirs`): {object name: argv}."""
    root = env.get("VERILATOR_ROOT")
    if not root:
        return {}
    shared = {Path(root).resolve() / "include", *(d.resolve() for d in main_dirs())}
    dry = [*make_cmd, "-n", "-B"]
    proc = subprocess.run(dry, cwd=build_dir, env=dict(env), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {}  # make will say what is wrong when it runs for real
    found: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():
        try:
            argv = shlex.split(line)
        except ValueError:
            continue
        if "-c" not in argv or "-o" not in argv or not argv[-1].endswith(".cpp"):
            continue
        out = argv[argv.index("-o") + 1]
        src = Path(argv[-1])
        if _OUT.match(out) and src.is_absolute() and src.resolve().parent in shared:
            found[out] = argv
    return found


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"


def entry_key(argv: Sequence[str], env: Mapping[str, str], build_dir: Path | None = None) -> str:
    """What an object depends on: its compile command, the compiler binary and the Verilator install
    (the source file and the version header, by path, size and time: a reinstall changes them); and
    the text of every header of the build folder that the source includes (cocotb's main includes the
    model's ``Vtop.h``, whose ports differ by design: only builds with the same ``Vtop.h`` share it)."""
    compiler = shutil.which(argv[0], path=env.get("PATH")) or argv[0]
    root = env.get("VERILATOR_ROOT")
    include = Path(root).resolve() / "include" if root else Path(argv[-1]).resolve().parent
    parts = [
        shlex.join(argv),
        _stamp(Path(compiler)) if Path(compiler).exists() else compiler,
        _stamp(Path(argv[-1])),
        *(_stamp(include / h) for h in ("verilated_config.h", "verilated.h") if (include / h).exists()),
        *(_local_headers(Path(argv[-1]), build_dir) if build_dir is not None else []),
    ]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def _local_headers(source: Path, build_dir: Path) -> list[str]:
    """'name:sha1' of each header of ``build_dir`` that ``source`` includes, directly or not."""
    seen: dict[str, str] = {}
    todo = [source]
    while todo:
        try:
            text = todo.pop().read_text(errors="replace")
        except OSError:
            continue
        for name in _INCLUDE.findall(text):
            local = build_dir / name
            if name not in seen and local.is_file():
                seen[name] = hashlib.sha1(local.read_bytes()).hexdigest()
                todo.append(local)
    return [f"{n}:{h}" for n, h in sorted(seen.items())]


def _copy_in(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` by way of a temporary file (never a half-written object), new mtime."""
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def prefill(
    make_cmd: Sequence[str], build_dir: Path, cache_root: Path, env: Mapping[str, str]
) -> dict[str, str]:
    """Copy the cached run-time objects this build needs into ``build_dir`` (those not there yet);
    returns {object name: cache key} of every run-time object of the build, for :func:`store`."""
    keys = {
        out: entry_key(argv, env, build_dir)
        for out, argv in runtime_commands(make_cmd, build_dir, env).items()
    }
    cache = cache_root / CACHE_NAME
    for out, key in keys.items():
        obj, dep = cache / f"{key}.o", cache / f"{key}.d"
        if (build_dir / out).exists() or not (obj.exists() and dep.exists()):
            continue
        _copy_in(dep, build_dir / Path(out).with_suffix(".d"))
        _copy_in(obj, build_dir / out)  # after its .d and after Vtop.mk: Make sees it up to date
    return keys


def store(keys: Mapping[str, str], build_dir: Path, cache_root: Path) -> None:
    """Keep the run-time objects a successful build compiled, for the next build with the same commands."""
    cache = cache_root / CACHE_NAME
    for out, key in keys.items():
        obj, dep = build_dir / out, build_dir / Path(out).with_suffix(".d")
        if (cache / f"{key}.o").exists() or not (obj.exists() and dep.exists()):
            continue
        cache.mkdir(parents=True, exist_ok=True)
        _copy_in(dep, cache / f"{key}.d")
        _copy_in(obj, cache / f"{key}.o")
