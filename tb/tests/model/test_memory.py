"""Memory: shared-memory banks and passes (docs/isa.md 6.1), constant memory (6.2), global coalescing
(6.3), program-order visibility (6.4), addressing and out-of-range errors (3.3, 7).

Pass and transaction counts are either written down by hand from the spec's rules or computed by
kit.passes_ref / kit.transactions_ref, plain transcriptions of the 6.1 / 6.3 text.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spec.config import GpuConfig
from spec.model import ErrorKind, KernelError
from tb.tests.model import kit
from tb.tests.model.kit import M32

TABLE = 0x4000  # per-lane tables in global memory: addresses, active flags, store data
ADDR, FLAG, DATA, OUT = TABLE, TABLE + 0x100, TABLE + 0x200, TABLE + 0x300


def access_kernel(space: str, store: bool, fill_shared: int = 0, W: int = 32) -> str:
    """Each thread t loads its address, active flag and store data from the tables, then the threads
    with a non-zero flag perform one access (label `acc`); loads land in OUT."""
    lines = [
        ".regs 8",
        "LDS r0, %tid",
        f"LDG r1, [r0 + {ADDR}]",
        f"LDG r2, [r0 + {FLAG}]",
        f"LDG r3, [r0 + {DATA}]",
        "MVI r4, -1",
    ]
    if fill_shared:  # shared[a] = a * 7 + 3 for every word, before the access
        lines += ["MULI r5, r0, 7", "ADDI r5, r5, 3", "MV r6, r0"]
        for _ in range(0, fill_shared, W):
            lines += ["ST [r6 + 0], r5", f"ADDI r6, r6, {W}", f"ADDI r5, r5, {7 * W}"]
    op = {
        ("shared", False): "LD r4, [r1 + 0]",
        ("shared", True): "ST [r1 + 0], r3",
        ("global", False): "LDG r4, [r1 + 0]",
        ("global", True): "STG [r1 + 0], r3",
        ("const", False): "LDC r4, [r1 + 0]",
    }[(space, store)]
    lines += [f"ADDI r7, r0, {OUT}", "SSY j", "BEQ r2, j", f"acc: {op}", "j: STG [r7 + 0], r4", "EXIT"]
    return "\n".join(lines)


def do_access(space, store, addrs, mask, *, cfg=None, shared=0, data=None, consts=None, fill=False, extra=()):
    cfg = cfg or GpuConfig()
    W = cfg.warp_size
    n = len(addrs)
    data = data if data is not None else [(t * 10 + 1) for t in range(n)]
    flags = [mask >> t & 1 for t in range(n)]
    src = access_kernel(space, store, shared if fill else 0, W)
    m, _ = kit.launch(
        src,
        cfg,
        block=n,
        shared_words=shared,
        consts=consts or [],
        data=[(ADDR, list(addrs)), (FLAG, flags), (DATA, data), *extra],
    )
    res = m.run()
    acc = [r for r in m.log if r.pc == kit.labels(src)["acc"]]
    return m, res, acc


# ---------------------------------------------------------------------------------------------
# 6.1 shared memory passes -- hand-written expectations
# ---------------------------------------------------------------------------------------------
def lanes_addrs(fn, n=32):
    return [fn(t) for t in range(n)]


F = kit.FULL32
SHARED_CASES = [
    # name, cfg overrides, addresses by lane, mask, passes (written down from 6.1)
    ("no_conflict_linear", {}, lanes_addrs(lambda t: t), F, 4),  # 1 per row, 4 rows
    ("no_conflict_permuted_in_row", {}, lanes_addrs(lambda t: (t // 8) * 8 + (7 - t % 8)), F, 4),
    ("broadcast_all_same_word", {}, lanes_addrs(lambda t: 5), F, 4),  # 1 per row
    ("two_way", {}, lanes_addrs(lambda t: 2 * t), F, 8),  # banks 0,2,4,6 twice each per row
    ("four_way", {}, lanes_addrs(lambda t: 4 * t), F, 16),
    ("eight_way", {}, lanes_addrs(lambda t: 8 * t), F, 32),  # all 8 lanes of a row in bank 0
    ("same_bank_pairs_share_words", {}, lanes_addrs(lambda t: (t // 2) * 8), F, 16),  # 4 words/bank/row
    ("eight_way_row0_only", {}, lanes_addrs(lambda t: 8 * t if t < 8 else t), F, 8 + 1 + 1 + 1),
    ("k_way_mixed", {}, lanes_addrs(lambda t: [0, 8, 16, 1, 2, 3, 4, 5][t % 8] + 32 * (t // 8)), F, 4 * 3),
    ("partial_first_half_row", {}, lanes_addrs(lambda t: t), 0xF, 1),
    ("partial_rows_0_and_2", {}, lanes_addrs(lambda t: t), (1 << 0) | (1 << 16), 2),
    ("partial_one_lane", {}, lanes_addrs(lambda t: 8 * t), 1 << 31, 1),
    ("partial_conflict_row1", {}, lanes_addrs(lambda t: 8 * t), 0xFF00, 8),
    ("rows_without_active_cost_0", {}, lanes_addrs(lambda t: 8 * t), 0x0300_0003, 2 + 2),
    ("banks4_lanes8_linear", {"num_banks": 4}, lanes_addrs(lambda t: t), F, 8),
    ("banks16_lanes8_stride2", {"num_banks": 16}, lanes_addrs(lambda t: 2 * t), F, 4),
    ("banks16_lanes8_stride16", {"num_banks": 16}, lanes_addrs(lambda t: 16 * t), F, 32),
    ("banks1_linear", {"num_banks": 1}, lanes_addrs(lambda t: t), F, 32),
    ("banks1_broadcast", {"num_banks": 1}, lanes_addrs(lambda t: 9), F, 4),
    ("banks1_pairs", {"num_banks": 1}, lanes_addrs(lambda t: t // 2), F, 16),
    ("banks32_lanes8_stride4", {"num_banks": 32}, lanes_addrs(lambda t: 4 * t), F, 4),
    ("lanes16_banks8_linear", {"num_lanes": 16}, lanes_addrs(lambda t: t), F, 4),  # 2 rows x 2
    ("lanes32_banks8_linear", {"num_lanes": 32}, lanes_addrs(lambda t: t), F, 4),  # 1 row x 4
    ("lanes32_banks32_linear", {"num_lanes": 32, "num_banks": 32}, lanes_addrs(lambda t: t), F, 1),
    ("lanes4_banks8_linear", {"num_lanes": 4}, lanes_addrs(lambda t: t), F, 8),  # 8 rows x 1
    ("lanes4_banks8_stride8", {"num_lanes": 4}, lanes_addrs(lambda t: 8 * t), F, 32),
    ("lanes32_broadcast", {"num_lanes": 32}, lanes_addrs(lambda t: 3), F, 1),
    ("warp8_lanes8_linear", {"warp_size": 8}, lanes_addrs(lambda t: t, 8), 0xFF, 1),
    ("warp16_lanes4_stride2", {"warp_size": 16, "num_lanes": 4}, lanes_addrs(lambda t: 2 * t, 16), 0xFFFF, 4),
]


@pytest.mark.parametrize("store", [False, True], ids=["LD", "ST"])
@pytest.mark.parametrize("name,over,addrs,mask,passes", SHARED_CASES, ids=[c[0] for c in SHARED_CASES])
def test_shared_passes_written(name, over, addrs, mask, passes, store) -> None:
    cfg = GpuConfig(**over)
    m, res, acc = do_access("shared", store, addrs, mask, cfg=cfg, shared=512, fill=not store)
    assert len(acc) == 1
    r = acc[0]
    assert r.mask == mask
    assert r.mem.space == "shared" and r.mem.store == store
    assert [int(r.mem.addrs[t]) for t in kit.lanes_of(mask)] == [addrs[t] for t in kit.lanes_of(mask)]
    assert r.mem.passes == passes
    assert passes == kit.passes_ref(addrs, mask, cfg.warp_size, cfg.num_lanes, cfg.num_banks)
    fills = 0 if store else 512 // cfg.warp_size  # the ST instructions filling shared memory
    assert res.counters.shared_accesses == 1 + fills
    if not store:  # loads: every active lane gets shared[a] = 7a + 3 (broadcast included)
        got = kit.gmem(res, OUT, len(addrs))
        assert [got[t] for t in kit.lanes_of(mask)] == [7 * addrs[t] + 3 for t in kit.lanes_of(mask)]
        assert r.rd == 4 and kit.active(r.values, mask) == {t: 7 * addrs[t] + 3 for t in kit.lanes_of(mask)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    geometry=st.sampled_from(
        [
            (32, 8, 8),
            (32, 8, 4),
            (32, 8, 16),
            (32, 4, 8),
            (32, 16, 8),
            (32, 32, 32),
            (16, 8, 2),
            (8, 4, 1),
            (32, 8, 32),
        ]
    ),
    data=st.data(),
)
def test_shared_passes_random(geometry, data) -> None:
    W, L, B = geometry
    span = data.draw(st.sampled_from([4, 16, 64, 256]))
    addrs = data.draw(st.lists(st.integers(0, span - 1), min_size=W, max_size=W))
    mask = data.draw(st.integers(1, (1 << W) - 1))
    store = data.draw(st.booleans())
    cfg = GpuConfig(warp_size=W, num_lanes=L, num_banks=B)
    m, res, (r,) = do_access("shared", store, addrs, mask, cfg=cfg, shared=256, fill=not store)
    assert r.mem.passes == kit.passes_ref(addrs, mask, W, L, B)
    if store:  # final contents: for each word, the data of the highest active lane storing to it
        exp = [0] * 256
        for t in kit.lanes_of(mask):
            exp[addrs[t]] = t * 10 + 1
        assert [int(x) for x in res.shared[0]] == exp
    else:
        got = kit.gmem(res, OUT, W)
        assert [got[t] for t in kit.lanes_of(mask)] == [7 * addrs[t] + 3 for t in kit.lanes_of(mask)]


def test_shared_store_highest_lane_wins() -> None:
    """3.3 "When several active threads of one warp-instruction store to the same word, the thread with
    the highest lane index wins." 6.1: same-word stores cost one pass per row."""
    addrs = [5] * 16 + [t // 4 for t in range(16)]  # lanes 0..15 -> word 5; lanes 16..31 -> words 0..3
    m, res, (r,) = do_access("shared", True, addrs, kit.FULL32, shared=8)
    sh = [int(x) for x in res.shared[0]]
    assert sh[5] == 15 * 10 + 1
    assert sh[0:4] == [19 * 10 + 1, 23 * 10 + 1, 27 * 10 + 1, 31 * 10 + 1]
    assert r.mem.passes == 1 + 1 + 1 + 1
    # highest *active* lane: lane 15 and 31 inactive
    mask = kit.FULL32 & ~(1 << 15) & ~(1 << 31)
    m, res, (r,) = do_access("shared", True, addrs, mask, shared=8)
    sh = [int(x) for x in res.shared[0]]
    assert sh[5] == 14 * 10 + 1 and sh[3] == 30 * 10 + 1


SHARED_BLOCKS = """
        .regs 8
        .shared 48
        LDS r0, %tid
        LDS r1, %ctaid.x
        LD r2, [r0 + 0]         ; before any store of this block: 0
        MULI r3, r1, 1000
        ADD r3, r3, r0
        ST [r0 + 0], r3         ; shared[t] = 1000 * block + t
        BAR
        ADDI r4, r0, 1
        ANDI r4, r4, 31         ; neighbour in the block (32 threads)
        LD r5, [r4 + 0]
        SHLI r6, r1, 6
        ADD r6, r6, r0
        STG [r6 + 0], r2
        STG [r6 + 32], r5
        EXIT
"""


@pytest.mark.parametrize("num_blocks", [1, 2, 4])
def test_shared_zero_at_block_start_and_private_per_block(num_blocks: int) -> None:
    """6.1: "Each block has S words of shared memory ..., zero when the block starts, private to the
    block." With 1 resident block the blocks reuse the SM's memory one after the other; with 4 they
    are resident together."""
    res = kit.run(SHARED_BLOCKS, GpuConfig(num_blocks=num_blocks), grid=5, block=32)
    for b in range(5):
        assert kit.gmem(res, 64 * b, 32) == [0] * 32
        assert kit.gmem(res, 64 * b + 32, 32) == [1000 * b + (t + 1) % 32 for t in range(32)]
        assert [int(x) for x in res.shared[b]] == [1000 * b + t for t in range(32)] + [0] * 16


@pytest.mark.parametrize("op", ["LD r2, [r1 + 0]", "ST [r1 + 0], r0"])
def test_shared_out_of_range_lowest_lane(op: str) -> None:
    """SHARED_OUT_OF_RANGE: an address >= the block's shared words; the error names the lowest offending
    lane. Lanes 5 and 9 are out of range (64 and 100 with 64 words)."""
    src = f"""
            .regs 4
            .shared 64
            LDS r0, %tid
            LDG r1, [r0 + {ADDR}]
    acc:    {op}
            EXIT
    """
    addrs = [t for t in range(32)]
    addrs[5], addrs[9] = 64, 100
    m, _ = kit.launch(src, block=64, grid=2, data=[(ADDR, addrs), (ADDR + 32, [63] * 32)])
    kit.run_warp(m, 1, 1)  # warp 1 reads lanes' addresses 32..63 -> all 63: fine
    with pytest.raises(KernelError) as ei:
        kit.run_warp(m, 1, 0)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc, e.lane) == (
        ErrorKind.SHARED_OUT_OF_RANGE,
        1,
        0,
        kit.labels(src)["acc"],
        5,
    )


