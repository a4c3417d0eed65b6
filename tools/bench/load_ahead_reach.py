"""How far a warp could issue past its own outstanding global load (issue 32, "few warps hide latency").

Runs each benchmark kernel on the golden model, records every warp's executed instructions in program
order, and for each executed LDG counts the instructions after it that a per-warp register scoreboard
would let issue before the load's data are needed (docs/sm.md "Load ahead (design)"):

- ``one``: one load in flight per warp; an instruction passes when it is an ALU or special-register
  instruction (``LDS``) that neither reads nor writes the load's destination; anything else stops the
  warp (a reader or writer of rd, any memory access, ``LDC``, a branch, ``SSY``, ``BAR``, ``EXIT``).
- ``many``: as ``one``, but a later ``LDG`` passes too (several loads in flight, each destination
  marked busy); a reader or writer of any busy register stops the warp.

The counts depend on the program and the inputs, not on lanes or timing (the model steps each warp
in program order), so no RTL runs: a measurement of the opportunity, the input of the design. The
table (Markdown) goes to stdout. Usage::

    python tools/bench/load_ahead_reach.py [--kernels reduction,vecadd] [--size 256] [--matrixmul-size 64]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernels.suite import prepare  # noqa: E402
from spec import cli, isa, machines  # noqa: E402
from spec.model import Model  # noqa: E402

KERNELS = ["reduction", "scalarprod", "vecadd", "transpose", "matrixmul"]
PASSING = {"alu", "lds"}


class _Recording(Model):
    """The golden model, noting each warp's executed pcs in order."""

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.trace: dict[tuple[int, int], list[int]] = defaultdict(list)

    def step(self, bid: int, wid: int):  # type: ignore[no-untyped-def]
        self.trace[(bid, wid)].append(self.warp(bid, wid).pc)
        return super().step(bid, wid)


@dataclass
class Reach:
    kernel: str
    ldgs: int  # LDGs executed (warp-instructions)
    instrs: int  # warp-instructions executed
    one: list[int]
    many: list[int]
    in_flight: int  # most loads of one warp in flight at once under ``many``

    def row(self) -> str:
        def mean(xs: list[int]) -> float:
            return sum(xs) / len(xs) if xs else 0.0

        zero = sum(1 for x in self.one if x == 0)
        return (
            f"| {self.kernel} | {self.instrs} | {self.ldgs} | {mean(self.one):.2f} | "
            f"{100 * zero / max(1, len(self.one)):.0f} % | {mean(self.many):.2f} | {self.in_flight} |"
        )


def _reads(ins) -> set[int]:  # type: ignore[no-untyped-def]
    return {r for r in (ins.a, ins.b, ins.c) if isinstance(r, int)}


def _reach(code, pcs: list[int], start: int, many: bool) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(instructions passing the LDG at ``pcs[start]``, loads in flight at most meanwhile)."""
    busy = {code[pcs[start]].rd}
    n = 0
    for pc in pcs[start + 1 :]:
        ins = code[pc]
        touches = (_reads(ins) | ({ins.rd} if ins.rd is not None else set())) & busy
        if touches:
            break
        if ins.kind in PASSING:
            n += 1
        elif many and ins.op is not None and ins.op.opcode == isa.OP_LDG:
            busy.add(ins.rd)
            n += 1
        else:
            break
    return n, len(busy)


def measure(kernel: str, size: int, lanes: int = 8) -> Reach:
    """The reach of every LDG ``kernel`` executes at ``size`` (inputs seed 1, the benchmark machine)."""
    cfg = machines.bench(lanes)
    case = prepare(f"{kernel}.cu" if kernel == "matrixmul" else kernel, size, 1, cfg)
    model = _Recording(cfg, case.image)
    model.run()
    code = model.code
    one: list[int] = []
    many: list[int] = []
    in_flight = 0
    instrs = 0
    for pcs in model.trace.values():
        instrs += len(pcs)
        for i, pc in enumerate(pcs):
            op = code[pc].op
            if op is not None and op.opcode == isa.OP_LDG:
                one.append(_reach(code, pcs, i, many=False)[0])
                n, loads = _reach(code, pcs, i, many=True)
                many.append(n)
                in_flight = max(in_flight, loads)
    return Reach(f"{kernel}/{size}", len(one), instrs, one, many, in_flight)


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated, of " + ", ".join(KERNELS))
    ap.add_argument("--size", type=cli.int_range(1, 4096), default=256)
    ap.add_argument(
        "--matrixmul-size",
        type=cli.int_range(1, 4096),
        default=64,
        help="matrixmul's size (at 256 it is 2 M warp-instructions on the model)",
    )
    args = ap.parse_args(argv)
    kernels = [k for k in args.kernels.split(",") if k]
    unknown = sorted(set(kernels) - set(KERNELS))
    if unknown or not kernels:
        ap.error(f"unknown kernel(s) {', '.join(unknown) or '(none)'}: choose from {', '.join(KERNELS)}")
    print(
        "| kernel/size | warp-instrs | LDGs | mean passing (one load) | LDGs passing none (one load) "
        "| mean passing (many loads) | loads in flight (many) |"
    )
    print("|---|---|---|---|---|---|---|")
    for k in kernels:
        print(measure(k, args.matrixmul_size if k == "matrixmul" else args.size).row())
    return 0


if __name__ == "__main__":
    cli.run(main)
