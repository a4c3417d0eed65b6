"""Register spilling: values that do not fit the register budget live in shared memory or are recomputed.

Where spills live: a per-thread area of the block's shared memory, right after the kernel's
``__shared__`` arrays (word ``base``). Thread ``t`` (the flat ``%tid``) owns the ``slots`` words
``base + t * slots + k``; ``slots`` is odd, so the threads of a row hit ``NUM_BANKS`` different banks
(docs/isa.md 6.1: one pass). A spill slot is private to its thread, so no two warps ever touch the same
word (no race, no barrier needed), and shared memory is zero when a block starts, as registers are.

How addresses are formed: one register holds ``t * slots`` (``LDS %tid`` and ``MULI`` at entry); each
spilled value is ``ST [rsb + base + k], r`` after each definition and ``LD r, [rsb + base + k]`` before
each use, the slot in the instruction's offset (``ADDI rsb, rsb, base`` at entry when ``base + slots``
passes the 11-bit store offset). When even that register is short, it is recomputed before each access.

Divergence: a spill store runs under the mask of the definition it follows, a reload under the mask of
the use it precedes. Each thread's slot therefore holds exactly what its register would have held:
threads that skipped a definition keep the old value in memory as they would have kept it in the
register. Values whose one definition is ``LI`` or ``LDS`` (constants, parameters, special registers)
and reaches every use are not stored at all but recomputed at each use (rematerialisation).

The allocator is Chaitin–Briggs with spilling: when no node has fewer neighbours than the budget, the
cheapest per neighbour (uses and definitions, each weighted 10× per enclosing loop) is pushed
optimistically; those that find no colour are spilled, the code rewritten with short-lived temporaries,
and colouring starts again. Temporaries are never spilled; an instruction whose own operands do not fit
is a located error (:class:`SpillError`).
"""

from __future__ import annotations

from dataclasses import dataclass

from cudac.ir import BRANCHES, Ins
from cudac.regalloc import interference, liveness, remove_dead, rename

STORE_OFF_MAX = 1023  # ST's signed 11-bit offset
MAX_ROUNDS = 64


@dataclass
class SpillInfo:
    """The spill area of a compiled kernel: ``slots`` words per thread from shared word ``base``."""

    base: int
    slots: int
    stored: int  # values kept in memory
    recomputed: int  # values recomputed at their uses

    def words(self, threads: int) -> int:
        """Shared words the area needs for a block of ``threads`` threads."""
        return self.slots * threads if self.slots else 0


class SpillError(Exception):
    """The code at ``loc`` needs more registers at once than the budget, even with spilling."""

    def __init__(self, loc: tuple[str, int], budget: int) -> None:
        super().__init__(f"does not fit {budget} registers even with spilling")
        self.loc, self.budget = loc, budget


def loop_depth(code: list[Ins]) -> list[int]:
    """How many loops (backward jumps) enclose each instruction."""
    where = {ins.target: i for i, ins in enumerate(code) if ins.is_label}
    delta = [0] * (len(code) + 1)
    for i, ins in enumerate(code):
        if ins.op == "BRA" or ins.op in BRANCHES:
            j = where[ins.target]
            if j <= i:
                delta[j] += 1
                delta[i + 1] -= 1
    out, d = [], 0
    for i in range(len(code)):
        d += delta[i]
        out.append(d)
    return out


def _costs(code: list[Ins]) -> dict[int, float]:
    cost: dict[int, float] = {}
    for ins, depth in zip(code, loop_depth(code), strict=True):
        w = 10.0 ** min(depth, 5)
        for r in (*ins.uses(), *ins.defs()):
            cost[r] = cost.get(r, 0.0) + w
    return cost


