"""The directed kernels: small kernels, one or more per ISA feature, divergence and memory case.

Each is a ``.s`` file in this folder (docs/assembler.md) that sets its own launch shape, except
``vecadd``, which is the benchmark kernel ``kernels/vecadd/kernel.s`` with a fixed launch (LAUNCHES),
and ``masks``, generated from the ISA table below. :func:`image_of` builds a kernel's launch image with
its input data (kernels/launch.py, the one builder). The SM bench, the GPU system bench and the
verification environment's sequences all draw from here:

- ``KERNELS``        ``*.s``: run on the SM bench and the GPU;
- ``GPU_KERNELS``    ``gpu/*.s`` and ``masks``: need a whole GPU (several blocks per SM, 3-D grids);
- ``SCENARIOS``      ``scenarios/*.s``: the sequences' special launches (an error on one SM or in a late
  warp, the hangs the watchdog must report), each built by :func:`scenario_image`;
- ``ERROR_KERNELS``  ``errors/<KIND>.s``: each must stop with the kernel error it is named after
  (docs/isa.md section 7); each runs one 32-thread block, and the SM's error status must equal the
  KernelError the model raises stepping that warp.
"""

from __future__ import annotations

import random
from pathlib import Path

from kernels import launch
from spec import isa
from spec.image import LaunchImage

HERE = Path(__file__).resolve().parent
ORDER = ["vecadd", "alu", "divergence", "shared_barrier", "shared_resident", "full_stack", "barrier_exit",
         "const_sregs", "matmul"]  # fmt: skip
ERROR_ORDER = ["ILLEGAL_INSTRUCTION", "PC_OUT_OF_RANGE", "BAD_REGISTER", "BAD_PARAM", "SHARED_OUT_OF_RANGE",
               "CONST_OUT_OF_RANGE", "GLOBAL_OUT_OF_RANGE", "STACK_OVERFLOW", "DIVERGENT_WITHOUT_SSY",
               "BARRIER_DIVERGENCE"]  # fmt: skip


def _source(name: str) -> str:
    return (HERE / f"{name}.s").read_text()


# A directed kernel taken from the benchmark suite, with the launch the directed tests give it.
SUITE_KERNELS = {"vecadd": HERE.parent / "vecadd" / "kernel.s"}
LAUNCHES: dict[str, dict] = {
    "vecadd": {"grid": (4, 1, 1), "block": (32, 1, 1), "params": {"A": 0, "B": 512, "C": 1024, "N": 100}},
    "BAD_REGISTER": {"regs": 4},  # the kernel uses r7 (.regs 8): the decoder must refuse it at run time
}

KERNELS: dict[str, str] = {
    n: (SUITE_KERNELS[n].read_text() if n in SUITE_KERNELS else _source(n)) for n in ORDER
}
ERROR_KERNELS: dict[str, str] = {n: _source(f"errors/{n}") for n in ERROR_ORDER}
assert set(ORDER) == {p.stem for p in HERE.glob("*.s")} | set(SUITE_KERNELS), (
    "kernels/directed: ORDER is stale"
)
assert set(ERROR_ORDER) == {p.stem for p in (HERE / "errors").glob("*.s")}, "kernels/directed/errors: stale"


def _every_op(tag: str) -> str:
    """One of every instruction that can run under a partial mask (all but BAR and EXIT), results
    folded into r9; each branch targets the next line (uniform), SSY its own next line (popped at once)."""
    lines = []
    for op in isa.OPS:
        mn, fmt = op.mnemonic, op.fmt
        if mn in ("BAR", "EXIT"):
            continue
        text = {
            isa.Fmt.NONE: "NOP", isa.Fmt.R3: f"{mn} r4, r3, r5", isa.Fmt.RMUL: f"{mn} r4, r3, r5",
            isa.Fmt.RMAD: f"{mn} r4, r3, r5, r2", isa.Fmt.RNOT: f"{mn} r4, r3", isa.Fmt.MV: f"{mn} r4, r3",
            isa.Fmt.IMM: f"{mn} r4, 5", isa.Fmt.RI: f"{mn} r4, r3, 5", isa.Fmt.SREG: f"{mn} r4, %tid",
            isa.Fmt.BRANCH: f"{mn} r3, {tag}_{mn}", isa.Fmt.TARGET: f"{mn} {tag}_{mn}",
        }.get(fmt)  # fmt: skip
        if mn == "LD":
            text = "LD r4, [r10 + 0]"
        elif mn == "ST":
            text = "ST [r10 + 0], r3"
        elif mn == "LDC":
            text = "LDC r4, [r12 + 0]"
        elif mn == "LDG":
            text = "LDG r4, [r13 + 0]"
        elif mn == "STG":
            text = "STG [r13 + 0], r9"
        assert text is not None, f"masks kernel: no operand pattern for {mn} ({fmt})"
        lines.append(f"        {text}")
        if fmt in (isa.Fmt.BRANCH, isa.Fmt.TARGET):
            lines.append(f"{tag}_{mn}:")
        elif op.writes_rd:
            lines.append("        XOR  r9, r9, r4")
    return "\n".join(lines)


