"""RTL cycles of the benchmark kernels per machine configuration, cached (the performance model's truth).

    python -m ppa.rtlcycles [--lanes 4,8,16,32] [--warps 8,16] [--kernels a,b] [--sizes k=64,...]

One Verilator run per configuration (all its kernel cases in one simulation, ``CHECK_MODE=end``: the
end-of-kernel checks — every output word against C and every perf counter against the golden model —
without the per-retire scoreboards, which only cost time here). Global memory: the bench's fixed latency
(``LATENCY`` cycles, in order, no backpressure). Results: ``build/ppa/cycles/<config>-<key>.json``; the
key hashes rtl/, the kernels and this file's case list, so a rerun without changes reads the file back.
Run one configuration at a time under ``nice`` (the machine has 2 shared cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spec import cli  # noqa: E402
from spec.config import GpuConfig  # noqa: E402

CACHE = ROOT / "build" / "ppa" / "cycles"
LATENCY = 20
SEED = 1
# The cases per configuration: sizes small enough that a configuration simulates in about a minute, big
# enough that every kernel runs several blocks or several waves of warps.
CASES: dict[str, list[int]] = {
    "alustream": [256, 1024],
    "autocor": [64, 128],
    "bitonic": [64, 256],
    "matrixmul": [32, 64],
    "reduction": [256, 1024],
    "scalarprod": [64, 256],
    "stencil3d": [16, 32],
    "transpose": [32, 64],
    "vecadd": [256, 1024],
}


def machine(
    lanes: int, warps: int = 16, rf_depth: int = 1024, num_sms: int = 1, shared_words: int = 2048
) -> GpuConfig:
    """spec/machines.py's bench machine with ``lanes`` lanes (= banks) and ``warps`` resident warps."""
    from dataclasses import replace

    from spec.machines import bench

    return replace(
        bench(lanes, num_sms), num_warps=warps, rf_depth=rf_depth, shared_words=shared_words
    ).check()


def config_name(cfg: GpuConfig) -> str:
    s = f"L{cfg.num_lanes}-W{cfg.num_warps}-R{cfg.rf_depth}"
    s += f"-SH{cfg.shared_words}" if cfg.shared_words != 2048 else ""
    return s + (f"-S{cfg.num_sms}" if cfg.num_sms > 1 else "")


def _key(cases: dict[str, list[int]], multi_sm: bool = False) -> str:
    h = hashlib.sha1()
    for folder in ("rtl", "kernels", "tb/hdl"):
        for p in sorted((ROOT / folder).rglob("*")):
            if p.is_file() and p.suffix in (".v", ".vh", ".s", ".py", ".c", ".h"):
                h.update(str(p.relative_to(ROOT)).encode() + p.read_bytes())
    # several SMs: rows carry each SM's cycles (the perf counter is their sum), an older file does not
    h.update(json.dumps([cases, LATENCY, SEED, *(["cycles_per_sm"] if multi_sm else [])]).encode())
    return h.hexdigest()[:12]


def cache_path(cfg: GpuConfig, cases: dict[str, list[int]] | None = None) -> Path:
    return CACHE / f"{config_name(cfg)}-{_key(cases or CASES, cfg.num_sms > 1)}.json"


def runnable(
    cfg: GpuConfig, cases: dict[str, list[int]] | None = None
) -> tuple[dict[str, list[int]], list[str]]:
    """The cases that can launch on ``cfg`` (registers, shared memory, threads per block), and why the
    others cannot (the loader's own verdict, via kernels.suite.prepare)."""
    from kernels.suite import SuiteError, prepare
    from spec.image import LaunchError

    ok: dict[str, list[int]] = {}
    skipped = []
    for k, sizes in (cases or CASES).items():
        for n in sizes:
            try:
                prepare(k, n, SEED, cfg)
                ok.setdefault(k, []).append(n)
            except (SuiteError, LaunchError) as err:
                skipped.append(f"{k}/{n}: {str(err).splitlines()[0]}")
    return ok, skipped


def collect(cfg: GpuConfig, cases: dict[str, list[int]] | None = None, force: bool = False) -> list[dict]:
    """Every case of ``cases`` on the RTL of ``cfg`` (cached): one row per case with the perf counters."""
    cases = cases or CASES
    path = cache_path(cfg, cases)
    if path.exists() and not force:
        return json.loads(path.read_text())["rows"]
    from tb.gpurun import run_gpu

    out = path.with_suffix(".jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    os.environ["SIM"] = os.environ.get("SIM", "verilator")
    os.environ["SIMT_BENCH"] = str(out)
    spec = ",".join(f"{k}:{n}:{SEED}" for k, sizes in cases.items() for n in sizes)
    start = time.monotonic()
    try:
        run_gpu(
            f"ppa-{config_name(cfg)}",
            ["KernelTest"],
            cfg=cfg,
            KERNEL_CASES=spec,
            GMEM_PROFILE="ideal",
            GMEM_LATENCY=str(LATENCY),
            CHECK_MODE="end",
        )
    finally:
        os.environ.pop("SIMT_BENCH", None)
    # each row's `cycles` is the launch's own length (its busiest SM's); `sm_cycles` is the sum over SMs
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    out.unlink()
    secs = time.monotonic() - start
    path.write_text(
        json.dumps(
            {
                "config": config_name(cfg),
                "cfg": cfg.as_dict(),
                "latency": LATENCY,
                "seconds": secs,
                "rows": rows,
            },
            indent=1,
        )
    )
    print(f"rtlcycles: {config_name(cfg)}: {len(rows)} cases in {secs:.0f} s", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=cli.int_list(1, 64), default=[8, 16, 32, 4])
    ap.add_argument("--warps", type=cli.int_list(1, 64), default=[16, 8])
    ap.add_argument("--kernels", default="")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    cases = {k: v for k, v in CASES.items() if not args.kernels or k in args.kernels.split(",")}
    for w in args.warps:
        for n in args.lanes:
            rows = collect(machine(n, w), cases, args.force)
            for r in rows:
                print(f"  {r['kernel']}/{r['size']}: {r['cycles']} cycles")
    return 0


if __name__ == "__main__":
    cli.run(main)