@pytest.mark.parametrize("offset", [-1, -32768])
def test_shared_negative_address_wraps_and_is_out_of_range(offset: int) -> None:
    """ "Addresses are computed modulo 2^32 and treated as unsigned": tid + offset < 0 is a huge
    address, out of range (not a negative index into the end of the memory)."""
    src = f".regs 4\n.shared 1024\nLDS r0, %tid\nacc: LD r1, [r0 - {-offset}]\nEXIT"
    m, _ = kit.launch(src)
    with pytest.raises(KernelError) as ei:
        m.run()
    assert (ei.value.kind, ei.value.lane, ei.value.pc) == (ErrorKind.SHARED_OUT_OF_RANGE, 0, 1)


def test_shared_last_word_in_range_and_inactive_lanes_not_checked() -> None:
    """Address S-1 is fine; an inactive lane's bad address is no error ("effect per active thread")."""
    addrs = [63] * 32
    addrs[7] = 64
    m, res, (r,) = do_access("shared", True, addrs, kit.FULL32 & ~(1 << 7), shared=64)
    assert int(res.shared[0][63]) == 31 * 10 + 1
    with pytest.raises(KernelError) as ei:
        do_access("shared", True, addrs, kit.FULL32, shared=64)
    assert ei.value.lane == 7


