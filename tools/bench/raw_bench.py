"""The raw bench: the GPU and its HDL memory driven by Verilog alone (tb/hdl/simt_gpu_raw.v), no Python.

It is the physical limit the harness is measured against (tools/bench/check_overhead.py): the same
RTL, the same memory model and the same launch image, so it must report the same launch cycles as
the harness. Built with ``verilator --binary`` at the optimisation the harness's GPU builds use
(tb/rtlsim.py: Verilator's default level, no ``-O3``, and verilated.mk's C++ defaults, ``OPT_FAST=-Os``;
``VERILATOR_OPT`` below), or run on Icarus (``sim="icarus"``).

    python tools/bench/raw_bench.py [matrixmul 32] [--config sm1-l8] [--latency 20] [--sim verilator]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from spec import cli  # noqa: E402
from spec.config import GpuConfig  # noqa: E402
from tb import rtlsim  # noqa: E402
from tb.gpurun import BENCH_SOURCES, CONFIGS  # noqa: E402
from tools import simenv  # noqa: E402

HDL = ROOT / "tb" / "hdl"
BUILD = ROOT / "build" / "raw"
TOP = "simt_gpu_raw"
# The raw bench's Verilator options: none beyond the harness's (tb/rtlsim.py adds no -O3 and no C++ -O
# level to its GPU builds), so full/raw compares the same compiled model. Measured on test_directed[sm2-l32]
# (docs/benchmarks.md, eighth round of issue 29): "-O3 -CFLAGS -O2", which this used before, cost 119.8
# instead of 81.6 CPU s of build and ran no faster (2.15-2.67 against 1.94-2.52 CPU s).
VERILATOR_OPT: tuple[str, ...] = ()
_LINE = re.compile(r"raw: status=(\w+) cycles=(\d+) warp_instrs=(\d+) sim_cycles=(\d+)")


@dataclass
class RawResult:
    status: int
    cycles: int  # the launch's `cycles` performance counter
    warp_instrs: int
    sim_cycles: int  # clock cycles simulated, reset to the end of the launch
    cpu_seconds: float  # CPU time of the simulator process
    wall_seconds: float

    @property
    def rate(self) -> float:
        return self.sim_cycles / self.cpu_seconds if self.cpu_seconds else 0.0


def _sources() -> list[str]:
    rtl = ROOT / "rtl"
    return [str(p if Path(p).is_absolute() else rtl / p) for p in BENCH_SOURCES] + [str(HDL / f"{TOP}.v")]


def build(cfg: GpuConfig, sim: str = "verilator") -> list[str]:
    """Build the raw bench for ``cfg``; return the command that runs it (plusargs appended by run)."""
    simenv.apply([sim])
    params = rtlsim.machine_parameters(cfg, TOP)
    key = hashlib.sha1(
        json.dumps(
            [sim, params, [Path(s).stat().st_mtime_ns for s in _sources()], list(VERILATOR_OPT)]
        ).encode()
    )
    out = BUILD / f"{sim}-{key.hexdigest()[:10]}"
    out.mkdir(parents=True, exist_ok=True)
    inc = f"-I{ROOT / 'rtl' / 'include'}"
    if sim == "verilator":
        exe = out / f"V{TOP}"
        if not exe.exists():
            cmd = ["verilator", "--binary", "--timing", *VERILATOR_OPT, "-Wno-fatal", "-Wno-lint", "-Wno-style",
                   inc, "--top-module", TOP, "-Mdir", str(out), "-j", "2",
                   *(f"-G{k}={v}" for k, v in params.items()), *_sources()]  # fmt: skip
            subprocess.run(cmd, check=True, capture_output=True, text=True)
        return [str(exe)]
    exe = out / f"{TOP}.vvp"
    if not exe.exists():
        cmd = [
            "iverilog",
            "-g2012",
            inc,
            "-s",
            TOP,
            "-o",
            str(exe),
            *(f"-P{TOP}.{k}={v}" for k, v in params.items()),
            *_sources(),
        ]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
    return ["vvp", "-n", str(exe)]


def run(cfg: GpuConfig, words: list[int], latency: int = 20, sim: str = "verilator") -> RawResult:
    """Run one launch of ``words`` (LaunchImage.to_words()) with a fixed memory latency."""
    cmd = build(cfg, sim)
    image = BUILD / f"image-{os.getpid()}.hex"
    image.write_text("".join(f"{w & 0xFFFF_FFFF:08x}\n" for w in words))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*cmd, f"+IMAGE={image}", f"+WORDS={len(words)}", f"+LAT_MIN={latency}", f"+LAT_MAX={latency}"],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    image.unlink(missing_ok=True)
    m = _LINE.search(proc.stdout)
    if proc.returncode != 0 or m is None:
        raise RuntimeError(f"raw bench failed ({' '.join(cmd)}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return RawResult(int(m.group(1), 16), int(m.group(2)), int(m.group(3)), int(m.group(4)), cpu, wall)


def main(argv: list[str] | None = None) -> int:
    from kernels.suite import prepare

    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel", nargs="?", default="matrixmul")
    ap.add_argument("size", nargs="?", type=int, default=32)
    ap.add_argument("--config", default="sm1-l8", choices=sorted(CONFIGS))
    ap.add_argument("--latency", type=int, default=20)
    ap.add_argument("--sim", default=os.environ.get("SIM", "verilator"))
    args = ap.parse_args(argv)
    cfg = CONFIGS[args.config]
    case = prepare(args.kernel, args.size, 1, cfg)
    r = run(cfg, case.image.to_words(), args.latency, args.sim)
    print(
        f"{args.kernel} {args.size} on {args.config} ({args.sim}): launch {r.cycles} cycles, {r.warp_instrs} "
        f"warp-instructions, {r.sim_cycles} cycles simulated in {r.cpu_seconds:.3f} CPU s = {r.rate:,.0f} cycles/s"
    )
    return 0


if __name__ == "__main__":
    cli.run(main)
