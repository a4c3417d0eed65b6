"""Test kit for the golden-model tests: assemble a kernel, launch it on the model, step warps, and
spec-derived reference helpers (docs/isa.md) written with plain Python ints.

Everything a test *expects* is computed here or in the test from the specification text, never by
asking the model. The model is only the device under test.

Main entry points:

* ``launch(src, cfg=None, **overrides) -> (model, image)``: assemble ``src`` (spec/asm.py) and
  build a model. ``overrides`` replace fields of the assembled ``LaunchImage`` (grid, block, regs,
  shared_words, params, consts, data, code), so bulk data need not be written as ``.word`` lines.
  ``budget`` and ``detect_races`` go to the model.
* ``run(src, ...) -> RunResult``; ``run_warp(model, bid, wid)`` steps one warp to completion.
* ``labels(src)``: label -> pc, from the assembler's symbol table.
* Every model built here is a ``TracingModel``: it records its retires in ``model.log`` and adds every
  executed mnemonic to the module-level ``EXECUTED`` set.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Iterable, Sequence
from typing import Any

from spec import asm
from spec.config import GpuConfig
from spec.image import LaunchImage
from spec.model import Model, Retire, RunResult, WarpState

M32 = 0xFFFF_FFFF
FULL32 = M32
BOUNDARY = (0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF, 0x1234_5678)

EXECUTED: set[str] = set()  # every mnemonic any TracingModel retired in this process


# ---------------------------------------------------------------------------------------------
# Masks and words
# ---------------------------------------------------------------------------------------------
def mask_of(lanes: Iterable[int]) -> int:
    m = 0
    for lane in lanes:
        m |= 1 << lane
    return m


def lanes_of(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def full(n: int) -> int:
    """Mask of lanes 0..n-1."""
    return (1 << n) - 1


def s32(x: int) -> int:
    """Two's complement reading of a 32-bit word."""
    x &= M32
    return x - (1 << 32) if x & 0x8000_0000 else x


def u32(x: int) -> int:
    return x & M32


def sext16(x: int) -> int:
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


# ---------------------------------------------------------------------------------------------
# Spec reference semantics (docs/isa.md 2, 3.1) -- plain ints, written from the prose
# ---------------------------------------------------------------------------------------------
def _shl(a: int, b: int) -> int:
    return 0 if b >= 32 else (a << b) & M32


def _shr(a: int, b: int) -> int:
    return 0 if b >= 32 else a >> b


def _sra(a: int, b: int) -> int:
    # "SRA by >= 32 gives 0 for a non-negative operand and 0xFFFFFFFF for a negative one"
    if b >= 32:
        return M32 if a & 0x8000_0000 else 0
    return (s32(a) >> b) & M32


ALU_REF = {
    "ADD": lambda a, b: (a + b) & M32,
    "SUB": lambda a, b: (a - b) & M32,
    "MUL": lambda a, b: (a * b) & M32,
    "SLT": lambda a, b: int(s32(a) < s32(b)),
    "SGT": lambda a, b: int(s32(a) > s32(b)),
    "SHR": _shr,
    "SHL": _shl,
    "AND": lambda a, b: a & b,
    "OR": lambda a, b: a | b,
    "XOR": lambda a, b: a ^ b,
    "SLTU": lambda a, b: int(a < b),
    "SGTU": lambda a, b: int(a > b),
    "SEQ": lambda a, b: int(a == b),
    "SNE": lambda a, b: int(a != b),
    "MIN": lambda a, b: a if s32(a) <= s32(b) else b,
    "MAX": lambda a, b: a if s32(a) >= s32(b) else b,
    "MINU": lambda a, b: min(a, b),
    "MAXU": lambda a, b: max(a, b),
    "SRA": _sra,
    "MULHU": lambda a, b: (a * b) >> 32,
}
# Binary register ALU operations in R3 layout (rd, ra, rb) -- docs/isa.md section 3 table.
R3_OPS = tuple(ALU_REF)

# Immediate forms (section 2: "opcode 0x20 | func"); zero-extended for exactly these (section 2 prose):
ZERO_EXT_IMM = frozenset({"AND", "OR", "XOR", "SHL", "SHR", "SRA"})
IMM_FORMS = (
    "ADDI", "SUBI", "MULI", "SLTI", "SGTI", "SLTUI", "SGTUI", "SEQI", "SNEI", "MINI", "MAXI",
    "MINUI", "MAXUI", "ANDI", "ORI", "XORI", "SHLI", "SHRI", "SRAI", "MULHUI",
)  # fmt: skip


def imm_operand(mnemonic_i: str, raw16: int) -> int:
    """The 32-bit operand an immediate ALU form gets from its raw 16-bit field (section 2)."""
    base = mnemonic_i[:-1]
    raw16 &= 0xFFFF
    return raw16 if base in ZERO_EXT_IMM else sext16(raw16) & M32


