"""Seeded, constrained-random kernel generator.

``generate(seed, cfg, knobs=None) -> RandomKernel`` writes a kernel in our assembly
(docs/assembler.md), assembles it, places its input data in the launch image as DATA records (as
the directed kernels and the suite do, through kernels/launch.py) and reports the constructs it contains (``features``). The result
depends on ``(seed, cfg, knobs)`` only: every choice comes from one ``random.Random(seed)``.

Every kernel is correct by construction, so it runs to completion on the golden model with no
KernelError, no race and a known upper bound of warp-instructions. The rules it follows, and the part of
docs/isa.md each one comes from:

Machine fit (8.1, 9)
    Warps per block <= NUM_WARPS; register rows ``warps x WARP_SIZE/NUM_LANES x regs <= RF_DEPTH`` (the
    kernel names r0..r15 and sets ``.regs`` to 16..32 where the register file allows); shared words per
    block <= SHARED_WORDS; code <= IMEM_WORDS (every instruction is counted while generating, no ``LI``
    guesses); constants <= CONST_WORDS; every DATA record and output region inside GLOBAL_WORDS.

Errors never raised (7)
    Every memory address is masked into its region (power-of-two sizes) or built from thread indices
    whose range is known; ``LDC`` indices stay below the constants loaded; every ``%paramk`` read is
    supplied; ``%smid`` is never read (3.2: it is the one scheduling-dependent value).

Divergence (4.2, 4.3)
    Every branch on a per-lane value sits inside its own SSY region (no DIVERGENT_WITHOUT_SSY). Branches
    without SSY ("uniform branches", uniform loops) test values that are equal across a warp by
    construction: ``%warpid``, ``%ctaid``, ``%nctaid``, kernel parameters, constants at a fixed index.
    Stack entries used, per construct, on top of the entries of its context (4.3):

    * if ``SSY J; BEQ c, J; body; J:`` -- 1 (the skipping lanes wait at the rpc, nothing is pushed);
    * if ``SSY J; BNE c, T; BRA J; T: body; J:`` -- 2 (the fall-through path is a DIV);
    * if/else ``SSY J; Bxx c, T; ft; BRA J; T: tk; J:`` -- max(2 + tk, 1 + ft): the taken path runs
      first above the DIV of the fall-through path;
    * divergent loops (while form ``L: BEQ n, D`` and do-while form ``BNE n, L; D:``) -- 1: leaving
      lanes reach the rpc and wait, nothing is pushed per iteration; the "merge" form
      ``L: BNE n, B; BRA D; B: ...`` -- 2: its leaving lanes fold into one DIV by the merge rule;
    * partial exit ``SSY K; BNE keep, K; <store>; EXIT; K:`` -- 1.

    The generator keeps a static bound of the depth and never lets it exceed the kernel's aimed depth
    (``stack_target`` <= STACK_DEPTH), so there is never a STACK_OVERFLOW. When ``"deep_nest"`` is in
    ``features`` the kernel also holds a nest whose levels branch on lane-index thresholds
    (``lane < th``, thresholds decreasing), so warp 0 of every block is guaranteed to diverge at every
    level and the model's ``max_stack_depth`` equals ``stack_target`` exactly.

Barriers (5)
    ``BAR`` only at the top level of the kernel (empty stack: active mask == live mask, no
    BARRIER_DIVERGENCE), where every thread of the block arrives. By default no thread exits before the
    last barrier (``KernelKnobs.exit_before_barrier``); the spec allows it (exited threads are not live,
    done warps count as arrived), the knob turns it on.

Shared memory (3.3, 6.1, 6.4)
    Barriers cut the kernel into phases. With barriers, shared memory is two halves; phase ``s`` writes
    half ``s % 2`` only (each thread its own word, an injective map of its thread index) and reads the
    other half, which other warps wrote before the barrier (a phase that writes nothing may read
    everything). A thread re-reads its own word, or words of its own warp, in the half being written.
    So no word is ever written by two warps, nor written by one and read by another, without a barrier
    between: no race. A d-way bank conflict per row of NUM_LANES lanes comes from a bit-swap
    permutation of the thread index: the top log2(d) bits of the lane-in-row move above the bank bits,
    so a row hits NUM_LANES/d banks d times each; a read of one word by all lanes is a broadcast. The
    degree a pattern really has is measured with the model's ``shared_passes`` and reported as the
    feature ``shared_conflict_<d>``. A d-way conflict needs d words of one bank, i.e. a region of at
    least NUM_LANES*d words (for NUM_LANES = NUM_BANKS = 32 and 512 shared words the largest is 16-way).

Global memory (6.3, 6.4)
    Thread ``tid`` of flat block ``b`` owns slot ``G = b * warps_per_block * WARP_SIZE + tid`` (a partial
    last warp leaves holes, so permutations inside a warp never reach another warp's slots). Each store
    site has its own output region: coalesced ``R + G``, strided ``R + G*s + j`` (s = 2, 4, SEG_WORDS..),
    scattered ``R + (G - lane) + perm(lane)``; stores inside divergent code give partial masks. Loads
    read an input region of random data that nobody writes, the thread's own slots, or (after a
    barrier) the slots of another warp of the same block written before that barrier. Blocks never
    share a written word (barriers do not order blocks). Every thread stores its checksum register to
    the final region, at the end or just before it exits, so final memory shows every thread's work.

Size
    The generator adds up, per construct, an upper bound of the warp-instructions one warp executes
    (loops at their maximum trip count, both sides of every if/else) and keeps
    ``bound x warps`` <= ``KernelKnobs.max_warp_instrs`` (``RandomKernel.warp_instr_bound``).

Command line: ``python -m tb.sequences.random_kernel --seed N [--config sm2-l8] [--no-source]`` prints
the source and a summary (features, the model's warp-instructions), to reproduce a failing seed.
"""

from __future__ import annotations

from dataclasses import fields

from kernels import launch
from spec import cli
from spec.config import GpuConfig
from spec.machines import RANDOM
from tb.sequences.random_plan import (
    ACC,
    COUNTERS,
    EPILOGUE_MAX,
    GID,
    LANE,
    MIN_WARP_COST,
    PER_WARP_MAX,
    PHASE_FIXED_MAX,
    PROLOGUE_MAX,
    R3_OPS,
    RI_LOGIC,
    RI_SHIFT,
    RI_SIGNED,
    SLOT,
    SREGS,
    T0,
    T1,
    T2,
    T3,
    TID,
    VALS,
    ZERO,
    KernelKnobs,
    Planner,
    RandomKernel,
    _Ctx,
    _Frag,
    _log2,
    _mem,
    _Perm,
    _Site,
)


