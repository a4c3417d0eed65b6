"""The launch checker's compiled fast path (issue 29): on by default, ``SIMT_FAST_CHECK=0`` turns it off.

``fastcheck.c`` checks the trace's retire lines without the interpreter: it steps the warp as
:meth:`spec.model.Model.step` would (ALU, LDS, shared, constant and global loads and stores, BRA, SSY,
BEQ/BNE uniform or divergent, BAR, EXIT partial, finishing the warp (releasing a barrier the block's
other warps wait at, as ``spec/model.py`` ``_barrier_check`` does) or finishing the block (its shared
memory compared with the shared board's mirror, as ``SharedMemoryScoreboard.check_block`` does); the
warp's divergence stack as ``spec/warp.py`` keeps it),
compares the record as :func:`spec.retire_record.project` + ``==`` would, and counts what the boards'
``check`` or quiet path (:func:`tb.env.checker.count_quiet`), the model's counters and functional coverage
count. It takes the shared-memory bank-write (S) lines into the shared board's mirror and its own
per-warp-slot pending writes, and the global-memory request and response (Q, P) lines: the memory agent's
image, the outstanding requests of the monitor and the coalescing board, each warp slot's pending
transactions (compared with a global access's as the coalescing board does), the loader's words, and
coverage's response order and latency (:meth:`FastPath.bind`: only when the ports' subscribers are those).
What it holds is handed to the Python side, unchanged and in trace order, before the Python path looks
at it (:meth:`FastPath.spill`, :meth:`FastPath.spill_global`, :meth:`FastPath.release`) and at the end of
a launch. At the first line it does not take (another line kind or instruction class, X/Z, a warp slot
the Python side holds traffic of, *any* difference) it stops, and the Python path handles that line
exactly as without the fast path: a mismatch is found and reported by the Python model, with the same
report.

The C state shares the model's numpy arrays (registers, special registers, shared, constant and global
memory); the per-warp pc, mask, stack and instruction count it advances are copied back to the model's
``Warp`` before the Python model steps that warp (the whole block for BAR and EXIT) and at the end of a
launch or a hang report (:meth:`FastPath.settle`), with the retire board's history and the coverage
samples; the model's counters and the boards' counts at every :meth:`FastPath.flush` (end of each
trace batch).

The Python model stays the executable specification: ``tb/tests/model/test_fastcheck.py`` (``make
model``) proves the fast path equal to it on random kernels, with a planted fault per path it must
catch. Built on first use with the system's ``gcc`` (a prerequisite) into ``build/sim/.fastcheck/`` (one
library per source text); nothing is downloaded.
"""

from __future__ import annotations

import ctypes as C
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from spec import isa
from spec.records import CLASSES, DIV, SYNC, WarpState
from spec.retire_record import FIELDS
from tb.coverage.functional import arrival_class

ROOT = Path(__file__).resolve().parents[2]
SOURCE = Path(__file__).with_name("fastcheck.c")
ENV = "SIMT_FAST_CHECK"
# the record layout fastcheck.c parses (NF, F_VALUES and the field indices it compares)
LAYOUT = ("block", "warp", "pc", "instr", "mask", "wr", "rd", "values", "next_pc", "next_mask", "pushes",
          "pops", "merged", "depth", "passes", "txns", "barrier", "done", "slot", "top_pc", "top_mask",
          "top_kind")  # fmt: skip
K_NONE, K_ALU, K_LDS, K_LDSH, K_LDC, K_BRA, K_BEQ, K_BNE, K_STSH, K_BAR, K_LDG, K_STG, K_SSY, K_EXIT = range(14)  # fmt: skip
ALU_OPS = ("NOP", "MAD", "MUL", "ADD", "SUB", "SLT", "SGT", "SHR", "SHL", "NOT", "AND", "OR", "XOR", "SLTU",
           "SGTU", "SEQ", "SNE", "MIN", "MAX", "MINU", "MAXU", "SRA", "MULHU", "MV")  # fmt: skip
OPND_IMM, OPND_NONE = -1, -2
NCNT = 56  # retires, thread_instrs, lanes_compared, shared_accesses, shared_passes, 8 + 8 classes, uniform BEQ/BNE,
# the shared board's stores, writes and clears, barrier arrivals and releases (26); global accesses and
# transactions, loader writes, responses, (31 unused), in-order and overtaking responses, 5 latency
# buckets, requests taken (27-39); the loop, nested, if_else, merge and if_only shapes (40-44); stack
# pushes, pops, merges, divergence board tops, the deepest push, divergent branches (45-50); a request
# was held off (51); the partial_exit shape (52); EXITs checked (53); the shared board's blocks_checked and
# words_checked (54, 55)
SHAPES = ("loop", "nested", "if_else", "merge", "if_only")
LATENCY_BUCKETS = ("1", "2-4", "5-16", "17-64", "65+")  # tb/coverage/functional.py latency_bucket
GQ_HDR = 6  # fastcheck.c: a held transaction's addr, mask, write, tag, cycle, seq (then its data words)
OUT_CAP = 4096  # outstanding requests the fast path holds at most
STATES = {WarpState.READY: 0, WarpState.WAITING: 1}  # fastcheck.c wstate (2: any other, i.e. DONE)
_STATE_OF = (WarpState.READY, WarpState.WAITING, WarpState.DONE)
assert len(WarpState) == 3, "fastcheck's wstate 2 stands for DONE alone"
HIST = 64  # the retire board's LOOP_HISTORY
LOG = 16384  # coverage entries the fast path logs at most (it stops, the driver flushes and goes on)
MAXW = 32
PEND = 64  # bank writes of one warp slot the fast path holds at most (fastcheck.c SMAX)


