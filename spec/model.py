"""Golden SIMT reference model, written from docs/isa.md (never from RTL behaviour).

Two ways to use it:

* **Lockstep**: ``start_block(b, sm)`` when the RTL dispatches block ``b``; ``step(b, w)`` each time the
  RTL retires a warp-instruction of warp ``w`` of block ``b``. ``step`` executes exactly one
  warp-instruction of that warp and returns its ``Retire`` record. The RTL decides the interleaving.
* **Run to completion**: ``run()`` schedules every block itself and returns a ``RunResult`` with the
  final memories and the exact event counts (docs/isa.md section 11).

Lanes of a warp are numpy-vectorised; per-warp bookkeeping (masks, stack) uses Python ints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import isa
from .config import GpuConfig
from .image import LaunchImage
from .records import (  # noqa: F401 (re-exported: the model's records are imported from here too)
    CLASSES,
    DEFAULT_BUDGET,
    DIV,
    ERROR_CODES,
    PERF_COUNTERS,
    SYNC,
    TIMING_COUNTERS,
    Counters,
    ErrorKind,
    KernelError,
    MemAccess,
    Retire,
    RunResult,
    StackEvent,
    StepError,
    Transaction,
    WarpState,
)
from .warp import Block, Warp

U32 = np.uint32
I32 = np.int32


# ---------------------------------------------------------------------------------------------
# ALU: every operation on whole uint32 lane vectors (docs/isa.md 3.1)
# ---------------------------------------------------------------------------------------------
def _shl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(b < 32, a << (b & U32(31)), U32(0))


def _shr(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(b < 32, a >> (b & U32(31)), U32(0))


def _sra(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.view(I32) >> np.minimum(b, U32(31)).astype(I32)).view(U32)


def _b(x: np.ndarray) -> np.ndarray:
    return x.astype(U32)


ALU_FN: dict[str, Any] = {
    "NOP": None,
    "MAD": lambda a, b, c: a * b + c,
    "MUL": lambda a, b, c: a * b,
    "ADD": lambda a, b, c: a + b,
    "SUB": lambda a, b, c: a - b,
    "SLT": lambda a, b, c: _b(a.view(I32) < b.view(I32)),
    "SGT": lambda a, b, c: _b(a.view(I32) > b.view(I32)),
    "SHR": lambda a, b, c: _shr(a, b),
    "SHL": lambda a, b, c: _shl(a, b),
    "NOT": lambda a, b, c: ~a,
    "AND": lambda a, b, c: a & b,
    "OR": lambda a, b, c: a | b,
    "XOR": lambda a, b, c: a ^ b,
    "SLTU": lambda a, b, c: _b(a < b),
    "SGTU": lambda a, b, c: _b(a > b),
    "SEQ": lambda a, b, c: _b(a == b),
    "SNE": lambda a, b, c: _b(a != b),
    "MIN": lambda a, b, c: np.minimum(a.view(I32), b.view(I32)).view(U32),
    "MAX": lambda a, b, c: np.maximum(a.view(I32), b.view(I32)).view(U32),
    "MINU": lambda a, b, c: np.minimum(a, b),
    "MAXU": lambda a, b, c: np.maximum(a, b),
    "SRA": lambda a, b, c: _sra(a, b),
    "MULHU": lambda a, b, c: ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(U32),
    "MV": lambda a, b, c: a,
}
assert set(isa.ALU_FUNCS) | {"MV"} == set(ALU_FN)

# Operand sources per format: (a, b, c) each a register field name, "imm" or None.
OPERANDS: dict[isa.Fmt, tuple[str | None, str | None, str | None]] = {
    isa.Fmt.NONE: (None, None, None),
    isa.Fmt.R3: ("f1", "f2", None),
    isa.Fmt.RMUL: ("f2", "f3", None),
    isa.Fmt.RMAD: ("f2", "f3", "f1"),
    isa.Fmt.RNOT: ("f2", None, None),
    isa.Fmt.MV: ("f1", None, None),
    isa.Fmt.IMM: ("imm", None, None),
    isa.Fmt.RI: ("f1", "imm", None),
    isa.Fmt.LOAD: ("f1", "imm", None),
    isa.Fmt.SREG: ("f1", None, None),  # f1 is the special-register index, not a register
    isa.Fmt.BRANCH: ("f1", None, None),
    isa.Fmt.STORE: ("f1", "imm", "f2"),
    isa.Fmt.TARGET: (None, None, None),
    isa.Fmt.CTRL: (None, None, None),
}

REG_FIELDS = ("rd", "f1", "f2", "f3")


class _Instr:
    """A predecoded instruction: everything step() needs, computed once per launch."""

    __slots__ = ("pc", "word", "op", "kind", "rd", "a", "b", "c", "imm", "immv", "fn", "unit",
                 "error", "target")  # fmt: skip

    def __init__(self, pc: int, word: int, regs: int, width: int) -> None:
        self.pc, self.word = pc, word
        self.error: tuple[ErrorKind, str] | None = None
        self.op: isa.Op | None = None
        self.kind = "illegal"
        self.rd = self.a = self.b = self.c = None
        self.imm, self.immv, self.fn, self.unit, self.target = 0, None, None, "alu", 0
        try:
            d = isa.decode(word)
        except isa.IllegalInstruction as exc:
            self.error = (ErrorKind.ILLEGAL_INSTRUCTION, str(exc))
            return
        op = self.op = d.op
        self.unit = op.unit.value
        fields = {"rd": d.rd, "f1": d.f1, "f2": d.f2, "f3": d.f3}
        for name in REG_FIELDS:
            if op.fmt is isa.Fmt.SREG and name == "f1":
                continue
            if name in op.fmt.fields and fields[name] >= regs:
                self.error = (
                    ErrorKind.BAD_REGISTER,
                    f"{op.mnemonic} uses r{fields[name]} but the launch gives {regs} registers per thread",
                )
                return
        self.imm = d.imm
        self.immv = np.full(width, isa.imm_operand(op, d.imm), U32)
        src = OPERANDS[op.fmt]
        self.a, self.b, self.c = (fields[s] if s in fields else s for s in src)
        self.rd = d.rd if op.writes_rd else None
        self.target = d.imm
        if op.unit is isa.Unit.ALU:
            self.kind = "alu"
            self.fn = ALU_FN[op.alu or "NOP"]
        elif op.opcode in (isa.OP_LD, isa.OP_LDC, isa.OP_LDG):
            self.kind = "load"
        elif op.opcode in (isa.OP_ST, isa.OP_STG):
            self.kind = "store"
        else:
            self.kind = op.mnemonic.lower()  # lds, beq, bne, bra, ssy, bar, exit


class Model:
    """The golden model of one launch on one machine configuration."""

    def __init__(
        self,
        cfg: GpuConfig,
        image: LaunchImage,
        *,
        budget: int = DEFAULT_BUDGET,
        detect_races: bool = False,
    ) -> None:
        self.cfg = cfg
        self.image = image.check(cfg)
        self.budget = budget
        self.W = cfg.warp_size
        self.full = cfg.full_mask
        self.lanes = np.arange(self.W, dtype=np.uint64)
        self.code = [_Instr(pc, w, image.regs, self.W) for pc, w in enumerate(image.code)]
        self.consts = np.array(image.consts, dtype=U32)
        self.gmem = np.zeros(cfg.global_words, U32)
        for base, words in image.data:
            self.gmem[base : base + len(words)] = np.array(words, dtype=np.uint64).astype(U32)
        self.params = [p & isa.WORD_MASK for p in image.params]
        self.blocks: dict[int, Block] = {}
        self.counters = Counters()
        self.retires = 0
        self._bits: dict[int, np.ndarray] = {}
        self._row_memo: dict[tuple[bytes, int], tuple[int, ...]] = {}
        self._races: dict[str, dict[Any, Any]] | None = {"w": {}, "r": {}} if detect_races else None

    # ---- block lifecycle -------------------------------------------------------------------------
    def ctaid(self, bid: int) -> tuple[int, int, int]:
        gx, gy, _ = self.image.grid
        return bid % gx, (bid // gx) % gy, bid // (gx * gy)

    def start_block(self, bid: int, sm: int | None = None) -> Block:
        """Create block ``bid`` (flat index) on SM ``sm`` (default: bid % NUM_SMS)."""
        if not 0 <= bid < self.image.num_blocks:
            raise StepError(f"block {bid} does not exist (grid has {self.image.num_blocks} blocks)")
        if bid in self.blocks:
            raise StepError(f"block {bid} was already started")
        img, W = self.image, self.W
        block = Block(bid, self.ctaid(bid), bid % self.cfg.num_sms if sm is None else sm, img.shared_words)
        nthreads = img.threads_per_block
        nwarps = img.warps_per_block(W)
        block.regs = np.zeros((nwarps, img.regs, W), U32)
        bx, by, _ = img.block
        base_sregs = np.zeros((isa.SREG_PARAM_BASE, W), np.int64)
        for wid in range(nwarps):
            tid = np.arange(wid * W, wid * W + W, dtype=np.int64)
            s = base_sregs.copy()
            s[0], s[1], s[2] = tid % bx, (tid // bx) % by, tid // (bx * by)
            s[3:6] = np.array(img.block)[:, None]
            s[6:9] = np.array(block.ctaid)[:, None]
            s[9:12] = np.array(img.grid)[:, None]
            s[12], s[13], s[14], s[15] = tid, tid % W, wid, block.sm
            sregs = np.zeros((32, W), U32)
            sregs[: isa.SREG_PARAM_BASE] = s.astype(U32)
            for k, p in enumerate(self.params):
                sregs[isa.SREG_PARAM_BASE + k] = p
            valid_threads = max(0, min(W, nthreads - wid * W))
            block.warps.append(Warp(block, wid, (1 << valid_threads) - 1, block.regs[wid], sregs))
        self.blocks[bid] = block
        return block

    def warp(self, bid: int, wid: int) -> Warp:
        try:
            return self.blocks[bid].warps[wid]
        except (KeyError, IndexError):
            raise StepError(f"block {bid} warp {wid} does not exist or its block was not started") from None

    def ready_warps(self) -> list[tuple[int, int]]:
        return [(b.bid, w.wid) for b in self.blocks.values() for w in b.warps if w.state is WarpState.READY]

    def _mask_bits(self, mask: int) -> np.ndarray:
        bits = self._bits.get(mask)
        if bits is None:
            bits = ((np.uint64(mask) >> self.lanes) & np.uint64(1)).astype(bool)
            if len(self._bits) < 4096:
                self._bits[mask] = bits
        return bits

    def _err(self, w: Warp, kind: ErrorKind, msg: str, lane: int | None = None) -> KernelError:
        return w.error(kind, msg, lane)

    # ---- stepping --------------------------------------------------------------------------------
    def step(self, bid: int, wid: int) -> Retire:
        """Execute one warp-instruction of warp ``wid`` of block ``bid``; return its retire record."""
        w = self.warp(bid, wid)
        if w.state is not WarpState.READY:
            raise StepError(f"block {bid} warp {wid} cannot execute: it is {w.state.value} (pc {w.pc})")
        pc = w.pc
        if pc >= len(self.code):
            raise self._err(
                w,
                ErrorKind.PC_OUT_OF_RANGE,
                f"fetch at pc {pc}; the program has {len(self.code)} instructions",
            )
        ins = self.code[pc]
        if ins.error is not None:
            raise self._err(w, *ins.error)
        w.count += 1
        if w.count > self.budget:
            raise self._err(
                w,
                ErrorKind.INSTRUCTION_BUDGET,
                f"more than {self.budget} warp-instructions; is the kernel looping forever?",
            )
        mask = w.mask
        bits = self._mask_bits(mask)
        regs = w.regs
        rec = Retire(bid, wid, pc, ins.word, mask)
        kind = ins.kind
        c = self.counters
        nthreads = mask.bit_count()
        c.warp_instrs += 1
        c.thread_instrs += nthreads
        c.warp_by_class[ins.unit] += 1
        c.thread_by_class[ins.unit] += nthreads

        if kind == "alu":
            fn = ins.fn
            if fn is not None:
                a = ins.immv if ins.a == "imm" else regs[ins.a]
                b = ins.immv if ins.b == "imm" else (None if ins.b is None else regs[ins.b])
                c3 = None if ins.c is None else regs[ins.c]
                self._write(rec, regs, ins.rd, fn(a, b, c3), mask, bits)
        elif kind == "load":
            self._load(w, ins, rec, bits)
        elif kind == "store":
            self._store(w, ins, rec, bits)
        elif kind == "lds":
            idx = ins.a
            if idx >= isa.SREG_PARAM_BASE + len(self.params):
                raise self._err(
                    w,
                    ErrorKind.BAD_PARAM,
                    f"%{isa.SREG_NAMES[idx]} read but the launch supplies {len(self.params)} parameters",
                )
            self._write(rec, regs, ins.rd, w.sregs[idx], mask, bits)
        elif kind == "bar":
            if mask != w.live:
                raise self._err(
                    w,
                    ErrorKind.BARRIER_DIVERGENCE,
                    f"BAR with active mask 0x{mask:x} but live threads 0x{w.live:x}",
                )
            rec.barrier = True
            c.barrier_arrivals += 1

        # ---- next pc, divergence stack, reconvergence (docs/isa.md 4.2) ---------------------------
        depth = self.cfg.stack_depth
        if kind in ("beq", "bne"):
            nz = regs[ins.a] != 0
            taken_bits = (nz if kind == "bne" else ~nz) & bits
            taken = int.from_bytes(np.packbits(taken_bits, bitorder="little").tobytes(), "little")
            events, divergent, _ = w.control("branch", depth, target=ins.target, taken=taken)
            c.divergent_branches += divergent
        elif kind == "ssy" or kind == "exit":
            events, _, rec.done = w.control(kind, depth, target=ins.target)
        elif w.stack:
            events, _, _ = w.control("next", depth, npc=ins.target if kind == "bra" else pc + 1)
        else:  # fast path, same result as control("next"): nothing on the stack to reconverge
            w.pc = ins.target if kind == "bra" else pc + 1
            events = []
        if rec.done:
            w.state = WarpState.DONE
        if events:
            rec.stack = tuple(events)
            for e in events:
                if e.action == "push":
                    c.stack_pushes += 1
                    if e.depth > c.max_stack_depth:  # the deepest point is always right after a push
                        c.max_stack_depth = e.depth
                elif e.action == "pop":
                    c.stack_pops += 1
        if rec.barrier:
            w.state = WarpState.WAITING
        if rec.barrier or rec.done:
            rec.released = self._barrier_check(w.block)
            if rec.done and all(x.state is WarpState.DONE for x in w.block.warps):
                w.block.done = rec.block_done = True
        rec.next_pc, rec.next_mask = w.pc, w.mask
        self.retires += 1
        return rec

    def _write(
        self, rec: Retire, regs: np.ndarray, rd: int, value: np.ndarray, mask: int, bits: np.ndarray
    ) -> None:
        row = regs[rd]
        if mask == self.full:
            row[:] = value
        else:
            np.copyto(row, value, where=bits)
        rec.rd = rd
        rec.values = row.copy()

    def _barrier_check(self, block: Block) -> bool:
        warps = block.warps
        if any(x.state is WarpState.WAITING for x in warps) and all(
            x.state is not WarpState.READY for x in warps
        ):
            for x in warps:
                if x.state is WarpState.WAITING:
                    x.state = WarpState.READY
            block.epoch += 1
            self.counters.barrier_releases += 1
            return True
        return False

    # ---- memory ----------------------------------------------------------------------------------
    def _addresses(
        self, w: Warp, ins: _Instr, bits: np.ndarray, size: int, kind: ErrorKind, space: str
    ) -> np.ndarray:
        addrs = w.regs[ins.a] + ins.immv
        bad = (addrs >= size) & bits
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            raise self._err(w, kind, f"{space} address {int(addrs[lane])} (size {size})", lane)
        return addrs

    def _load(self, w: Warp, ins: _Instr, rec: Retire, bits: np.ndarray) -> None:
        unit, mask = ins.unit, w.mask
        if unit == "shared":
            mem = w.block.shared
            addrs = self._addresses(w, ins, bits, len(mem), ErrorKind.SHARED_OUT_OF_RANGE, "shared")
            rows = self._rows(addrs, mask)
            rec.mem = MemAccess("shared", False, addrs, passes=sum(rows), rows=rows)
            self.counters.shared_accesses += 1
            self.counters.shared_passes += rec.mem.passes
        elif unit == "const":
            mem = self.consts
            addrs = self._addresses(w, ins, bits, len(mem), ErrorKind.CONST_OUT_OF_RANGE, "constant")
            rec.mem = MemAccess("const", False, addrs)
        else:
            mem = self.gmem
            addrs = self._addresses(w, ins, bits, len(mem), ErrorKind.GLOBAL_OUT_OF_RANGE, "global")
            rec.mem = MemAccess("global", False, addrs, transactions=self._coalesce(addrs, mask, None))
            self.counters.global_accesses += 1
            self.counters.global_transactions += len(rec.mem.transactions)
        if self._races is not None and unit != "const":
            self._race_check(w, unit, addrs, mask, write=False)
        if not len(mem):
            value = np.zeros(self.W, U32)
        else:  # inactive lanes may hold any address: they read word 0
            value = mem[addrs if mask == self.full else np.where(bits, addrs, U32(0))]
        self._write(rec, w.regs, ins.rd, value, mask, bits)

    def _store(self, w: Warp, ins: _Instr, rec: Retire, bits: np.ndarray) -> None:
        mask = w.mask
        data = w.regs[ins.c].copy()
        if ins.unit == "shared":
            mem = w.block.shared
            addrs = self._addresses(w, ins, bits, len(mem), ErrorKind.SHARED_OUT_OF_RANGE, "shared")
            rows = self._rows(addrs, mask)
            rec.mem = MemAccess("shared", True, addrs, data, passes=sum(rows), rows=rows)
            self.counters.shared_accesses += 1
            self.counters.shared_passes += rec.mem.passes
        else:
            mem = self.gmem
            addrs = self._addresses(w, ins, bits, len(mem), ErrorKind.GLOBAL_OUT_OF_RANGE, "global")
            rec.mem = MemAccess("global", True, addrs, data, transactions=self._coalesce(addrs, mask, data))
            self.counters.global_accesses += 1
            self.counters.global_transactions += len(rec.mem.transactions)
        if self._races is not None:
            self._race_check(w, ins.unit, addrs, mask, write=True)
        act_a, act_d = addrs[bits], data[bits]
        if len(act_a) > 1 and len(set(act_a.tolist())) != len(act_a):  # (np.unique would import numpy.ma)
            # Several lanes store to one word: the highest lane wins (docs/isa.md 3.3).
            _, first_rev = np.unique(act_a[::-1], return_index=True)
            keep = len(act_a) - 1 - first_rev
            act_a, act_d = act_a[keep], act_d[keep]
        mem[act_a] = act_d

    def _rows(self, addrs: np.ndarray, mask: int) -> tuple[int, ...]:
        # The passes depend only on the lanes' addresses and the mask, and kernels repeat their access
        # patterns (every block, every loop trip): computed once per distinct pattern.
        key = (addrs.tobytes(), mask)
        rows = self._row_memo.get(key)
        if rows is None:
            cfg = self.cfg
            rows = tuple(row_passes(addrs.tolist(), mask, cfg.warp_size, cfg.num_lanes, cfg.num_banks))
            if len(self._row_memo) >= 1 << 16:
                self._row_memo.clear()
            self._row_memo[key] = rows
        return rows

    def _coalesce(self, addrs: np.ndarray, mask: int, data: np.ndarray | None) -> tuple[Transaction, ...]:
        return coalesce(
            addrs.tolist(), mask, None if data is None else data.tolist(), self.W, self.cfg.seg_words
        )

    def _race_check(self, w: Warp, space: str, addrs: np.ndarray, mask: int, write: bool) -> None:
        """Report two warps touching a word, one writing, with no barrier between (docs/isa.md 6.4)."""
        assert self._races is not None
        me = (w.block.bid, w.wid)
        epoch = w.block.epoch
        scope = w.block.bid if space == "shared" else None
        writes, reads = self._races["w"], self._races["r"]

        def ordered(other: tuple[int, int], other_epoch: int) -> bool:
            return other == me or (other[0] == me[0] and other_epoch < epoch)

        for lane in range(self.W):
            if not mask >> lane & 1:
                continue
            key = (space, scope, int(addrs[lane]))
            last = writes.get(key)
            if last is not None and not ordered(*last):
                raise self._err(
                    w,
                    ErrorKind.RACE,
                    f"{space} word {key[2]} written by block {last[0][0]} "
                    f"warp {last[0][1]} and {'written' if write else 'read'} here without a "
                    "barrier between",
                    lane,
                )
            if write:
                for other, other_epoch in reads.get(key, {}).items():
                    if not ordered(other, other_epoch):
                        raise self._err(
                            w,
                            ErrorKind.RACE,
                            f"{space} word {key[2]} read by block "
                            f"{other[0]} warp {other[1]} and written here without a barrier "
                            "between",
                            lane,
                        )
                writes[key] = (me, epoch)
            else:
                reads.setdefault(key, {})[me] = epoch

    # ---- run to completion -----------------------------------------------------------------------
    def run(self) -> RunResult:
        """Run every block to completion (round-robin over the ready warps of resident blocks)."""
        cfg, img = self.cfg, self.image
        capacity = cfg.num_sms * min(cfg.num_blocks, cfg.num_warps // img.warps_per_block(self.W))
        pending = [b for b in range(img.num_blocks) if b not in self.blocks]
        resident = [b for b in self.blocks.values() if not b.done]
        pending.reverse()
        while pending or resident:
            while pending and len(resident) < max(1, capacity):
                resident.append(self.start_block(pending.pop()))
            progressed = False
            for block in resident:
                for w in block.warps:
                    if w.state is WarpState.READY:
                        self.step(block.bid, w.wid)
                        progressed = True
            resident = [b for b in resident if not b.done]
            if not progressed and resident:
                raise AssertionError("model deadlock: no warp is ready")  # barriers cannot deadlock
        return RunResult(
            gmem=self.gmem,
            shared={bid: b.shared for bid, b in self.blocks.items()},
            counters=self.counters,
            retires=self.retires,
        )


def row_passes(addrs: Sequence[int], mask: int, warp_size: int, num_lanes: int, num_banks: int) -> list[int]:
    """Per row of ``num_lanes`` lanes with an active lane, the serialized passes of a shared-memory
    access (docs/isa.md 6.1): the largest number of distinct addresses any bank receives from the
    row's active lanes."""
    row_mask = (1 << num_lanes) - 1
    out = []
    for lo in range(0, warp_size, num_lanes):
        rm = (mask >> lo) & row_mask
        if not rm:
            continue
        if rm == row_mask:
            distinct = set(addrs[lo : lo + num_lanes])
        else:
            distinct = {addrs[lo + i] for i in range(num_lanes) if rm >> i & 1}
        banks = [a % num_banks for a in distinct]
        if len(set(banks)) == len(banks):  # one address per bank (a broadcast included): one pass
            out.append(1)
            continue
        out.append(max(Counter(banks).values()))
    return out


