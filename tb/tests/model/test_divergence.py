"""Divergence and reconvergence (docs/isa.md section 3.4 and section 4: 4.1 warp state, 4.2 rules 1-4,
4.3 consequences, and the counted events at the end of section 4).

Hand-traced kernels check the exact retire order (pc, active mask), the stack events
(push/pop of SYNC/DIV with pc, mask and depth) and the counters; a property test checks random
structured kernels against an independent per-thread (scalar) interpreter written from the spec.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spec import isa
from spec.config import GpuConfig
from spec.model import ErrorKind, KernelError
from tb.tests.model import kit
from tb.tests.model.kit import FULL32, M32

ODD = kit.mask_of(range(1, 32, 2))
EVEN = kit.mask_of(range(0, 32, 2))


def ev(rec) -> list[tuple]:
    """Stack events of a retire as (action, kind, pc, mask, depth)."""
    return [(e.action, e.kind, e.pc, e.mask, e.depth) for e in rec.stack]


def pcs_masks(recs) -> list[tuple[int, int]]:
    return [(r.pc, r.mask) for r in recs]


# ---------------------------------------------------------------------------------------------
# 4.3 if/else
# ---------------------------------------------------------------------------------------------
IF_ELSE = """
        .regs 4
        LDS r0, %tid
        ANDI r1, r0, 1
ssy:    SSY join
br:     BNE r1, then
else:   MVI r2, 10
bra:    BRA join
then:   MVI r2, 20
join:   STG [r0 + 0], r2
exit:   EXIT
"""


def test_if_else_taken_path_first_exact_trace() -> None:
    """`SSY join; BNE c, then; <else>; BRA join; then: <then>; join:` -- "the taken (then) threads run
    first, the else path waits in a DIV; at join the DIV is popped (else runs), at join again the SYNC
    is popped and the full mask continues. Depth used: 2.\""""
    L = kit.labels(IF_ELSE)
    m, _ = kit.launch(IF_ELSE)
    recs = kit.run_warp(m)
    assert pcs_masks(recs) == [
        (0, FULL32),
        (1, FULL32),
        (L["ssy"], FULL32),
        (L["br"], FULL32),
        (L["then"], ODD),
        (L["else"], EVEN),
        (L["bra"], EVEN),
        (L["join"], FULL32),
        (L["exit"], FULL32),
    ]
    by_pc = {r.pc: r for r in recs}
    assert ev(by_pc[L["ssy"]]) == [("push", "SYNC", L["join"], FULL32, 1)]
    assert ev(by_pc[L["br"]]) == [("push", "DIV", L["else"], EVEN, 2)]
    assert (by_pc[L["br"]].next_pc, by_pc[L["br"]].next_mask) == (L["then"], ODD)
    assert ev(by_pc[L["then"]]) == [("pop", "DIV", L["else"], EVEN, 1)]
    assert (by_pc[L["then"]].next_pc, by_pc[L["then"]].next_mask) == (L["else"], EVEN)
    assert ev(by_pc[L["else"]]) == []
    assert ev(by_pc[L["bra"]]) == [("pop", "SYNC", L["join"], FULL32, 0)]
    assert (by_pc[L["bra"]].next_pc, by_pc[L["bra"]].next_mask) == (L["join"], FULL32)
    for pc in (0, 1, L["join"], L["exit"]):
        assert ev(by_pc[pc]) == []
    assert recs[-1].done and recs[-1].block_done
    kit.check_retire_chain(m)
    assert kit.gmem(m, 0, 32) == [20 if t & 1 else 10 for t in range(32)]
    c = m.counters
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (1, 2, 2, 2)


def test_if_else_uniform_condition_runs_one_path_without_div() -> None:
    src = IF_ELSE.replace("ANDI r1, r0, 1", "ORI r1, r0, 1")  # every thread takes `then`
    L = kit.labels(src)
    m, _ = kit.launch(src)
    recs = kit.run_warp(m)
    assert [r.pc for r in recs] == [0, 1, L["ssy"], L["br"], L["then"], L["join"], L["exit"]]
    assert all(r.mask == FULL32 for r in recs)
    assert ev(recs[3]) == []  # uniform branch: no stack change
    assert ev(recs[4]) == [("pop", "SYNC", L["join"], FULL32, 0)]
    c = m.counters
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (0, 1, 1, 1)
    assert kit.gmem(m, 0, 32) == [20] * 32


# ---------------------------------------------------------------------------------------------
# Nesting, stack depth and STACK_OVERFLOW
# ---------------------------------------------------------------------------------------------
def nested_src(levels: int) -> str:
    """Level i: SSY j_i; BNE (tid bit i), t_i; else: mark bit 8+i, BRA j_i; t_i: mark bit i, nest."""
    lines = [".regs 8", "LDS r0, %tid", "MVI r2, 0", "MVI r3, 0"]
    for i in range(levels):
        lines += [
            f"ANDI r1, r0, {1 << i}",
            f"ssy{i}: SSY j{i}",
            f"br{i}: BNE r1, t{i}",
            f"ORI r2, r2, {1 << (8 + i)}",
            f"BRA j{i}",
            f"t{i}: ORI r2, r2, {1 << i}",
        ]
    lines.append("ORI r2, r2, 0x8000")
    lines += [f"j{i}: ADDI r3, r3, 1" for i in reversed(range(levels))]
    lines += ["STG [r0 + 0], r2", "STG [r0 + 64], r3", "EXIT"]
    return "\n".join(lines)


def nested_expect(t: int, levels: int) -> tuple[int, int]:
    m = next((i for i in range(levels) if not t >> i & 1), levels)
    r2 = sum(1 << i for i in range(m)) | ((1 << (8 + m)) if m < levels else 0x8000)
    r3 = m + 1 if m < levels else levels
    return r2, r3


@pytest.mark.parametrize("levels", [1, 2, 3, 4, 5])
def test_nested_to_exact_stack_depth(levels: int) -> None:
    """ "nesting k levels deep needs at most 2k entries": with STACK_DEPTH = 2k it runs, reaching 2k."""
    cfg = GpuConfig(stack_depth=max(2, 2 * levels))
    m, _ = kit.launch(nested_src(levels), cfg, block=64)
    res = m.run()
    exp = [nested_expect(t % 32, levels) for t in range(64)]
    assert kit.gmem(res, 0, 64) == [e[0] for e in exp]
    assert kit.gmem(res, 64, 64) == [e[1] for e in exp]
    c = res.counters
    assert c.max_stack_depth == 2 * levels
    assert c.divergent_branches == 2 * levels  # every level diverges, in each of the 2 warps
    assert c.stack_pushes == 2 * 2 * levels
    assert c.stack_pops == 2 * 2 * levels


@pytest.mark.parametrize("levels", [1, 2, 4])
def test_stack_overflow_at_ssy(levels: int) -> None:
    """SSY onto a full stack: STACK_OVERFLOW naming the warp and the pc of the SSY (rule 1)."""
    src = nested_src(levels + 1)
    cfg = GpuConfig(stack_depth=max(2, 2 * levels))
    m, _ = kit.launch(src, cfg, block=64, grid=2)
    m.start_block(1)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 1, 1)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc) == (
        ErrorKind.STACK_OVERFLOW,
        1,
        1,
        kit.labels(src)[f"ssy{levels}"],
    )


@pytest.mark.parametrize("levels", [1, 2, 3])
def test_stack_overflow_at_div_push(levels: int) -> None:
    """A divergent branch pushing a DIV onto a full stack: STACK_OVERFLOW at the branch's pc."""
    src = nested_src(levels + 1)
    cfg = GpuConfig(stack_depth=2 * levels + 1)
    m, _ = kit.launch(src, cfg)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 0, 0)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc) == (ErrorKind.STACK_OVERFLOW, 0, 0, kit.labels(src)[f"br{levels}"])


