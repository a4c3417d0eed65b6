"""Render the warp timeline of any launch from a run's trace, in one command:

    .venv/bin/python -m tools.timeline build/sim/<bench>/<build>/runs/<test>/trace.txt          # lists launches
    .venv/bin/python -m tools.timeline TRACE --launch 2 --out build/reports/timeline.png [--window 0:2000]

Every system run leaves its trace.txt in its run folder (a failing one too). The tag layout needs the
machine's warps per SM (``--num-warps``, the NUM_WARPS parameter; 8 in the system tests' machines,
16 on the bench machine); the warp size is read from the records. ``--stalls FILE`` also writes the
stall breakdown of every launch in the trace.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from spec import cli
from tools.timeline import draw
from tools.timeline.states import TraceError, breakdown, read_launches, warp_rows


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(
        prog="python -m tools.timeline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("trace", type=Path)
    ap.add_argument("--launch", type=int, help="launch index (0 = first, -1 = last); without: list them")
    ap.add_argument("--out", type=Path, default=Path("build/reports/timeline.png"), help=".png or .svg")
    ap.add_argument(
        "--num-warps", type=cli.int_range(1, 64), default=8, help="NUM_WARPS of the machine (tag layout)"
    )
    ap.add_argument("--window", type=_window, help="first:last cycle to show")
    ap.add_argument("--stalls", type=Path, help="also write the stall breakdown of every launch here")
    args = ap.parse_args(argv)
    if not args.trace.exists():
        raise cli.UsageError(
            f"{args.trace}: error: no such trace (a run folder's trace.txt, see docs/verification.md)"
        )
    if not args.trace.is_file():
        raise cli.UsageError(f"{args.trace}: error: not a file; name a run's trace.txt")
    try:
        launches = read_launches(args.trace)
    except TraceError as err:
        raise cli.UsageError(str(err)) from None
    if not launches:
        raise cli.UsageError(f"{args.trace}: error: no launch in it (no dispatch of block 0)")
    ws = _warp_size(args.trace)
    if args.stalls:
        per = [(f"launch {x.index}", breakdown(warp_rows(x, ws, args.num_warps)), None) for x in launches]
        print(f"stalls: {draw.stalls(per, args.stalls)}")
    if args.launch is None:
        for x in launches:
            print(
                f"launch {x.index}: cycles {x.start}..{x.end}, {len(x.retires)} retires, "
                f"{len({d[1] for d in x.dispatches})} blocks on {x.num_sms} SM(s)"
            )
        print("pick one with --launch N")
        return 0
    if not -len(launches) <= args.launch < len(launches):
        raise cli.UsageError(
            f"{args.trace}: error: --launch {args.launch}: the trace has launches 0..{len(launches) - 1} (or -1 for the last)"
        )
    launch = launches[args.launch]
    window = args.window
    rows = warp_rows(launch, ws, args.num_warps)
    title = f"{args.trace.parent.name}: launch {launch.index}, cycles {launch.start}..{launch.end}"
    print(f"timeline: {draw.timeline(rows, title, args.out, window)}")  # type: ignore[arg-type]
    return 0


def _window(text: str) -> tuple[int, int]:
    try:
        first, last = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write FIRST:LAST cycles, e.g. --window 0:2000") from None
    if not 0 <= first < last:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= FIRST < LAST")
    return first, last


def _warp_size(trace: Path) -> int:
    from tools.timeline.states import _VALUES

    with trace.open() as f:
        for line in f:
            if line.startswith("R "):
                return 4 * len(line.split()[3 + _VALUES]) // 32
    return 32


if __name__ == "__main__":
    cli.run(main)
