"""tb/hdl/simt_tb_mem.v bench: the HDL global memory the GPU benches use keeps the Python responder's
contract (tb/agents/gmem_responder.py), so replacing one by the other changed nothing the GPU sees.

A random requester (random valid gaps, loads and stores to a few segments, random masks, data and
unique tags) and a random response consumer (random mrsp_ready) drive the memory under each knob
profile. Checks:

- acceptance order is the memory's order: the bench's own copy, updated at each accepted store,
  gives every load's data (unmasked words 0); stores are answered with 0;
- every request is answered exactly once, with its tag; a presented response stays unchanged until
  taken; at the end nothing is owed and ``pending`` is 0;
- latency: never below the minimum; exactly the latency when it is fixed; in order, with every
  response taken at once and no bubbles, never above the maximum except behind an older response; in order (``ooo`` = 0) responses come in acceptance order, and out of order some
  overtake when latencies differ;
- ``mreq_ready`` follows its probability (never high at 0, always at 256 unless PEND responses are
  owed: then the memory back-pressures);
- planted protocol faults: a request changed while held off, and an unaligned address, raise
  ``proto_err`` with their codes (the GPU harness turns them into a ProtocolError).
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from tb import rtlsim

HDL = rtlsim.ROOT / "tb" / "hdl"
SOURCES = [str(HDL / "simt_tb_mem.v")]
SEG, TAG_W, WORDS, PEND = 4, 6, 1024, 8
M32 = 0xFFFF_FFFF
# (ready /256, lat min, lat max, out of order, rsp /256)
PROFILES = {
    "ideal": (256, 1, 1, 0, 256),
    "fixed20": (256, 20, 20, 0, 256),
    "default": (179, 2, 40, 1, 205),
    "stress": (77, 1, 200, 1, 102),
    "in_order_random": (200, 1, 30, 0, 256),
}


async def reset(dut, profile: tuple[int, int, int, int, int], seed: int) -> None:
    ready, lo, hi, ooo, rsp = profile
    dut.ready_pct.value, dut.lat_min.value, dut.lat_max.value = ready, lo, hi
    dut.ooo.value, dut.rsp_pct.value, dut.seed.value, dut.clear.value = ooo, rsp, seed, 0
    dut.mreq_valid.value, dut.mreq_write.value, dut.mreq_addr.value = 0, 0, 0
    dut.mreq_mask.value, dut.mreq_wdata.value, dut.mreq_tag.value, dut.mrsp_ready.value = 0, 0, 0, 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    dut.clear.value = 1
    await RisingEdge(dut.clk)
    dut.clear.value = 0


async def traffic(dut, name: str, rng: random.Random, n: int = 300, take_prob: float = 1.0) -> dict[str, int]:
    profile = PROFILES[name]
    _, lo, hi, ooo, rsp = profile
    await reset(dut, profile, rng.getrandbits(63))
    mem = [0] * WORDS
    owed: dict[int, tuple[int, list[int]]] = {}  # tag -> (acceptance cycle, response data)
    order: list[int] = []  # tags in acceptance order, still owed
    free_tags = list(range(1 << TAG_W))
    rng.shuffle(free_tags)
    sent = answered = overtook = cycle = ready_high = ready_seen = 0
    last_answer = -1
    cur = None  # the request being offered
    shown = None  # the response seen valid and not taken last cycle
    while (sent < n or owed) and cycle < 100_000:
        # drive this cycle's inputs (after the edge)
        if cur is None and sent < n and free_tags and rng.random() < 0.6:
            write = rng.random() < 0.4
            seg = rng.randrange(6)
            cur = (
                seg * SEG,
                write,
                rng.randrange(1, 1 << SEG),
                [rng.getrandbits(32) for _ in range(SEG)],
                free_tags.pop(),
            )
        if cur is not None:
            addr, write, mask, words, tag = cur
            dut.mreq_valid.value, dut.mreq_addr.value, dut.mreq_write.value = 1, addr, int(write)
            dut.mreq_mask.value, dut.mreq_tag.value = mask, tag
            dut.mreq_wdata.value = sum(w << (32 * i) for i, w in enumerate(words))
        else:
            dut.mreq_valid.value = 0
        take = rng.random() < take_prob
        dut.mrsp_ready.value = int(take)
        await ReadOnly()
        ready = int(dut.mreq_ready.value)
        if int(dut.pending.value) < PEND_ENV():  # full: back-pressure whatever the probability
            ready_seen += 1
            ready_high += ready
        if cur is not None and ready:  # accepted at this edge: the memory's order
            addr, write, mask, words, tag = cur
            if write:
                for i in range(SEG):
                    if mask >> i & 1:
                        mem[addr + i] = words[i]
                data = [0] * SEG
            else:
                data = [mem[addr + i] if mask >> i & 1 else 0 for i in range(SEG)]
            owed[tag] = (cycle, data)
            order.append(tag)
            sent += 1
            cur = None
        if int(dut.mrsp_valid.value):
            tag = int(dut.mrsp_tag.value)
            rdata = int(dut.mrsp_rdata.value)
            if shown is not None:
                assert (tag, rdata) == shown, (
                    f"presented response changed before taken: {shown} -> {(tag, rdata)}"
                )
            assert tag in owed, f"response with tag {tag} answers nothing owed"
            if take:
                t0, data = owed.pop(tag)
                got = [(rdata >> (32 * i)) & M32 for i in range(SEG)]
                assert got == data, f"tag {tag}: data {got}, expected {data}"
                latency = cycle - t0
                assert latency >= lo, f"tag {tag}: latency {latency} below the minimum {lo}"
                if lo == hi and take_prob == 1.0 and rsp == 256 and profile[0] == 256:
                    assert latency == lo, f"tag {tag}: latency {latency}, the memory's fixed latency is {lo}"
                elif take_prob == 1.0 and rsp == 256 and not ooo:  # late only behind an older response
                    assert cycle <= max(t0 + hi, last_answer + 1), (
                        f"tag {tag}: latency {latency} above the maximum {hi}, not explained by queueing"
                    )
                last_answer = cycle
                if not ooo:
                    assert order[0] == tag, f"in-order memory answered tag {tag} before {order[0]}"
                overtook += order[0] != tag
                order.remove(tag)
                free_tags.append(tag)
                answered += 1
                shown = None
            else:
                shown = (tag, rdata)
        else:
            assert shown is None, "a presented response was withdrawn before it was taken"
        await RisingEdge(dut.clk)
        cycle += 1
    assert sent == n and answered == n and not owed, (
        f"{name}: sent {sent}, answered {answered}, owed {len(owed)}"
    )
    await ReadOnly()
    assert int(dut.pending.value) == 0, f"{name}: pending {int(dut.pending.value)} after every response"
    assert int(dut.proto_err.value) == 0, (
        f"{name}: protocol error {int(dut.proto_err.value)} on legal traffic"
    )
    await RisingEdge(dut.clk)
    return {"overtook": overtook, "ready_high": ready_high, "ready_seen": ready_seen}


def PEND_ENV() -> int:  # noqa: N802 - the PEND the launcher built
    return int(os.environ.get("TB_MEM_PEND", PEND))


@cocotb.test()
async def contract(dut) -> None:
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns", impl="gpi").start())
    rng = random.Random(cocotb.RANDOM_SEED)
    for name in PROFILES:
        stats = await traffic(dut, name, rng)
        ready = PROFILES[name][0]
        if ready == 256:
            assert stats["ready_high"] == stats["ready_seen"], (
                f"{name}: mreq_ready low with probability 256/256"
            )
        if name in ("default", "stress") and PEND_ENV() > 1:
            assert stats["overtook"] > 0, f"{name}: out-of-order memory never reordered a response"
        if name == "in_order_random":
            assert stats["overtook"] == 0
    await traffic(dut, "default", rng, take_prob=0.5)  # a slow consumer: responses held until taken
    await reset(dut, (0, 1, 1, 0, 256), 5)
    for _ in range(20):
        await RisingEdge(dut.clk)
        await ReadOnly()
        assert int(dut.mreq_ready.value) == 0, "mreq_ready high with probability 0"


@cocotb.test()
async def protocol_faults(dut) -> None:
    """Planted faults: the memory must flag a request changed while held, and an unaligned address."""
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns", impl="gpi").start())
    await reset(dut, (0, 1, 1, 0, 256), 3)  # never ready: requests are held
    dut.mreq_valid.value, dut.mreq_addr.value, dut.mreq_mask.value, dut.mreq_tag.value = 1, 8, 1, 1
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.mreq_addr.value = 12  # changed while held off
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    await ReadOnly()
    assert int(dut.proto_err.value) == 2, (
        f"changed held request: proto_err {int(dut.proto_err.value)}, expected 2"
    )
    await RisingEdge(dut.clk)
    await reset(dut, PROFILES["ideal"], 3)
    dut.mreq_valid.value, dut.mreq_addr.value, dut.mreq_mask.value, dut.mreq_tag.value = (
        1,
        6,
        1,
        2,
    )  # unaligned
    await RisingEdge(dut.clk)
    dut.mreq_valid.value = 0
    await RisingEdge(dut.clk)
    await ReadOnly()
    assert int(dut.proto_err.value) == 3, (
        f"unaligned address: proto_err {int(dut.proto_err.value)}, expected 3"
    )


def test_tb_mem() -> None:
    rtlsim.run(
        "simt_tb_mem",
        SOURCES,
        __name__,
        parameters={"SEG_WORDS": SEG, "XTAG_W": TAG_W, "GLOBAL_WORDS": WORDS, "PEND": PEND},
    )


def test_tb_mem_single_entry() -> None:
    """PEND=1: one response in flight at a time, so the memory back-pressures while one is owed."""
    rtlsim.run(
        "simt_tb_mem",
        SOURCES,
        __name__,
        testcase="contract",
        extra_env={"TB_MEM_PEND": "1"},
        parameters={"SEG_WORDS": SEG, "XTAG_W": TAG_W, "GLOBAL_WORDS": WORDS, "PEND": 1},
    )
