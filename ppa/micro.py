"""Micro-benchmarks on the RTL: the performance model's machine parameters, each measured by one kernel.

    python -m ppa.micro [--lanes 4,8,16,32]     # run (cached) and print the parameters per lane count

Every micro-kernel is a loop of R iterations whose body repeats one instruction n times; the cost of
that instruction is the difference of two runs, n = N_LO and n = N_HI, divided by the extra
warp-instructions (or extra passes, transactions): fixed costs (launch, loop, exit) cancel. Each run is
one launch on the raw bench (tools/bench/raw_bench.py: Verilator, the GPU and its HDL memory, no Python),
global memory at the bench's fixed latency (ppa.rtlcycles.LATENCY). Counts (warp-instructions, passes,
transactions) come from the golden model on the same image. Each run is cached in build/ppa/micro/runs/.

Parameters (cycles; one per row of ``PARAMETERS``), per lane count:

- ``alu``      EX cycles per ALU warp-instruction, 8 warps ready (throughput)
- ``alu1``     cycles per ALU warp-instruction, one warp alone (its own latency: the pipeline depth)
- ``stacked``  extra cycles of an ALU warp-instruction while the warp's divergence stack is not empty
- ``shared``   EX cycles per conflict-free shared load (ROWS passes), 8 warps
- ``pass``     extra cycles per extra shared pass (a 2-way bank conflict), 8 warps
- ``branch``   cycles per uniform not-taken BNE (stack unit visit), 8 warps
- ``bar``      cycles per barrier of a block of 8 warps (all arrive, release)
- ``gmem_lat`` cycles per dependent global load of one warp alone (latency of an access, coalesced)
- ``gmem_acc`` EX cycles per global load, 16 warps, every lane the same word (one transaction: the
               EX rows of gather and completion, not the port)
- ``gmem_txn`` cycles per global transaction, 16 warps loading 8 words apart (32 transactions per
               access: the memory port's throughput)
- ``gstore``   cycles per global store, 16 warps, every lane the same word (one transaction)
- ``gstore_lat`` cycles per coalesced global store of one warp alone (its latency: the warp waits)
- ``launch_block`` / ``launch_thread`` cycles per extra block / per extra thread of an empty kernel
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ppa.rtlcycles import LATENCY, config_name, machine  # noqa: E402
from spec import cli  # noqa: E402
from spec.asm import assemble  # noqa: E402
from spec.config import GpuConfig  # noqa: E402

CACHE = ROOT / "build" / "ppa" / "micro"
R = 16  # loop iterations
N_LO, N_HI = 4, 12  # body repetitions of the two runs
GBASE = 4096  # global base address of the load micro-kernels

PROLOGUE = """
        LDS  r1, %tid.x
        LDS  r7, %R
        SHLI r4, r1, 1
        LDS  r5, %ntid.x
        MAD  r5, r5, r5, r1
        ADDI r5, r5, {gbase}
        MV   r3, r5
        SHLI r8, r1, 3
        ADDI r8, r8, {gbase}
        MULI r2, r1, 0x4f1b         ; data with every bit active (energy runs): r2, r9 hash tid
        XORI r2, r2, 0x5a5a
        MULI r9, r2, 0x2545
        ST   [r1], r2               ; shared words the loads read hold the same kind of data
        ST   [r4], r9
loop:
"""
EPILOGUE = """
        SUBI r7, r7, 1
        BNE  r7, loop
        EXIT