def test_stack_depth_two_is_enough_for_if_else() -> None:
    m, _ = kit.launch(IF_ELSE, GpuConfig(stack_depth=2))
    assert m.run().counters.max_stack_depth == 2


# ---------------------------------------------------------------------------------------------
# Loops
# ---------------------------------------------------------------------------------------------
LOOP_TO_RPC = """
        .regs 8
        .param 0            ; iteration mask (n = (tid & p0) * p1 + 1)
        .param 1            ; iteration multiplier
        LDS r0, %tid
        LDS r4, %param0
        LDS r5, %param1
        AND r1, r0, r4
        MUL r1, r1, r5
        ADDI r1, r1, 1
        MVI r2, 0
ssy:    SSY done
loop:   ADDI r2, r2, 1
        SUBI r1, r1, 1
br:     BNE r1, loop
done:   STG [r0 + 0], r2
        EXIT
"""


@pytest.mark.parametrize("imask,mult", [(0, 1), (1, 1), (3, 1), (7, 1), (31, 1), (31, 3), (31, 7), (7, 40)])
def test_divergent_loop_to_rpc_does_not_grow_stack(imask: int, mult: int) -> None:
    """`SSY done; loop: ...; BNE c, loop; done:` -- "the threads that leave the loop go to done = rpc and
    wait; the loop continues with the rest, and no entry is pushed per iteration."
    Thread t iterates n_t = (t & imask) * mult + 1 times."""
    m, _ = kit.launch(LOOP_TO_RPC, params=[imask, mult])
    L = kit.labels(LOOP_TO_RPC)
    recs = kit.run_warp(m)
    n = [(t & imask) * mult + 1 for t in range(32)]
    iters = max(n)
    assert kit.gmem(m, 0, 32) == n
    branches = [r for r in recs if r.pc == L["br"]]
    assert len(branches) == iters
    for i, r in enumerate(branches, start=1):
        assert r.mask == kit.mask_of(t for t in range(32) if n[t] >= i)  # still looping at iteration i
        stay = kit.mask_of(t for t in range(32) if n[t] > i)
        if i < iters:
            assert ev(r) == [] and (r.next_pc, r.next_mask) == (L["loop"], stay)
        else:  # everyone left: next pc is the rpc, the SYNC pops and all threads rejoin
            assert ev(r) == [("pop", "SYNC", L["done"], FULL32, 0)]
            assert (r.next_pc, r.next_mask) == (L["done"], FULL32)
    c = m.counters
    distinct = len(set(n))
    assert c.divergent_branches == distinct - 1  # the iterations where some leave and some stay
    assert (c.stack_pushes, c.stack_pops, c.max_stack_depth) == (1, 1, 1)
    assert c.warp_instrs == 8 + 3 * iters + 2  # 8 before the loop, 3 per iteration, STG and EXIT


