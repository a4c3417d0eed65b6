"""The random-kernel generator's planning half: the register plan, the knobs and the result types,
the code fragments, and :class:`Planner` -- the launch shape, the global-memory regions, the shared
sites and the bank-conflict degrees, chosen before a single instruction is emitted.

The emitting half (statements, control flow, prologue and epilogue) is :class:`_Gen` in
random_kernel.py, which builds on this one; the rules both follow are in random_kernel.py's docstring.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from spec.config import GpuConfig
from spec.image import LaunchImage
from spec.model import shared_passes

# ------------------------------------------------------------------------------------------------
# Register plan (16 registers; r0 is never written, so it reads 0 -- docs/isa.md 1)
# ------------------------------------------------------------------------------------------------
ZERO, TID, GID, LANE, ACC = "r0", "r1", "r2", "r3", "r4"
VALS = ("r5", "r6", "r7", "r8")  # per-thread values the ALU work churns
T0, T1, T2, T3 = "r9", "r10", "r11", "r12"  # scratch: conditions and addresses, dead after use
COUNTERS = ("r13", "r14")  # loop counters (two loop levels at most)
SLOT = "r15"  # this thread's word in the shared half being written
NREGS = 16

GLOBAL_PATTERNS = ("coalesced", "strided", "scattered")
MIN_WARP_COST = 100  # warp-instructions per warp the shape planner leaves room for at least
PER_WARP_MAX = 600  # and at most
# a phase's fixed code at most: its barrier and a second one, and its phase prologue (the 7-instruction
# bit-swap of a conflict pattern, an ADDI for a far base, the shared store); the generator keeps this much
# room per later phase so the phases after a construct still fit (random_kernel.py, _Gen.build)
PHASE_FIXED_MAX = 11
PROLOGUE_MAX = 26  # the kernel prologue at most (3-D thread and block indices: 8 + 1 + 8, and 9 more)
EPILOGUE_MAX = 24  # room the generator keeps for the epilogue (checksum folds, the final store, EXIT)
# Barriers a kernel may have so that even the smallest warp budget (MIN_WARP_COST) holds the prologue,
# the epilogue and every phase's fixed code: (100 - 26 - 24) // 11 = 4 phases, 3 barriers.
MAX_BARRIERS = (MIN_WARP_COST - PROLOGUE_MAX - EPILOGUE_MAX) // PHASE_FIXED_MAX - 1
MIN_IMEM = 128  # prologue, phases and epilogue need about 100 instructions

R3_OPS = ("ADD", "SUB", "SLT", "SGT", "SHR", "SHL", "AND", "OR", "XOR", "SLTU", "SGTU", "SEQ", "SNE",
          "MIN", "MAX", "MINU", "MAXU", "SRA", "MULHU")  # fmt: skip
RI_SIGNED = ("ADDI", "SUBI", "MULI", "SLTI", "SGTI", "SLTUI", "SGTUI", "SEQI", "SNEI", "MINI", "MAXI",
             "MINUI", "MAXUI", "MULHUI")  # fmt: skip
RI_LOGIC = ("ANDI", "ORI", "XORI")
RI_SHIFT = ("SHLI", "SHRI", "SRAI")
SREGS = ("%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y",
         "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z", "%tid", "%laneid", "%warpid")  # fmt: skip


@dataclass(frozen=True)
class KernelKnobs:
    """Everything the generator may vary. ``None`` means "chosen at random per seed"."""

    max_stack_depth: int | None = None  # divergence-stack entries a kernel may use (None: STACK_DEPTH)
    max_nesting: int = 3  # nesting levels of random constructs (the deep nest aside)
    deep_nest_prob: float = 0.6  # probability of a nest that reaches the aimed stack depth exactly
    loop_prob: float = 0.35  # weight of loops among the constructs
    max_trip: int = 4  # per-lane loop trip counts are 0..max_trip
    barriers: bool | None = None  # None: random; True: at least one BAR; False: none
    max_barriers: int = 2  # barriers (phases - 1) at most
    shared_conflict: int | None = None  # shared-memory bank-conflict degree of every pattern
    global_pattern: str | None = None  # "coalesced" | "strided" | "scattered" for every store site
    partial_exit_prob: float = 0.6  # weight of partial EXIT constructs (in the last phase)
    exit_before_barrier: bool = False  # allow exits before a barrier (legal by docs/isa.md 5)
    max_blocks: int | None = None  # grid size bound (None: max(12, 3 * NUM_SMS))
    max_threads: int = 256  # threads per block bound
    code_words: int = 200  # static instructions target (bounded by IMEM_WORDS)
    max_warp_instrs: int = 4000  # upper bound of the warp-instructions the kernel executes

    def __post_init__(self) -> None:
        if self.global_pattern is not None and self.global_pattern not in GLOBAL_PATTERNS:
            raise ValueError(f"global_pattern must be one of {GLOBAL_PATTERNS} or None")
        if self.shared_conflict is not None and (self.shared_conflict < 1 or not _pow2(self.shared_conflict)):
            raise ValueError("shared_conflict must be a power of two")
        if self.max_trip < 1 or self.max_nesting < 0 or self.max_threads < 1 or self.max_warp_instrs < 200:
            raise ValueError("max_trip >= 1, max_nesting >= 0, max_threads >= 1, max_warp_instrs >= 200")
        if not 0 <= self.max_barriers <= MAX_BARRIERS:
            raise ValueError(
                f"max_barriers={self.max_barriers}: use 0..{MAX_BARRIERS}; each barrier's phase needs up to "
                f"{PHASE_FIXED_MAX} warp-instructions of fixed code, and a warp's budget may be as small as "
                f"{MIN_WARP_COST} with the prologue ({PROLOGUE_MAX}) and epilogue ({EPILOGUE_MAX}) in it"
            )


@dataclass
class RandomKernel:
    seed: int
    source: str  # assembly text (comments name the constructs)
    image: LaunchImage  # assembled; input data placed as DATA records
    features: set[str]  # constructs this kernel contains
    stack_target: int = 0  # the stack depth the generator aimed at (static bound of every construct)
    warp_instr_bound: int = 0  # upper bound of the warp-instructions the kernel executes
    regions: dict[str, tuple[int, int]] = field(default_factory=dict)  # global name -> (base, words)


# ------------------------------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------------------------------
def _pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def _log2(x: int) -> int:
    return x.bit_length() - 1


def _mem(reg: str, off: int) -> str:
    return f"[{reg}]" if off == 0 else f"[{reg} + {off}]" if off > 0 else f"[{reg} - {-off}]"


class _Frag:
    """A piece of code with its static size, per-warp cost bound and stack-depth bound."""

    __slots__ = ("lines", "words", "cost", "depth", "features")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.words = 0
        self.cost = 0  # upper bound of warp-instructions one warp executes running this once
        self.depth = 0  # stack entries this code may add on top of its context
        self.features: set[str] = set()

    def i(self, op: str, *operands: object, note: str = "") -> None:
        text = f"        {op:<6} {', '.join(str(o) for o in operands)}".rstrip()
        if note:
            text = f"{text:<44}; {note}"
        self.lines.append(text)
        self.words += 1
        self.cost += 1

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def note(self, text: str) -> None:
        self.lines.append(f"        ; {text}")

    def add(self, other: _Frag, depth_base: int = 0) -> None:
        self.lines += other.lines
        self.words += other.words
        self.cost += other.cost
        self.depth = max(self.depth, depth_base + other.depth)
        self.features |= other.features


class _Perm:
    """Bit-swap permutation of a thread index giving a d-way bank conflict per row (docs/isa.md 6.1).

    Lane-in-row bits [l-c, l) trade places with bits [p, p+c), p = max(l, log2 NUM_BANKS) (c = log2 d):
    a row's lanes then cover NUM_LANES/d banks, each with d distinct words. A bijection on [0, size).
    """

    def __init__(self, d: int, size: int, lanes: int, banks: int) -> None:
        c, nl, bb = _log2(d), _log2(lanes), _log2(banks)
        self.d, self.size, self.c = d, size, c
        self.lo1, self.lo2 = nl - c, max(nl, bb)
        self.shift = self.lo2 - self.lo1
        self.m1 = ((1 << c) - 1) << self.lo1
        self.m2 = ((1 << c) - 1) << self.lo2
        self.keep = (size - 1) & ~(self.m1 | self.m2)

    @staticmethod
    def fits(d: int, size: int, lanes: int, banks: int) -> bool:
        c, nl, bb = _log2(d), _log2(lanes), _log2(banks)
        return _pow2(d) and c <= nl and d <= banks and (c == 0 or 1 << (max(nl, bb) + c) <= size)

    def __call__(self, v: int) -> int:
        if self.c == 0:
            return v & (self.size - 1)
        return (v & self.keep) | ((v >> self.shift) & self.m1) | ((v << self.shift) & self.m2)

    def emit(self, f: _Frag, dst: str, src: str, tmp: str) -> None:
        if self.c == 0:
            f.i("ANDI", dst, src, self.size - 1, note=f"word = index mod {self.size} (conflict-free)")
            return
        f.i("ANDI", dst, src, self.keep, note=f"{self.d}-way conflict: swap index bits")
        f.i("SHRI", tmp, src, self.shift)
        f.i("ANDI", tmp, tmp, self.m1)
        f.i("OR", dst, dst, tmp)
        f.i("SHLI", tmp, src, self.shift)
        f.i("ANDI", tmp, tmp, self.m2)
        f.i("OR", dst, dst, tmp)


@dataclass
class _Site:
    """A global store site and its output region (one word per slot, times the stride)."""

    name: str
    base: int
    size: int
    pattern: str  # coalesced | strided | scattered
    phase: int
    stride: int = 1
    sub: int = 0  # word within the stride
    perm: tuple[str, int, int] = ("xor", 0, 0)  # scattered: (kind, a, b)


@dataclass
class _Phase:
    writes: bool  # writes its shared half
    cur_base: int = 0  # base of the half it writes
    size: int = 0  # words of that half
    store_perm: _Perm | None = None
    readable: tuple[int, int] = (0, 0)  # (base, words) every warp may read in this phase
    exchange: bool = False  # the readable words were written by other warps before a barrier


@dataclass
class _Ctx:
    depth: int  # stack entries (static bound) in use here
    nest: int  # construct nesting level
    loops: int  # loop counters in use
    divergent: bool  # inside an SSY region: the active mask may be partial
    exits: bool  # partial exits allowed here

    def inner(self, depth: int, *, loop: bool = False, divergent: bool = True) -> _Ctx:
        return _Ctx(
            self.depth + depth, self.nest + 1, self.loops + loop, self.divergent or divergent, self.exits
        )


# ------------------------------------------------------------------------------------------------
# The generator
# ------------------------------------------------------------------------------------------------
class Planner:
    def __init__(self, seed: int, cfg: GpuConfig, knobs: KernelKnobs) -> None:
        self.seed, self.cfg, self.k = seed, cfg.check(), knobs
        if cfg.imem_words < MIN_IMEM or cfg.const_words < 16 or cfg.global_words < 2048:
            raise ValueError(
                f"the generator needs IMEM_WORDS >= {MIN_IMEM}, CONST_WORDS >= 16 and GLOBAL_WORDS >= 2048"
            )
        self.rng = random.Random(seed)
        self.features: set[str] = set()
        self.nlabel = 0
        self.W = cfg.warp_size
        self.sites: list[_Site] = []
        self.exits_left = 3
        self.phase = 0

    # ---- small utilities ------------------------------------------------------------------------
    def lab(self, kind: str) -> str:
        self.nlabel += 1
        return f"{kind}{self.nlabel}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def val(self) -> str:
        return self.rng.choice(VALS)

    def src(self) -> str:
        return self.rng.choice(VALS + VALS + (TID, GID, LANE, ACC))

    def snapshot(self) -> tuple[int, int, int]:
        return self.cursor, len(self.sites), self.exits_left

    def restore(self, snap: tuple[int, int, int]) -> None:
        self.cursor, n, self.exits_left = snap
        del self.sites[n:]

    # ---- launch shape ---------------------------------------------------------------------------
    def plan_shape(self) -> None:
        cfg, k, rng, W = self.cfg, self.k, self.rng, self.W
        rows = cfg.warp_rows
        wmax = min(cfg.num_warps, cfg.rf_depth // (rows * NREGS), max(1, k.max_threads // W))
        if wmax < 1:
            raise ValueError(f"{cfg} cannot hold one warp of {NREGS} registers per thread")
        max_blocks = k.max_blocks or max(12, 3 * cfg.num_sms)
        total_warps = max(1, k.max_warp_instrs // MIN_WARP_COST)

        def cap(wpb: int) -> int:
            return cfg.num_sms * min(cfg.num_blocks, cfg.num_warps // wpb)

        mode = rng.choices(["one", "few", "many", "oversub"], weights=[1, 2, 3, 2.5])[0]
        wpbs = [w for w in range(1, wmax + 1) if w <= total_warps]
        if mode == "oversub":
            over = [w for w in wpbs if cap(w) + 1 <= min(max_blocks, total_warps // w)]
            if over:
                wpbs = over
            else:
                mode = "many"
        wpb = rng.choices(wpbs, weights=[1 / math.sqrt(w) for w in wpbs])[0]
        hi = min(wpb * W, k.max_threads)
        lo = min(hi, (wpb - 1) * W + 1)
        if self.chance(0.4):
            tpb = hi
        else:
            tpb = rng.randint(max(lo, min(hi, 4)), hi)
        ndims = rng.choices([1, 2, 3], weights=[2, 1.5, 1.5])[0]
        if ndims == 2 and tpb >= 2:
            y = rng.randint(2, min(8, tpb))
            block = (tpb // y, y, 1)
        elif ndims == 3 and tpb >= 4:
            z = rng.randint(2, min(4, tpb // 2))
            y = rng.randint(2, max(2, min(4, tpb // (2 * z))))
            block = (max(1, tpb // (y * z)), y, z)
        else:
            block = (tpb, 1, 1)
        self.block = block
        self.tpb = block[0] * block[1] * block[2]
        self.wpb = -(-self.tpb // W)
        self.V0 = min(W, self.tpb)  # valid lanes of warp 0

        nbmax = max(1, min(max_blocks, total_warps // self.wpb))
        S, c = cfg.num_sms, cap(self.wpb)
        nb = {
            "one": 1,
            "few": rng.randint(2, max(2, S)),
            "many": rng.randint(S + 1, 3 * S),
            "oversub": rng.randint(c + 1, c + 3),
        }[mode]
        nb = max(1, min(nb, nbmax))
        gdims = rng.choices([1, 2, 3], weights=[2, 1.5, 1.5])[0] if nb > 1 else 1
        divs = [d for d in range(1, nb + 1) if nb % d == 0]
        if gdims == 2:
            y = rng.choice([d for d in divs if d > 1])
            grid = (nb // y, y, 1)
        elif gdims == 3:
            z = rng.choice([d for d in divs if d > 1])
            y = rng.choice([d for d in range(1, nb // z + 1) if (nb // z) % d == 0])
            grid = (nb // (y * z), y, z)
        else:
            grid = (nb, 1, 1)
        self.grid = grid
        self.nb = nb
        self.total_warps = nb * self.wpb
        allowed = min(32, cfg.rf_depth // (self.wpb * rows))
        self.regs = NREGS if self.chance(0.5) else rng.randint(NREGS, allowed)

        f = self.features
        f.add(f"block_{max(i + 1 for i in range(3) if block[i] > 1 or i == 0)}d")
        f.add(f"grid_{max(i + 1 for i in range(3) if grid[i] > 1 or i == 0)}d")
        if self.tpb % W:
            f.add("partial_warp")
        if self.wpb > 1:
            f.add("multi_warp_block")
        if nb > 1:
            f.add("multi_block_grid")
        if nb > S:
            f.add("grid_gt_sms")
        if nb > c:
            f.add("grid_gt_resident")
        if self.regs > NREGS:
            f.add("regs_gt_used")

    # ---- memory plan ----------------------------------------------------------------------------
    def alloc(self, size: int, misalign: bool = False) -> int | None:
        seg = self.cfg.seg_words
        base = -(-self.cursor // seg) * seg
        if misalign and seg > 1:
            base += self.rng.randrange(1, seg)
        if base + size > self.cfg.global_words or base + size > 32767:
            return None
        self.cursor = base + size
        return base

    def plan_memory(self) -> None:
        cfg, k, rng, W = self.cfg, self.k, self.rng, self.W
        self.slots = self.nb * self.wpb * W
        self.cursor = rng.randrange(0, 4) * cfg.seg_words
        nin = max(64, min(rng.choice([128, 256, 512]), cfg.global_words // 8))
        self.nin = nin
        self.in_base = self.alloc(nin)
        assert self.in_base is not None
        self.in_data = [rng.getrandbits(32) for _ in range(nin)]
        # constants: random words (the first few small: uniform trip counts and flags), then a lane
        # permutation table for scattered stores
        ncr = (
            32 if cfg.const_words >= 32 + W else 16 if cfg.const_words >= 16 + W else min(16, cfg.const_words)
        )
        self.consts = [rng.getrandbits(32) for _ in range(ncr)]
        for i in range(min(4, ncr)):
            self.consts[i] = rng.randint(1, k.max_trip)
        self.ncr = ncr
        self.perm_base: int | None = None
        if ncr + W <= cfg.const_words:
            perm = list(range(W))
            rng.shuffle(perm)
            self.perm_base = ncr
            self.consts += perm
        final = self.new_site("final", k.global_pattern)
        if final is None:
            raise ValueError(f"{self.slots} output slots do not fit global memory ({cfg.global_words} words)")
        self.final = final
        self.params = {
            "IN_BASE": self.in_base,
            "OUT_BASE": self.final.base,
            "TRIPS": rng.randint(1, k.max_trip),
            "KEY": rng.getrandbits(32),
            "FLAG": rng.randint(0, 1),
        }

    def new_site(self, name: str, pattern: str | None = None) -> _Site | None:
        rng, seg = self.rng, self.cfg.seg_words
        pattern = pattern or rng.choice(GLOBAL_PATTERNS)
        site = _Site(name, 0, self.slots, pattern, self.phase)
        if pattern == "strided":
            room = self.cfg.global_words - self.cursor - 2 * seg
            strides = sorted({s for s in (2, 4, seg, 2 * seg) if 2 <= s <= 32 and self.slots * s <= room})
            if not strides:
                if self.k.global_pattern == "strided":
                    return None
                pattern = site.pattern = "coalesced"
            else:
                site.stride = rng.choice(strides)
                site.sub = rng.randrange(site.stride)
                site.size = self.slots * site.stride
        if pattern == "scattered":
            kinds = ["xor", "affine"] + (["const"] if self.perm_base is not None else [])
            kind = rng.choice(kinds)
            a = rng.randrange(1, self.W) if kind == "xor" else rng.randrange(1, self.W, 2)
            site.perm = (kind, a, rng.randrange(self.W))
        base = self.alloc(site.size, misalign=pattern == "coalesced" and self.chance(0.3))
        if base is None:
            return None
        site.base = base
        return site

    def plan_shared(self) -> None:
        cfg, k, rng = self.cfg, self.k, self.rng
        L, B = cfg.num_lanes, cfg.num_banks
        if k.barriers is None:
            barriers = self.chance(0.65)
        else:
            barriers = k.barriers
        need = max(self.W, 1 << (self.tpb - 1).bit_length())
        forced = k.shared_conflict
        if forced is not None:
            if not _Perm.fits(forced, cfg.shared_words, L, B):
                raise ValueError(
                    f"a {forced}-way bank conflict is impossible with NUM_LANES={L}, "
                    f"NUM_BANKS={B}, SHARED_WORDS={cfg.shared_words}"
                )
            if barriers and not _Perm.fits(forced, cfg.shared_words // 2, L, B) and k.barriers is None:
                barriers = False  # the double buffer halves the regions: too small for this degree
        nphases = 1 + (rng.randint(1, max(1, k.max_barriers)) if barriers else 0)
        self.nphases = nphases
        # one preferred degree per kernel, so that every feasible degree is common over the seeds
        self.pref_degree = forced if forced is not None else rng.choice(self.degrees(cfg.shared_words))
        sh = cfg.shared_words
        if self.chance(0.25):
            smallest = max(need * (2 if nphases > 1 else 1), L * self.pref_degree)
            choices = [1 << e for e in range(_log2(smallest), _log2(cfg.shared_words) + 1)]
            if choices:
                sh = rng.choice(choices)
        self.shared = sh
        half = sh // 2 if nphases > 1 else sh
        self.phases: list[_Phase] = []
        for s in range(nphases):
            can = self.tpb <= half and self.W <= half
            degs = [d for d in self.degrees(half) if forced is None or d == forced]
            # a phase without shared writes may read all of shared memory: room for the preferred degree
            p_write = 0.8 if self.pref_degree in degs else 0.45
            if can and degs and self.chance(p_write):
                ph = _Phase(True, (s % 2) * half if nphases > 1 else 0, half)
                ph.store_perm = _Perm(self.choose_degree(degs), half, L, B)
                if nphases > 1:
                    ph.readable = (((s + 1) % 2) * half, half)
                    ph.exchange = s >= 1 and self.phases[s - 1].writes
            else:
                ph = _Phase(False, readable=(0, sh))
                ph.exchange = any(p.writes for p in self.phases)
            self.phases.append(ph)

    def choose_degree(self, degs: list[int]) -> int:
        if self.pref_degree in degs and self.chance(0.7):
            return self.pref_degree
        return self.rng.choice(degs)

    def degrees(self, size: int) -> list[int]:
        cfg = self.cfg
        out, d = [], 1
        while d <= min(cfg.num_lanes, cfg.num_banks):
            if _Perm.fits(d, size, cfg.num_lanes, cfg.num_banks):
                out.append(d)
            d *= 2
        return out

    def measure(self, addr_of_tid: list[int]) -> int:
        """Bank-conflict degree (largest passes of one row) of warp 0's valid lanes (docs/isa.md 6.1)."""
        cfg = self.cfg
        L = cfg.num_lanes
        valid = (1 << self.V0) - 1
        worst = 0
        for lo in range(0, self.W, L):
            m = valid & (((1 << L) - 1) << lo)
            if m:
                worst = max(worst, shared_passes(addr_of_tid, m, self.W, L, cfg.num_banks))
        return worst

    # ---- statements -----------------------------------------------------------------------------