def imm_asm(mnemonic_i: str, raw16: int) -> int:
    """The value to write in assembly for a raw 16-bit field (signed for sign-extended forms)."""
    return raw16 & 0xFFFF if mnemonic_i[:-1] in ZERO_EXT_IMM else sext16(raw16)


def alu_ref(mnemonic: str, a: int, b: int = 0, c: int = 0, imm16: int | None = None) -> int:
    """Spec result of an ALU instruction: register forms read a, b (and c for MAD's addend);
    immediate forms use ``imm16`` (the raw 16-bit field)."""
    a, b, c = a & M32, b & M32, c & M32
    if mnemonic in ALU_REF:
        return ALU_REF[mnemonic](a, b)
    if mnemonic == "MAD":
        return (a * b + c) & M32
    if mnemonic == "NOT":
        return ~a & M32
    if mnemonic == "MV":
        return a
    if mnemonic == "MVI":
        assert imm16 is not None
        return sext16(imm16) & M32
    if mnemonic == "LUI":
        assert imm16 is not None
        return (imm16 & 0xFFFF) << 16
    if mnemonic in IMM_FORMS:
        assert imm16 is not None
        return ALU_REF[mnemonic[:-1]](a, imm_operand(mnemonic, imm16))
    raise KeyError(mnemonic)


# ---------------------------------------------------------------------------------------------
# Spec reference costs (docs/isa.md 6.1, 6.3)
# ---------------------------------------------------------------------------------------------
def passes_ref(addrs: Sequence[int], mask: int, warp_size: int, num_lanes: int, num_banks: int) -> int:
    """Shared-memory passes: per row of NUM_LANES lanes, 0 if no lane active, else the max over banks
    of the number of distinct addresses the row's active lanes request in that bank; summed."""
    total = 0
    for lo in range(0, warp_size, num_lanes):
        row = [addrs[i] for i in range(lo, lo + num_lanes) if mask >> i & 1]
        if not row:
            continue
        total += max(len({a for a in row if a % num_banks == b}) for b in {a % num_banks for a in row})
    return total


def transactions_ref(
    addrs: Sequence[int], mask: int, seg_words: int, data: Sequence[int] | None = None
) -> list[tuple[int, int, dict[int, int] | None]]:
    """Global transactions: one per distinct aligned segment, ordered by the lowest lane touching it;
    (base, word mask, {word offset: data from the highest lane storing to it} for stores)."""
    order: list[int] = []
    masks: dict[int, int] = {}
    datas: dict[int, dict[int, int]] = {}
    for lane in range(len(addrs)):
        if not mask >> lane & 1:
            continue
        a = addrs[lane]
        base = a // seg_words * seg_words
        if base not in masks:
            order.append(base)
            masks[base] = 0
            datas[base] = {}
        masks[base] |= 1 << (a - base)
        if data is not None:
            datas[base][a - base] = data[lane]  # ascending lanes: the highest lane is written last
    return [(b, masks[b], datas[b] if data is not None else None) for b in order]


# ---------------------------------------------------------------------------------------------
# Assembling and launching
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def program(src: str) -> asm.Program:
    return asm.assemble(src)


def image_of(src: str, **overrides: Any) -> LaunchImage:
    img = program(src).image
    img = dataclasses.replace(
        img,
        code=list(img.code),
        params=list(img.params),
        consts=list(img.consts),
        data=[(b, list(w)) for b, w in img.data],
    )
    for key in ("grid", "block"):
        if key in overrides and isinstance(overrides[key], int):
            overrides[key] = (overrides[key], 1, 1)
        elif key in overrides:
            overrides[key] = tuple([*overrides[key], 1, 1][:3])
    return dataclasses.replace(img, **overrides)


def labels(src: str) -> dict[str, int]:
    """Code label -> pc."""
    return {name: v for name, (section, v) in program(src).symbols.items() if section == "text"}


