"""The retire scoreboard must catch a planted fault and must not report success after comparing nothing."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tb.agents.sm_driver import RtlRetire
from tb.kernel_library import image_of
from tb.reference.config import GpuConfig
from tb.reference.model import Model, Retire
from tb.scoreboards.retire import RetireMismatch, RetireScoreboard


def as_rtl(rec: Retire, model: Model) -> RtlRetire:
    """What a correct RTL would report for ``rec`` (built from a twin model's step)."""
    stack = model.warp(rec.block, rec.warp).stack
    return RtlRetire(
        block=rec.block, warp=rec.warp, pc=rec.pc, instr=rec.word, mask=rec.mask, wr=rec.rd is not None,
        rd=rec.rd or 0, values=[int(v) for v in rec.values] if rec.values is not None else [0] * 32,
        next_pc=rec.next_pc, next_mask=rec.next_mask,
        pushes=sum(e.action == "push" for e in rec.stack), pops=sum(e.action == "pop" for e in rec.stack),
        merged=sum(e.action == "merge" for e in rec.stack), depth=len(stack),
        passes=rec.mem.passes if rec.mem else 0, txns=len(rec.mem.transactions) if rec.mem else 0,
        barrier=rec.barrier, done=rec.done,
    )  # fmt: skip


def twin_records(n: int) -> tuple[Model, list[RtlRetire]]:
    cfg = GpuConfig(global_words=4096)
    image = image_of("divergence", random.Random(1))
    golden, board_model = Model(cfg, image), Model(cfg, image)
    golden.start_block(0)
    board_model.start_block(0)
    records = [as_rtl(golden.step(0, 0), golden) for _ in range(n)]
    return board_model, records


def test_faithful_records_match() -> None:
    model, records = twin_records(20)
    board = RetireScoreboard(model)
    for rec in records:
        board.check(rec)
    assert board.compared == 20 and board.lanes_compared > 0


@pytest.mark.parametrize(
    "fault",
    ["lane", "mask", "pc", "next_pc", "pops"],
)
def test_planted_fault_is_caught(fault: str) -> None:
    model, records = twin_records(20)
    board = RetireScoreboard(model)
    target = next(i for i, r in enumerate(records) if r.wr and r.mask & 1) if fault == "lane" else (
        next(i for i, r in enumerate(records) if r.pops) if fault == "pops" else 5)  # fmt: skip
    rec = records[target]
    planted = {
        "lane": lambda r: replace(r, values=[(r.values[0] or 0) ^ 1, *r.values[1:]]),
        "mask": lambda r: replace(r, mask=r.mask ^ 1),
        "pc": lambda r: replace(r, pc=r.pc + 1),
        "next_pc": lambda r: replace(r, next_pc=r.next_pc + 1),
        "pops": lambda r: replace(r, pops=r.pops - 1),
    }[fault](rec)
    for r in records[:target]:
        board.check(r)
    with pytest.raises(RetireMismatch):
        board.check(planted)


def test_report_fails_when_nothing_was_compared() -> None:
    model, _ = twin_records(0)
    with pytest.raises(AssertionError, match="compared nothing"):
        RetireScoreboard(model).report()