LOOP_EXIT_NOT_RPC = """
        .regs 8
        .param 0
        LDS r0, %tid
        LDS r4, %param0
        AND r1, r0, r4
        ADDI r1, r1, 1      ; n = (tid & p0) + 1
        MVI r2, 0
ssy:    SSY done
loop:   ADDI r2, r2, 1
        SUBI r1, r1, 1
br:     BNE r1, loop
after:  ADDI r2, r2, 100    ; the exit path is not the rpc
done:   STG [r0 + 0], r2
        EXIT
"""


@pytest.mark.parametrize("imask", [1, 3, 7, 15, 31])
def test_loop_exit_path_not_rpc_merges_into_one_div(imask: int) -> None:
    """ "In a loop whose exit path is not the rpc, every iteration's leaving threads go to the same pc,
    and the merge rule folds them into one DIV." (rule 2 merge: "its mask is OR-ed with N")."""
    m, _ = kit.launch(LOOP_EXIT_NOT_RPC, params=[imask])
    L = kit.labels(LOOP_EXIT_NOT_RPC)
    recs = kit.run_warp(m)
    n = [(t & imask) + 1 for t in range(32)]
    K = imask + 1
    assert kit.gmem(m, 0, 32) == [x + 100 for x in n]
    pushes = [e for r in recs for e in ev(r) if e[0] == "push"]
    assert pushes == [
        ("push", "SYNC", L["done"], FULL32, 1),
        ("push", "DIV", L["after"], kit.mask_of(t for t in range(32) if n[t] == 1), 2),
    ]
    pops = [e for r in recs for e in ev(r) if e[0] == "pop"]
    leavers_before_last = kit.mask_of(t for t in range(32) if n[t] < K)
    assert pops == [("pop", "DIV", L["after"], leavers_before_last, 1), ("pop", "SYNC", L["done"], FULL32, 0)]
    # the last iteration is uniform (all remaining leave): they run `after` first, then the DIV
    seq = [(r.pc, r.mask) for r in recs if r.pc in (L["after"], L["done"])]
    last = kit.mask_of(t for t in range(32) if n[t] == K)
    assert seq == [(L["after"], last), (L["after"], leavers_before_last), (L["done"], FULL32)]
    c = m.counters
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (K - 1, 2, 2, 2)


# ---------------------------------------------------------------------------------------------
# A second divergence inside a region without a new SSY
# ---------------------------------------------------------------------------------------------
def test_second_divergence_without_ssy_pushes_another_div_last_pushed_first() -> None:
    """ "A branch inside a SYNC region that diverges again without a new SSY pushes another DIV; every
    path runs to the region's rpc in turn, last-pushed first.\""""
    src = """
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 1
            ANDI r2, r0, 2
    ssy:    SSY join
    b1:     BNE r1, a
    p5:     MVI r3, 1
            BRA join
    a:      BNE r2, b
    p8:     MVI r3, 2
            BRA join
    b:      MVI r3, 3
    join:   STG [r0 + 0], r3
            EXIT
    """
    L = kit.labels(src)
    m, _ = kit.launch(src)
    recs = kit.run_warp(m)
    B2 = kit.mask_of(t for t in range(32) if t & 3 == 3)
    N2 = kit.mask_of(t for t in range(32) if t & 3 == 1)
    assert pcs_masks(recs) == [
        (0, FULL32),
        (1, FULL32),
        (2, FULL32),
        (L["ssy"], FULL32),
        (L["b1"], FULL32),
        (L["a"], ODD),
        (L["b"], B2),
        (L["p8"], N2),
        (L["p8"] + 1, N2),
        (L["p5"], EVEN),
        (L["p5"] + 1, EVEN),
        (L["join"], FULL32),
        (L["join"] + 1, FULL32),
    ]
    assert ev(recs[4]) == [("push", "DIV", L["p5"], EVEN, 2)]
    assert ev(recs[5]) == [("push", "DIV", L["p8"], N2, 3)]
    assert ev(recs[6]) == [("pop", "DIV", L["p8"], N2, 2)]
    assert ev(recs[8]) == [("pop", "DIV", L["p5"], EVEN, 1)]
    assert ev(recs[10]) == [("pop", "SYNC", L["join"], FULL32, 0)]
    assert kit.gmem(m, 0, 32) == [(3 if t & 2 else 2) if t & 1 else 1 for t in range(32)]
    assert m.counters.max_stack_depth == 3