def test_shared_size_zero_any_access_out_of_range() -> None:
    m, _ = kit.launch(".regs 2\nLD r1, [r0 + 0]\nEXIT", shared_words=0)
    with pytest.raises(KernelError) as ei:
        m.run()
    assert (ei.value.kind, ei.value.lane) == (ErrorKind.SHARED_OUT_OF_RANGE, 0)


def test_memory_offsets_sign_extended() -> None:
    """LOAD: address = ra + sign-extended imm16; STORE: ra + sign-extended imm11."""
    src = """
            .regs 4
            .shared 65536
            LDS r0, %tid
            ADDI r1, r0, 1030
            ST [r1 - 1024], r1      ; shared[t + 6] = t + 1030
            ST [r0 + 1023], r0      ; shared[t + 1023] = t
            LI r2, 40000
            ADD r2, r2, r0
            LD r3, [r2 - 32768]     ; shared[t + 7232] = 0 (never written)
            STG [r0 + 0], r3
            LD r3, [r0 + 32767]
            STG [r0 + 32], r3
            LD r3, [r1 - 1024]
            STG [r0 + 64], r3
            EXIT
    """
    res = kit.run(src, GpuConfig(shared_words=65536))
    sh = res.shared[0]
    assert [int(sh[t + 6]) for t in range(32)] == [t + 1030 for t in range(32)]
    assert [int(sh[t + 1023]) for t in range(32)] == list(range(32))
    assert kit.gmem(res, 64, 32) == [t + 1030 for t in range(32)]
    assert kit.gmem(res, 0, 32) == [0] * 32


