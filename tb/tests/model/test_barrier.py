"""Barriers (docs/isa.md section 5), memory ordering and races (6.4), the step() interface (sections 8.2
and 10: a warp waiting at a barrier cannot be stepped).
"""

from __future__ import annotations

import pytest

from spec.config import GpuConfig
from spec.model import ErrorKind, KernelError, StepError, WarpState
from tb.tests.model import kit

REVERSE = """
        .regs 8
        .shared 512
        LDS r0, %tid
        LDS r1, %ctaid.x
        LDS r2, %ntid.x
        MULI r3, r0, 3
        MAD r3, r1, r2, r3      ; value = ctaid * ntid + 3 * tid
        ST [r0 + 0], r3
        MAD r6, r1, r2, r0      ; global slot of this thread
        STG [r6 + 0], r3
        BAR
        SUB r4, r2, r0
        SUBI r4, r4, 1          ; ntid - 1 - tid
        LD r5, [r4 + 0]
        MAD r7, r1, r2, r4
        LDG r7, [r7 + 0]        ; the mirrored thread's global store
        ADDI r6, r6, 4096
        STG [r6 + 0], r5
        ADDI r6, r6, 4096
        STG [r6 + 0], r7
        EXIT
"""


def reverse_expect(nthreads: int, nblocks: int) -> tuple[list[int], list[int]]:
    first = [b * nthreads + 3 * t for b in range(nblocks) for t in range(nthreads)]
    rev = [b * nthreads + 3 * (nthreads - 1 - t) for b in range(nblocks) for t in range(nthreads)]
    return first, rev


