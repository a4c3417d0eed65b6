"""Every scoreboard must catch a planted fault and must not report success after comparing nothing.

A twin of the golden model plays a faithful RTL: its records (and the memory traffic they imply) are
fed to the scoreboards, which step their own model. A fault is planted in one record or one
observation; the scoreboard responsible must report it. (The same faults planted in the RTL itself
are the system meta-tests: tb/tests/system/test_gpu.py::test_planted_fault_is_caught.)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from kernels.directed import image_of
from spec.config import GpuConfig
from spec.model import DIV, Model, Retire
from spec.retire_record import BOARDS, FIELDS
from tb.agents.gmem_responder import MemTxn
from tb.agents.sm_driver import RtlRetire, SmLaunch
from tb.scoreboards.coalescing import CoalescingMismatch, CoalescingScoreboard, sm_tag_width
from tb.scoreboards.divergence import DivergenceMismatch, DivergenceScoreboard
from tb.scoreboards.end_of_kernel import EXACT_COUNTERS, EndOfKernelChecker
from tb.scoreboards.retire import RetireMismatch, RetireScoreboard
from tb.scoreboards.shared import SharedMemoryScoreboard

CFG = GpuConfig(global_words=4096, num_sms=1)


def as_rtl(rec: Retire, model: Model) -> RtlRetire:
    """What a correct RTL would report for ``rec`` (built from a twin model's step)."""
    stack = model.warp(rec.block, rec.warp).stack
    top = stack[-1] if stack else [None, 0, 0]
    return RtlRetire(
        block=rec.block,
        warp=rec.warp,
        pc=rec.pc,
        instr=rec.word,
        mask=rec.mask,
        wr=rec.rd is not None,
        rd=rec.rd or 0,
        values=int.from_bytes(rec.values.astype("<u4").tobytes(), "little") if rec.values is not None else 0,
        next_pc=rec.next_pc,
        next_mask=rec.next_mask,
        pushes=sum(e.action == "push" for e in rec.stack),
        pops=sum(e.action == "pop" for e in rec.stack),
        merged=sum(e.action == "merge" for e in rec.stack),
        depth=len(stack),
        passes=rec.mem.passes if rec.mem else 0,
        txns=len(rec.mem.transactions) if rec.mem else 0,
        barrier=rec.barrier,
        done=rec.done,
        slot=0,
        top_pc=top[1],
        top_mask=top[2],
        top_kind=int(top[0] == DIV),
    )


def twin(kernel: str, n: int | None = None) -> tuple[Model, list[tuple[Retire, RtlRetire]]]:
    """The board's model, and (model record, faithful RTL record) pairs of warp 0 of block 0."""
    image = image_of(kernel, random.Random(1))
    golden, board_model = Model(CFG, image), Model(CFG, image)
    golden.start_block(0, sm=0)
    board_model.start_block(0, sm=0)
    pairs = []
    warps = golden.blocks[0].warps
    while n is None or len(pairs) < n:
        ready = [w for w in warps if w.state.name == "READY"]
        if not ready:
            break
        rec = golden.step(0, ready[0].wid)
        pairs.append((rec, as_rtl(rec, golden)))
    return board_model, pairs


# ---- retire ---------------------------------------------------------------------------------------
def test_faithful_records_match() -> None:
    model, pairs = twin("divergence", 20)
    board = RetireScoreboard(model)
    for _, rtl in pairs:
        board.check(rtl)
    assert board.compared == 20 and board.lanes_compared > 0


@pytest.mark.parametrize("fault", ["lane", "mask", "pc", "barrier"])
def test_retire_board_catches(fault: str) -> None:
    model, pairs = twin("shared_barrier")
    recs = [r for _, r in pairs]
    target = {"lane": lambda r: r.wr and r.mask & 1, "barrier": lambda r: r.barrier}.get(
        fault, lambda r: True
    )
    i = next(k for k, r in enumerate(recs) if target(r))
    planted = {
        "lane": lambda r: r._replace(values=r.values ^ 1),
        "mask": lambda r: r._replace(mask=r.mask ^ 1),
        "pc": lambda r: r._replace(pc=r.pc + 1),
        "barrier": lambda r: r._replace(barrier=False),
    }[fault](recs[i])
    board = RetireScoreboard(model)
    for r in recs[:i]:
        board.check(r)
    with pytest.raises(RetireMismatch) as exc:
        board.check(planted)
    report = str(exc.value)
    field = {"lane": "values[lane 0]", "mask": "mask", "pc": "pc", "barrier": "barrier"}[fault]
    assert (
        report.startswith("retire mismatch on SM 0 block 0 warp ") and "last retires of this warp" in report
    )
    row = next(line.split() for line in report.splitlines() if line.strip().startswith(field))
    assert "retire" in row, report  # the table names the field and its board


def test_every_record_field_has_a_board_that_raises_its_mismatch() -> None:
    """The record's field table is the board partition: every board it names exists and owns a mismatch."""
    owners = RetireScoreboard(twin("vecadd", 0)[0]).owners
    assert set(owners) == set(BOARDS) == {f.board for f in FIELDS}
    boards = [RetireScoreboard, DivergenceScoreboard, SharedMemoryScoreboard, CoalescingScoreboard]
    assert {b.name: b.mismatch for b in boards} == owners


def test_a_difference_in_several_boards_fields_names_the_first_board() -> None:
    model, pairs = twin("divergence", 5)
    board = RetireScoreboard(model)
    rtl = pairs[0][1]
    rtl = rtl._replace(next_pc=rtl.next_pc + 1, pops=rtl.pops + 1, pc=rtl.pc + 1)
    with pytest.raises(RetireMismatch) as exc:  # the retire board's field wins over the divergence ones
        board.check(rtl)
    rows = [line.split()[:2] for line in str(exc.value).splitlines()[2:5]]
    assert "3 field(s) differ" in str(exc.value)
    assert rows == [["pc", "retire"], ["next_pc", "divergence"], ["pops", "divergence"]], str(exc.value)


def test_project_leaves_undefined_fields_to_the_rtl() -> None:
    """Inactive lanes, a finished warp's next pc and the block slot are not compared (docs/isa.md 10)."""
    model, pairs = twin("divergence")
    board = RetireScoreboard(model)
    for rec, rtl in pairs:
        junk = rtl._replace(slot=3)
        if rec.done:
            junk = junk._replace(next_pc=junk.next_pc + 7, next_mask=5, depth=1)
        if rec.rd is not None and rec.mask != CFG.full_mask:
            inactive = next(i for i in range(32) if not rec.mask >> i & 1)
            junk = junk._replace(values=junk.values ^ (0xFF << (32 * inactive)), xlanes=1 << inactive)
        board.check(junk)
    assert board.compared == len(pairs)


def test_an_x_lane_in_an_active_lane_is_a_mismatch() -> None:
    model, pairs = twin("vecadd")
    i = next(k for k, (rec, _) in enumerate(pairs) if rec.rd is not None and rec.mask & 1)
    board = RetireScoreboard(model)
    for _, rtl in pairs[:i]:
        board.check(rtl)
    with pytest.raises(RetireMismatch, match=r"values\[lane 0\].* X"):
        board.check(pairs[i][1]._replace(xlanes=1))


# ---- divergence -----------------------------------------------------------------------------------
def run_divergence(pairs: list[tuple[Retire, RtlRetire]], model: Model, plant: Any) -> list[str]:
    """The divergence fields are compared in the whole record by the retire board and raised as the
    divergence board's mismatch; returns the report's lines (empty when everything matched)."""
    retire, div = RetireScoreboard(model), DivergenceScoreboard(model)
    for _, rtl in pairs:
        rtl = plant(rtl)
        try:
            div.check(rtl, retire.check(rtl))
        except DivergenceMismatch as exc:
            return str(exc).splitlines()
    assert div.compared == len(pairs) and div.pushes and div.pops and div.tops
    return []


@pytest.mark.parametrize(
    "fault,plant,words",
    [
        ("dropped pop", lambda r: r._replace(pops=r.pops - 1) if r.pops else r, "pops"),
        ("next pc", lambda r: r._replace(next_pc=r.next_pc + 1) if r.pops else r, "next_pc"),
        ("top mask", lambda r: r._replace(top_mask=r.top_mask ^ 2) if r.pushes else r, "top_mask"),
        ("top pc", lambda r: r._replace(top_pc=r.top_pc + 1) if r.pushes else r, "top_pc"),
        ("depth", lambda r: r._replace(depth=r.depth + 1) if r.pushes else r, "depth"),
    ],
)
def test_divergence_board_catches(fault: str, plant: Any, words: str) -> None:
    model, pairs = twin("divergence")
    assert run_divergence(pairs, *twin("divergence")[:1], lambda r: r) == []
    diffs = run_divergence(pairs, model, plant)
    assert any(d.split()[:2] == [words, "divergence"] for d in diffs), f"{fault} not caught: {diffs}"


# ---- shared memory --------------------------------------------------------------------------------
def shared_run(plant_bank: int | None) -> list[str]:
    model, pairs = twin("shared_barrier")
    retire = RetireScoreboard(model)
    board = SharedMemoryScoreboard(CFG, model, SmLaunch.of(CFG, model.image).sh_stride)
    for rec, rtl in pairs:
        if rec.mem is not None and rec.mem.space == "shared" and rec.mem.store:
            writes = sorted(board.expected_writes(rtl, rec))
            if plant_bank is not None:  # the first store row lands one bank over
                a, d = writes[0]
                writes[0] = (a - a % CFG.num_banks + (a + 1) % CFG.num_banks, d)
                plant_bank = None
            board.observe(0, False, writes, wslot=rtl.warp)
        diffs = board.check(rtl, retire.check(rtl), 0)
        if diffs:
            return diffs
    assert board.stores and board.compared == len(pairs)
    return []


def test_shared_board_passes_faithful_writes() -> None:
    assert shared_run(None) == []


def test_shared_board_catches_wrong_bank() -> None:
    diffs = shared_run(0)
    assert any("missing bank write" in d for d in diffs) and any("unexpected bank write" in d for d in diffs)


def test_shared_board_catches_stray_write_and_final_contents() -> None:
    model, pairs = twin("shared_barrier", 3)
    board = SharedMemoryScoreboard(CFG, model, 0)
    retire = RetireScoreboard(model)
    board.observe(0, False, [(5, 0xDEAD)], wslot=0)
    diffs = board.check(pairs[0][1], retire.check(pairs[0][1]), 0)
    assert diffs and "shared write(s) during an instruction that stores nothing" in diffs[0]


# ---- coalescing / bank ----------------------------------------------------------------------------
def coalescing_run(plant: str | None, kernel: str = "vecadd") -> list[str]:
    model, pairs = twin(kernel)
    retire = RetireScoreboard(model)
    board = CoalescingScoreboard(CFG, model.image)
    seq = 0
    for rec, rtl in pairs:
        if rec.mem is not None and rec.mem.space == "global":
            for i, t in enumerate(rec.mem.transactions):
                if plant == "lost" and t.store:
                    plant = None
                    continue
                mask = t.mask ^ 1 if plant == "mask" else t.mask
                plant = None if plant == "mask" else plant
                txn = MemTxn(
                    t.base, t.store, mask, t.data or (0,) * CFG.seg_words, (rtl.warp << 5) | i, 0, seq=seq
                )
                board.on_request(txn)
                board.on_response(txn)
                seq += 1
        if rec.mem is not None and rec.mem.space == "shared" and plant == "passes":
            rtl = rtl._replace(passes=rtl.passes + 1)
        try:
            exp = retire.check(rtl)
        except CoalescingMismatch as exc:  # its record fields (passes, txns): the whole-record compare
            return str(exc).splitlines()
        diffs = board.check(rtl, exp, 0)
        if diffs:
            return diffs
    assert board.accesses and board.txns
    return board.leftovers()


def test_coalescing_board_passes_faithful_traffic() -> None:
    assert sm_tag_width(CFG) == 4 + 5
    assert coalescing_run(None) == []


@pytest.mark.parametrize(
    "fault,words",
    [("lost", "transactions on the memory port"), ("mask", "transaction 0"), ("passes", "passes")],
)
def test_coalescing_board_catches(fault: str, words: str) -> None:
    diffs = coalescing_run(fault, "shared_barrier" if fault == "passes" else "vecadd")
    assert any(words in d for d in diffs), diffs


def test_coalescing_board_catches_unanswered_request() -> None:
    board = CoalescingScoreboard(CFG, image_of("vecadd", random.Random(1)))
    board.on_request(MemTxn(0, False, 1, (0,) * 8, 3, 0))
    assert any("never answered" in x for x in board.leftovers())


def posted_run(cfg: GpuConfig, plant: str | None) -> list[str]:
    """vecadd's warp 0 where each store's last transaction reaches the port only after the store retired
    (a posted store, docs/isa.md 6.4): ``plant`` "wrong" flips that transaction's mask, "never" drops it."""
    model, pairs = twin("vecadd")
    retire, board = RetireScoreboard(model), CoalescingScoreboard(cfg, model.image)
    stores = 0
    for rec, rtl in pairs:
        late = []
        if rec.mem is not None and rec.mem.space == "global":
            txns = [
                MemTxn(t.base, t.store, t.mask, t.data or (0,) * cfg.seg_words, (rtl.warp << 5) | i, 0)
                for i, t in enumerate(rec.mem.transactions)
            ]
            if rec.mem.store:
                txns, late = txns[:-1], txns[-1:]
                stores += 1
            for txn in txns:
                board.on_request(txn)
                board.on_response(txn)
        diffs = board.check(rtl, retire.check(rtl), 0)
        if diffs:
            return diffs
        for txn in late:
            if plant == "wrong":
                txn = MemTxn(txn.addr, txn.write, txn.mask ^ 1, txn.data, txn.tag, 0)
            if plant != "never":
                board.on_request(txn)
                board.on_response(txn)
    assert stores and board.posted_late == (stores if cfg.post_stores else 0)
    return board.leftovers()


def test_coalescing_board_matches_posted_stores_late_transactions() -> None:
    """With post_stores a store's transactions may reach the port after its retire: each is still compared
    (a wrong one and a missing one are caught); without post_stores a store retired short fails."""
    posted = GpuConfig(global_words=4096, num_sms=1, post_stores=1)
    assert posted_run(posted, None) == []
    assert any("after its store retired: transaction 0" in d for d in posted_run(posted, "wrong"))
    assert any("never reached the memory port" in d for d in posted_run(posted, "never"))
    assert any("transactions on the memory port, the model expects" in d for d in posted_run(CFG, None))


# ---- end of kernel --------------------------------------------------------------------------------
def test_end_of_kernel_catches_memory_and_counters() -> None:
    image = image_of("vecadd", random.Random(1))
    model = Model(CFG, image)
    model.run()
    perf = {n: v for n, v in model.counters.as_dict().items() if n in EXACT_COUNTERS}
    board = EndOfKernelChecker()
    assert board.check(model, model.gmem.copy(), perf) == []
    mem = model.gmem.copy()
    mem[1024] ^= 1
    assert "global memory differs" in board.check(model, mem, perf)[0]
    assert "stack_pushes" in board.check(model, model.gmem.copy(), perf | {"stack_pushes": 99})[0]
    fresh = Model(CFG, image)
    assert "never finished" in board.check(fresh, np.zeros(CFG.global_words, np.uint32), {})[0]


# ---- nothing compared -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda m: RetireScoreboard(m),
        lambda m: DivergenceScoreboard(m),
        lambda m: EndOfKernelChecker(),
        lambda m: SharedMemoryScoreboard(CFG, m, 0),
        lambda m: CoalescingScoreboard(CFG, m.image),
    ],
)
def test_report_fails_when_nothing_was_compared(make: Any) -> None:
    model, _ = twin("vecadd", 0)
    with pytest.raises(AssertionError, match="compared nothing"):
        make(model).report()
