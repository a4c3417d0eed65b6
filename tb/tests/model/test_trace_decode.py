"""The trace monitor's bulk decoder (spec/retire_record.py ``decode_lines``) gives exactly what the
line-by-line decoder gives, and leaves to it every line it cannot decode exactly (X/Z, another layout).

Lines are written as tb/hdl/simt_tb_trace.v writes them: ``R <cycle %h> <sm %0d> <fields %h>``, each
field at its full hex width (``Field.bits``)."""

from __future__ import annotations

import random

import pytest

from spec.retire_record import BULK_MIN, FIELDS, RtlRetire, decode, decode_lines

WARP_SIZE, DEPTH_W = 32, 4


def widths(warp_size: int = WARP_SIZE) -> list[int]:
    return [-(-f.bits(warp_size, DEPTH_W) // 4) for f in FIELDS]


def random_line(rng: random.Random, sm: int, warp_size: int = WARP_SIZE) -> str:
    toks = []
    for f, w in zip(FIELDS, widths(warp_size), strict=True):
        bits = f.bits(warp_size, DEPTH_W)
        toks.append(f"{rng.getrandbits(bits):0{w}x}")
    return f"R {rng.getrandbits(32):08x} {sm} " + " ".join(toks)


def one_by_one(lines: list[str], warp_size: int = WARP_SIZE) -> list[tuple[int, int, RtlRetire]]:
    out = []
    for line in lines:
        if line.startswith("R"):
            t = line.split()
            out.append((int(t[1], 16), int(t[2]), decode(t[3:], warp_size)))
    return out


@pytest.mark.parametrize("warp_size", [8, 16, 32])
def test_bulk_equals_line_by_line(warp_size: int) -> None:
    rng = random.Random(warp_size)
    lines = []
    for i in range(400):
        lines.append(random_line(rng, sm=rng.choice([0, 1, 3, 12]), warp_size=warp_size))  # two sm widths
        if i % 7 == 0:
            lines.append(f"Q {i:08x} 00000010 1 ff 00 200 0")  # other lines are skipped
    got = decode_lines(lines, warp_size)
    want = one_by_one(lines, warp_size)
    assert len(got) == len(want)
    assert all(g is not None for g in got), "every clean line of a big group is decoded in bulk"
    assert got == want
    for g, w in zip(got, want, strict=True):  # the same Python types (bools stay bools)
        assert g is not None
        assert [type(x) for x in g[2]] == [type(x) for x in w[2]]


def test_lines_it_cannot_decode_are_left_to_decode() -> None:
    rng = random.Random(5)
    lines = [random_line(rng, 0) for _ in range(3 * BULK_MIN)]
    values = next(i for i, f in enumerate(FIELDS) if f.kind is list)
    x_lane = lines[3].split(" ")
    x_lane[3 + values] = "x" * 8 + x_lane[3 + values][8:]  # lane 31 X (Icarus)
    lines[3] = " ".join(x_lane)
    x_field = lines[7].split(" ")
    x_field[3 + 2] = "x" * len(x_field[3 + 2])  # X in the pc
    lines[7] = " ".join(x_field)
    spaced = lines[11].split(" ")
    spaced[3 + values] = " " + spaced[3 + values][1:]  # a space where a digit belongs: decode's to judge
    lines[11] = " ".join(spaced)
    shifted = lines[9].split(" ")
    shifted[3], shifted[4] = shifted[3][1:], shifted[4] + "0"  # same length, another layout
    lines[9] = " ".join(shifted)
    got = decode_lines(lines, WARP_SIZE)
    assert [i for i, g in enumerate(got) if g is None] == [3, 7, 9, 11]
    assert one_by_one([lines[3]])[0][2].xlanes == 1 << 31  # decode reads the X lane itself
    with pytest.raises(AssertionError, match="carries X/Z"):
        one_by_one([lines[7]])
    want = one_by_one([line for i, line in enumerate(lines) if i not in (3, 7, 9, 11)])
    assert [g for g in got if g is not None] == want


def test_a_small_group_is_left_to_decode() -> None:
    rng = random.Random(6)
    lines = [random_line(rng, 0) for _ in range(BULK_MIN - 1)]
    assert decode_lines(lines, WARP_SIZE) == [None] * len(lines)


def test_the_bulk_check_can_fail() -> None:
    """A bulk decoder that read one field wrongly would differ from decode: the comparison sees it."""
    rng = random.Random(7)
    lines = [random_line(rng, 0) for _ in range(2 * BULK_MIN)]
    got = decode_lines(lines, WARP_SIZE)
    assert got[0] is not None
    cycle, sm, rec = got[0]
    broken = [(cycle, sm, rec._replace(pc=rec.pc ^ 1)), *got[1:]]
    assert broken != one_by_one(lines)