@pytest.mark.parametrize("nthreads", [128, 100, 33, 512])
@pytest.mark.parametrize("order", ["run", "rr", "rev", "random"])
def test_reverse_through_barrier(nthreads: int, order: str) -> None:
    """Writes before BAR (shared and global) are visible to the block's other warps after it."""
    nblocks = 3
    m, _ = kit.launch(REVERSE, grid=nblocks, block=nthreads)
    if order == "run":
        m.run()
    else:
        kit.step_all(m, order, seed=nthreads)
    kit.check_retire_chain(m)
    first, rev = reverse_expect(nthreads, nblocks)
    n = nthreads * nblocks
    assert kit.gmem(m, 0, n) == first
    assert kit.gmem(m, 4096, n) == rev
    assert kit.gmem(m, 8192, n) == rev
    warps = -(-nthreads // 32)
    c = m.counters
    assert (c.barrier_arrivals, c.barrier_releases) == (warps * nblocks, nblocks)


TWO_WARPS = """
        .regs 4
        LDS r0, %tid
bar:    BAR
        STG [r0 + 0], r0
        EXIT
"""


def test_barrier_waits_for_all_warps_and_waiting_warp_cannot_step() -> None:
    m, _ = kit.launch(TWO_WARPS, block=64)
    L = kit.labels(TWO_WARPS)
    m.start_block(0)
    m.step(0, 0)
    r = m.step(0, 0)
    assert r.pc == L["bar"] and r.barrier and not r.released
    assert r.next_pc == L["bar"] + 1 and r.next_mask == kit.FULL32
    assert m.warp(0, 0).state is WarpState.WAITING
    with pytest.raises(StepError):
        m.step(0, 0)
    m.step(0, 1)
    r = m.step(0, 1)
    assert r.barrier and r.released
    assert m.warp(0, 0).state is WarpState.READY and m.warp(0, 1).state is WarpState.READY
    assert m.warp(0, 0).pc == L["bar"] + 1
    kit.run_warp(m, 0, 1)
    kit.run_warp(m, 0, 0)
    assert kit.gmem(m, 0, 64) == list(range(64))
    assert (m.counters.barrier_arrivals, m.counters.barrier_releases) == (2, 1)


def test_single_warp_block_barrier_releases_immediately() -> None:
    m, _ = kit.launch(TWO_WARPS, block=20)
    recs = kit.run_warp(m)
    (bar,) = [r for r in recs if r.mnemonic == "BAR"]
    assert bar.barrier and bar.released and bar.mask == kit.full(20)
    assert recs[-1].done


EXITER = """
        .regs 4
        LDS r0, %tid
        LDS r1, %warpid
        SEQI r2, r1, 2
        BNE r2, leave           ; warp 2 leaves (uniform per warp)
bar:    BAR
        STG [r0 + 0], r0
        EXIT
leave:  EXIT
"""


def test_done_warp_counts_as_arrived() -> None:
    """ "Warps that are done count as arrived.\""""
    m, _ = kit.launch(EXITER, block=96)
    m.start_block(0)
    kit.run_warp(m, 0, 2)
    assert m.warp(0, 2).state is WarpState.DONE
    r0 = kit.run_warp(m, 0, 0)[-1]
    assert r0.barrier and not r0.released
    r1 = kit.run_warp(m, 0, 1, until_bar=True)[-1]
    assert r1.barrier and r1.released
    kit.run_warp(m, 0, 0)
    kit.run_warp(m, 0, 1)
    assert kit.gmem(m, 0, 64) == list(range(64))
    assert (m.counters.barrier_arrivals, m.counters.barrier_releases) == (2, 1)


def test_exiting_warp_completes_the_barrier() -> None:
    """ "A warp that exits while the others wait completes the barrier if it was the last one missing.\""""
    m, _ = kit.launch(EXITER, block=96)
    m.start_block(0)
    assert kit.run_warp(m, 0, 0)[-1].barrier
    assert kit.run_warp(m, 0, 1)[-1].barrier
    assert m.warp(0, 0).state is WarpState.WAITING
    last = kit.run_warp(m, 0, 2)[-1]
    assert last.mnemonic == "EXIT" and last.done and last.released and not last.block_done
    assert m.warp(0, 0).state is WarpState.READY and m.warp(0, 1).state is WarpState.READY
    kit.run_warp(m, 0, 0)
    fin = kit.run_warp(m, 0, 1)[-1]
    assert fin.block_done
    assert m.counters.barrier_releases == 1


EXIT_WRITER = """
        .regs 4
        .shared 64
        LDS r0, %tid
        LDS r1, %warpid
        BEQ r1, reader          ; warp 0 reads, warp 1 writes and exits without a BAR
        ADDI r2, r0, 100
        ST [r0 + 0], r2         ; shared[32 + l] = 132 + l
        STG [r0 + 0], r2        ; global[32 + l] = 132 + l
        EXIT
reader: BAR
        LD r2, [r0 + 32]        ; warp 1's words
        LDG r3, [r0 + 32]
        ADD r2, r2, r3
        STG [r0 + 64], r2
        EXIT
"""


@pytest.mark.parametrize("first", ["writer", "reader", "rr", "rev", "random"])
def test_exited_warps_writes_are_visible_after_the_release(first: str) -> None:
    """5: "A warp that EXITs instead of arriving counts as having arrived with all its writes": its shared
    and global writes before the EXIT are seen by the block's warps after the next release, and are
    ordered before their accesses (no race), whether it exited before the others reached the BAR
    (``writer``) or was the last one missing (``reader``). The reduction kernel's exchange relies on it."""
    m, _ = kit.launch(EXIT_WRITER, block=64, detect_races=True)
    if first in ("writer", "reader"):
        m.start_block(0)
        if first == "writer":
            assert kit.run_warp(m, 0, 1)[-1].done
            assert kit.run_warp(m, 0, 0, until_bar=True)[-1].released  # done warp counts as arrived
        else:
            assert not kit.run_warp(m, 0, 0, until_bar=True)[-1].released
            last = kit.run_warp(m, 0, 1)[-1]
            assert last.done and last.released  # the EXIT releases the barrier
        kit.run_warp(m, 0, 0)
    else:
        kit.step_all(m, first, seed=5)
    assert kit.gmem(m, 32, 32) == [132 + lane for lane in range(32)]
    assert kit.gmem(m, 64, 32) == [2 * (132 + lane) for lane in range(32)]


def test_exited_warps_writes_race_until_a_release() -> None:
    """5: "until that release, another warp's access to the same word is a race": the same exchange
    without the BAR is reported (docs/isa.md 6.4)."""
    m, _ = kit.launch(EXIT_WRITER.replace("reader: BAR", "reader: NOP"), block=64, detect_races=True)
    m.start_block(0)
    assert kit.run_warp(m, 0, 1)[-1].done
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 0, 0)
    assert (ei.value.kind, ei.value.warp) == (ErrorKind.RACE, 0)