def _color(
    code: list[Ins], budget: int, frozen: set[int]
) -> tuple[dict[int, int], list[int], dict[int, set[int]]]:
    """Colours within ``budget``, the registers that found none (one of ``frozen`` only when nothing
    else is left) and the interference graph."""
    graph, moves = interference(code)
    cost = _costs(code)
    partners: dict[int, set[int]] = {}
    for d, s in moves:
        partners.setdefault(d, set()).add(s)
        partners.setdefault(s, set()).add(d)
    degree = {r: len(n) for r, n in graph.items()}
    left = set(graph)
    stack: list[int] = []
    while left:
        easy = [r for r in left if degree[r] < budget]
        if easy:
            pick = min(easy)
        else:  # a potential spill: the cheapest per neighbour, temporaries last

            def weight(r: int) -> tuple[bool, float, int]:
                return (r in frozen, cost.get(r, 0.0) / max(1, degree[r]), r)

            pick = min(left, key=weight)
        left.discard(pick)
        stack.append(pick)
        for n in graph[pick]:
            degree[n] -= 1
    colors: dict[int, int] = {}
    spilled: list[int] = []
    for r in reversed(stack):
        used = {colors[n] for n in graph[r] if n in colors}
        prefer = [colors[p] for p in partners.get(r, ()) if p in colors and colors[p] not in used]
        free = [c for c in range(budget) if c not in used]
        if prefer:
            colors[r] = prefer[0]
        elif free:
            colors[r] = free[0]
        else:
            spilled.append(r)
    return colors, spilled, graph


