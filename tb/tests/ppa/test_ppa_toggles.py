"""The energy reference's toggle counts (ppa/toggles.py) are exact on wide signals.

Verilator 5.048's toggle coverage adds the changes of 32-bit word i of a wide signal to every later
word too; ppa/toggles.py builds against a corrected header. The planted case builds without the
correction and shows that the check refuses it (a check that can fail)."""

from __future__ import annotations

import pytest

from ppa import toggles


def test_corrected_header_counts_every_word_alike(tmp_path):
    words = toggles.count_check_words(tmp_path, corrected=True)
    toggles.check_counting(words)  # raises unless four equal, non-zero counts
    assert words[0] > 0


def test_uncorrected_verilator_miscount_is_refused(tmp_path):
    words = toggles.count_check_words(tmp_path, corrected=False)
    with pytest.raises(RuntimeError, match="miscounts a 128-bit signal"):
        toggles.check_counting(words)


def _retire_line(cycle: int, sm: int, block: int, warp: int, warp_size: int = 32) -> str:
    from spec.retire_record import FIELDS

    tokens = []
    for f in FIELDS:
        if f.kind is list:
            tokens.append("0" * (warp_size * 8))
        else:
            tokens.append({"block": f"{block:x}", "warp": f"{warp:x}"}.get(f.name, "0"))
    return " ".join(["R", f"{cycle:x}", str(sm), *tokens])


def test_issue_order_reads_the_retires_in_trace_order(tmp_path):
    trace = tmp_path / "t.trace"
    lines = [
        "D 00000001 00000000 0",
        _retire_line(5, 0, block=0, warp=1),
        "Q 0 0 0 0 0 0 0",
        _retire_line(6, 1, block=3, warp=0),
        _retire_line(7, 0, block=0, warp=0),
    ]
    trace.write_text("\n".join(lines) + "\n")
    assert toggles.issue_order(trace, 32) == [[0, 0, 1], [1, 3, 0], [0, 0, 0]]
    # planted: a record with a field missing is refused, not skipped
    trace.write_text(_retire_line(5, 0, 0, 1).rsplit(" ", 1)[0] + "\n")
    with pytest.raises(AssertionError, match="fields"):
        toggles.issue_order(trace, 32)