def test_partially_exited_warp_must_still_arrive() -> None:
    """A warp with live threads is not done: the barrier waits for it; after a partial exit its active
    mask equals its live mask, so its BAR is legal."""
    src = """
            .regs 4
            LDS r0, %tid
            LDS r1, %warpid
            SLTI r2, r0, 40
            SSY ok
            BNE r2, ok
            EXIT                    ; threads 40.. exit
    ok:     BAR
            STG [r0 + 0], r1
            EXIT
    """
    m, _ = kit.launch(src, block=64)
    m.start_block(0)
    r0 = kit.run_warp(m, 0, 0)[-1]
    assert r0.barrier and not r0.released
    r1 = kit.run_warp(m, 0, 1, until_bar=True)[-1]
    assert r1.barrier and r1.released and r1.mask == kit.full(8)
    m.run()
    assert kit.gmem(m, 0, 64) == [0] * 32 + [1] * 8 + [0] * 24


def test_barrier_is_per_block() -> None:
    m, _ = kit.launch(TWO_WARPS, block=64, grid=2)
    m.start_block(0)
    m.start_block(1)
    assert kit.run_warp(m, 0, 0)[-1].barrier
    assert kit.run_warp(m, 1, 0)[-1].barrier
    r = kit.run_warp(m, 1, 1, until_bar=True)[-1]
    assert r.released
    assert m.warp(0, 0).state is WarpState.WAITING
    assert m.warp(1, 0).state is WarpState.READY


def test_several_barriers_count_arrivals_and_releases() -> None:
    src = ".regs 2\nBAR\nNOP\nBAR\nBAR\nEXIT"
    res = kit.run(src, grid=3, block=70)  # 3 warps per block
    assert (res.counters.barrier_arrivals, res.counters.barrier_releases) == (3 * 3 * 3, 3 * 3)
    assert res.counters.warp_by_class["sync"] == 27


@pytest.mark.parametrize("where", ["taken", "else"])
def test_barrier_divergence(where: str) -> None:
    """ "The executing warp's active mask must equal its live mask ... else error BARRIER_DIVERGENCE"."""
    then_body = "bar: BAR" if where == "taken" else "NOP"
    else_body = "bar: BAR" if where == "else" else "NOP"
    src = f"""
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 1
            SSY j
            BNE r1, t
            {else_body}
            BRA j
    t:      {then_body}
    j:      EXIT
    """
    m, _ = kit.launch(src, block=64, grid=2)
    m.start_block(1)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 1, 1)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc) == (ErrorKind.BARRIER_DIVERGENCE, 1, 1, kit.labels(src)["bar"])


def test_bar_inside_region_with_full_mask_is_legal() -> None:
    """Only the mask matters: a BAR inside an SSY region executed by all live threads is fine."""
    src = """
            .regs 4
            LDS r0, %tid
            SSY j
            BAR
            ANDI r1, r0, 1
            BNE r1, j
            NOP
    j:      STG [r0 + 0], r0
            EXIT
    """
    res = kit.run(src, block=64)
    assert kit.gmem(res, 0, 64) == list(range(64))


# ---------------------------------------------------------------------------------------------
# step() misuse
# ---------------------------------------------------------------------------------------------
def test_step_errors() -> None:
    m, _ = kit.launch(TWO_WARPS, block=40, grid=2)
    with pytest.raises(StepError):
        m.step(0, 0)  # block not started
    m.start_block(0)
    with pytest.raises(StepError):
        m.start_block(0)  # twice
    with pytest.raises(StepError):
        m.step(0, 2)  # no such warp
    with pytest.raises(StepError):
        m.start_block(2)  # no such block
    m.run()
    with pytest.raises(StepError):
        m.step(0, 0)  # done


# ---------------------------------------------------------------------------------------------
# 6.4 races (detect_races=True)
# ---------------------------------------------------------------------------------------------
GLOBAL_WW = """
        .regs 4
        LDS r1, %warpid
        STG [r0 + 7], r1
        EXIT
"""

GLOBAL_WW_BAR = """
        .regs 4
        LDS r1, %warpid
        BNE r1, second
        STG [r0 + 7], r1
        BAR
        EXIT
second: BAR
        STG [r0 + 7], r1
        EXIT
"""


