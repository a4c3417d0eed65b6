"""A kernel as its own reference: the same ``.cu`` compiled by gcc with cudac/host.h and run on the host.

:func:`host_binary` compiles the kernel with a generated ``main`` (the parameters from a word array,
pointers as word addresses into global memory; ``gcc -O1 -fwrapv``: signed arithmetic wraps as on the
GPU), cached by the source's hash under ``build/cudac/``. :func:`run_host` runs a launch and returns
global memory afterwards.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BUILD = HERE.parent / "build" / "cudac"
GCC_FLAGS = ["-O1", "-fwrapv", "-std=gnu11", "-w"]


class HostError(Exception):
    pass


def wrapper(kernel: str, params: Sequence[str], pointers: Sequence[str]) -> str:
    args = ", ".join(
        f"(int *)(cudac_mem + cudac_params[{k}])" if p in pointers else f"cudac_params[{k}]"
        for k, p in enumerate(params)
    )
    return f"\nstatic void cudac_thread(void) {{ {kernel}({args}); }}\nint main(void) {{ return cudac_main(); }}\n"


def host_binary(source: Path, kernel: str, params: Sequence[str], pointers: Sequence[str]) -> Path:
    text = source.read_text()
    extra = wrapper(kernel, params, pointers)
    header = (HERE / "host.h").read_text()
    digest = hashlib.sha1((text + extra + header + " ".join(GCC_FLAGS)).encode()).hexdigest()[:16]
    exe = BUILD / f"{source.stem}-{digest}"
    if exe.exists():
        return exe
    gcc = shutil.which("gcc")
    if gcc is None:
        raise HostError("gcc not found: install gcc (Debian: apt-get install gcc)")
    BUILD.mkdir(parents=True, exist_ok=True)
    src = BUILD / f"{source.stem}-{digest}.c"
    src.write_text(
        f'#include "{HERE / "host.h"}"\n#line 1 "{source}"\n{text}\n#line 1 "<cudac wrapper>"\n{extra}'
    )
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not exe.exists():
            tmp = exe.with_suffix(".tmp")
            proc = subprocess.run(
                [gcc, *GCC_FLAGS, f"-I{source.parent}", "-o", str(tmp), str(src)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                raise HostError(f"gcc failed on {source} with the host header:\n{proc.stderr.strip()}")
            tmp.rename(exe)
    return exe


def run_host(
    exe: Path,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    params: Sequence[int],
    mem: np.ndarray,
    timeout: float = 20.0,
) -> np.ndarray:
    words = [*grid, *block, len(params), *[p & 0xFFFFFFFF for p in params], len(mem)]
    data = np.asarray(words, dtype="<u4").tobytes() + np.asarray(mem, dtype="<u4").tobytes()
    proc = subprocess.run([str(exe)], input=data, capture_output=True, check=False, timeout=timeout)
    if proc.returncode != 0:
        raise HostError(f"{exe.name} exited {proc.returncode}: {proc.stderr.decode().strip()}")
    out = np.frombuffer(proc.stdout, dtype="<u4").astype(np.uint32)
    if len(out) != len(mem):
        raise HostError(f"{exe.name} wrote {len(out)} words, expected {len(mem)}")
    return out