class TracingModel(Model):
    """The model under test, recording every retire (and the set of executed mnemonics)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.log: list[Retire] = []

    def step(self, bid: int, wid: int) -> Retire:
        rec = super().step(bid, wid)
        self.log.append(rec)
        EXECUTED.add(rec.mnemonic)
        return rec

    def executed(self) -> set[str]:
        return {r.mnemonic for r in self.log}

    def retires_of(self, bid: int = 0, wid: int = 0) -> list[Retire]:
        return [r for r in self.log if r.block == bid and r.warp == wid]


def config(**kw: Any) -> GpuConfig:
    return GpuConfig(**kw)


def make_model(
    image: LaunchImage, cfg: GpuConfig | None = None, *, budget: int | None = None, detect_races: bool = False
) -> TracingModel:
    kw: dict[str, Any] = {"detect_races": detect_races}
    if budget is not None:
        kw["budget"] = budget
    return TracingModel(cfg or GpuConfig(), image, **kw)


def launch(
    src: str,
    cfg: GpuConfig | None = None,
    *,
    budget: int | None = None,
    detect_races: bool = False,
    **overrides: Any,
) -> tuple[TracingModel, LaunchImage]:
    image = image_of(src, **overrides)
    return make_model(image, cfg, budget=budget, detect_races=detect_races), image


def run(src: str, cfg: GpuConfig | None = None, **kw: Any) -> RunResult:
    m, _ = launch(src, cfg, **kw)
    return m.run()


def run_model(src: str, cfg: GpuConfig | None = None, **kw: Any) -> tuple[TracingModel, RunResult]:
    m, _ = launch(src, cfg, **kw)
    return m, m.run()


def run_warp(
    m: Model,
    bid: int = 0,
    wid: int = 0,
    *,
    sm: int | None = None,
    until_bar: bool = False,
    limit: int = 100_000,
) -> list[Retire]:
    """Start block ``bid`` if needed and step warp ``wid`` until it is done or waits at a barrier
    (with ``until_bar``: until it retires a BAR, released or not)."""
    if bid not in m.blocks:
        m.start_block(bid, sm)
    out: list[Retire] = []
    for _ in range(limit):
        if m.warp(bid, wid).state is not WarpState.READY:
            break
        rec = m.step(bid, wid)
        out.append(rec)
        if rec.done or (until_bar and rec.barrier):
            break
    else:
        raise AssertionError(f"warp {bid}/{wid} did not finish in {limit} steps")
    return out


def step_all(m: Model, order: str = "rr", *, seed: int = 0, sms: int | None = None) -> None:
    """Run every block of ``m`` to completion with our own scheduler (not Model.run): blocks start
    in a random order on random SMs, at most 2 resident at a time; each step picks a ready warp
    round-robin ("rr"), in reverse ("rev") or at random ("random")."""
    rng = random.Random(seed)
    nblocks = m.image.num_blocks
    pending = list(range(nblocks))
    if order != "rr":
        rng.shuffle(pending)
    resident: list[int] = []
    guard = 0
    while pending or resident:
        while pending and len(resident) < 2:
            bid = pending.pop()
            m.start_block(bid, rng.randrange(sms) if sms else None)
            resident.append(bid)
        ready = [(b, w.wid) for b in resident for w in m.blocks[b].warps if w.state is WarpState.READY]
        assert ready, "no ready warp but blocks are unfinished (deadlock)"
        if order == "random":
            bid, wid = rng.choice(ready)
        elif order == "rev":
            bid, wid = ready[-1]
        else:
            bid, wid = ready[guard % len(ready)]
        m.step(bid, wid)
        resident = [b for b in resident if not m.blocks[b].done]
        guard += 1
        assert guard < 5_000_000


def gmem(result_or_model: Any, base: int, n: int) -> list[int]:
    g = result_or_model.gmem
    return [int(x) for x in g[base : base + n]]


def active(values: Any, mask: int) -> dict[int, int]:
    """{lane: value} of the active lanes of a retire's ``values``."""
    return {lane: int(values[lane]) for lane in lanes_of(mask)}


def mnemonics(recs: Iterable[Retire]) -> list[str]:
    return [r.mnemonic for r in recs]


def check_retire_chain(m: TracingModel, *, finished: bool = True) -> None:
    """Section 10 / 8.2 invariants over every retire of ``m``: the word is the instruction at pc; a
    warp starts at pc 0 with every valid thread active; each retire's next pc / next mask are the pc /
    mask of the warp's next retire; nothing retires after ``done``; ``block_done`` marks exactly the
    last retire of each block; (with ``finished``) every warp of every started block ends done."""
    W = m.cfg.warp_size
    n = m.image.threads_per_block
    last: dict[tuple[int, int], Retire] = {}
    last_of_block: dict[int, Retire] = {}
    for r in m.log:
        assert r.word == m.image.code[r.pc]
        key = (r.block, r.warp)
        prev = last.get(key)
        if prev is None:
            assert (r.pc, r.mask) == (0, full(min(W, n - r.warp * W))), key
        else:
            assert not prev.done, f"{key} retired after done"
            assert (r.pc, r.mask) == (prev.next_pc, prev.next_mask), key
        assert r.mask, "a retire has at least one active thread"
        last[key] = r
        last_of_block[r.block] = r
    for bid in m.blocks:
        done_recs = [r for r in m.log if r.block == bid and r.block_done]
        if finished:
            assert done_recs == [last_of_block[bid]]
            warps = -(-n // W)
            assert all(last[(bid, w)].done for w in range(warps))