def test_race_two_warps_write_one_global_word() -> None:
    m, _ = kit.launch(GLOBAL_WW, block=64, detect_races=True)
    with pytest.raises(KernelError) as ei:
        m.run()
    assert ei.value.kind is ErrorKind.RACE and ei.value.block == 0 and ei.value.warp in (0, 1)
    res = kit.run(GLOBAL_WW, block=64)  # without checking: no error (the result is undefined)
    assert kit.gmem(res, 7, 1)[0] in (0, 1)


@pytest.mark.parametrize("order", ["run", "rev", "random"])
def test_no_race_when_a_barrier_separates_the_writes(order: str) -> None:
    m, _ = kit.launch(GLOBAL_WW_BAR, block=64, detect_races=True)
    if order == "run":
        m.run()
    else:
        kit.step_all(m, order, seed=3)
    assert kit.gmem(m, 7, 1) == [1]


def test_race_shared_write_then_other_warp_reads() -> None:
    src = """
            .regs 4
            .shared 8
            LDS r1, %warpid
            BNE r1, reader
            ST [r0 + 3], r1
            EXIT
    reader: LD r2, [r0 + 3]
            EXIT
    """
    m, _ = kit.launch(src, block=64, detect_races=True)
    m.start_block(0)
    kit.run_warp(m, 0, 0)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 0, 1)
    assert (ei.value.kind, ei.value.warp) == (ErrorKind.RACE, 1)


def test_race_read_then_other_warp_writes() -> None:
    src = """
            .regs 4
            LDS r1, %warpid
            BNE r1, writer
            LDG r2, [r0 + 3]
            EXIT
    writer: STG [r0 + 3], r1
            EXIT
    """
    m, _ = kit.launch(src, block=64, detect_races=True)
    m.start_block(0)
    kit.run_warp(m, 0, 0)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 0, 1)
    assert ei.value.kind is ErrorKind.RACE


def test_shared_write_read_ordered_by_barrier_is_not_a_race() -> None:
    src = """
            .regs 4
            .shared 8
            LDS r1, %warpid
            BNE r1, reader
            MVI r2, 55
            ST [r0 + 3], r2
            BAR
            EXIT
    reader: BAR
            LD r2, [r0 + 3]
            LDS r0, %tid
            STG [r0 + 0], r2
            EXIT
    """
    m, _ = kit.launch(src, block=64, detect_races=True)
    m.run()
    assert kit.gmem(m, 32, 32) == [55] * 32


def test_reads_only_same_warp_and_same_lane_group_are_not_races() -> None:
    src = """
            .regs 4
            .shared 4
            LDS r1, %warpid
            LDG r2, [r0 + 5]        ; every warp reads word 5
            LD r3, [r0 + 1]         ; every warp reads shared word 1
            LDS r0, %laneid
            SNEI r0, r0, 0          ; lane 0 -> 0, others -> 1
            ADDI r0, r0, 100
            MVI r3, 0
            BNE r1, out
            STG [r3 + 200], r1      ; warp 0 only: all its lanes write word 200 (same warp)
            STG [r3 + 200], r0      ; and again: same warp, program order
            ST [r3 + 2], r0
    out:    EXIT
    """
    res = kit.run(src, block=96, shared_words=4, detect_races=True)
    assert kit.gmem(res, 200, 1) == [101]


def test_race_between_blocks_on_global_but_not_on_shared() -> None:
    """Barriers order only the warps of one block; shared memory is private to a block."""
    shared_src = ".regs 4\n.shared 4\nLDS r1, %ctaid.x\nST [r0 + 0], r1\nEXIT"
    kit.run(shared_src, grid=2, block=32, detect_races=True)  # no race: different memories
    global_src = ".regs 4\nLDS r1, %ctaid.x\nSTG [r0 + 0], r1\nEXIT"
    with pytest.raises(KernelError) as ei:
        kit.run(global_src, grid=2, block=32, detect_races=True)
    assert ei.value.kind is ErrorKind.RACE


def test_race_free_kernel_with_detection_matches_without() -> None:
    a = kit.run(REVERSE, grid=2, block=100, detect_races=True)
    b = kit.run(REVERSE, GpuConfig(), grid=2, block=100)
    assert (a.gmem[:12288] == b.gmem[:12288]).all()
    assert kit.gmem(a, 4096, 200) == reverse_expect(100, 2)[1]