def shared_passes(addrs: Sequence[int], mask: int, warp_size: int, num_lanes: int, num_banks: int) -> int:
    """Serialized passes of one shared-memory access (docs/isa.md 6.1): the sum of :func:`row_passes`."""
    return sum(row_passes(addrs, mask, warp_size, num_lanes, num_banks))


def coalesce(
    addrs: Sequence[int], mask: int, data: Sequence[int] | None, warp_size: int, seg_words: int
) -> tuple[Transaction, ...]:
    """Global transactions of one access (docs/isa.md 6.3): one per distinct segment, in the order of
    each segment's lowest active lane; stores carry, per word, the data of the highest lane."""
    order: dict[int, list[Any]] = {}
    for lane in range(warp_size):
        if mask >> lane & 1:
            a = addrs[lane]
            base = a - a % seg_words
            t = order.get(base)
            if t is None:
                t = order[base] = [0, [0] * seg_words]
            t[0] |= 1 << (a - base)
            if data is not None:
                t[1][a - base] = data[lane]  # later (higher) lanes overwrite: the highest wins
    return tuple(
        Transaction(base, m, data is not None, tuple(d) if data is not None else None)
        for base, (m, d) in order.items()
    )


def run(cfg: GpuConfig, image: LaunchImage, **kw: Any) -> RunResult:
    """Convenience: build a Model and run the launch to completion."""
    return Model(cfg, image, **kw).run()
