"""Golden-model throughput on a matrix multiply (a benchmark script, not a timed test).

    python tools/bench/model_throughput.py [--n 64] [--repeat 3]

Prints thread-instructions per second of ``Model.run()`` on one core (the issue's target is >= 2 M/s)
and checks the product against numpy so a fast but wrong model cannot pass unnoticed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from spec import cli  # noqa: E402
from spec.asm import assemble_file  # noqa: E402
from spec.config import GpuConfig  # noqa: E402
from spec.model import Model  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=64, help="matrix size (multiple of 8)")
    ap.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = ap.parse_args(argv)
    n = args.n
    if n % 8:
        ap.error("--n must be a multiple of 8")
    rng = np.random.default_rng(2)
    a = rng.integers(0, 1 << 16, (n, n), dtype=np.uint64)
    b = rng.integers(0, 1 << 16, (n, n), dtype=np.uint64)
    image = assemble_file(Path(__file__).resolve().parents[2] / "kernels" / "directed" / "matmul.s").image
    image.grid, image.block = (n // 8, n // 4, 1), (8, 4, 1)
    image.params = [0, n * n, 2 * n * n, n]
    image.data = [(0, a.ravel().tolist()), (n * n, b.ravel().tolist())]
    cfg = GpuConfig()
    best = None
    for _ in range(args.repeat):
        model = Model(cfg, image)
        start = time.perf_counter()
        result = model.run()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    expected = ((a @ b) & 0xFFFF_FFFF).astype(np.uint32)
    got = result.gmem[2 * n * n : 3 * n * n].reshape(n, n)
    if not np.array_equal(got, expected):
        print("model_throughput: WRONG PRODUCT — the model is broken", file=sys.stderr)
        return 1
    c = result.counters
    assert best is not None
    rate = c.thread_instrs / best
    print(
        f"model throughput: matmul {n}x{n}, {c.warp_instrs} warp-instructions, {c.thread_instrs} "
        f"thread-instructions in {best:.3f} s (best of {args.repeat})"
    )
    print(
        f"  {rate / 1e6:.2f} M thread-instructions/s, {c.warp_instrs / best / 1e3:.1f} k warp-instructions/s "
        f"(target >= 2 M thread-instructions/s)"
    )
    return 0


if __name__ == "__main__":
    cli.run(main)