# ---------------------------------------------------------------------------------------------
# EXIT (rule 4)
# ---------------------------------------------------------------------------------------------
PARTIAL_EXIT = """
        .regs 4
        LDS r0, %tid
        SLTI r1, r0, 20         ; in range
ssy:    SSY ok
br:     BNE r1, ok
ex:     EXIT
ok:     STG [r0 + 0], r0
        EXIT
"""


def test_partial_exit_pops_sync_and_continues_with_survivors() -> None:
    """`SSY ok; BNE inrange, ok; EXIT; ok:` -- "the out-of-range threads exit, the warp pops the SYNC
    and continues at ok with the surviving threads.\""""
    L = kit.labels(PARTIAL_EXIT)
    m, _ = kit.launch(PARTIAL_EXIT, data=[(0, [0xEEEE] * 32)])
    recs = kit.run_warp(m)
    inr = kit.full(20)
    out = FULL32 & ~inr
    assert pcs_masks(recs) == [
        (0, FULL32),
        (1, FULL32),
        (L["ssy"], FULL32),
        (L["br"], FULL32),
        (L["ex"], out),
        (L["ok"], inr),
        (L["ok"] + 1, inr),
    ]
    # only the taken path's pc equals the rpc: pc <- pc + 1, A <- N, no stack change
    assert ev(recs[3]) == [] and (recs[3].next_pc, recs[3].next_mask) == (L["ex"], out)
    assert not recs[4].done
    assert ev(recs[4]) == [("pop", "SYNC", L["ok"], FULL32, 0)]
    assert (recs[4].next_pc, recs[4].next_mask) == (L["ok"], inr)  # m & ~X
    assert recs[-1].done
    assert kit.gmem(m, 0, 32) == list(range(20)) + [0xEEEE] * 12
    c = m.counters
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (1, 1, 1, 1)


def test_reconvergence_restores_mask_minus_exited_threads() -> None:
    """Rule 3: popping SYNC(r, m) sets A <- m & ~X. The taken path exits; the else path then runs and at
    the join the SYNC restores only the threads that did not exit."""
    src = """
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 3
    ssy:    SSY join
    br:     BEQ r1, out         ; tid % 4 == 0 branch (taken path runs first) ...
    else:   MVI r2, 5
            BRA join
    out:    EXIT                ; ... and exit
    join:   STG [r0 + 0], r2
            EXIT
    """
    L = kit.labels(src)
    m, _ = kit.launch(src, data=[(0, [0xEEEE] * 32)])
    recs = kit.run_warp(m)
    T = kit.mask_of(range(0, 32, 4))
    N = FULL32 & ~T
    assert pcs_masks(recs) == [
        (0, FULL32),
        (1, FULL32),
        (L["ssy"], FULL32),
        (L["br"], FULL32),
        (L["out"], T),
        (L["else"], N),
        (L["else"] + 1, N),
        (L["join"], N),
        (L["join"] + 1, N),
    ]
    assert ev(recs[4]) == [("pop", "DIV", L["else"], N, 1)]
    assert ev(recs[6]) == [("pop", "SYNC", L["join"], FULL32, 0)]
    assert recs[6].next_mask == N
    assert kit.gmem(m, 0, 32) == [0xEEEE if t % 4 == 0 else 5 for t in range(32)]


def test_exit_pops_through_a_sync_whose_threads_all_exited() -> None:
    """ "Popping repeats while the rule still applies (... or a restored mask that is empty because all
    its threads exited)": the odd threads open an inner region and all exit in it; the warp pops the
    inner SYNC (its restored mask is empty) and then the even threads' DIV, in one retire."""
    src = """
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 1
            SSY j1
    br:     BNE r1, odd
    even:   BRA j1
    odd:    SSY j2
    ex:     EXIT
    j2:     NOP
    j1:     STG [r0 + 0], r0
            EXIT
    """
    L = kit.labels(src)
    m, _ = kit.launch(src, data=[(0, [0xEEEE] * 32)])
    recs = kit.run_warp(m)
    ex = next(r for r in recs if r.pc == L["ex"])
    assert ex.mask == ODD and not ex.done
    assert ev(ex) == [("pop", "SYNC", L["j2"], ODD, 2), ("pop", "DIV", L["even"], EVEN, 1)]
    assert (ex.next_pc, ex.next_mask) == (L["even"], EVEN)
    bra = next(r for r in recs if r.pc == L["even"])
    assert ev(bra) == [("pop", "SYNC", L["j1"], FULL32, 0)] and bra.next_mask == EVEN
    assert L["j2"] not in [r.pc for r in recs]
    assert kit.gmem(m, 0, 32) == [t if t % 2 == 0 else 0xEEEE for t in range(32)]


