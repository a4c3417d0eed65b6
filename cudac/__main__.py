"""``python -m cudac kernel.cu -o kernel.hex``: compile a CUDA-C kernel to a launch image."""

from __future__ import annotations

import sys

from cudac.compiler import compile_file
from cudac.errors import CompileError
from spec import cli
from spec.asm import write_hex_atomic


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(prog="python -m cudac", description=__doc__)
    ap.add_argument("source", help="the .cu file")
    ap.add_argument("-o", "--output", help="write the launch image ($readmemh .hex)")
    ap.add_argument("-S", "--asm", help="write the assembly (.s) here ('-' for stdout)")
    ap.add_argument("--kernel", help="the __global__ function to compile (when the file has several)")
    ap.add_argument("--regs", type=int, default=32, help="register budget per thread (1..32, default 32)")
    ap.add_argument(
        "--threads",
        type=int,
        default=32,
        help="threads per block of the launch: sizes .shared when values spill to shared memory (default 32)",
    )
    args = ap.parse_args(argv)
    if not 1 <= args.regs <= 32:
        ap.error("--regs must be in 1..32")
    if not 1 <= args.threads <= 65535:
        ap.error("--threads must be in 1..65535")
    try:
        k = compile_file(args.source, kernel=args.kernel, max_regs=args.regs, threads=args.threads)
    except CompileError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return cli.EXIT_USAGE
    if args.asm == "-":
        sys.stdout.write(k.asm)
    elif args.asm:
        cli.write_output(args.asm, k.asm, "assembly")
    if args.output:
        write_hex_atomic(k.program.image, args.output)
    return 0


if __name__ == "__main__":
    cli.run(main)