# Functional coverage (docs/testplan.yaml): every instruction under a partial and a single-thread
# mask, shared-memory bank conflicts of every degree 1..16 with broadcast and partial sharing, and
# EXIT / BAR of part of a warp (after a partial EXIT the live threads are fewer than the launched).
MASKS = f"""
.grid 1
.block 64
.regs 16
.shared 512
.param OUT, 0
        LDS  r1, %laneid
        LDS  r2, %tid
        MULI r3, r2, 0x1357
        ADDI r5, r1, 3
        SHLI r10, r2, 2          ; shared address tid*4 (< 256)
        ANDI r12, r1, 3          ; constant address
        LDS  r13, %OUT
        ADD  r13, r13, r2        ; global address OUT + tid
        MVI  r9, 0
        SLTI r6, r1, 5           ; lanes 0..4 run the body, the others wait at p_end
        SSY  p_end
        BEQ  r6, p_end
{_every_op("p")}
p_end:  SEQI r6, r1, 3           ; lane 3 alone runs the body
        SSY  s_end
        BEQ  r6, s_end
{_every_op("s")}
s_end:  MVI  r8, 0               ; k-1 for k = 1..16: lanes read min(lane, k-1)*32, all in bank 0,
conf:   MIN  r11, r1, r8         ; so the first row of lanes makes min(k, NUM_LANES) passes
        SHLI r11, r11, 5
        LD   r4, [r11 + 0]
        XOR  r9, r9, r4
        ADDI r8, r8, 1
        SLTI r7, r8, 16
        BNE  r7, conf
        SLTI r6, r1, 6           ; lanes 6.. store and exit: a partial EXIT
        SSY  e1
        BNE  r6, e1
        STG  [r13 + 0], r9
        EXIT
e1:     BAR                      ; live threads 0..5: BAR with a partial mask
        SEQI r6, r1, 2
        SSY  e2
        BNE  r6, e2
        STG  [r13 + 0], r9
        EXIT
e2:     BAR                      ; live thread 2 alone
        STG  [r13 + 0], r9
        EXIT
.const
        .word 11, 22, 33, 44
"""


GPU_KERNELS: dict[str, str] = {"big_grid": _source("gpu/big_grid"), "masks": MASKS}


def fill(name: str, rng: random.Random) -> dict:
    """Each kernel's input data and launch overrides (kernels/launch.py ``build`` keywords)."""
    over = dict(LAUNCHES.get(name, {}))
    if name == "vecadd":
        over["data"] = [
            (0, [rng.getrandbits(32) for _ in range(100)]),
            (512, [rng.getrandbits(32) for _ in range(100)]),
        ]
    elif name == "shared_barrier":
        over["data"] = [(0, [rng.getrandbits(32) for _ in range(192)])]
    elif name == "matmul":
        n = 16
        over |= {
            "grid": (2, 4, 1),
            "block": (8, 4, 1),
            "params": [0, n * n, 2 * n * n, n],
            "data": [(0, [rng.getrandbits(16) for _ in range(2 * n * n)])],
        }
    return over


SCENARIOS: dict[str, str] = {p.stem: p.read_text() for p in sorted((HERE / "scenarios").glob("*.s"))}


def scenario_image(name: str, **over: object) -> LaunchImage:
    """The launch image of scenario ``name`` (``scenarios/<name>.s``; no input data unless ``over``, the
    kernels/launch.py ``build`` keywords, gives some)."""
    return launch.build(SCENARIOS[name], name, **over)  # type: ignore[arg-type]


def image_of(name: str, rng: random.Random) -> LaunchImage:
    """The launch image of kernel ``name`` (directed or error kernel) with its data filled in."""
    source = ERROR_KERNELS.get(name) or KERNELS.get(name) or GPU_KERNELS[name]
    return launch.build(source, name, **fill(name, rng))