def test_several_syncs_for_the_same_point_pop_in_one_retire() -> None:
    src = """
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 1
            SSY j
            SSY j
    br:     BNE r1, t
            MVI r2, 1
    bra:    BRA j
    t:      MVI r2, 2
    j:      STG [r0 + 0], r2
            EXIT
    """
    L = kit.labels(src)
    m, _ = kit.launch(src)
    recs = kit.run_warp(m)
    bra = next(r for r in recs if r.pc == L["bra"])
    assert ev(bra) == [("pop", "SYNC", L["j"], FULL32, 1), ("pop", "SYNC", L["j"], FULL32, 0)]
    assert (bra.next_pc, bra.next_mask) == (L["j"], FULL32)
    c = m.counters
    assert (c.stack_pushes, c.stack_pops, c.max_stack_depth) == (3, 3, 3)


def test_whole_warp_exit_inside_region_discards_stack_without_pops() -> None:
    """Rule 4: "If live is now empty the warp is done (its stack is discarded)" -- discarding is not
    a pop (pops count rule 3/4 pops)."""
    src = """
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 1
            SSY j
            BNE r1, t
    ex0:    EXIT
    t:      SSY j2
            EXIT
    j2:     NOP
    j:      EXIT
    """
    m, _ = kit.launch(src)
    recs = kit.run_warp(m)
    assert recs[-1].done and recs[-1].pc == kit.labels(src)["ex0"] and recs[-1].mask == EVEN
    c = m.counters
    # t path (odd) exits: X = odd -> pops SYNC(j2) (empty) then DIV (even); even threads exit: done
    assert c.stack_pushes == 3
    assert c.stack_pops == 2
    assert ev(recs[-1]) == []
    assert m.warp(0, 0).state.name == "DONE"


# ---------------------------------------------------------------------------------------------
# Uniform branches, DIVERGENT_WITHOUT_SSY, target == pc + 1, SSY target == pc + 1
# ---------------------------------------------------------------------------------------------
def test_divergent_without_ssy() -> None:
    src = """
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 4
    br:     BEQ r1, x
            NOP
    x:      EXIT
    """
    m, _ = kit.launch(src, block=64, grid=3)
    m.start_block(2)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 2, 1)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc) == (ErrorKind.DIVERGENT_WITHOUT_SSY, 2, 1, kit.labels(src)["br"])


def test_divergent_after_region_closed_is_without_ssy() -> None:
    """The SYNC is popped at its rpc; a later divergent branch has no innermost SYNC any more."""
    src = """
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 1
            SSY j
            BNE r1, j
            NOP
    j:      NOP
    br:     BNE r1, x
            NOP
    x:      EXIT
    """
    m, _ = kit.launch(src)
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m)
    assert (ei.value.kind, ei.value.pc) == (ErrorKind.DIVERGENT_WITHOUT_SSY, kit.labels(src)["br"])


@pytest.mark.parametrize("op", ["BEQ", "BNE"])
@pytest.mark.parametrize("cond", ["MVI r1, 0", "MVI r1, 9", "LDS r1, %warpid"])
def test_uniform_branches_push_nothing_and_need_no_ssy(op: str, cond: str) -> None:
    """Rule 2: "if N is empty: pc <- target; if T is empty: pc <- pc + 1 (uniform, no stack change)".
    With %warpid the condition differs between warps but is uniform within each."""
    src = f"""
            .regs 4
            LDS r0, %tid
            {cond}
    br:     {op} r1, tgt
            MVI r2, 1
            BRA end
    tgt:    MVI r2, 2
    end:    STG [r0 + 0], r2
            EXIT
    """
    L = kit.labels(src)
    m, _ = kit.launch(src, block=64)
    res = m.run()
    for w in range(2):
        r1 = 0 if cond == "MVI r1, 0" else (9 if cond == "MVI r1, 9" else w)
        taken = (r1 == 0) if op == "BEQ" else (r1 != 0)
        (br,) = [r for r in m.log if r.pc == L["br"] and r.warp == w]
        assert ev(br) == []
        assert (br.next_pc, br.next_mask) == ((L["tgt"] if taken else L["br"] + 1), FULL32)
        assert kit.gmem(res, 32 * w, 32) == [2 if taken else 1] * 32
    c = res.counters
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops, c.max_stack_depth) == (0, 0, 0, 0)


@pytest.mark.parametrize("op", ["BEQ", "BNE"])
def test_branch_to_next_pc_is_uniform(op: str) -> None:
    """3.4: "A branch whose target is pc + 1 is always uniform." and 4.2 rule 2: "uniform whatever T and
    N are, even without an SSY in effect" -- a mixed condition and no SSY: no error, no stack change, the
    whole mask continues at pc + 1, and it does not count as a divergent branch (4.3)."""
    src = f"""
            .regs 4
            LDS r0, %tid
            ANDI r1, r0, 1
    br:     {op} r1, nxt
    nxt:    STG [r0 + 0], r1
            EXIT
    """
    m, _ = kit.launch(src)
    recs = kit.run_warp(m)
    br = recs[2]
    assert br.pc == kit.labels(src)["br"]
    assert ev(br) == [] and (br.next_pc, br.next_mask) == (br.pc + 1, FULL32)
    assert recs[3].mask == FULL32
    c = m.counters
    assert (c.divergent_branches, c.stack_pushes, c.stack_pops) == (0, 0, 0)