def enabled() -> bool:
    """The fast path is asked for: the default; ``SIMT_FAST_CHECK=0`` (or false/no/off) turns it off."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


_WARNED: list[str] = []  # the warning :func:`available` gave (once a process)


def available() -> bool:
    """The fast path can be built and loaded; if not (no gcc, a failed build), say so in one warning
    line, once a process, and the launch checker goes on with the Python path alone."""
    try:
        library()
    except (RuntimeError, OSError) as err:
        if not _WARNED:
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            _WARNED.append(f"warning: {ENV}: no compiled fast path ({first}); checking with the Python path")
            print(_WARNED[0], file=sys.stderr, flush=True)
        return False
    return True


class Ins(C.Structure):
    _fields_ = [(n, C.c_int32) for n in ("kind", "op", "rd", "a", "b", "c", "unit", "target")] + [
        ("imm", C.c_uint32),
        ("word", C.c_uint32),
    ]


_P = C.POINTER
_ptr = C.c_void_p


class St(C.Structure):
    _fields_ = [
        *[(n, C.c_int32) for n in ("W", "wpb", "nwarps", "ncode", "num_lanes", "num_banks", "nsms",
                                     "busy_stride", "nparams_limit", "hist_len")],
        ("budget", C.c_int64), ("nconsts", C.c_int64),
        ("code", _ptr), ("consts", _ptr),
        ("ready", _ptr), ("dirty", _ptr), ("pc", _ptr), ("count", _ptr), ("mask", _ptr), ("valid", _ptr),
        ("regs", _ptr), ("sregs", _ptr), ("shared", _ptr), ("shared_len", _ptr),
        ("busy", _ptr), ("last_b", _ptr), ("last_w", _ptr),
        ("counters", _ptr), ("dirty_list", _ptr), ("ndirty", C.c_int64), ("dirty_cap", C.c_int64),
        ("cov", _ptr), ("ncov", C.c_int64), ("cov_cap", C.c_int64),
        ("shl", _ptr), ("nshl", C.c_int64), ("shl_cap", C.c_int64),
        ("hist", _ptr), ("hpos", _ptr),
        ("last_cycle", C.c_int64), ("last_sm", C.c_int32), ("last_k", C.c_int32),
        ("mirror", _ptr), ("mirror_len", C.c_int64), ("sh_stride", C.c_int64), ("pend_cap", C.c_int64),
        ("pend", _ptr), ("npend", _ptr), ("npend_total", C.c_int64),
        ("wstate", _ptr), ("live", _ptr), ("nostack", _ptr),
        ("stack", _ptr), ("sdepth", _ptr), ("exited", _ptr), ("depth_limit", C.c_int32),
        ("epoch_inc", _ptr),
        ("arr", _ptr), ("narr", C.c_int64), ("arr_cap", C.c_int64),
        ("bdone", _ptr), ("nbdone", C.c_int64), ("bdone_cap", C.c_int64),
        ("qp_on", C.c_int32), ("seg_words", C.c_int32), ("tag_w", C.c_int32), ("idx_w", C.c_int32),
        ("wid_mask", C.c_uint32),
        ("gmem", _ptr), ("gmem_len", C.c_int64), ("hostmem", _ptr), ("hostmem_len", C.c_int64),
        ("lkeys", _ptr), ("lvals", _ptr), ("ldone", _ptr), ("nload", C.c_int64),
        ("otag", _ptr), ("ocyc", _ptr), ("nout", C.c_int64), ("out_cap", C.c_int64),
        ("gq", _ptr), ("ngq", _ptr), ("gq_cap", C.c_int64), ("ngq_total", C.c_int64), ("qseq", C.c_int64),
        ("plant", C.c_int32),
    ]  # fmt: skip


_LIB: Any = None


def build_dir() -> Path:
    """``<build root>/.fastcheck/`` (the simulator runs' build root, SIMT_BUILD_ROOT, default build/sim)."""
    return Path(os.environ.get("SIMT_BUILD_ROOT") or ROOT / "build" / "sim") / ".fastcheck"


def library() -> Any:
    """fastcheck.c compiled (once per source text) and loaded."""
    global _LIB
    if _LIB is not None:
        return _LIB
    src = SOURCE.read_bytes()
    cc = "gcc"
    tag = hashlib.sha256(src + cc.encode()).hexdigest()[:16]
    out = build_dir() / f"fastcheck-{tag}.so"
    if not out.exists():
        if shutil.which(cc) is None:
            raise RuntimeError(
                f"{ENV} needs a C compiler ({cc}, a prerequisite: README); {ENV}=0 turns it off"
            )
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=out.parent)
        os.close(fd)
        cmd = [cc, "-O2", "-shared", "-fPIC", "-std=c99", "-o", tmp, str(SOURCE)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            os.unlink(tmp)
            raise RuntimeError(f"building the fast checker failed: {' '.join(cmd)}\n{proc.stderr}")
        os.replace(tmp, out)
    lib = C.CDLL(str(out))
    lib.fc_run.argtypes = [C.POINTER(St), C.c_char_p, C.c_int64, C.c_int64]
    lib.fc_run.restype = C.c_int64
    _LIB = lib
    return lib


def _operand(x: Any) -> int:
    return OPND_IMM if x == "imm" else OPND_NONE if x is None else int(x)


def code_table(model: Any) -> np.ndarray:
    """The fast path's view of the model's predecoded program (``Model.code``); K_NONE: Python's."""
    table = (Ins * max(1, len(model.code)))()
    for pc, ins in enumerate(model.code):
        e = table[pc]
        e.kind, e.word = K_NONE, ins.word
        if ins.error is not None or ins.op is None:
            continue
        e.unit = CLASSES.index(ins.unit)
        e.imm = int(ins.immv[0]) if ins.immv is not None else 0
        e.target = ins.target
        e.rd = -1 if ins.rd is None else ins.rd
        e.a, e.b, e.c = _operand(ins.a), _operand(ins.b), _operand(ins.c)
        if ins.kind == "alu":
            name = ins.op.alu or "NOP"
            if (
                name not in ALU_OPS
                or (name != "NOP" and ins.rd is None)
                or (name != "NOP" and e.a == OPND_NONE)
            ):
                continue
            e.kind, e.op = K_ALU, ALU_OPS.index(name)
        elif ins.kind == "lds" and ins.rd is not None:
            e.kind = K_LDS
        elif ins.kind == "load" and ins.rd is not None and ins.unit in ("shared", "const") and e.a >= 0:
            e.kind = K_LDSH if ins.unit == "shared" else K_LDC
        elif ins.kind == "store" and ins.unit == "shared" and e.a >= 0 and e.c >= 0:
            e.kind = K_STSH
        elif ins.kind == "load" and ins.rd is not None and ins.unit == "global" and e.a >= 0:
            e.kind = K_LDG
        elif ins.kind == "store" and ins.unit == "global" and e.a >= 0 and e.c >= 0:
            e.kind = K_STG
        elif ins.kind == "bra":
            e.kind = K_BRA
        elif ins.kind == "ssy":
            e.kind = K_SSY
        elif ins.kind == "bar":
            e.kind = K_BAR
        elif ins.kind == "exit":
            e.kind = K_EXIT
        elif ins.kind in ("beq", "bne") and e.a >= 0:
            e.kind = K_BEQ if ins.kind == "beq" else K_BNE
    return table


class FastPath:
    """The fast path of one launch: the C state over ``model`` and the boards' and coverage's counts."""

    def __init__(
        self, model: Any, retire: Any, after: tuple[Any, Any, Any], wpb: int, coverage: Any = None
    ) -> None:
        assert tuple(f.name for f in FIELDS) == LAYOUT, (
            "spec/retire_record.py FIELDS changed: update fastcheck"
        )
        cfg = model.cfg
        if cfg.warp_size > MAXW or model._races is not None:
            raise ValueError("no fast path for this model")
        self.lib = library()
        self.model, self.retire, self.coverage = model, retire, coverage
        self.div, self.shared, self.coal = after
        self.wpb, self.W = wpb, cfg.warp_size
        nwarps = model.image.num_blocks * wpb
        self.code = code_table(model)
        self.consts = np.ascontiguousarray(model.consts, dtype=np.uint32)
        self.ready = np.zeros(nwarps, np.uint8)
        self.dirty = np.zeros(nwarps, np.uint8)
        self.pc = np.zeros(nwarps, np.int32)
        self.count = np.zeros(nwarps, np.int64)
        self.mask = np.zeros(nwarps, np.uint32)
        self.valid = np.zeros(nwarps, np.uint32)
        self.regs = np.zeros(nwarps, np.uintp)
        self.sregs = np.zeros(nwarps, np.uintp)
        self.shared_ptr = np.zeros(nwarps, np.uintp)
        self.shared_len = np.zeros(nwarps, np.int64)
        self.busy_stride = cfg.num_blocks * wpb + 1
        self.busy = np.zeros(cfg.num_sms * self.busy_stride, np.uint8)
        self.last_b = np.full(cfg.num_sms, -1, np.int32)
        self.last_w = np.full(cfg.num_sms, -1, np.int32)
        self.counters = np.zeros(NCNT, np.int64)
        self.dirty_list = np.zeros(LOG, np.int32)
        self.cov = np.zeros((LOG, 4), np.uint32)
        self.shl = np.zeros((LOG, self.W + 2), np.uint32)  # (store, mask, addresses) per shared access
        self.hist = np.zeros((nwarps, HIST, 2), np.uint32)
        self.hpos = np.zeros(nwarps, np.int64)
        self.hdone = np.zeros(nwarps, np.int64)  # history entries already handed to the retire board
        self._keep: list[Any] = []  # arrays the pointers point into
        s = self.st = St()
        s.W, s.wpb, s.nwarps, s.ncode = self.W, wpb, nwarps, len(model.code)
        s.num_lanes, s.num_banks, s.nsms = cfg.num_lanes, cfg.num_banks, cfg.num_sms
        s.busy_stride, s.hist_len = self.busy_stride, HIST
        s.nparams_limit = isa.SREG_PARAM_BASE + len(model.params)
        s.budget, s.nconsts = model.budget, len(self.consts)
        s.code = C.addressof(self.code)
        for name in ("consts", "ready", "dirty", "pc", "count", "mask", "valid", "regs", "sregs",
                     "busy", "last_b", "last_w", "counters", "dirty_list", "cov", "shl", "hist", "hpos"):  # fmt: skip
            setattr(s, name, getattr(self, name).ctypes.data)
        s.shared, s.shared_len = self.shared_ptr.ctypes.data, self.shared_len.ctypes.data
        s.cov_cap = s.shl_cap = s.dirty_cap = LOG
        # the shared board's mirror and the bank writes (S lines) of each warp slot taken here
        self.mirror = np.array([m.ctypes.data for m in self.shared.mirror], np.uintp)
        self._keep.append(self.shared.mirror)
        self.pend = np.zeros((cfg.num_sms * self.busy_stride, PEND, 2), np.uint32)
        self.npend = np.zeros(cfg.num_sms * self.busy_stride, np.int32)
        s.mirror, s.mirror_len = self.mirror.ctypes.data, len(self.shared.mirror[0])
        s.sh_stride, s.pend_cap = self.shared.stride, PEND
        s.pend, s.npend = self.pend.ctypes.data, self.npend.ctypes.data
        # barriers
        self.wstate = np.full(nwarps, 2, np.uint8)
        self.live = np.zeros(nwarps, np.uint32)
        self.nostack = np.zeros(nwarps, np.uint8)
        self.epoch_inc = np.zeros(model.image.num_blocks, np.int64)
        self.arr = np.zeros((LOG, 3), np.uint32)
        self.bdone = np.zeros((LOG, 2), np.int32)  # (block, sm) of each block a checked EXIT finished
        self.depth = cfg.stack_depth
        self.stack = np.zeros((nwarps, self.depth, 3), np.uint32)
        self.sdepth = np.zeros(nwarps, np.int32)
        self.exited = np.zeros(nwarps, np.uint32)
        s.depth_limit = self.depth
        for name in ("wstate", "live", "nostack", "epoch_inc", "arr", "bdone", "stack", "sdepth", "exited"):
            setattr(s, name, getattr(self, name).ctypes.data)
        s.arr_cap = s.bdone_cap = LOG
        # global memory: the model's, the loader's expected words, outstanding requests, held transactions
        coal = self.coal
        s.seg_words, s.tag_w, s.idx_w, s.wid_mask = cfg.seg_words, coal.tag_w, coal.idx_w, coal.wid_mask
        self.gmem = model.gmem
        s.gmem, s.gmem_len = self.gmem.ctypes.data, len(self.gmem)
        want = coal.loader_want
        self.lkeys = (
            np.array(sorted(want), np.uint32) if want and max(want) < 1 << 32 else np.zeros(0, np.uint32)
        )
        self.lvals = np.array([want[k] for k in self.lkeys.tolist()], np.uint32)
        self.ldone = np.zeros(len(self.lkeys), np.uint8)
        self.lhanded = 0  # loader words handed to the board (ldone.sum() at the last hand-over)
        s.lkeys, s.lvals, s.ldone, s.nload = (self.lkeys.ctypes.data, self.lvals.ctypes.data,
                                              self.ldone.ctypes.data, len(self.lkeys))  # fmt: skip
        self.otag = np.zeros(OUT_CAP, np.uint32)
        self.ocyc = np.zeros(OUT_CAP, np.int64)
        s.otag, s.ocyc, s.out_cap = self.otag.ctypes.data, self.ocyc.ctypes.data, OUT_CAP
        self.gq = np.zeros((cfg.num_sms * self.busy_stride, self.W, GQ_HDR + cfg.seg_words), np.uint32)
        self.ngq = np.zeros(cfg.num_sms * self.busy_stride, np.int32)
        s.gq, s.ngq, s.gq_cap = self.gq.ctypes.data, self.ngq.ctypes.data, self.W
        self.collector: Any = None  # the coverage collector (its flag: a request was held off)
        self.monitor: Any = None  # the trace monitor whose Q/P lines the fast path takes (:meth:`bind`)
        self.hostmem: Any = None
        self.globals = 0  # retires of global loads and stores checked here
        self.handled = 0  # retires the fast path checked (all flushed ones)
        self.stores = 0  # of them shared stores (with their bank writes)
        self.barriers = 0  # ... and BARs
        self.exits = 0  # ... and EXITs
        self.blocks = 0  # ... of them EXITs that finished their block
        self.nblocks_seen = 0  # blocks of model.blocks (in start order) held
        self._kind: str | None = None  # the instruction the Python model is about to step
        self._busy = False  # some busy flag is set
        self._shl_keys: dict[bytes, tuple[Any, ...]] = {}  # a shared load's log entry -> its coverage key
        self._run, self._ref = self.lib.fc_run, C.byref(s)
        self.register()

    # ---- the model's warps ---------------------------------------------------------------------
    def register(self) -> None:
        """Hold the warps of every block the model started since the last call (dispatch order)."""
        blocks = self.model.blocks
        if len(blocks) == self.nblocks_seen:
            return
        for bid in list(blocks)[self.nblocks_seen :]:
            block = blocks[bid]
            self._keep.append((block.regs, block.shared))
            for w in block.warps:
                k = bid * self.wpb + w.wid
                self.regs[k] = w.regs.ctypes.data
                self.sregs[k] = w.sregs.ctypes.data
                self.shared_ptr[k] = block.shared.ctypes.data
                self.shared_len[k] = len(block.shared)
                self.valid[k] = w.valid
                self._keep.append(w.sregs)
                self.pull(k, w)
        self.nblocks_seen = len(blocks)

    def pull(self, k: int, w: Any) -> None:
        """The model's warp -> the C state (after the Python model stepped it)."""
        self.pc[k], self.count[k], self.mask[k] = w.pc, w.count, w.mask
        stack = w.stack
        held = len(stack) <= self.depth and w.regs.flags.c_contiguous
        if held and (stack or self.sdepth[k]):
            if stack:
                self.stack[k, : len(stack)] = [(int(kind == DIV), pc, m) for kind, pc, m in stack]
            self.sdepth[k] = len(stack)
        self.exited[k] = w.exited
        self.ready[k] = w.state is WarpState.READY and held
        self.wstate[k], self.live[k], self.nostack[k] = STATES.get(w.state, 2), w.live, held

    def push(self, k: int) -> None:
        """The C state -> the model's warp and the retire board's history (before Python steps it;
        the fast path marks it again when it steps it again)."""
        if not self.dirty[k]:
            return
        w = self.model.blocks[k // self.wpb].warps[k % self.wpb]
        w.pc, w.count, w.mask = int(self.pc[k]), int(self.count[k]), int(self.mask[k])
        d = int(self.sdepth[k])
        if d or w.stack:
            w.stack[:] = [[DIV if kind else SYNC, pc, m] for kind, pc, m in self.stack[k, :d].tolist()]
        w.state = _STATE_OF[int(self.wstate[k])]  # (READY, WAITING or, after an EXIT, DONE)
        w.exited = int(self.exited[k])
        new = int(self.hpos[k] - self.hdone[k])
        if new:
            n = min(new, HIST)
            end = int(self.hpos[k])
            idx = [(end - n + i) % HIST for i in range(n)]
            rows = self.hist[k, idx].tolist()
            words = self.model.code
            self.retire.remember(k // self.wpb, k % self.wpb, [(pc, words[pc].word, m) for pc, m in rows])
            self.hdone[k] = end
        self.dirty[k] = 0

    def spill(self, key: int | None = None) -> None:
        """The bank writes the fast path holds (of warp slot ``key`` = sm x stride + warp slot, or all) ->
        the shared-memory board's pending writes, in trace order (before the Python path looks at them)."""
        s = self.st
        if not s.npend_total:
            return
        keys = np.flatnonzero(self.npend).tolist() if key is None else [key]
        for key in keys:
            n = int(self.npend[key]) if 0 <= key < len(self.npend) else 0
            if not n:
                continue
            sm, ws = divmod(key, self.busy_stride)
            self.shared.pending[(sm, ws)].extend(map(tuple, self.pend[key, :n].tolist()))
            self.npend[key] = 0
            s.npend_total -= n

    def before_python(self, block: int, warp: int, sm: int | None = None, slot: int | None = None) -> None:
        """The Python model is about to step (block, warp) on ``sm`` in block slot ``slot``: give it the warp
        as the fast path left it, the shared board that warp slot's bank writes, and coverage the last
        retire of each SM."""
        if self.st.npend_total:
            if sm is None or slot is None or not 0 <= sm < len(self.last_b):
                self.spill()
            elif 0 <= slot * self.wpb + warp < self.busy_stride:
                self.spill(sm * self.busy_stride + slot * self.wpb + warp)
        if self.st.ngq_total:
            if sm is None or slot is None or not 0 <= sm < len(self.last_b):
                self.spill_global()
            elif 0 <= slot * self.wpb + warp < self.busy_stride:
                self.spill_global(sm * self.busy_stride + slot * self.wpb + warp)
        k = block * self.wpb + warp
        if 0 <= warp < self.wpb and 0 <= k < len(self.pc):
            self.push(k)
            pc = int(self.pc[k])
            self._kind = self.model.code[pc].kind if pc < len(self.model.code) else None
            if self._kind in ("bar", "exit"):  # (the model looks at every warp of the block, and coverage
                for j in range(block * self.wpb, block * self.wpb + self.wpb):  # at its arrivals)
                    self.push(j)
                self._arrivals()
        cov = self.coverage
        if cov is not None:
            for sm in range(len(self.last_b)):
                if self.last_b[sm] >= 0:
                    cov.last_retire[sm] = (int(self.last_b[sm]), int(self.last_w[sm]))

    def after_python(self, block: int, warp: int) -> None:
        """The Python model stepped (block, warp): take its state back."""
        b = self.model.blocks.get(block)
        if b is not None:
            stepped = b.warps[warp] if 0 <= warp < len(b.warps) else None
            released = self._kind == "bar" and stepped is not None and stepped.state is WarpState.READY
            if released or self._kind == "exit":  # a barrier released, a warp finished: the whole block
                for w in b.warps:
                    k = block * self.wpb + w.wid
                    self.push(k)
                    self.pull(k, w)
            elif 0 <= warp < len(b.warps):
                self.pull(block * self.wpb + warp, b.warps[warp])
        self._kind = None
        cov = self.coverage
        if cov is not None:
            for sm, (bid, wid) in cov.last_retire.items():
                if sm < len(self.last_b):
                    self.last_b[sm], self.last_w[sm] = bid, wid

    # ---- global memory traffic (Q/P lines) -------------------------------------------------------
    def bind(self, monitor: Any, checker: Any, requests: list[Any], responses: list[Any]) -> None:
        """Take the Q/P lines of ``monitor`` when every subscriber of its request and response ports
        (``requests``, ``responses``: their write functions) is one whose work the fast path does: the
        launch checker's coalescing board, the memory agent's image (a ``GmemAgent``'s ``mem``) and
        functional coverage (the collector of :attr:`coverage`). Otherwise the Python path takes them."""
        self.monitor = monitor
        ok = True
        for fn in [*requests, *responses]:
            owner = getattr(fn, "__self__", None)
            if owner is checker:
                continue
            if (
                owner is not None
                and self.coverage is not None
                and getattr(owner, "cov", None) is self.coverage
                and hasattr(owner, "_held")
            ):
                self.collector = owner
                continue
            mem = getattr(owner, "mem", None)
            if (
                fn in requests
                and type(owner).__name__ == "GmemAgent"
                and fn.__name__ == "write_request"
                and isinstance(mem, np.ndarray)
                and mem.dtype == np.uint32
                and mem.flags.c_contiguous
            ):
                self.hostmem = mem
                continue
            ok = False
        if not ok or (self.coverage is None and len(responses) != 1):
            return
        if self.hostmem is not None:
            self.st.hostmem, self.st.hostmem_len = self.hostmem.ctypes.data, len(self.hostmem)
        self.st.qp_on = 1

    def _adopt(self) -> None:
        """The requests the Python path holds outstanding (the monitor's and the coalescing board's) ->
        the fast path, when both hold the same ones (else the Python path keeps the Q/P lines)."""
        mon, out = self.monitor, self.coal.outstanding
        held = Counter(tag for tag, _ in mon._pending)
        if held != Counter({t: len(q) for t, q in out.items() if q}) or len(mon._pending) > OUT_CAP:
            self.st.qp_on = 0
            return
        n = len(mon._pending)
        if n:
            self.otag[:n] = [t for t, _ in mon._pending]
            self.ocyc[:n] = [c for _, c in mon._pending]
        self.st.nout = n
        mon._pending.clear()
        out.clear()

    def release(self) -> None:
        """Everything of global memory the fast path holds -> the Python path (the monitor's outstanding
        requests, the coalescing board's outstanding and pending transactions and the loader's words),
        before it takes a Q/P line itself, and at the end of a launch."""
        s = self.st
        if s.nout:
            n = int(s.nout)
            tags, cycles = self.otag[:n].tolist(), self.ocyc[:n].tolist()
            self.monitor._pending.extend(zip(tags, cycles))
            out = self.coal.outstanding
            for t in tags:
                out[t].append(None)  # (the board only counts them)
            s.nout = 0
        if s.ngq_total:
            self.spill_global()
        self._loader_done()

    def _loader_done(self) -> None:
        if len(self.ldone):
            n = int(np.count_nonzero(self.ldone))
            if n != self.lhanded:
                self.coal.loader_done.update(self.lkeys[self.ldone != 0].tolist())
                self.lhanded = n

    def spill_global(self, key: int | None = None) -> None:
        """The transactions the fast path holds (of warp slot ``key``, or all) -> the coalescing board's
        pending ones, in acceptance order (before the Python path looks at them)."""
        from tb.agents.gmem_responder import MemTxn

        s = self.st
        if not s.ngq_total:
            return
        keys = np.flatnonzero(self.ngq).tolist() if key is None else [key]
        seg = self.model.cfg.seg_words
        for key in keys:
            n = int(self.ngq[key]) if 0 <= key < len(self.ngq) else 0
            if not n:
                continue
            sm, ws = divmod(key, self.busy_stride)
            self.coal.pending[(sm, ws)].extend(
                MemTxn(e[0], bool(e[2]), e[1], tuple(e[GQ_HDR : GQ_HDR + seg]), e[3], e[4], seq=e[5])
                for e in self.gq[key, :n].tolist()
            )
            self.ngq[key] = 0
            s.ngq_total -= n

    # ---- checking ------------------------------------------------------------------------------
    def run(self, buf: bytes, pos: int, end: int) -> int:
        """Check retire lines of ``buf[pos:end]`` until one the fast path does not take; its offset."""
        if self.coal.errors:
            return pos
        mon, s = self.monitor, self.st
        if s.qp_on:
            if mon._pending and not s.nout:
                self._adopt()
            s.qseq = mon._seq
        # (a warp slot that owes a retired posted store's transactions is the Python board's too: its
        # Q lines and retires go there until they are paid, tb/scoreboards/coalescing.py)
        shared, coal, owed = self.shared.pending, self.coal.pending, self.coal.owed
        if shared or coal or owed or self._busy:
            busy = self.busy
            busy[:] = 0
            for bit, held in ((1, shared), (2, coal), (2, owed)):
                for sm, ws in held:
                    if 0 <= ws < self.busy_stride and 0 <= sm < len(self.last_b):
                        busy[sm * self.busy_stride + ws] |= bit
            self._busy = bool(shared or coal or owed)
        while True:
            new = self._run(self._ref, buf, pos, end)
            st = self.st
            if new == end or (
                st.ncov < LOG
                and st.nshl < LOG
                and st.ndirty + self.wpb + 1 <= LOG
                and st.narr < LOG
                and st.nbdone < LOG
            ):
                if st.qp_on:
                    mon._seq = st.qseq
                return new
            self.flush()  # (the logs are full: empty them and go on)
            pos = new

    def flush(self) -> None:
        """Hand what the fast path checked since the last flush to the model, the boards and coverage."""
        s = self.st
        c = self.counters
        if c[24]:  # (S lines only: counted without a retire)
            self.shared.clears += int(c[24])
            c[24] = 0
        if c[51]:
            if self.collector is not None:
                self.collector._held = True
            c[51] = 0
        if c[39] or c[30]:  # Q/P lines (counted without a retire)
            q = c[29:40].tolist()
            c[29:40] = 0
            coal = self.coal
            coal.loader_txns += q[0]
            coal.responses += q[1]
            cov = self.coverage
            if cov is not None:
                if q[3]:
                    cov.order.counts[("in_order",)] += q[3]
                if q[4]:
                    cov.order.counts[("overtaking",)] += q[4]
                for name, k in zip(LATENCY_BUCKETS, q[5:10]):
                    if k:
                        cov.latency.counts[(name,)] += k
        n = int(c[0])
        if n:
            cnt = c.tolist()
            c[:] = 0
            m, mc = self.model, self.model.counters
            m.retires += n
            mc.warp_instrs += n
            mc.thread_instrs += cnt[1]
            for i, cls in enumerate(CLASSES):
                mc.warp_by_class[cls] += cnt[5 + i]
                mc.thread_by_class[cls] += cnt[13 + i]
            mc.shared_accesses += cnt[3]
            mc.shared_passes += cnt[4]
            r = self.retire
            r.compared += n
            r.lanes_compared += cnt[2]
            self.div.compared += n
            self.shared.compared += n
            self.coal.compared += n
            self.coal.shared_accesses += cnt[3]
            self.shared.stores += cnt[22]
            if cnt[27]:
                mc.global_accesses += cnt[27]
                mc.global_transactions += cnt[28]
                self.coal.accesses += cnt[27]
                self.coal.txns += cnt[28]
                self.globals += cnt[27]
            self.shared.writes += cnt[23]
            self.handled += n
            self.stores += cnt[22]
            self.barriers += cnt[25]
            self.exits += cnt[53]
            if cnt[52] and self.coverage is not None:
                self.coverage.shape.counts[("partial_exit",)] += cnt[52]
            mc.barrier_arrivals += cnt[25]
            mc.barrier_releases += cnt[26]
            if cnt[54] or cnt[55]:
                self.shared.blocks_checked += cnt[54]
                self.shared.words_checked += cnt[55]
            if cnt[26]:
                for bid in np.flatnonzero(self.epoch_inc).tolist():
                    self.model.blocks[bid].epoch += int(self.epoch_inc[bid])
                self.epoch_inc[:] = 0
            if cnt[21] and self.coverage is not None:
                self.coverage.shape.counts[("uniform_branch",)] += cnt[21]
            if any(cnt[40:51]):
                if self.coverage is not None:
                    for name, k in zip(SHAPES, cnt[40:45]):
                        if k:
                            self.coverage.shape.counts[(name,)] += k
                mc.stack_pushes += cnt[45]
                mc.stack_pops += cnt[46]
                mc.max_stack_depth = max(mc.max_stack_depth, cnt[49])
                mc.divergent_branches += cnt[50]
                self.div.pushes += cnt[45]
                self.div.pops += cnt[46]
                self.div.merges += cnt[47]
                self.div.tops += cnt[48]
        self._arrivals()
        self.blocks_done()
        if s.ndirty > LOG // 2:  # (else the warps stay the fast path's until the Python path or the end
            self.push_all()  # of the launch looks at them: before_python, settle)
        if s.ncov > LOG // 2 or s.nshl > LOG // 2:  # (else counted in bulk later: settle)
            self.flush_coverage()

    def flush_coverage(self) -> None:
        """The coverage samples the fast path logged -> functional coverage's raw counts."""
        s = self.st
        if s.ncov:
            self._coverage(int(s.ncov), int(s.nshl))
            s.ncov = s.nshl = 0

    def _arrivals(self) -> None:
        """The barrier arrivals and releases the fast path checked -> coverage (as GpuCoverage.retire
        counts them: a BAR arrives (how 0, 1: and releases its block), a finishing EXIT only releases (2))."""
        s = self.st
        if not s.narr:
            return
        cov = self.coverage
        if cov is not None:
            for bid, wid, how in self.arr[: s.narr].tolist():
                if how != 2:
                    cov.arrivals.setdefault(bid, []).append(wid)
                if how:
                    cov.arrival(arrival_class(cov.arrivals.pop(bid, [wid])))
        s.narr = 0

    def blocks_done(self) -> None:
        """The blocks a checked EXIT finished -> the model (``Block.done``) and coverage's residency (as
        GpuCoverage.retire counts a ``block_done``); before the next dispatch is published (its residency
        sample counts the blocks still resident), a hang report and the end of the launch."""
        s = self.st
        if not s.nbdone:
            return
        blocks, cov = self.model.blocks, self.coverage
        for bid, sm in self.bdone[: s.nbdone].tolist():
            blocks[bid].done = True
            self.blocks += 1
            if cov is not None:
                sm_of = cov.block_sm.pop(bid, sm)
                cov.resident_on[sm_of] = max(0, cov.resident_on.get(sm_of, 1) - 1)
        s.nbdone = 0

    def push_all(self) -> None:
        """Every warp the fast path stepped -> the model and the retire board's history."""
        s = self.st
        if s.ndirty:
            for k in self.dirty_list[: s.ndirty].tolist():
                self.push(k)
            s.ndirty = 0

    def settle(self) -> None:
        """:meth:`flush`, every warp handed to the model, and the bank writes and memory traffic the fast
        path holds handed to the boards (the end of a launch, a hang report: the model's warps and the
        boards' leftovers are complete)."""
        self.flush()
        self.flush_coverage()
        self.push_all()
        self.spill()
        self.release()

    def _coverage(self, ncov: int, nshl: int) -> None:
        cov = self.coverage
        if cov is None:
            return
        log = self.cov[:ncov]
        mv = (log[:, 1].astype(np.uint64) << np.uint64(32)) | log[:, 2]  # (mask, valid)
        span = 4 * (self.depth + 1)
        ps = log[:, 0].astype(np.int64) * span + log[:, 3]  # (pc, depth, switch)
        code, raw = self.model.code, cov.raw
        # (not np.unique: without return_counts it imports numpy.ma, whose ~8,000 lines cocotb's assertion
        # rewriting parses and compiles again in every run: ~0.3 CPU s of a MatrixMul 64 run)
        groups = sorted(set(mv.tolist()))
        for g in groups:
            sel = ps if len(groups) == 1 else ps[mv == g]
            counts = np.bincount(sel)
            mask, valid = g >> 32, g & 0xFFFF_FFFF
            for key in np.flatnonzero(counts).tolist():
                pc, r = divmod(key, span)
                sw = r & 3
                raw[(code[pc].word, mask, valid, r >> 2, None if sw == 3 else sw)] += int(counts[key])
        cov.samples += ncov
        for sm in range(len(self.last_b)):
            if self.last_b[sm] >= 0:
                cov.last_retire[sm] = (int(self.last_b[sm]), int(self.last_w[sm]))
        if nshl:
            size = 4 * (self.W + 2)
            mem_raw = cov.mem_raw
            keys = self._shl_keys
            if len(keys) > 1 << 16:
                keys.clear()
            rows = self.shl[:nshl].view(np.dtype((np.void, size))).ravel()
            uniq, counts = np.unique(rows, return_counts=True)
            for u, n in zip(uniq, counts.tolist()):
                row = u.tobytes()
                key = keys.get(row)
                if key is None:
                    entry = np.frombuffer(row, np.uint32)
                    flags, mask, addrs = int(entry[0]), int(entry[1]), entry[2:]
                    store, glob = bool(flags & 1), bool(flags & 2)
                    key = keys[row] = (
                        ("global", store, mask, addrs.tobytes(), (), flags >> 2)
                        if glob
                        else ("shared", store, mask, addrs.tobytes(), self.model._rows(addrs, mask), 0)
                    )
                mem_raw[key] += n


def raw_counts(cov: Any) -> tuple[Counter, Counter]:
    """Coverage's raw counts (for the differential test)."""
    return Counter(cov.raw), Counter(cov.mem_raw)