# ---------------------------------------------------------------------------------------------
# 6.3 global coalescing
# ---------------------------------------------------------------------------------------------
GLOBAL_CASES = [
    # name, seg, addresses, mask, [(base, word mask)] in issue order (written down from 6.3)
    ("sequential_aligned", 8, lanes_addrs(lambda t: t), F, [(0, 0xFF), (8, 0xFF), (16, 0xFF), (24, 0xFF)]),
    (
        "sequential_base_64",
        8,
        lanes_addrs(lambda t: 64 + t),
        F,
        [(64, 0xFF), (72, 0xFF), (80, 0xFF), (88, 0xFF)],
    ),
    (
        "misaligned_base_3",
        8,
        lanes_addrs(lambda t: 3 + t),
        F,
        [(0, 0xF8), (8, 0xFF), (16, 0xFF), (24, 0xFF), (32, 0x07)],
    ),
    ("stride_2", 8, lanes_addrs(lambda t: 2 * t), F, [(8 * k, 0x55) for k in range(8)]),
    ("stride_8_one_per_lane", 8, lanes_addrs(lambda t: 8 * t), F, [(8 * t, 0x01) for t in range(32)]),
    (
        "stride_9_scattered",
        8,
        lanes_addrs(lambda t: 9 * t),
        F,
        [(9 * t // 8 * 8, 1 << (9 * t % 8)) for t in range(32)],
    ),
    (
        "reversed_order_lowest_lane_first",
        8,
        lanes_addrs(lambda t: 31 - t),
        F,
        [(24, 0xFF), (16, 0xFF), (8, 0xFF), (0, 0xFF)],
    ),
    ("interleaved_order", 8, [20, 1, 21, 40, 2] + [0] * 27, 0x1F, [(16, 0x30), (0, 0x06), (40, 0x01)]),
    ("broadcast", 8, lanes_addrs(lambda t: 100), F, [(96, 0x10)]),
    ("partial_first_four", 8, lanes_addrs(lambda t: t), 0xF, [(0, 0x0F)]),
    (
        "partial_lanes_1_9_17",
        8,
        lanes_addrs(lambda t: t),
        (1 << 1) | (1 << 9) | (1 << 17),
        [(0, 0x02), (8, 0x02), (16, 0x02)],
    ),
    ("partial_skips_inactive_segment", 8, lanes_addrs(lambda t: 8 * t), 0x8000_0001, [(0, 1), (248, 1)]),
    ("seg1_each_word", 1, lanes_addrs(lambda t: t // 2), F, [(k, 1) for k in range(16)]),
    ("seg32_sequential_one", 32, lanes_addrs(lambda t: t), F, [(0, 0xFFFF_FFFF)]),
    ("seg32_misaligned_two", 32, lanes_addrs(lambda t: 40 + t), F, [(32, 0xFFFF_FF00), (64, 0xFF)]),
    ("seg4", 4, lanes_addrs(lambda t: t), F, [(4 * k, 0xF) for k in range(8)]),
]


@pytest.mark.parametrize("store", [False, True], ids=["LDG", "STG"])
@pytest.mark.parametrize("name,seg,addrs,mask,txs", GLOBAL_CASES, ids=[c[0] for c in GLOBAL_CASES])
def test_global_transactions_written(name, seg, addrs, mask, txs, store) -> None:
    cfg = GpuConfig(seg_words=seg)
    init = [(0, [0x5000 + a for a in range(1024)])]
    m, res, (r,) = do_access("global", store, addrs, mask, cfg=cfg, extra=init)
    assert r.mem.space == "global" and r.mem.store == store and r.mask == mask
    assert [(t.base, t.mask) for t in r.mem.transactions] == txs
    assert all(t.store == store for t in r.mem.transactions)
    assert [(b, mk) for b, mk, _ in kit.transactions_ref(addrs, mask, seg)] == txs
    if store:
        winners: dict[int, int] = {}
        for t in kit.lanes_of(mask):
            winners[addrs[t]] = t * 10 + 1
        for tx in r.mem.transactions:
            for i in kit.lanes_of(tx.mask):
                assert tx.data[i] == winners[tx.base + i]
        g = kit.gmem(res, 0, 1024)
        assert g == [winners.get(a, 0x5000 + a) for a in range(1024)]
    else:
        got = kit.gmem(res, OUT, 32)
        assert [got[t] for t in kit.lanes_of(mask)] == [0x5000 + addrs[t] for t in kit.lanes_of(mask)]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seg=st.sampled_from([1, 2, 4, 8, 16, 32]),
    W=st.sampled_from([32, 16, 8]),
    data=st.data(),
)
def test_global_transactions_random(seg, W, data) -> None:
    span = data.draw(st.sampled_from([8, 40, 300]))
    addrs = data.draw(st.lists(st.integers(0, span), min_size=W, max_size=W))
    mask = data.draw(st.integers(1, (1 << W) - 1))
    store = data.draw(st.booleans())
    cfg = GpuConfig(seg_words=seg, warp_size=W)
    vals = data.draw(st.lists(st.integers(0, M32), min_size=W, max_size=W))
    m, res, (r,) = do_access("global", store, addrs, mask, cfg=cfg, data=vals)
    ref = kit.transactions_ref(addrs, mask, seg, vals if store else None)
    assert [(t.base, t.mask) for t in r.mem.transactions] == [(b, mk) for b, mk, _ in ref]
    if store:
        for tx, (_, _, words) in zip(r.mem.transactions, ref):
            assert {i: tx.data[i] for i in kit.lanes_of(tx.mask)} == words
        g = kit.gmem(res, 0, span + 1)
        exp = [0] * (span + 1)
        for t in kit.lanes_of(mask):
            exp[addrs[t]] = vals[t]
        assert g == exp
    # 3 table loads and the OUT store are W consecutive aligned words: ceil(W / seg) transactions each
    c = res.counters
    assert c.global_accesses == 5
    assert c.global_transactions == len(ref) + 4 * -(-W // seg)


@pytest.mark.parametrize("op", ["LDG r2, [r1 + 0]", "STG [r1 + 0], r0"])
def test_global_out_of_range_lowest_lane(op: str) -> None:
    src = f"""
            .regs 4
            LDS r0, %tid
            LDG r1, [r0 + 512]
    acc:    {op}
            EXIT
    """
    addrs = [1023 - t for t in range(32)]
    addrs[3], addrs[20] = 1024, 0xFFFF_FFFF
    m, _ = kit.launch(src, GpuConfig(global_words=1024), data=[(512, addrs)])
    with pytest.raises(KernelError) as ei:
        m.run()
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc, e.lane) == (
        ErrorKind.GLOBAL_OUT_OF_RANGE,
        0,
        0,
        kit.labels(src)["acc"],
        3,
    )


def test_global_negative_offset_wraps_out_of_range() -> None:
    src = ".regs 4\nLDS r0, %tid\nSTG [r0 - 1], r0\nEXIT"
    with pytest.raises(KernelError) as ei:
        kit.run(src)
    assert (ei.value.kind, ei.value.lane) == (ErrorKind.GLOBAL_OUT_OF_RANGE, 0)


def test_global_last_word_in_range() -> None:
    res = kit.run(
        ".regs 4\nLI r1, 1023\nMVI r2, 77\nSTG [r1 + 0], r2\nEXIT", GpuConfig(global_words=1024), block=1
    )
    assert kit.gmem(res, 1023, 1) == [77]


def test_warp_load_sees_its_own_earlier_store() -> None:
    """6.4 "Each warp's memory operations take effect in its program order: a warp's load sees its own
    earlier stores" -- including words stored by other lanes of the same warp."""
    src = """
            .regs 8
            LDS r0, %tid
            MULI r1, r0, 3
            ADDI r1, r1, 11
            STG [r0 + 200], r1
            ADDI r2, r0, 1
            ANDI r2, r2, 31
            LDG r3, [r2 + 200]      ; the neighbour lane's store
            ST [r0 + 0], r1
            LD r4, [r2 + 0]
            STG [r0 + 300], r3
            STG [r0 + 400], r4
            STG [r0 + 200], r0      ; overwrite, then read back
            LDG r5, [r0 + 200]
            STG [r0 + 500], r5
            EXIT
    """
    res = kit.run(src, shared_words=32)
    nb = [((t + 1) % 32) * 3 + 11 for t in range(32)]
    assert kit.gmem(res, 300, 32) == nb
    assert kit.gmem(res, 400, 32) == nb
    assert kit.gmem(res, 500, 32) == list(range(32))


def test_global_initialised_from_data_records_zero_elsewhere() -> None:
    """6.3 "initialised from the launch image's DATA records (zero elsewhere)"."""
    src = """
            .regs 4
            LDS r0, %tid
            LDG r1, [r0 + 100]
            LDG r2, [r0 + 5000]
            ADDI r3, r0, 9000
            STG [r3 + 0], r1
            STG [r3 + 100], r2
            EXIT
            .data 100
            .word 1, 2, 3, 0xFFFFFFFF
            .data 5010
            .word 9, 8
    """
    res = kit.run(src)
    assert kit.gmem(res, 9000, 32) == [1, 2, 3, 0xFFFF_FFFF] + [0] * 28
    assert kit.gmem(res, 9100, 32) == [0] * 10 + [9, 8] + [0] * 20


# ---------------------------------------------------------------------------------------------
# 6.2 constant memory
# ---------------------------------------------------------------------------------------------
def test_ldc_reads_constants_per_lane_no_bank_model() -> None:
    consts = [(0xC0DE_0000 + 3 * k) & M32 for k in range(40)]
    addrs = [(t * 7) % 40 for t in range(32)]
    m, res, (r,) = do_access("const", False, addrs, kit.FULL32, consts=consts)
    assert r.mem.space == "const" and not r.mem.store
    assert r.mem.transactions == ()
    assert kit.gmem(res, OUT, 32) == [consts[a] for a in addrs]
    c = res.counters
    assert (c.warp_by_class["const"], c.thread_by_class["const"]) == (1, 32)
    assert (c.shared_accesses, c.shared_passes) == (0, 0)
    assert c.global_accesses == 4  # the 3 table loads and the OUT store; LDC is not a global access


def test_ldc_offset_and_const_section() -> None:
    src = """
            .regs 4
            LDS r0, %tid
            LDC r1, [r0 + 2]
            STG [r0 + 0], r1
            EXIT
            .const
            .word 10, 11, 12, 13, 14, 15
    """
    res = kit.run(src, block=4)
    assert kit.gmem(res, 0, 4) == [12, 13, 14, 15]


@pytest.mark.parametrize("nconsts", [0, 5])
def test_const_out_of_range_is_constants_loaded_not_capacity(nconsts: int) -> None:
    """CONST_OUT_OF_RANGE: "≥ the constants loaded" (CONST_WORDS is 256 here)."""
    src = ".regs 4\nLDS r0, %tid\nacc: LDC r1, [r0 + 0]\nEXIT"
    m, _ = kit.launch(src, block=nconsts + 3, consts=list(range(100, 100 + nconsts)))
    with pytest.raises(KernelError) as ei:
        m.run()
    e = ei.value
    assert (e.kind, e.pc, e.lane) == (ErrorKind.CONST_OUT_OF_RANGE, 1, nconsts)