SSY_NEXT = """
        .regs 4
        LDS r0, %tid
        ANDI r1, r0, 1
        SSY j
        BEQ r1, j
ssy:    SSY nxt
nxt:    STG [r0 + 0], r0
j:      EXIT
"""


def test_ssy_target_next_pc_pushes_and_pops_at_once() -> None:
    """Rule 1 then rule 3 ("after every instruction (including SSY ...)"): SSY pc+1 pushes SYNC(pc+1, A);
    the next pc is its rpc, so it pops at once and the same mask continues."""
    L = kit.labels(SSY_NEXT)
    m, _ = kit.launch(SSY_NEXT, data=[(0, [0xEEEE] * 32)])
    recs = kit.run_warp(m)
    (r,) = [x for x in recs if x.pc == L["ssy"]]
    assert r.mask == ODD
    assert ev(r) == [("push", "SYNC", L["nxt"], ODD, 2), ("pop", "SYNC", L["nxt"], ODD, 1)]
    assert (r.next_pc, r.next_mask) == (L["nxt"], ODD)
    assert kit.gmem(m, 0, 32) == [t if t & 1 else 0xEEEE for t in range(32)]
    c = m.counters
    assert (c.stack_pushes, c.stack_pops) == (2, 2)


def test_ssy_next_pc_transient_depth_counts_in_max_stack_depth() -> None:
    """ "max stack depth is the largest depth any warp reached": SSY pc+1 reaches depth 1 (its push
    event says so) even though it pops in the same retire. (The model reported 0 until commit
    0af4201; this was a finding of this suite.)"""
    src = """
            .regs 2
    ssy:    SSY nxt
    nxt:    EXIT
    """
    m, _ = kit.launch(src)
    recs = kit.run_warp(m)
    assert ev(recs[0]) == [("push", "SYNC", 1, FULL32, 1), ("pop", "SYNC", 1, FULL32, 0)]
    assert m.counters.max_stack_depth == 1


def test_bra_never_diverges_and_pops_at_rpc() -> None:
    """BRA: "the whole active mask continues at target (never divergent)", with a partial mask too."""
    src = """
            .regs 4
            LDS r0, %tid
            SLTI r1, r0, 3
            SSY j
            BEQ r1, j           ; threads 3.. wait at j
    bra:    BRA far
            NOP
    far:    BRA j
    j:      EXIT
    """
    L = kit.labels(src)
    m, _ = kit.launch(src)
    recs = kit.run_warp(m)
    (b1,) = [r for r in recs if r.pc == L["bra"]]
    (b2,) = [r for r in recs if r.pc == L["far"]]
    assert b1.mask == 7 and ev(b1) == [] and (b1.next_pc, b1.next_mask) == (L["far"], 7)
    assert ev(b2) == [("pop", "SYNC", L["j"], FULL32, 0)] and b2.next_mask == FULL32
    assert m.counters.divergent_branches == 1  # only the BEQ


# ---------------------------------------------------------------------------------------------
# Invalid lanes (block size not a multiple of the warp size)
# ---------------------------------------------------------------------------------------------
def test_invalid_lanes_never_active_and_count_as_exited() -> None:
    """ "The last warp of a block may be partial: its missing threads are invalid, never active, and
    count as exited." A condition true for all valid threads is uniform (invalid lanes do not vote);
    the SYNC's mask is the valid mask; BAR is legal (active == live)."""
    src = """
            .regs 4
            LDS r0, %tid
            SLTI r1, r0, 40         ; true for every valid thread of the block
    br0:    BEQ r1, bad             ; uniform: nobody branches, no SSY needed
            ANDI r2, r0, 1
    ssy:    SSY j
    br1:    BNE r2, j
            MVI r3, 7
    j:      BAR
            STG [r0 + 0], r3
            EXIT
    bad:    EXIT
    """
    L = kit.labels(src)
    m, _ = kit.launch(src, block=40)
    res = m.run()
    for w, valid in ((0, FULL32), (1, kit.full(8))):
        recs = m.retires_of(0, w)
        assert all(r.mask & ~valid == 0 for r in recs)
        assert recs[0].mask == valid
        (br0,) = [r for r in recs if r.pc == L["br0"]]
        assert ev(br0) == [] and br0.next_mask == valid
        (ssy,) = [r for r in recs if r.pc == L["ssy"]]
        assert ev(ssy) == [("push", "SYNC", L["j"], valid, 1)]
        assert recs[-1].done
    assert kit.gmem(res, 0, 40) == [0 if t & 1 else 7 for t in range(40)]
    assert (res.counters.barrier_arrivals, res.counters.barrier_releases) == (2, 1)