# ------------------------------------------------------------------------------------------------
# The generator: emitting, on top of the plan (random_plan.py)
# ------------------------------------------------------------------------------------------------
class _Gen(Planner):
    def alu_op(self, f: _Frag, dst: str | None = None) -> None:
        rng = self.rng
        d = dst or self.val()
        a, b = self.src(), self.src()
        r = rng.random()
        if r < 0.38:
            f.i(rng.choice(R3_OPS), d, a, b)
        elif r < 0.6:
            imm = rng.choice(
                [rng.randint(-64, 64), rng.randint(-32768, 32767), rng.choice([-1, 0, 1, 32767, -32768])]
            )
            f.i(rng.choice(RI_SIGNED), d, a, imm)
            f.features.add("alu_imm")
        elif r < 0.7:
            f.i(rng.choice(RI_LOGIC), d, a, rng.choice([rng.randint(0, 255), rng.randint(0, 65535), 0xFFFF]))
            f.features.add("alu_imm")
        elif r < 0.78:
            f.i(rng.choice(RI_SHIFT), d, a, rng.randint(0, 31) if self.chance(0.9) else rng.randint(32, 40))
            f.features.add("alu_imm")
        elif r < 0.84:
            f.i("MUL", d, a, b)
        elif r < 0.9:
            f.i("MAD", d, a, b, self.src())
        elif r < 0.93:
            f.i("NOT", d, a)
        elif r < 0.96:
            f.i("MV", d, a)
        elif r < 0.98:
            f.i("MVI", d, rng.randint(-32768, 32767))
        else:
            f.i("LUI", d, rng.randint(0, 65535))

    def mix(self, f: _Frag, v: str | None = None) -> None:
        v = v or self.val()
        op = self.rng.choice(["ADD", "XOR", "MULI", "MAD"])
        if op == "MULI":
            f.i("MULI", ACC, ACC, 31, note="checksum = checksum * 31 + value")
            f.i("ADD", ACC, ACC, v)
        elif op == "MAD":
            # checksum += value * other: every fold is invertible in the checksum (checksum * other
            # + value lost it when other was 0, and a kernel could store all zeros: seed 48, sm4-l16)
            f.i("MAD", ACC, self.val(), v, ACC, note="fold into the checksum")
        else:
            f.i(op, ACC, ACC, v, note="fold into the checksum")

    def s_alu(self, ctx: _Ctx) -> _Frag:
        f = _Frag()
        for _ in range(self.rng.randint(1, 4)):
            self.alu_op(f)
        if self.chance(0.5):
            self.mix(f)
        f.features.add("alu")
        return f

    def s_mix(self, ctx: _Ctx) -> _Frag:
        f = _Frag()
        self.mix(f)
        return f

    def s_sreg(self, ctx: _Ctx) -> _Frag:
        f = _Frag()
        v = self.val()
        if self.chance(0.3):
            name = self.rng.choice(list(self.params))
            f.i("LDS", v, f"%{name}", note="kernel parameter")
            f.features.add("param")
        else:
            f.i("LDS", v, self.rng.choice(SREGS))
        f.features.add("sreg")
        self.mix(f, v)
        return f

    def s_const(self, ctx: _Ctx) -> _Frag:
        f = _Frag()
        v, rng = self.val(), self.rng
        kind = rng.choice(["uniform", "data"] + (["lane"] if self.perm_base is not None else []))
        if kind == "uniform":
            f.i(
                "LDC",
                v,
                _mem(ZERO, rng.randrange(len(self.consts))),
                note="constant, same word for all lanes",
            )
        elif kind == "data":
            f.i("ANDI", T0, self.val(), self.ncr - 1)
            f.i("LDC", v, _mem(T0, 0), note="constant at a data-dependent index")
        else:
            f.i("LDC", v, _mem(LANE, self.perm_base), note="constant indexed by lane")
        f.features.add("const")
        return f

    def s_gload(self, ctx: _Ctx) -> _Frag:
        f, rng = _Frag(), self.rng
        v = self.val()
        kind = rng.choice(["coalesced", "strided", "gather", "broadcast", "scattered"])
        mask = self.nin - 1
        if kind == "coalesced":
            f.i("ANDI", T0, GID, mask)
        elif kind == "strided":
            f.i("SHLI", T0, GID, rng.randint(1, 3))
            f.i("ANDI", T0, T0, mask)
        elif kind == "gather":
            f.i("ANDI", T0, self.val(), mask)
        elif kind == "broadcast":
            if self.chance(0.5):
                f.i(
                    "LDG", v, _mem(ZERO, self.in_base + rng.randrange(self.nin)), note="global broadcast load"
                )
                f.features.add("gload_broadcast")
                self.mix(f, v)
                return f
            f.i("LDS", T0, "%warpid")
            f.i("MULI", T0, T0, rng.randrange(1, 64))
            f.i("ANDI", T0, T0, mask)
        else:
            f.i("XORI", T0, GID, rng.randrange(1, self.W))
            f.i("ANDI", T0, T0, mask)
        f.i("LDG", v, _mem(T0, self.in_base), note=f"global load, {kind} (input region)")
        f.features.add(f"gload_{kind}")
        if self.chance(0.6):
            self.mix(f, v)
        return f

    def lane_perm(self, f: _Frag, site: _Site, dst: str) -> None:
        kind, a, b = site.perm
        if kind == "const":
            f.i("LDC", dst, _mem(LANE, self.perm_base), note="lane permutation table")
            f.features.add("const")
        elif kind == "affine":
            f.i("MULI", dst, LANE, a, note=f"lane -> ({a} * lane + {b}) mod {self.W}")
            f.i("ADDI", dst, dst, b)
            f.i("ANDI", dst, dst, self.W - 1)
        else:
            f.i("XORI", dst, LANE, a, note=f"lane -> lane ^ {a}")

    def site_addr(self, f: _Frag, site: _Site, g: str) -> tuple[str, int]:
        """Emit the address of slot ``g`` (a register holding a slot index) of ``site``: (reg, offset)."""
        if site.pattern == "coalesced":
            reg, off = g, site.base
        elif site.pattern == "strided":
            f.i("SHLI", T0, g, _log2(site.stride), note=f"stride {site.stride}")
            reg, off = T0, site.base + site.sub
        else:
            self.lane_perm(f, site, T0)
            f.i("SUB", T1, g, LANE, note="slot 0 of this warp")
            f.i("ADD", T0, T0, T1)
            reg, off = T0, site.base
        if not -1024 <= off <= 1023:
            f.i("ADDI", T0, reg, off)
            reg, off = T0, 0
        return reg, off

    def store_site(self, f: _Frag, site: _Site, v: str, partial: bool) -> None:
        reg, off = self.site_addr(f, site, GID)
        f.i("STG", _mem(reg, off), v, note=f"global store, {site.pattern} ({site.name})")
        f.features.add(f"global_{site.pattern}")
        if site.pattern == "strided":
            f.features.add(f"global_stride_{site.stride}")
        if partial:
            f.features.add("global_partial")

    def s_gstore(self, ctx: _Ctx) -> _Frag | None:
        f = _Frag()
        mine = [s for s in self.sites if s.phase == self.phase]
        if mine and self.chance(0.3):
            site = self.rng.choice(mine)
        else:
            site = self.new_site(f"out{len(self.sites)}", self.k.global_pattern)
            if site is None:
                return None
            self.sites.append(site)
        v = self.val() if self.chance(0.7) else ACC
        self.store_site(f, site, v, ctx.divergent)
        return f

    def s_greadback(self, ctx: _Ctx) -> _Frag | None:
        if not self.sites:
            return None
        f = _Frag()
        site = self.rng.choice(self.sites)
        v = self.val()
        reg, off = self.site_addr(f, site, GID)
        f.i("LDG", v, _mem(reg, off), note=f"read back this thread's own slot of {site.name}")
        f.features.add("global_readback")
        self.mix(f, v)
        return f

    def s_gexchange(self, ctx: _Ctx) -> _Frag | None:
        olds = [s for s in self.sites if s.phase < self.phase]
        if not olds or self.wpb < 2:
            return None
        f, rng, W = _Frag(), self.rng, self.W
        site = rng.choice(olds)
        n = self.wpb * W
        f.note(f"read warp (warpid + k) mod {self.wpb}'s slot of {site.name}, written before a barrier")
        f.i("ADDI", T2, TID, W * rng.randint(1, self.wpb - 1))
        f.i("SLTI", T3, T2, n)
        f.i("SUBI", T3, T3, 1)
        f.i("ANDI", T3, T3, n)
        f.i("SUB", T2, T2, T3, note="thread index in another warp of this block")
        f.i("SUB", T3, GID, TID)
        f.i("ADD", T2, T2, T3, note="its slot")
        v = self.val()
        reg, off = self.site_addr(f, site, T2)
        f.i("LDG", v, _mem(reg, off))
        f.features.add("global_exchange")
        self.mix(f, v)
        return f

    def s_sstore(self, ctx: _Ctx) -> _Frag | None:
        ph = self.phases[self.phase]
        if not ph.writes:
            return None
        f = _Frag()
        v = self.val() if self.chance(0.8) else ACC
        f.i(
            "ST",
            _mem(SLOT, self.slot_off),
            v,
            note=f"shared store to this thread's word ({ph.store_perm.d}-way)",
        )
        f.features |= {"shared_store", f"shared_conflict_{self.store_degree}"}
        return f

    def s_sload(self, ctx: _Ctx) -> _Frag | None:
        ph, rng, cfg = self.phases[self.phase], self.rng, self.cfg
        f = _Frag()
        v = self.val()
        rbase, rsize = ph.readable
        choices = []
        if ph.writes:
            choices += ["own", "lane"]
        if rsize:
            choices += ["other"] * 3
        if not choices:
            return None
        kind = rng.choice(choices)
        if kind == "own":
            f.i("LD", v, _mem(SLOT, self.slot_off), note="shared: read back this thread's word")
            f.features.add(f"shared_conflict_{self.store_degree}")
        elif kind == "lane":
            x = rng.randrange(1, self.W)
            f.i("XORI", T1, TID, x, note=f"lane ^ {x}: a word of this warp")
            ph.store_perm.emit(f, T0, T1, T2)
            f.i("LD", v, _mem(T0, ph.cur_base), note="shared: word another lane of this warp wrote")
            perm = ph.store_perm
            f.features.add(f"shared_conflict_{self.measure([perm(t ^ x) for t in range(self.W)])}")
            f.features.add("shared_lane_exchange")
        else:
            degs = [d for d in self.degrees(rsize) if self.k.shared_conflict in (None, d)]
            if not degs:
                return None
            perm = _Perm(self.choose_degree(degs), rsize, cfg.num_lanes, cfg.num_banks)
            L = cfg.num_lanes
            how = rng.choice(["xor", "xor", "add", "add", "raw"])
            if how == "xor":
                x = rng.randrange(rsize) & ~(L - 1)
                f.i("XORI", T1, TID, x)
                addr = [perm(t ^ x) for t in range(self.W)]
            else:
                x = rng.randrange(rsize) & (~(L - 1) if how == "add" else -1)
                f.i("ADDI", T1, TID, x)
                addr = [perm(t + x) for t in range(self.W)]
            perm.emit(f, T0, T1, T2)
            f.i("LD", v, _mem(T0, rbase), note="shared load from the readable region")
            deg = self.measure(addr)
            f.features.add(f"shared_conflict_{deg}")
            if ph.exchange:
                f.features.add("shared_exchange")
        f.features.add("shared_load")
        self.mix(f, v)
        return f

    def s_sbcast(self, ctx: _Ctx) -> _Frag | None:
        ph, rng = self.phases[self.phase], self.rng
        f = _Frag()
        v = self.val()
        rbase, rsize = ph.readable
        if rsize and self.chance(0.7):
            if self.chance(0.6):
                f.i(
                    "LD",
                    v,
                    _mem(ZERO, rbase + rng.randrange(rsize)),
                    note="shared broadcast: one word, all lanes",
                )
            else:
                f.i("LDS", T0, "%warpid")
                f.i("ANDI", T0, T0, rsize - 1)
                f.i("LD", v, _mem(T0, rbase + 0), note="shared broadcast: one word per warp")
            if ph.exchange:
                f.features.add("shared_exchange")
        elif ph.writes:
            k = rng.randrange(self.W)
            f.i("ANDI", T1, TID, 0xFFFF & ~(self.W - 1), note=f"lane {k} of this warp")
            if k:
                f.i("ORI", T1, T1, k)
            ph.store_perm.emit(f, T0, T1, T2)
            f.i("LD", v, _mem(T0, ph.cur_base), note="shared broadcast of a word this warp wrote")
        else:
            return None
        f.features |= {"shared_broadcast", "shared_load"}
        self.mix(f, v)
        return f

    def final_store(self, f: _Frag, partial: bool) -> None:
        site = self.final
        if self.chance(0.3):
            f.i("LDS", T3, "%OUT_BASE", note="final region base (parameter)")
            f.features.add("param")
            if site.pattern == "coalesced":
                f.i("ADD", T0, T3, GID)
                reg, off = T0, 0
            else:
                reg, off = self.site_addr(
                    f, _Site(site.name, 0, site.size, site.pattern, 0, site.stride, site.sub, site.perm), GID
                )
                f.i("ADD", T0, reg, T3)
                reg = T0
        else:
            reg, off = self.site_addr(f, site, GID)
        f.i("STG", _mem(reg, off), ACC, note="store the checksum (final region)")
        f.features.add(f"global_{site.pattern}")
        if site.pattern == "strided":
            f.features.add(f"global_stride_{site.stride}")
        if partial:
            f.features.add("global_partial")

    def s_exit(self, ctx: _Ctx) -> _Frag | None:
        if not ctx.exits or self.exits_left <= 0:
            return None
        self.exits_left -= 1
        f = _Frag()
        K = self.lab("kept")
        f.note("--- partial exit: some lanes store their checksum and exit, the others go on ---")
        self.cond_lane(f, T0)
        f.i("SSY", K)
        f.i("BNE", T0, K, note="kept lanes wait at the rpc")
        self.final_store(f, True)
        f.i("EXIT")
        f.label(K)
        f.depth = 1
        f.features |= {"partial_exit", "ssy"}
        if ctx.divergent:
            f.features.add("exit_in_divergence")
        if ctx.loops:
            f.features.add("exit_in_loop")
        return f

    # ---- conditions -----------------------------------------------------------------------------
    def cond_lane(self, f: _Frag, t: str) -> None:
        """A per-lane condition into ``t`` (may differ between lanes of a warp)."""
        rng, W = self.rng, self.W
        kind = rng.choice(["lane_bit", "lane_lt", "lane_gt", "tid_mask", "data_bit", "data_cmp", "gid_bit"])
        if kind == "lane_bit":
            f.i("ANDI", t, LANE, 1 << rng.randrange(_log2(W)), note="condition: a lane bit")
        elif kind == "lane_lt":
            f.i("SLTI", t, LANE, rng.randint(1, W - 1), note="condition: lane < k")
        elif kind == "lane_gt":
            f.i("SGTUI", t, LANE, rng.randint(0, W - 2), note="condition: lane > k")
        elif kind == "tid_mask":
            f.i("ANDI", t, TID, rng.randrange(1, 16), note="condition: tid bits")
        elif kind == "data_bit":
            f.i(
                "ANDI",
                t,
                self.val(),
                1 << rng.randrange(16 if rng.random() < 0.5 else 3),
                note="condition: a data bit",
            )
        elif kind == "data_cmp":
            f.i(rng.choice(["SLT", "SLTU", "SGT"]), t, self.val(), self.src(), note="condition: data compare")
        else:
            f.i("ANDI", t, GID, 1 << rng.randrange(_log2(W) + 1), note="condition: slot bit")

    def cond_uniform(self, f: _Frag, t: str) -> str:
        """A condition equal across the lanes of a warp (docs/isa.md 4.2: never divergent)."""
        rng = self.rng
        kind = rng.choice(["warpid", "ctaid", "param", "const", "nctaid"])
        if kind == "warpid":
            f.i("LDS", t, "%warpid")
            if self.chance(0.5):
                f.i("ANDI", t, t, 1, note="warp-uniform condition")
            else:
                f.i("SLTI", t, t, rng.randint(1, max(1, self.wpb - 1)), note="warp-uniform condition")
        elif kind == "ctaid":
            f.i("LDS", t, rng.choice(["%ctaid.x", "%ctaid.y", "%ctaid.z"]))
            f.i("ANDI", t, t, 1, note="block-uniform condition")
        elif kind == "param":
            f.i("LDS", t, "%FLAG", note="launch-uniform condition (parameter)")
            f.features.add("param")
        elif kind == "const":
            f.i("LDC", t, _mem(ZERO, rng.randrange(len(self.consts))))
            f.i("ANDI", t, t, 1 << rng.randrange(8), note="uniform condition (constant)")
            f.features.add("const")
        else:
            f.i("LDS", t, rng.choice(["%nctaid.x", "%ntid.y", "%ntid.z"]))
            f.i("SLTI", t, t, 2, note="launch-uniform condition")
        return kind

    # ---- compound constructs --------------------------------------------------------------------
    def s_if(self, ctx: _Ctx, words: int, cost: int, depth_left: int) -> _Frag | None:
        rng = self.rng
        two = depth_left >= 2 and self.chance(0.4)
        f = _Frag()
        J = self.lab("join")
        f.note(
            f"--- if (divergent; {'BNE form: the skipping lanes wait in a DIV' if two else 'BEQ form: the skipping lanes wait at the rpc'}) ---"
        )
        self.cond_lane(f, T0)
        use = 2 if two else 1
        overhead = f.words + (4 if two else 2) + 8
        body_ctx = ctx.inner(use)
        body = self.seq(
            body_ctx,
            rng.randint(3, max(3, (words - overhead) // 2)),
            max(3, int((cost - overhead) * rng.uniform(0.3, 0.8))),
            1,
            3,
        )
        if body.words == 0:
            return None
        exit_tail = ctx.exits and self.exits_left > 0 and self.chance(0.25 * self.k.partial_exit_prob)
        if two:
            T = self.lab("then")
            f.i("SSY", J)
            f.i("BNE", T0, T)
            f.i("BRA", J)
            f.label(T)
        else:
            f.i("SSY", J)
            f.i("BEQ", T0, J)
        f.add(body, depth_base=use)
        if exit_tail:
            self.exits_left -= 1
            f.note("lanes of this if store their checksum and exit")
            self.final_store(f, True)
            f.i("EXIT")
            f.features |= {"partial_exit", "exit_in_divergence"}
        f.label(J)
        f.depth = max(f.depth, use)
        f.features |= {"if", "ssy"}
        if ctx.divergent:
            f.features.add("nested_ssy")
        return f

    def s_ifelse(self, ctx: _Ctx, words: int, cost: int, depth_left: int) -> _Frag | None:
        rng = self.rng
        f = _Frag()
        J, T = self.lab("join"), self.lab("taken")
        f.note("--- if/else (divergent: the taken path runs first, the other waits in a DIV) ---")
        self.cond_lane(f, T0)
        overhead = f.words + 4 + 8
        w, c = max(3, (words - overhead) // 2), max(3, (cost - overhead) // 2)
        ft = self.seq(ctx.inner(1), rng.randint(3, w), int(c * rng.uniform(0.4, 1.0)), 1, 3)
        tk = self.seq(ctx.inner(2), rng.randint(3, w), int(c * rng.uniform(0.4, 1.0)), 1, 3)
        if not ft.words or not tk.words:
            return None
        f.i("SSY", J)
        f.i(rng.choice(["BNE", "BEQ"]), T0, T)
        f.add(ft, depth_base=1)
        f.i("BRA", J)
        f.label(T)
        f.add(tk, depth_base=2)
        f.label(J)
        f.depth = max(f.depth, 2)
        f.features |= {"if_else", "ssy"}
        if ctx.divergent:
            f.features.add("nested_ssy")
        return f

    def trip_count(self, f: _Frag, cnt: int, ctr: str, min_one: bool, lane_based: bool) -> None:
        """Per-lane trip count in ``ctr``: 0..cnt (or 1..cnt with ``min_one``)."""
        top = cnt - 1 if min_one else cnt
        src = LANE if lane_based else self.rng.choice(VALS + (TID, GID))
        if top == 0:
            f.i("MVI", ctr, 0)
        else:
            mask = (1 << top.bit_length()) - 1
            f.i("ANDI", ctr, src, mask, note="per-lane trip count")
            if mask != top:
                f.i("MINUI", ctr, ctr, top)
        if min_one:
            f.i("ADDI", ctr, ctr, 1)

    def s_loop(self, ctx: _Ctx, words: int, cost: int, depth_left: int) -> _Frag | None:
        rng, k = self.rng, self.k
        forms = ["while", "dowhile"] + (["merge"] if depth_left >= 2 else [])
        form = rng.choice(forms)
        m = rng.randint(1, k.max_trip)
        ctr = COUNTERS[ctx.loops]
        f = _Frag()
        f.note(f"--- divergent loop ({form} form), per-lane trip counts {int(form == 'dowhile')}..{m} ---")
        self.trip_count(f, m, ctr, form == "dowhile", self.chance(0.4))
        init = f.cost
        use = 2 if form == "merge" else 1
        overhead = 8
        body_cost = (cost - init - overhead - 2 * (m + 1)) // m
        if body_cost < 3:
            return None
        body = self.seq(
            ctx.inner(use, loop=True),
            rng.randint(3, max(3, words - overhead - f.words)),
            int(body_cost * rng.uniform(0.4, 1.0)),
            1,
            3,
        )
        if not body.words:
            return None
        Lt, D = self.lab("loop"), self.lab("done")
        f.i("SSY", D)
        f.label(Lt)
        if form == "while":
            f.i("BEQ", ctr, D, note="lanes done wait at the rpc")
            f.add(body, depth_base=use)
            f.i("SUBI", ctr, ctr, 1)
            f.i("BRA", Lt)
            f.cost = init + 1 + (m + 1) + m * (body.cost + 2)
        elif form == "dowhile":
            f.add(body, depth_base=use)
            f.i("SUBI", ctr, ctr, 1)
            f.i("BNE", ctr, Lt, note="lanes done fall through to the rpc")
            f.cost = init + 1 + m * (body.cost + 2)
        else:
            B = self.lab("body")
            f.i("BNE", ctr, B, note="lanes done merge into one DIV at the BRA")
            f.i("BRA", D)
            f.label(B)
            f.add(body, depth_base=use)
            f.i("SUBI", ctr, ctr, 1)
            f.i("BRA", Lt)
            f.cost = init + 1 + (m + 1) + m * (body.cost + 2) + 2
            f.features.add("loop_merge")
        f.label(D)
        f.depth = max(f.depth, use)
        f.features |= {"loop", "ssy"}
        if ctx.divergent:
            f.features.add("nested_ssy")
        return f

    def s_uloop(self, ctx: _Ctx, words: int, cost: int, depth_left: int) -> _Frag | None:
        rng, k = self.rng, self.k
        ctr = COUNTERS[ctx.loops]
        f = _Frag()
        f.note("--- uniform loop: no SSY needed, every active lane branches alike ---")
        how = rng.choice(["imm", "param", "const"])
        if how == "imm":
            n = rng.randint(1, k.max_trip)
            f.i("MVI", ctr, n, note="uniform trip count")
        elif how == "param":
            n = self.params["TRIPS"]
            f.i("LDS", ctr, "%TRIPS", note="uniform trip count (parameter)")
            f.features.add("param")
        else:
            i = rng.randrange(min(4, self.ncr))
            n = self.consts[i]
            f.i("LDC", ctr, _mem(ZERO, i), note="uniform trip count (constant)")
            f.features.add("const")
        init = f.cost
        body_cost = (cost - init - 6) // n - 2
        if body_cost < 3:
            return None
        body = self.seq(
            ctx.inner(0, loop=True, divergent=False),
            rng.randint(3, max(3, words - 6)),
            int(body_cost * rng.uniform(0.4, 1.0)),
            1,
            3,
        )
        if not body.words:
            return None
        Lt = self.lab("uloop")
        f.label(Lt)
        f.add(body)
        f.i("SUBI", ctr, ctr, 1)
        f.i("BNE", ctr, Lt)
        f.cost = init + n * (body.cost + 2)
        f.features.add("uniform_loop")
        return f

    def s_ubranch(self, ctx: _Ctx, words: int, cost: int, depth_left: int) -> _Frag | None:
        rng = self.rng
        f = _Frag()
        S = self.lab("skip")
        f.note("--- uniform branch (no SSY: the condition is the same for the whole warp) ---")
        self.cond_uniform(f, T0)
        f.i(rng.choice(["BEQ", "BNE"]), T0, S)
        body = self.seq(
            ctx.inner(0, divergent=False),
            rng.randint(3, max(3, words - f.words - 2)),
            int((cost - f.cost - 2) * rng.uniform(0.3, 0.8)),
            1,
            3,
        )
        if not body.words:
            return None
        f.add(body)
        f.label(S)
        f.features.add("uniform_branch")
        return f

    def deep_nest(self, target: int) -> _Frag:
        """A nest whose then-paths are guaranteed to diverge in warp 0: it reaches ``target`` entries."""
        rng = self.rng
        levels: list[tuple[str, int]] = []
        r, upper, loop_used = target, self.V0, self.k.loop_prob <= 0
        while r > 0:
            opts = ["if_beq"]
            if r >= 2 and upper >= 2:
                opts += ["ifelse", "ifelse", "if_bne"]
            if not loop_used:
                opts.append("loop")
            kind = rng.choice(opts)
            if kind in ("ifelse", "if_bne"):
                th = rng.randint(max(1, upper // 3), upper - 1)
                upper = th
                r -= 2
            elif kind == "if_beq":
                th = rng.randint(max(1, (upper + 1) // 2), upper)
                upper = th
                r -= 1
            else:
                th = 0
                loop_used = True
                r -= 1
            levels.append((kind, th))

        def build(i: int) -> _Frag:
            f = _Frag()
            if i == len(levels):
                f.note("innermost level: the stack holds the aimed number of entries here")
                for _ in range(rng.randint(1, 2)):
                    self.alu_op(f)
                self.mix(f)
                return f
            kind, th = levels[i]
            J = self.lab("djoin")
            if kind == "loop":
                ctr = COUNTERS[0]
                trips = rng.randint(1, min(2, self.k.max_trip))
                f.i("ANDI", ctr, LANE, 1 if trips == 2 else 0)
                f.i("ADDI", ctr, ctr, 1, note=f"every lane runs 1..{trips} trips")
                Lt = self.lab("dloop")
                f.i("SSY", J)
                f.label(Lt)
                inner = build(i + 1)
                f.add(inner, depth_base=1)
                f.i("SUBI", ctr, ctr, 1)
                f.i("BNE", ctr, Lt)
                f.label(J)
                f.cost = 3 + trips * (inner.cost + 2)
                f.depth = inner.depth + 1
                return f
            f.i(rng.choice(["SLTI", "SLTUI"]), T0, LANE, th, note=f"lanes < {th} go deeper")
            f.i("SSY", J)
            if kind == "if_beq":
                f.i("BEQ", T0, J)
                f.add(build(i + 1), depth_base=1)
            elif kind == "if_bne":
                T = self.lab("dthen")
                f.i("BNE", T0, T)
                f.i("BRA", J)
                f.label(T)
                f.add(build(i + 1), depth_base=2)
            else:
                T = self.lab("dthen")
                f.i("BNE", T0, T)
                for _ in range(rng.randint(1, 2)):
                    self.alu_op(f)
                f.i("BRA", J)
                f.label(T)
                f.add(build(i + 1), depth_base=2)
            f.label(J)
            return f

        f = _Frag()
        f.note(
            f"=== deep nest: {' > '.join(k for k, _ in levels)}; warp 0 reaches {target} stack entries ==="
        )
        f.add(build(0))
        f.depth = target
        f.features |= {"deep_nest", "nested_ssy" if len(levels) > 1 else "ssy", "ssy"}
        if any(k == "ifelse" for k, _ in levels):
            f.features.add("if_else")
        if any(k in ("if_beq", "if_bne") for k, _ in levels):
            f.features.add("if")
        if any(k == "loop" for k, _ in levels):
            f.features.add("loop")
        return f

    # ---- sequences ------------------------------------------------------------------------------
    def pick(self, ctx: _Ctx, words: int, cost: int) -> str | None:
        if words < 2 or cost < 2:
            return None
        k, ph = self.k, self.phases[self.phase]
        left = self.D - ctx.depth
        w: dict[str, float] = {"alu": 3.0, "mix": 0.6, "sreg": 0.5, "const": 0.6, "gload": 1.2}
        if words >= 10 and cost >= 10:
            w["gstore"] = 0.7
            if self.sites:
                w["greadback"] = 0.3
            if self.wpb > 1 and any(s.phase < self.phase for s in self.sites):
                w["gexchange"] = 1.0
            if ph.writes:
                w["sstore"] = 0.9
            w["sload"] = 1.1
            w["sbcast"] = 0.4
        if ctx.exits and self.exits_left > 0 and left >= 1 and words >= 16 and cost >= 16:
            w["exit"] = 1.2 * k.partial_exit_prob
        if ctx.nest < k.max_nesting and words >= 12 and cost >= 16:
            boost = 1.6 if ctx.nest == 0 else 1.0
            if left >= 1:
                w["if"] = 1.0 * boost
                if ctx.loops < len(COUNTERS):
                    w["loop"] = 3.0 * k.loop_prob * boost
                    w["uloop"] = 1.2 * k.loop_prob * boost
            if left >= 2:
                w["ifelse"] = 1.3 * boost
            w["ubranch"] = 0.6 * boost
        names = list(w)
        return self.rng.choices(names, weights=[w[n] for n in names])[0]

    def stmt(self, kind: str, ctx: _Ctx, words: int, cost: int) -> _Frag | None:
        left = self.D - ctx.depth
        if kind in ("if", "ifelse", "loop", "uloop", "ubranch"):
            fn = {"if": self.s_if, "ifelse": self.s_ifelse, "loop": self.s_loop, "uloop": self.s_uloop,
                  "ubranch": self.s_ubranch}[kind]  # fmt: skip
            return fn(ctx, words, cost, left)
        return {
            "alu": self.s_alu,
            "mix": self.s_mix,
            "sreg": self.s_sreg,
            "const": self.s_const,
            "gload": self.s_gload,
            "gstore": self.s_gstore,
            "greadback": self.s_greadback,
            "gexchange": self.s_gexchange,
            "sstore": self.s_sstore,
            "sload": self.s_sload,
            "sbcast": self.s_sbcast,
            "exit": self.s_exit,
        }[kind](ctx)

    def seq(self, ctx: _Ctx, words: int, cost: int, nmin: int, nmax: int) -> _Frag:
        f = _Frag()
        n = self.rng.randint(nmin, nmax)
        fails = 0
        while n > 0 and fails < 5:
            w, c = words - f.words, cost - f.cost
            kind = self.pick(ctx, w, c)
            if kind is None:
                break
            snap = self.snapshot()
            s = self.stmt(kind, ctx, w, c)
            if s is None or s.words > w or s.cost > c or ctx.depth + s.depth > self.D:
                self.restore(snap)
                fails += 1
                continue
            f.add(s)
            n -= 1
        return f

    # ---- the kernel -----------------------------------------------------------------------------
    def prologue(self) -> _Frag:
        f, rng, W = _Frag(), self.rng, self.W
        bx, by, bz = self.block
        f.note("=== prologue: thread, lane, block and slot indices; initial values ===")
        if (by, bz) == (1, 1) or self.chance(0.4):
            f.i(
                "LDS",
                TID,
                rng.choice(["%tid", "%tid.x"]) if (by, bz) == (1, 1) else "%tid",
                note="flat thread index",
            )
        else:
            f.i("LDS", TID, "%tid.x")
            f.i("LDS", T0, "%tid.y")
            f.i("LDS", T1, "%ntid.x")
            f.i("MAD", TID, T0, T1, TID, note="tid.x + tid.y * ntid.x")
            if bz > 1:
                f.i("LDS", T0, "%tid.z")
                f.i("LDS", T2, "%ntid.y")
                f.i("MUL", T1, T1, T2)
                f.i("MAD", TID, T0, T1, TID, note="+ tid.z * ntid.x * ntid.y = flat thread index")
            f.features.add("sreg_3d")
        if self.chance(0.5):
            f.i("LDS", LANE, "%laneid")
        else:
            f.i("ANDI", LANE, TID, W - 1, note="lane = tid mod WARP_SIZE")
        gx, gy, gz = self.grid
        f.i("LDS", T0, "%ctaid.x")
        if gy > 1 or gz > 1:
            f.i("LDS", T1, "%ctaid.y")
            f.i("LDS", T2, "%nctaid.x")
            f.i("MAD", T0, T1, T2, T0, note="ctaid.x + ctaid.y * nctaid.x")
            if gz > 1:
                f.i("LDS", T1, "%ctaid.z")
                f.i("LDS", T3, "%nctaid.y")
                f.i("MUL", T2, T2, T3)
                f.i("MAD", T0, T1, T2, T0, note="flat block index")
            f.features.add("sreg_3d")
        n = self.wpb * W
        f.i("MULI", GID, T0, n, note=f"slot = block * {self.wpb} warp(s) * {W} + tid")
        f.i("ADD", GID, GID, TID)
        f.i("ANDI", T0, GID, self.nin - 1)
        f.i("LDG", VALS[0], _mem(T0, self.in_base), note="input word (coalesced)")
        f.features.add("gload_coalesced")
        f.i("MULI", VALS[1], TID, rng.randrange(1, 0x7FFF, 2))
        f.i("LDC", VALS[2], _mem(ZERO, rng.randrange(len(self.consts))))
        f.i("XOR", VALS[3], GID, VALS[0])
        f.i("LDS", ACC, "%KEY", note="checksum seed (parameter)")
        f.i("XOR", ACC, ACC, GID)
        f.features |= {"const", "param", "sreg"}
        return f

    def epilogue(self) -> _Frag:
        f = _Frag()
        f.note("=== epilogue: fold the values into the checksum; every live thread stores it ===")
        for v in VALS:
            self.mix(f, v)
        self.final_store(f, "partial_exit" in self.features)
        f.i("EXIT")
        return f

    def phase_prologue(self, s: int) -> _Frag:
        f = _Frag()
        ph = self.phases[s]
        if ph.writes:
            perm = ph.store_perm
            assert perm is not None
            f.note(
                f"phase {s}: shared words [{ph.cur_base}, {ph.cur_base + ph.size}) written, "
                f"{ph.store_perm.d}-way pattern; reads [{ph.readable[0]}, {sum(ph.readable)})"
            )
            perm.emit(f, SLOT, TID, T0)
            self.store_degree = self.measure([perm(t) for t in range(self.W)])
            if ph.cur_base > 1023:
                f.i("ADDI", SLOT, SLOT, ph.cur_base)
                self.slot_off = 0
            else:
                self.slot_off = ph.cur_base
            f.i("ST", _mem(SLOT, self.slot_off), self.val(), note="shared store to this thread's word")
            f.features |= {"shared_store", f"shared_conflict_{self.store_degree}"}
        else:
            f.note(f"phase {s}: no shared writes; every warp may read [0, {self.shared})")
        return f

    def build(self) -> RandomKernel:
        cfg, k, rng = self.cfg, self.k, self.rng
        self.plan_shape()
        self.plan_memory()
        self.plan_shared()
        limit = min(k.max_stack_depth or cfg.stack_depth, cfg.stack_depth)
        self.D = limit if self.chance(0.6) else rng.randint(min(2, limit), limit)
        deep = self.chance(k.deep_nest_prob)
        deep_phase = rng.randrange(self.nphases)
        exit_from = (deep_phase if deep else 0) if k.exit_before_barrier else self.nphases - 1

        cap = min(PER_WARP_MAX, k.max_warp_instrs // self.total_warps)  # >= MIN_WARP_COST by the shape plan
        per_warp = rng.randint(max(MIN_WARP_COST, cap * 3 // 5), max(MIN_WARP_COST, cap))
        words_total = min(k.code_words, cfg.imem_words)

        pro = self.prologue()
        code = _Frag()
        code.add(pro)
        assert pro.cost <= PROLOGUE_MAX, (pro.cost, PROLOGUE_MAX)
        reserve_w, reserve_c = EPILOGUE_MAX, EPILOGUE_MAX  # epilogue
        weights = [rng.uniform(0.5, 1.5) for _ in range(self.nphases)]
        for s in range(self.nphases):
            self.phase = s
            share = weights[s] / sum(weights[s:])
            fixed_from = code.cost
            if s > 0:
                code.note(f"=== barrier {s}: top level, stack empty, every thread of the block is live ===")
                code.i("BAR")
                if self.chance(0.1):
                    code.i("BAR", note="a second barrier right after the first")
                    code.features.add("double_barrier")
                code.features.add("barrier")
            code.add(self.phase_prologue(s))
            assert code.cost - fixed_from <= PHASE_FIXED_MAX, (code.cost - fixed_from, PHASE_FIXED_MAX)
            # the phases after this one still add their barriers and phase prologues: keep room for
            # them (without it a deep nest or a phase could take the budget they need: seed 1876 with
            # SOAK_KERNEL_KNOBS went 5 over max_warp_instrs)
            later = (self.nphases - 1 - s) * PHASE_FIXED_MAX
            free_w = words_total - code.words - reserve_w - later
            free_c = per_warp - code.cost - reserve_c - later
            w = min(int((words_total - code.words - reserve_w) * share), free_w)
            c = min(int((per_warp - code.cost - reserve_c) * share), free_c)
            ctx = _Ctx(0, 0, 0, False, s >= exit_from)
            if deep and s == deep_phase:
                dn = self.deep_nest(self.D)
                if dn.words <= free_w and dn.cost <= free_c:
                    code.add(dn)
                    w -= dn.words
                    c -= dn.cost
            code.add(self.seq(ctx, w, c, 999, 999))
        code.add(self.epilogue())
        self.features |= code.features
        if self.nphases > 1:
            self.features.add("barrier")
        bound = code.cost * self.total_warps
        # by construction; a failure here is a generator bug, never a property of the seed
        assert code.depth <= self.D <= cfg.stack_depth, (code.depth, self.D)
        assert bound <= k.max_warp_instrs, (bound, k.max_warp_instrs)
        assert code.words <= cfg.imem_words, (code.words, cfg.imem_words)
        return self.finish(code, bound)

    def finish(self, code: _Frag, bound: int) -> RandomKernel:
        cfg = self.cfg
        feats = sorted(self.features)
        head = [
            f"; random kernel: seed {self.seed}",
            f"; machine: warp {cfg.warp_size}, lanes {cfg.num_lanes}, banks {cfg.num_banks}, "
            f"{cfg.num_sms} SM(s), stack {cfg.stack_depth}, segment {cfg.seg_words} words",
            f"; launch: grid {self.grid} ({self.nb} blocks), block {self.block} ({self.tpb} threads, "
            f"{self.wpb} warp(s)), {self.nphases - 1} barrier(s), aimed stack depth {self.D}",
            f"; global: input [{self.in_base}, {self.in_base + self.nin}) random; outputs "
            + ", ".join(
                f"{s.name} {s.pattern}{'/' + str(s.stride) if s.stride > 1 else ''} "
                f"[{s.base}, {s.base + s.size})"
                for s in [self.final, *self.sites]
            ),
            f"; features: {' '.join(feats)}",
            f"; bound: {bound} warp-instructions",
            f".grid  {' '.join(map(str, self.grid))}",
            f".block {' '.join(map(str, self.block))}",
            f".regs  {self.regs}",
            f".shared {self.shared}",
            *(f".param {n}, {v}" for n, v in self.params.items()),
        ]
        consts = [".const"]
        for i in range(0, len(self.consts), 8):
            consts.append("        .word " + ", ".join(f"0x{c:08x}" for c in self.consts[i : i + 8]))
        source = "\n".join([*head, "", *code.lines, "", *consts]) + "\n"
        image = launch.build(
            source, f"random_{self.seed}", data=[(self.in_base, list(self.in_data))], cfg=cfg
        )
        regions = {"input": (self.in_base, self.nin)}
        for s in [self.final, *self.sites]:
            regions[s.name] = (s.base, s.size)
        return RandomKernel(self.seed, source, image, set(self.features), self.D, bound, regions)


def generate(seed: int, cfg: GpuConfig, knobs: KernelKnobs | None = None) -> RandomKernel:
    """A random kernel for ``cfg``, a function of ``(seed, cfg, knobs)`` only."""
    return _Gen(seed, cfg, knobs or KernelKnobs()).build()


# ------------------------------------------------------------------------------------------------
# Configurations the generator is tested on, and the command line
# ------------------------------------------------------------------------------------------------
CONFIGS: dict[str, GpuConfig] = RANDOM  # spec/machines.py


def main(argv: list[str] | None = None) -> int:
    from spec.model import KernelError, Model

    ap = cli.ArgumentParser(prog="python -m tb.sequences.random_kernel", description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--config", default="sm2-l8", choices=sorted(CONFIGS))
    ap.add_argument("--no-source", action="store_true", help="print the summary only")
    ap.add_argument(
        "--knob",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a KernelKnobs field (e.g. --knob barriers=False)",
    )
    args = ap.parse_args(argv)
    cfg = CONFIGS[args.config]
    overrides: dict[str, object] = {}
    types = {f.name: str(f.type) for f in fields(KernelKnobs)}
    for kv in args.knob:
        name, _, text = kv.partition("=")
        if name not in types:
            ap.error(f"unknown knob {name!r}; knobs: {', '.join(types)}")
        kind = types[name]
        if text == "None":
            overrides[name] = None
        elif "bool" in kind:
            overrides[name] = text.lower() in ("true", "1", "yes")
        elif "float" in kind:
            overrides[name] = float(text)
        elif "str" in kind:
            overrides[name] = text
        else:
            overrides[name] = int(text)
    rk = generate(args.seed, cfg, KernelKnobs(**overrides))  # type: ignore[arg-type]
    if not args.no_source:
        print(rk.source)
    print(
        f"; seed {rk.seed} config {args.config}: {len(rk.image.code)} instructions, grid {rk.image.grid}, "
        f"block {rk.image.block}, aimed stack depth {rk.stack_target}, bound {rk.warp_instr_bound}"
    )
    print(f"; features: {' '.join(sorted(rk.features))}")
    try:
        res = Model(cfg, rk.image, detect_races=True).run()
    except KernelError as exc:
        print(f"; MODEL ERROR: {exc}")
        return 1
    c = res.counters
    print(
        f"; model: {c.warp_instrs} warp-instructions, {c.thread_instrs} thread-instructions, max stack "
        f"depth {c.max_stack_depth}, {c.divergent_branches} divergent branches, {c.barrier_releases} barrier "
        f"releases, {c.shared_passes}/{c.shared_accesses} shared passes/accesses, "
        f"{c.global_transactions}/{c.global_accesses} global transactions/accesses"
    )
    return 0


if __name__ == "__main__":
    cli.run(main)
