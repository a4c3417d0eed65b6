"""The lanes' ALU inputs and result as the RTL presents them, counted from the golden model (issue 28).

    python -m ppa.aluactivity [--lanes 8] [--kernels micro]   # the counts beside the RTL's own toggles

ppa/activity.py's ``operand_hd`` follows the operands an instruction *uses*, on the rows with an active
thread. The lanes' simt_alu sees more: EX feeds every lane's a, b, c from the register file's read data
(or the immediate) on every token, whatever the instruction (rtl/sm/simt_execute.v ``lane``), and
computes every function of them, the 32x32 multiplier included. What the RTL does per token
(rtl/sm/simt_decode.v, rtl/sm/simt_issue.v ``dd_rows``):

- an instruction that reads operands or writes a register (ALU, LDS, shared, constant, global, BEQ/BNE)
  sends one token per row, every row of the warp whatever its mask; SSY, BRA, BAR, EXIT send one (row 0);
- a port the format does not use reads register r0 (the decoder's default ``ra = rb = rc = 0``); a and
  b carry the immediate where the format says so (``a_imm``, ``b_imm``);
- the ALU's selected result y: the ALU function for ALU instructions, the address adder's function
  (ADD) for memory instructions, MV (a) for the rest (the decoder's defaults).

Counted per physical lane as bits that differ between consecutive tokens (the RTL holds the read data
between tokens, so a stall adds nothing): ``alu_a_hd``, ``alu_b_hd``, ``alu_c_hd`` and ``alu_y_hd``, and
``alu_mul_hd``, the flips of a and b each weighted by the number of the 64-bit product's columns the bit
feeds (64 − i for bit i, divided by 32: a flip of bit 0 counts 2, of bit 31 about 1): the multiplier's
partial products of a bit reach the columns above it; ``alu_a_lo_hd`` and ``alu_b_lo_hd``, the flips of
a's and b's low 16 bits (small operands flip only those; with the totals a fit weighs the halves apart). Every count is a function of the image and the
RTL's retire order (ppa/toggles.py ``issue_order``): what a normal RTL run gives, no gate-level run.

Model limits, stated: a load's second pass through EX (its writeback, dec_memwb) presents the same
operands again and is not counted (its position between the issue and the retire is not in the retire
order); a register read of a row the same cycle writes returns the old value in both.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NAMES = ("alu_a_hd", "alu_b_hd", "alu_c_hd", "alu_y_hd", "alu_mul_hd", "alu_a_lo_hd", "alu_b_lo_hd")
_MULTI_UNITS = ("alu", "sreg", "shared", "const", "global")
# weight of a flip of bit i of a multiplier input: the product columns it feeds (64 - i), per 32
_MUL_W = (64 - np.arange(32)) / 32.0


class AluInputs:
    """Bit flips of every lane's ALU inputs a, b, c and result y, fed retire by retire."""

    def __init__(self, warp_size: int, num_lanes: int) -> None:
        if num_lanes <= 0 or warp_size % num_lanes:
            raise ValueError(f"warp_size {warp_size} is not a multiple of num_lanes {num_lanes}")
        self.warp_size, self.lanes = warp_size, num_lanes
        self.counts: dict[str, float] = dict.fromkeys(NAMES, 0)
        self._bus = {k: np.zeros(num_lanes, dtype=np.uint32) for k in "abcy"}

    @staticmethod
    def ports(ins, regs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every thread's a, b, c of instruction *ins* as the RTL's lanes get them: *regs* is the warp's
        register array before the instruction ([register, thread])."""
        sreg = ins.op.fmt.name == "SREG"  # its field names a special register, not a register read

        def port(field) -> np.ndarray:
            if field == "imm":
                return np.asarray(ins.immv, dtype=np.uint32)
            if isinstance(field, int) and not sreg:
                return np.asarray(regs[field], dtype=np.uint32)
            return np.asarray(regs[0], dtype=np.uint32)  # an unused port reads r0

        return port(ins.a), port(ins.b), port(ins.c)

    @staticmethod
    def result(ins, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The lanes' selected result y for *ins* (see the module docstring)."""
        a64, b64, c64 = (x.astype(np.int64) for x in (a, b, c))
        if ins.kind == "alu" and ins.fn is not None:
            y = ins.fn(a64, b64, c64)
        elif ins.unit in ("shared", "const", "global"):
            y = a64 + b64
        else:
            y = a64
        return np.asarray(y, dtype=np.int64).astype(np.uint32)

    def rows(self, ins) -> int:
        """Tokens (rows) the instruction sends through EX."""
        multi = ins.unit in _MULTI_UNITS or ins.op.mnemonic in ("BEQ", "BNE")
        return self.warp_size // self.lanes if multi else 1

    def observe(self, ins, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        """One retired warp-instruction *ins* (spec.model's decoded instruction) with its ports' values
        (:meth:`ports`, taken before the instruction ran)."""
        y = self.result(ins, a, b, c)
        n = self.rows(ins) * self.lanes  # the threads the tokens carry, row after row
        for name, vals in zip("abcy", (a, b, c, y)):
            seq = np.concatenate([self._bus[name], vals[:n]]).reshape(-1, self.lanes)
            diff = seq[1:] ^ seq[:-1]  # each token against the one before, per lane
            bits = np.unpackbits(diff.astype("<u4").view(np.uint8), bitorder="little").reshape(-1, 32)
            self.counts[f"alu_{name}_hd"] += int(bits.sum())
            if name in "ab":
                per_bit = bits.sum(axis=0)
                self.counts["alu_mul_hd"] += float(per_bit @ _MUL_W)
                self.counts[f"alu_{name}_lo_hd"] += int(per_bit[:16].sum())
            self._bus[name] = seq[-1].copy()


def rtl_ports(bit_toggles: dict[str, int]) -> dict[str, int]:
    """The RTL's own toggles of the lanes' simt_alu ports (ppa/toggles.py per-bit counts of SM 0, the
    lanes' copies summed by Verilator), named like :data:`NAMES`."""
    out = {}
    for p in "abcy":
        pre = f"u_ex.lane[*].u_alu/{p}["
        out[f"alu_{p}_hd"] = sum(v for k, v in bit_toggles.items() if k.startswith(pre))
    return out


def main(argv: list[str] | None = None) -> int:
    """Each launch of ppa/kernelpower.py: the counts of a, b, c, y beside the RTL's toggles of the same
    ports in the same run (toggle runs cached by ppa/toggles.py). The counts are what the energy model
    may use; the RTL's toggles are what a normal run does not give (coverage instrumentation)."""
    from ppa import kernelpower, toggles
    from ppa.perf import count_all
    from ppa.rtlcycles import LATENCY
    from spec import cli

    ap = cli.ArgumentParser(prog="python -m ppa.aluactivity", description=main.__doc__)
    ap.add_argument("--lanes", type=cli.int_range(1, 64), default=8)
    ap.add_argument("--kernels", default="all", choices=["all", "bench", "micro"])
    args = ap.parse_args(argv)
    print("| launch | " + " | ".join(f"{p}: counted / RTL" for p in "abcy") + " |")
    print("|---|" + "---:|" * 4)
    worst = 0.0
    for name, _kind, mcfg, img in kernelpower.launches(args.lanes, args.kernels):
        r = toggles.run(mcfg, img.to_words(), LATENCY, per_bit=True)
        _, c = count_all(mcfg, img, r["order"])
        rtl = rtl_ports(r["bit_toggles"])
        cells = []
        for k in NAMES[:4]:
            ratio = c[k] / rtl[k] if rtl[k] else float("nan")
            worst = max(worst, abs(ratio - 1)) if rtl[k] else worst
            cells.append(f"{c[k]:,} / {rtl[k]:,} ({ratio - 1:+.2%})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nworst |counted / RTL - 1|: {worst:.2%}")
    return 0


if __name__ == "__main__":
    from spec import cli

    cli.run(main)