"""
# name -> (body instruction(s), threads per block, blocks); a body of several instructions separated by
# ";" is cycled through (instruction i of the body is part i mod len)
ALU_MIX = "MUL  r2, r2, r9;XOR  r9, r9, r2;ADD  r2, r2, r9;SHRI r9, r2, 3"
KERNELS: dict[str, tuple[str, int, int]] = {
    "alu": (ALU_MIX, 256, 1),
    "alu1": (ALU_MIX, 32, 1),
    "stacked": (ALU_MIX, 256, 1),
    "shared": ("LD   r2, [r1]", 256, 1),
    "shared2": ("LD   r2, [r4]", 256, 1),
    "branch": ("BNE  r6, @+1", 256, 1),
    "bar": ("BAR", 256, 1),
    "gmem1": ("LDG  r3, [r3]", 32, 1),
    "gmem16": ("LDG  r2, [r6 + 4096]", 256, 2),
    "gmemx": ("LDG  r2, [r8]", 256, 2),
    "gstore": ("STG  [r6 + 1000], r2", 256, 2),
    "gstore1": ("STG  [r5], r2", 32, 1),
    # for the energy fit only (ppa/power.py): coalesced accesses, four transactions each
    "gmemc": ("LDG  r2, [r5]", 256, 2),
    "alu0": ("ADD  r3, r3, r6;XOR  r3, r3, r6", 256, 1),  # zero data: the ALU path without data activity
    # moving addresses (each access a new one, as in a kernel): address activity in the memory units
    "gmemm": ("LDG  r2, [r5];ADDI r5, r5, 64", 256, 2),
    "gstorem": ("STG  [r5], r2;ADDI r5, r5, 64", 256, 2),
    "sharedm": ("LD   r2, [r1];ADDI r1, r1, 1", 256, 1),
    "gstorec": ("STG  [r5], r2", 256, 2),
}


def source(name: str, n: int) -> str:
    parts = KERNELS[name][0].split(";")
    lines = []
    for i in range(n):
        body = parts[i % len(parts)]
        if "@+1" in body:
            lines.append(f"        {body.replace('@+1', f'b{i}')}\nb{i}:")
        else:
            lines.append(f"        {body}")
    text = ".param R, 0\n" + PROLOGUE.format(gbase=GBASE) + "\n".join(lines) + EPILOGUE
    if name == "stacked":  # the whole loop inside an SSY region: every instruction sees a non-empty stack
        text = text.replace("loop:", "        SSY  fin\nloop:").replace("        EXIT", "fin:    EXIT")
    return text


def image(name: str, n: int, cfg: GpuConfig):
    _, threads, blocks = KERNELS[name]
    prog = assemble(source(name, n), f"<micro {name}>", cfg)
    img = prog.image
    img.block, img.grid, img.shared_words = (threads, 1, 1), (blocks, 1, 1), 512
    params = list(img.params)
    params[prog.param_names["R"]] = R
    img.params = params
    if name == "gmem1":  # a pointer chase: global[GBASE + 32 k + t] = GBASE + 32 k + t (same word again)
        img.data = [(GBASE + 32 * 32, [GBASE + 32 * 32 + t for t in range(32)])]
    else:  # the words the loads read hold random data (toggle activity like a real kernel's)
        rng = random.Random(name)
        img.data = [
            (GBASE, [rng.getrandbits(32) for _ in range(2048)]),
            (GBASE + 65536, [rng.getrandbits(32) for _ in range(8192)]),
        ]
    return img


def _empty(cfg: GpuConfig, threads: int, blocks: int):
    img = assemble("        EXIT\n", "<micro empty>", cfg).image
    img.block, img.grid = (threads, 1, 1), (blocks, 1, 1)
    return img


def _rtl_hash() -> bytes:
    h = hashlib.sha1()
    for p in sorted((ROOT / "rtl").rglob("*.v*")):
        h.update(p.read_bytes())
    return h.digest()


def _run(cfg: GpuConfig, img) -> dict:
    """One launch on the raw bench (cached by image, machine, latency and RTL sources)."""
    from spec.model import Model
    from tools.bench.raw_bench import run

    words = img.to_words()
    key = hashlib.sha1(json.dumps([words, cfg.as_dict(), LATENCY]).encode() + _rtl_hash()).hexdigest()[:16]
    path = CACHE / "runs" / f"{key}.json"
    if path.exists():
        return json.loads(path.read_text())
    counters = Model(cfg, img).run().counters.as_dict()
    r = run(cfg, words, LATENCY)
    assert r.warp_instrs == counters["warp_instrs"], (r.warp_instrs, counters["warp_instrs"])
    out = {"cycles": r.cycles, **counters, "seconds": r.wall_seconds}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def measure(lanes: int, warps: int = 16) -> dict:
    """Every parameter for the ``lanes``-lane machine: {config, params, runs, seconds}; each run is cached
    (build/ppa/micro/runs/), the parameters are recomputed from the runs every time."""
    cfg = machine(lanes, warps)
    runs = {f"{k}@{n}": _run(cfg, image(k, n, cfg)) for k in KERNELS for n in (N_LO, N_HI)}
    runs.update({f"empty@{t}x{b}": _run(cfg, _empty(cfg, t, b)) for t, b in ((32, 1), (256, 1), (32, 8))})

    def per(k: str, unit: str = "warp_instrs") -> float:
        lo, hi = runs[f"{k}@{N_LO}"], runs[f"{k}@{N_HI}"]
        return (hi["cycles"] - lo["cycles"]) / (hi[unit] - lo[unit])

    shared = per("shared")
    # the conflicting load: its extra cost over a conflict-free one, per extra pass
    s2lo, s2hi = runs[f"shared2@{N_LO}"], runs[f"shared2@{N_HI}"]
    extra_passes = (s2hi["shared_passes"] - s2lo["shared_passes"]) - (
        s2hi["shared_accesses"] - s2lo["shared_accesses"]
    ) * cfg.warp_rows
    pass_cost = (
        (s2hi["cycles"] - s2lo["cycles"]) - shared * (s2hi["warp_instrs"] - s2lo["warp_instrs"])
    ) / extra_passes
    e = {k: v["cycles"] for k, v in runs.items() if k.startswith("empty")}
    params = {
        "alu": per("alu"),
        "alu1": per("alu1"),
        "stacked": per("stacked") - per("alu"),
        "shared": shared,
        "pass": pass_cost,
        "branch": per("branch"),
        "bar": per("bar", "barrier_releases"),
        "gmem_lat": per("gmem1"),
        "gmem_txn": per("gmemx", "global_transactions"),
        "gmem_acc": per("gmem16"),
        "gstore": per("gstore"),
        "gstore_lat": per("gstore1"),
        "launch_thread": (e["empty@256x1"] - e["empty@32x1"]) / 224,
        "launch_block": (e["empty@32x8"] - e["empty@32x1"]) / 7,
        "launch_fixed": e["empty@32x1"],
    }
    return {
        "config": config_name(cfg),
        "lanes": lanes,
        "rows": cfg.warp_rows,
        "latency": LATENCY,
        "params": params,
        "runs": runs,
        "seconds": sum(r.get("seconds", 0.0) for r in runs.values()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=cli.int_list(1, 64), default=[4, 8, 16, 32])
    args = ap.parse_args(argv)
    for n in args.lanes:
        m = measure(n)
        print(
            f"{m['config']} (ROWS {m['rows']}): " + ", ".join(f"{k} {v:.3f}" for k, v in m["params"].items()),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    cli.run(main)
