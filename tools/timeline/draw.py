"""The pictures (matplotlib, headless): a per-SM warp timeline of one launch, and a stall breakdown
per kernel (tools/timeline/states.py says what each colour means)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from tools.timeline.states import REASONS, WarpRow

COLOURS = {
    "start": "#9ecae9",
    "own": "#4c78a8",
    "others": "#d9d9d9",
    "memory": "#f58518",
    "barrier": "#b279a2",
}
LABELS = {
    "start": "block start (set-up before its first retire)",
    "own": "own instruction in the back end",
    "others": "waiting: back end busy with other warps",
    "memory": "waiting for global memory",
    "barrier": "waiting at a barrier",
}


def _pyplot():  # noqa: ANN202 - matplotlib's module
    try:
        import matplotlib
    except ImportError as err:
        raise SystemExit("matplotlib is missing: run `make venv` (requirements.txt pins it)") from err
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def timeline(
    rows: Mapping[tuple[int, int], WarpRow], title: str, out: Path, window: tuple[int, int] | None = None
) -> Path:
    """One panel per SM, one row per warp slot: coloured spans for why the warp waited, a black tick
    at each of its retires. ``window`` (first, last cycle) zooms in. Writes PNG or SVG by suffix."""
    plt = _pyplot()
    sms = sorted({sm for sm, _ in rows})
    heights = [max(1, len([k for k in rows if k[0] == sm])) for sm in sms]
    fig, axes = plt.subplots(
        len(sms),
        1,
        figsize=(12, 1.2 + 0.32 * sum(heights) + 0.5 * len(sms)),
        sharex=True,
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )
    for ax, sm in zip(axes[:, 0], sms, strict=True):
        keys = sorted(k for k in rows if k[0] == sm)
        for y, key in enumerate(keys):
            row = rows[key]
            for reason in REASONS:
                spans = [(a, b - a) for a, b in row.spans[reason]]
                if spans:
                    ax.broken_barh(spans, (y - 0.4, 0.8), color=COLOURS[reason], linewidth=0)
            ax.vlines(row.retires, y - 0.4, y + 0.4, color="black", linewidth=0.6)
        ax.set_yticks(range(len(keys)), [f"warp slot {w}" for _, w in keys], fontsize=7)
        ax.set_ylim(-0.6, len(keys) - 0.4)
        ax.invert_yaxis()
        ax.set_ylabel(f"SM {sm}")
        if window is not None:
            ax.set_xlim(*window)
    axes[-1, 0].set_xlabel("cycle (black tick: the warp retired an instruction)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[r]) for r in REASONS]
    fig.legend(
        handles,
        [LABELS[r] for r in REASONS],
        loc="upper center",
        ncol=5,
        fontsize=7,
        bbox_to_anchor=(0.5, 1.0),
    )
    fig.suptitle(title, y=1.04, fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out


def stalls(per_kernel: Sequence[tuple[str, Mapping[str, int], Mapping[str, int] | None]], out: Path) -> Path:
    """Stacked bars, one per kernel: the share of warp-cycles per reason (from the trace); beside each
    bar, from the performance counters when given (summed over the SMs, as PERF_SEL sm 0xFF reads them):
    SM-cycles, the back end's idle share and the barrier wait."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 0.6 + 0.45 * len(per_kernel)))
    names = [name for name, _, _ in per_kernel]
    for y, (_, split, perf) in enumerate(per_kernel):
        total = sum(split.values()) or 1
        left = 0.0
        for reason in REASONS:
            share = split[reason] / total
            ax.barh(y, share, left=left, color=COLOURS[reason], label=LABELS[reason] if y == 0 else None)
            left += share
        if perf:
            note = (
                f"{perf['cycles']:,} SM-cycles, back end idle {perf['idle_cycles'] / max(1, perf['cycles']):.0%}, "
                f"barrier wait {perf['barrier_wait_cycles']:,} warp-cycles"
            )
            ax.text(1.01, y, note, va="center", fontsize=7)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of resident warp-cycles (trace); right: performance counters")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=7, frameon=False)
    ax.set_title("Where the warps' time went, per kernel", pad=34)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out
