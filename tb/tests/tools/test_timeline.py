"""The warp-timeline analysis (tools/timeline/states.py) on a hand-made trace whose answer is known, and
the picture command end to end (PNG written, launches listed, a bad launch index refused)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spec import cli, retire_record
from tools.timeline.__main__ import main
from tools.timeline.states import breakdown, read_launches, warp_rows

WS, NUM_WARPS = 4, 4  # tag: {port, warp slot (2 bits), index (2 bits)}


def retire(cycle: int, sm: int, warp: int, *, barrier: bool = False, done: bool = False) -> str:
    vals = {f.name: 0 for f in retire_record.FIELDS}
    vals.update(warp=warp, barrier=int(barrier), done=int(done))
    toks = ["0" * (WS * 8) if f.name == "values" else f"{vals[f.name]:x}" for f in retire_record.FIELDS]
    return f"R {cycle:08x} {sm} " + " ".join(toks)


def request(cycle: int, sm: int, wslot: int) -> str:
    return f"Q {cycle:08x} 00000000 0 f 0 {(sm << 4) | (wslot << 2):x} 0"


TRACE = [
    "D 00000000 00000000 0",
    retire(10, 0, 0),  # warp 0: dispatch..10 start (the block's first retire)
    retire(12, 0, 1),  # warp 1: 0..10 start, 10..12 own
    request(13, 0, 0),
    retire(40, 0, 0, barrier=True),  # warp 0: 10..12 others, 12..13 own, 13..40 memory
    retire(50, 0, 1, barrier=True),  # warp 1: 12..40 others, 40..50 own
    retire(60, 0, 0, done=True),  # warp 0: 40..60 barrier
    retire(61, 0, 1, done=True),  # warp 1: 50..61 barrier
    "D 00000100 00000000 0",  # a second launch
    retire(300, 0, 0, done=True),
]


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "trace.txt"
    path.write_text("\n".join(TRACE) + "\n")
    return path


def test_reasons_are_attributed(trace: Path) -> None:
    launches = read_launches(trace)
    assert [len(x.retires) for x in launches] == [6, 1]
    rows = warp_rows(launches[0], WS, NUM_WARPS)
    w0, w1 = rows[(0, 0)], rows[(0, 1)]
    assert w0.spans == {
        "start": [(0, 10)],
        "own": [(12, 13)],
        "others": [(10, 12)],
        "memory": [(13, 40)],
        "barrier": [(40, 60)],
    }
    assert w1.spans == {
        "start": [(0, 10)],
        "own": [(10, 12), (40, 50)],
        "others": [(12, 40)],
        "memory": [],
        "barrier": [(50, 61)],
    }
    assert breakdown(rows) == {
        "start": 20,
        "own": 1 + 2 + 10,
        "others": 2 + 28,
        "memory": 27,
        "barrier": 20 + 11,
    }


def test_a_request_of_another_warp_is_not_this_warps_wait(trace: Path) -> None:
    """Planted: the request names warp slot 1 instead of 0, so warp 0's memory wait must vanish."""
    bad = trace.parent / "bad.txt"
    bad.write_text(trace.read_text().replace(request(13, 0, 0), request(13, 0, 1)))
    rows = warp_rows(read_launches(bad)[0], WS, NUM_WARPS)
    assert rows[(0, 0)].spans["memory"] == []


def test_the_command_draws_one_launch(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(trace), "--num-warps", str(NUM_WARPS)]) == 0
    assert "launch 1:" in capsys.readouterr().out
    out = tmp_path / "t.png"
    assert (
        main(
            [
                str(trace),
                "--num-warps",
                str(NUM_WARPS),
                "--launch",
                "0",
                "--out",
                str(out),
                "--stalls",
                str(tmp_path / "s.svg"),
            ]
        )
        == 0
    )
    assert out.stat().st_size > 1000 and (tmp_path / "s.svg").exists()
    with pytest.raises(cli.UsageError, match="launches 0..1"):
        main([str(trace), "--launch", "5", "--out", str(out)])
