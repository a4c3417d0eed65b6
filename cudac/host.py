"""A kernel as its own reference: the same ``.cu`` compiled by gcc with cudac/host.h and run on the host.

:func:`host_binary` compiles the kernel with a generated ``main`` (the parameters from a word array,
pointers as word addresses into global memory; ``gcc -O0 -fwrapv``: signed arithmetic wraps as on the
GPU), cached by the source's hash under ``build/cudac/``. :func:`run_host` runs a launch and returns
global memory afterwards.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BUILD = HERE.parent / "build" / "cudac"
GCC_FLAGS = [
    "-O0",
    "-fwrapv",
    "-std=gnu11",
    "-w",
]  # -O0: compiling is the slow part; -fwrapv: wraps like the GPU


class HostError(Exception):
    pass


@dataclass
class HostUnit:
    """One kernel of a host program: its source text, its file name (for gcc's messages), the kernel's
    name and parameters (pointer ones by name) and macro renames that keep several units apart."""

    text: str
    filename: str
    kernel: str
    params: Sequence[str]
    pointers: Sequence[str]
    renames: dict[str, str] = field(default_factory=dict)


def _unit_c(k: int, u: HostUnit) -> str:
    lines = [f"#define {a} {b}" for a, b in u.renames.items()]
    lines += [f'#line 1 "{u.filename}"', u.text, '#line 1 "<cudac wrapper>"']
    kernel = u.renames.get(u.kernel, u.kernel)
    args = ", ".join(
        f"(int *)(cudac_mem + cudac_params[{i}])" if p in u.pointers else f"cudac_params[{i}]"
        for i, p in enumerate(u.params)
    )
    lines.append(f"static void cudac_thread_{k}(void) {{ {kernel}({args}); }}")
    lines += [f"#undef {a}" for a in u.renames]
    return "\n".join(lines) + "\n"


def build_host(units: Sequence[HostUnit], include_dir: Path | None = None) -> Path:
    """One host executable running unit ``argv[1]`` (cached by content under build/cudac/)."""
    header = (HERE / "host.h").read_text()
    body = f'#include "{HERE / "host.h"}"\n' + "".join(_unit_c(k, u) for k, u in enumerate(units))
    table = ", ".join(f"cudac_thread_{k}" for k in range(len(units)))
    body += (
        f"static void (*const cudac_units[])(void) = {{{table}}};\n"
        "int main(int argc, char **argv) {\n"
        "    cudac_thread = cudac_units[argc > 1 ? atoi(argv[1]) : 0];\n"
        "    return cudac_main();\n}\n"
    )
    digest = hashlib.sha1((body + header + " ".join(GCC_FLAGS)).encode()).hexdigest()[:16]
    stem = Path(units[0].filename).stem if len(units) == 1 else f"batch{len(units)}"
    exe = BUILD / f"{stem}-{digest}"
    if exe.exists():
        return exe
    gcc = shutil.which("gcc")
    if gcc is None:
        raise HostError("gcc not found: install gcc (Debian: apt-get install gcc)")
    BUILD.mkdir(parents=True, exist_ok=True)
    src = exe.with_suffix(".c")
    src.write_text(body)
    inc = [f"-I{include_dir}"] if include_dir else []
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not exe.exists():
            tmp = exe.with_suffix(".tmp")
            proc = subprocess.run(
                [gcc, *GCC_FLAGS, *inc, "-o", str(tmp), str(src)], capture_output=True, text=True, check=False
            )
            if proc.returncode != 0:
                raise HostError(
                    f"gcc failed on {units[0].filename} with the host header:\n{proc.stderr.strip()}"
                )
            tmp.rename(exe)
    return exe


def host_binary(source: Path, kernel: str, params: Sequence[str], pointers: Sequence[str]) -> Path:
    """The host executable of one ``.cu`` file (its folder on the include path)."""
    unit = HostUnit(source.read_text(), str(source), kernel, params, pointers)
    return build_host([unit], source.parent)


def run_host(
    exe: Path,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    params: Sequence[int],
    mem: np.ndarray,
    timeout: float = 20.0,
    unit: int = 0,
) -> np.ndarray:
    words = [*grid, *block, len(params), *[p & 0xFFFFFFFF for p in params], len(mem)]
    data = np.asarray(words, dtype="<u4").tobytes() + np.asarray(mem, dtype="<u4").tobytes()
    proc = subprocess.run(
        [str(exe), str(unit)], input=data, capture_output=True, check=False, timeout=timeout
    )
    if proc.returncode != 0:
        raise HostError(f"{exe.name} exited {proc.returncode}: {proc.stderr.decode().strip()}")
    out = np.frombuffer(proc.stdout, dtype="<u4").astype(np.uint32)
    if len(out) != len(mem):
        raise HostError(f"{exe.name} wrote {len(out)} words, expected {len(mem)}")
    return out