class Spiller:
    """Rewrites ``code`` until it colours within ``budget`` (see the module docstring)."""

    def __init__(self, code: list[Ins], budget: int, base: int, fault: str = "") -> None:
        self.budget, self.base, self.fault = budget, base, fault
        self.next = max((r for i in code for r in (*i.uses(), *i.defs())), default=0) + 1
        loc = code[0].loc if code else ("", 0)
        self.sb = self.fresh()
        tid = self.fresh()
        self.head = [Ins("LDS", tid, target="tid", loc=loc), Ins("MULI", self.sb, (tid,), imm=1, loc=loc)]
        self.muls = [self.head[1]]  # their immediate becomes the slot count
        self.code = self.head + code
        self.frozen: set[int] = {tid}
        self.slot: dict[int, int] = {}
        self.near: dict[int, set[int]] = {}  # a stored value -> the values live at the same time
        self.mem_ops: list[Ins] = []  # spill loads and stores: their offset becomes base + slot
        self.recomputed = 0
        self.sb_recomputed = False

    def fresh(self) -> int:
        self.next += 1
        return self.next - 1

    def run(self) -> tuple[list[Ins], int, SpillInfo]:
        for _ in range(MAX_ROUNDS):
            colors, spilled, graph = _color(self.code, self.budget, self.frozen)
            if not spilled:
                return self.finish(colors)
            victims = [r for r in spilled if r not in self.frozen]
            if not victims:  # only temporaries failed: spill the cheapest value live across each
                cost = _costs(self.code)
                for t in spilled:
                    near = [n for n in graph[t] if n not in self.frozen and n not in victims]
                    if near:
                        victims.append(min(near, key=lambda n: (cost.get(n, 0.0), n)))
            if not victims:
                raise self.error(spilled)
            live_in = self.live_at_entry()
            for v in victims:
                recipe = self.recipe(v, live_in)
                if recipe is not None:
                    self.recompute(v, recipe)
                    self.recomputed += 1
                    self.sb_recomputed |= v == self.sb
                else:
                    self.store(v, graph[v])
            if self.sb_recomputed:  # new spill accesses recompute the area's address too
                self.recompute(self.sb, self.head)
        raise self.error(spilled)

    # -- rewriting -------------------------------------------------------------------------------
    def live_at_entry(self) -> set[int]:
        live = liveness(self.code)
        first = self.code[0]
        return (live[0] - set(first.defs())) | set(first.uses())

    def recipe(self, v: int, live_in: set[int]) -> list[Ins] | None:
        """The instructions that recompute ``v`` (its one definition, LI or LDS, reaching every use)."""
        if v == self.sb:
            return self.head
        defs = [i for i in self.code if i.dst == v]
        if len(defs) == 1 and defs[0].op in ("LI", "LDS") and v not in live_in:
            return defs
        return None

    def recompute(self, v: int, recipe: list[Ins]) -> None:
        out: list[Ins] = []
        drop = {id(i) for i in recipe}
        for ins in self.code:
            if id(ins) in drop:
                continue
            if v in ins.srcs:
                t = self.fresh()
                self.frozen.add(t)
                m: dict[int, int] = {}
                for r in recipe:
                    c = Ins(r.op, r.dst, r.srcs, r.imm, r.target, ins.loc)
                    c.dst = m.setdefault(c.dst, t) if c.dst is not None else None  # type: ignore[arg-type]
                    c.srcs = tuple(m.get(s, s) for s in c.srcs)
                    if any(r is m for m in self.muls):
                        self.muls.append(c)
                    out.append(c)
                ins.srcs = tuple(t if r == v else r for r in ins.srcs)
            out.append(ins)
        self.code = out

    def store(self, v: int, near: set[int]) -> None:
        """Keep ``v`` in a slot no value live at the same time uses (slots are coloured like registers)."""
        self.near[v] = set(near)
        taken = {k for w, k in self.slot.items() if w in near or v in self.near[w]}
        if self.fault == "spill-one-slot":  # a planted fault: every value in slot 0, live or not
            taken = set()
        k = self.slot[v] = next(k for k in range(len(self.slot) + 1) if k not in taken)
        out: list[Ins] = []
        for ins in self.code:
            uses, defines = v in ins.srcs, ins.dst == v
            if not (uses or defines):
                out.append(ins)
                continue
            if ins.op == "MV" and defines and not uses:  # MV v, x: store x itself
                out.append(self.mem("ST", None, (self.sb, ins.srcs[0]), k, ins.loc))
                continue
            if ins.op == "MV" and uses and not defines:  # MV x, v: load into x itself
                out.append(self.mem("LD", ins.dst, (self.sb,), k, ins.loc))
                continue
            t = self.fresh()
            self.frozen.add(t)
            if uses:
                out.append(self.mem("LD", t, (self.sb,), k, ins.loc))
                ins.srcs = tuple(t if r == v else r for r in ins.srcs)
            out.append(ins)
            if defines:
                ins.dst = t
                out.append(self.mem("ST", None, (self.sb, t), k, ins.loc))
        self.code = out

    def mem(self, op: str, dst: int | None, srcs: tuple[int, ...], k: int, loc: tuple[str, int]) -> Ins:
        ins = Ins(op, dst, srcs, k, loc=loc)
        self.mem_ops.append(ins)
        return ins

    # -- the end -----------------------------------------------------------------------------------
    def finish(self, colors: dict[int, int]) -> tuple[list[Ins], int, SpillInfo]:
        slots = max(self.slot.values(), default=-1) + 1
        if slots and slots % 2 == 0:
            slots += 1  # odd: a row's threads land in distinct banks
        far = self.base + slots - 1 > STORE_OFF_MAX
        for ins in self.mem_ops:
            ins.imm = (ins.imm or 0) + (0 if far else self.base)
        live_muls = {id(m) for m in self.muls}
        out: list[Ins] = []
        for ins in self.code:
            out.append(ins)
            if id(ins) in live_muls:
                ins.imm = max(slots, 1)
                left = self.base if far else 0
                while left:  # ADDI takes 16 signed bits; shared memory has up to 65536 words
                    step = min(left, 0x7FFF)
                    out.append(Ins("ADDI", ins.dst, (ins.dst,), step, loc=ins.loc))
                    left -= step
        rename(out, colors)
        out = remove_dead([i for i in out if not (i.op == "MV" and i.dst == i.srcs[0])])
        regs = max((r for i in out for r in (*i.uses(), *i.defs())), default=0) + 1
        return out, regs, SpillInfo(self.base, slots, len(self.slot), self.recomputed)

    def error(self, failed: list[int]) -> SpillError:
        """Located at the first instruction that reads or writes a register that found no colour."""
        bad = set(failed)
        at = next((i for i in self.code if bad & {*i.uses(), *i.defs()}), self.code[0])
        return SpillError(at.loc, self.budget)


def allocate_with_spills(
    code: list[Ins], budget: int, base: int, fault: str = ""
) -> tuple[list[Ins], int, SpillInfo]:
    """``code`` coloured into ``budget`` registers, spilling to shared word ``base`` on: (code,
    registers used, the spill area). ``fault`` plants a compiler fault (meta-tests)."""
    return Spiller(remove_dead(code), budget, base, fault).run()