@pytest.mark.parametrize("nthreads", [1, 5, 31, 33, 63])
def test_partial_warp_first_retire_mask(nthreads: int) -> None:
    m, _ = kit.launch(".regs 2\nLDS r1, %tid\nEXIT", block=nthreads)
    m.run()
    masks = {r.warp: r.mask for r in m.log if r.pc == 0}
    assert masks == {w: kit.full(min(32, nthreads - 32 * w)) for w in range(-(-nthreads // 32))}


# ---------------------------------------------------------------------------------------------
# Property: random structured kernels vs. an independent per-thread interpreter
# ---------------------------------------------------------------------------------------------
# Register use: r0 tid, r1..r6 data, r7 output base, r8 ring counter, r9 address temp,
# r10..r13 loop counters by nesting depth, r14 condition.
DATA_REGS = range(1, 7)
RING = 64
REGION = 72
R3 = ["ADD", "SUB", "MUL", "XOR", "AND", "OR", "SLT", "SLTU", "MIN", "MAXU", "SHL", "SRA", "MULHU"]
RI = [("ADDI", -50, 50), ("XORI", 0, 0xFFFF), ("SHRI", 0, 40), ("MULI", -9, 9), ("ANDI", 0, 0xFF)]


class Gen:
    def __init__(self, rng: random.Random, max_depth: int) -> None:
        self.rng, self.max_depth, self.n = rng, max_depth, 0

    def label(self, p: str) -> str:
        self.n += 1
        return f"{p}{self.n}"

    def reg(self) -> str:
        return f"r{self.rng.choice(DATA_REGS)}"

    def simple(self) -> list[str]:
        r = self.rng
        k = r.random()
        if k < 0.45:
            return [f"{r.choice(R3)} {self.reg()}, {self.reg()}, {self.reg()}"]
        if k < 0.7:
            mn, lo, hi = r.choice(RI)
            return [f"{mn} {self.reg()}, {self.reg()}, {r.randint(lo, hi)}"]
        return ["ADD r9, r7, r8", f"STG [r9 + 0], {self.reg()}", "ADDI r8, r8, 1", f"ANDI r8, r8, {RING - 1}"]

    def cond(self) -> list[str]:
        r = self.rng
        src = r.choice(["r0", self.reg(), self.reg()])
        k = r.random()
        if k < 0.4:
            return [f"ANDI r14, {src}, {r.choice([1, 2, 3, 4, 5, 8, 16])}"]
        if k < 0.7:
            return [f"SLTI r14, {src}, {r.randint(-3, 40)}"]
        return [f"SEQI r14, {src}, {r.randint(0, 6)}"]

    def block(self, depth: int, size: int) -> tuple[list[str], int]:
        """Statements and the most stack entries they can hold at once (from section 4.3)."""
        out: list[str] = []
        need = 0
        for _ in range(size):
            lines, n = self.stmt(depth)
            out += lines
            need = max(need, n)
        return out, need

    def stmt(self, depth: int) -> tuple[list[str], int]:
        r = self.rng
        if depth >= self.max_depth or r.random() < 0.45:
            return self.simple(), 0
        kind = r.choice(["ifelse", "ifthen", "loop", "loop2", "exit", "switch"])
        br = r.choice(["BEQ", "BNE"])
        if kind == "ifelse":
            j, t = self.label("j"), self.label("t")
            e_lines, e_need = self.block(depth + 1, r.randint(0, 2))
            t_lines, t_need = self.block(depth + 1, r.randint(0, 2))
            return (
                self.cond()
                + [f"SSY {j}", f"{br} r14, {t}", *e_lines, f"BRA {j}", f"{t}:", *t_lines, f"{j}:"],
                2 + max(e_need, t_need),
            )
        if kind == "ifthen":
            j = self.label("j")
            lines, need = self.block(depth + 1, r.randint(1, 2))
            return self.cond() + [f"SSY {j}", f"{br} r14, {j}", *lines, f"{j}:"], 1 + need
        if kind == "switch":
            j, a, b = self.label("j"), self.label("a"), self.label("b")
            c2 = [x.replace("r14", "r15") for x in self.cond()]
            la, na = self.block(depth + 1, r.randint(0, 1))
            lb, nb = self.block(depth + 1, r.randint(0, 1))
            lc, nc = self.block(depth + 1, r.randint(0, 1))
            return (
                self.cond()
                + c2
                + [
                    f"SSY {j}",
                    f"BNE r14, {a}",
                    f"BNE r15, {b}",
                    *lc,
                    f"BRA {j}",
                    f"{a}:",
                    *la,
                    f"BRA {j}",
                    f"{b}:",
                    *lb,
                    f"{j}:",
                ],
                2 + max(na, nb, nc),
            )
        if kind == "exit":
            ok = self.label("ok")
            return self.cond() + [f"SSY {ok}", f"BNE r14, {ok}", "EXIT", f"{ok}:"], 1
        # loops: counter r(10 + depth) = (reg & 3) + 1 iterations
        cnt = f"r{10 + depth}"
        lp, done = self.label("l"), self.label("d")
        body, need = self.block(depth + 1, r.randint(1, 2))
        head = [
            f"ANDI {cnt}, {r.choice(['r0', self.reg()])}, 3",
            f"ADDI {cnt}, {cnt}, 1",
            f"SSY {done}",
            f"{lp}:",
        ]
        tail = [f"SUBI {cnt}, {cnt}, 1", f"BNE {cnt}, {lp}"]
        if kind == "loop":
            return head + body + tail + [f"{done}:"], 1 + need
        after, _ = self.block(self.max_depth, r.randint(1, 2))  # simple statements only
        return head + body + tail + after + [f"{done}:"], 2 + need


def gen_kernel(seed: int, max_depth: int) -> tuple[str, int]:
    rng = random.Random(seed)
    g = Gen(rng, max_depth)
    body, need = g.block(0, rng.randint(2, 6))
    pro = [".regs 16", "LDS r0, %tid", f"MULI r7, r0, {REGION}", "MVI r8, 0"]
    pro += [f"MULI r{k}, r0, {rng.randint(-99, 99)}" for k in DATA_REGS]
    pro += [f"ADDI r{k}, r{k}, {rng.randint(-20, 20)}" for k in DATA_REGS]
    epi = [f"STG [r7 + {RING + k}], r{k}" for k in DATA_REGS] + ["EXIT"]
    return "\n".join(pro + body + epi), need


def scalar_run(code: list[int], tid: int, gmem: dict[int, int], limit: int = 200_000) -> list[int]:
    """One thread alone, per the spec's per-thread semantics (sections 3.1, 3.3, 3.4); SSY is a no-op
    for a lone thread. Returns the pcs it executes."""
    regs = [0] * 32
    pc, trace = 0, []
    for _ in range(limit):
        d = isa.decode(code[pc])
        trace.append(pc)
        mn, f = d.mnemonic, d.op.fmt
        nxt = pc + 1
        raw = d.word & 0xFFFF
        if mn == "EXIT":
            return trace
        if mn == "LDS":
            assert isa.SREG_NAMES[d.f1] == "tid"
            regs[d.rd] = tid
        elif mn == "STG":
            gmem[(regs[d.f1] + d.imm) & M32] = regs[d.f2]
        elif mn in ("BEQ", "BNE"):
            if (regs[d.f1] == 0) == (mn == "BEQ"):
                nxt = d.imm
        elif mn == "BRA":
            nxt = d.imm
        elif mn == "SSY":
            pass
        elif f is isa.Fmt.R3:
            regs[d.rd] = kit.alu_ref(mn, regs[d.f1], regs[d.f2])
        elif f is isa.Fmt.RMUL:  # "MUL rd, ra, rb: ra in f2, rb in f3"
            regs[d.rd] = kit.alu_ref(mn, regs[d.f2], regs[d.f3])
        elif f is isa.Fmt.RI:
            regs[d.rd] = kit.alu_ref(mn, regs[d.f1], imm16=raw)
        elif f in (isa.Fmt.IMM,):
            regs[d.rd] = kit.alu_ref(mn, 0, imm16=raw)
        else:
            raise AssertionError(f"scalar interpreter: unexpected {mn}")
        pc = nxt
    raise AssertionError("scalar thread did not finish")


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    max_depth=st.integers(1, 3),
    shape=st.sampled_from([(32, 8, 32), (32, 8, 45), (32, 16, 64), (8, 8, 27), (16, 4, 50), (32, 8, 7)]),
)
def test_random_structured_kernels_match_per_thread_execution(seed, max_depth, shape) -> None:
    """SIMT execution with the section 4 stack must give every thread exactly the instruction sequence
    and results it has when run alone; the stack never exceeds the static bound of section 4.3
    (one SYNC and at most one DIV per if/else level; loops add nothing per iteration)."""
    W, L, nthreads = shape
    src, need = gen_kernel(seed, max_depth)
    cfg = GpuConfig(warp_size=W, num_lanes=L, stack_depth=64)
    m, img = kit.launch(src, cfg, block=nthreads)
    res = m.run()
    expected_mem: dict[int, int] = {}
    traces: dict[int, list[int]] = {}
    for t in range(nthreads):
        traces[t] = scalar_run(img.code, t, expected_mem)
    simt: dict[int, list[int]] = {t: [] for t in range(nthreads)}
    for r in m.log:
        assert r.mask, "a retire always has active threads"
        for lane in kit.lanes_of(r.mask):
            simt[r.warp * W + lane].append(r.pc)
    for t in range(nthreads):
        assert simt[t] == traces[t], f"thread {t} path differs\n{src}"
    top = REGION * nthreads
    got = kit.gmem(res, 0, top)
    for a in range(top):
        assert got[a] == expected_mem.get(a, 0), (a, src)
    kit.check_retire_chain(m)
    c = res.counters
    assert c.thread_instrs == sum(len(tr) for tr in traces.values())
    assert c.max_stack_depth <= need, src
    assert c.stack_pops <= c.stack_pushes
