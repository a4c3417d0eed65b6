"""Bench of `simt_div_stack` (docs/sm.md, section simt_div_stack): the divergence stacks of every warp
slot and the rules of docs/isa.md section 4.

The golden reference is ``Warp.control()`` of spec/model.py. The bench keeps one model ``Warp``
per warp slot; every operation given to the RTL is applied to that warp's model with the same arguments,
and every output is compared: next pc and mask, warp done, divergent, pushes / pops / merges (from the
model's StackEvents), depth (the model's stack length), error and its SIMT_ERR_* code, and the latency
(``done`` exactly 1 + pops cycles after ``start``, ``idle`` low in between), and the top entry after
the instruction (``top_after_*`` against the model's stack). Quick completion: ``q_done`` must rise in
the start cycle exactly when no pop follows, and then every ``q_*`` output must already carry what the
registered outputs and ``top_after_*`` show with ``done``.

Stimulus: first directed scripts (if/else, loops with merge, skip rules, several SYNCs for one rpc,
partial EXIT, a restored mask that is empty, overflow by SSY and by DIV, merge onto a full stack,
divergent branch without SSY, invalid lanes), then random structured programs for every warp slot,
interleaved: each step's operation is chosen from the model warp's current state (jump to the rpc so
regions close, loops back to the branch of the top DIV so merges happen, nested SSYs, partial and full
EXIT...). Coverage counters are logged and each must be non-zero.

A second launcher proves that an illegal parameter stops both simulators with the module's message.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterator

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge, Timer

from spec.model import DIV, ERROR_CODES, ErrorKind, KernelError, Warp
from tb import benchenv, benchutil, rtlsim

OP_NEXT, OP_SSY, OP_BRANCH, OP_EXIT = 0, 1, 2, 3
OPS = {"next": OP_NEXT, "ssy": OP_SSY, "branch": OP_BRANCH, "exit": OP_EXIT}
PC_LIMIT = 900  # generated pcs stay below this (every configuration has PC_W >= 10)
RANDOM_OPS = int(os.environ.get("DS_RANDOM_OPS", "3000"))  # random operations per configuration


# ---------------------------------------------------------------------------------------------
# Model side: one warp slot
# ---------------------------------------------------------------------------------------------
class Slot:
    """A warp slot: its model warp, its valid mask and the personality of the current program."""

    def __init__(self, idx: int, width: int) -> None:
        self.idx, self.width = idx, width
        self.full = (1 << width) - 1
        self.warp: Warp | None = None
        self.script: list[tuple] = []  # directed operations still to run (empty: random)
        self.deep = False  # this program nests SSYs deeply (reaches overflow on large stacks)
        self.ops = 0  # operations of the current program
        self.needs_clr = True  # the RTL stack must be cleared before the slot runs a new program

    def new_program(self, rng: random.Random, valid: int | None = None, pc: int | None = None) -> None:
        if valid is None:
            r = rng.random()
            if r < 0.6:
                valid = self.full
            elif r < 0.8:  # a partial last warp of a block: lanes 0..k-1
                valid = (1 << rng.randrange(1, self.width)) - 1
            else:
                valid = rng.getrandbits(self.width) or 1
        self.warp = Warp(
            None, self.idx, valid, np.zeros((1, self.width), np.uint32), np.zeros((32, self.width), np.uint32)
        )
        self.warp.pc = rng.randrange(0, 50) if pc is None else pc
        self.deep = rng.random() < 0.25
        self.ops = 0


def random_subset(rng: random.Random, mask: int, width: int) -> int:
    """Lanes of ``mask`` that take a branch; sometimes with garbage outside the mask (must be ignored)."""
    r = rng.random()
    if r < 0.12:
        t = mask
    elif r < 0.24:
        t = 0
    elif r < 0.5:  # a contiguous half (like tid < n)
        lanes = [i for i in range(width) if mask >> i & 1]
        k = rng.randrange(0, len(lanes) + 1)
        t = sum(1 << i for i in lanes[:k])
    else:
        t = rng.getrandbits(width) & mask
    if rng.random() < 0.2:
        t |= rng.getrandbits(width) & ~mask
    return t


def choose_op(rng: random.Random, slot: Slot, depth: int) -> tuple:
    """A meaningful next operation for the slot's warp, chosen from its model state."""
    w = slot.warp
    pc, mask = w.pc, w.mask
    rpc = w.innermost_rpc()
    top = w.stack[-1] if w.stack else None
    width = slot.width

    def fwd(lo: int, hi: int) -> int:
        return min(pc + rng.randint(lo, hi), PC_LIMIT)

    weights = {"seq": 3.0, "jump": 0.4, "ssy": 1.5, "branch": 3.0, "exit": 0.3}
    if rpc is not None:
        weights["to_rpc"] = 0.3 if slot.deep else 1.6
    loop_top = top is not None and top[0] is DIV and top[1] > 0
    if loop_top:
        weights["to_div"] = 1.5  # back to the branch whose not-taken path waits: loops merge
        if pc == top[1] - 1:
            weights["loop_branch"] = 4.0
    if slot.deep:
        weights.update(ssy=5.0, seq=1.0, exit=0.05)
    if slot.ops > (250 if slot.deep else 80):  # end long programs
        weights["exit"] = 2.0
    if pc >= PC_LIMIT - 40:
        weights.update(seq=0.2, jump=3.0)
    kinds = list(weights)
    kind = rng.choices(kinds, [weights[k] for k in kinds])[0]

    if kind == "seq":
        return ("next", pc + 1)
    if kind == "jump":  # BRA anywhere (mostly backwards when pcs grow large)
        return ("next", rng.randrange(0, min(pc + 40, PC_LIMIT)))
    if kind == "to_rpc":  # BRA join / fall into the join
        return ("next", rpc)
    if kind == "to_div":  # jump to the loop's branch: pc = top DIV's pc - 1
        return ("next", top[1] - 1)
    if kind == "loop_branch":  # the loop's branch again: its leavers merge into the waiting DIV
        return (
            "branch",
            rng.choice((max(0, pc - rng.randint(1, 10)), fwd(2, 30))),
            random_subset(rng, mask, width),
        )
    if kind == "ssy":
        r = rng.random()
        if r < 0.1:
            t = pc + 1
        elif r < 0.25 and rpc is not None:
            t = rpc  # a second SYNC for the same join point
        elif slot.deep:
            t = rng.randrange(PC_LIMIT - 100, PC_LIMIT)
        else:
            t = fwd(2, 30)
        return ("ssy", t)
    if kind == "branch":
        r = rng.random()
        if r < 0.2 and rpc is not None:
            t = rpc
        elif r < 0.3:
            t = pc + 1
        elif r < 0.55:
            t = max(0, pc - rng.randint(1, 20))  # loop back
        else:
            t = fwd(2, 30)
        if rpc is None and rng.random() < 0.9:
            taken = rng.choice((0, mask))  # no SSY in effect: usually uniform
            if rng.random() < 0.3:
                taken |= rng.getrandbits(width) & ~mask
        else:
            taken = random_subset(rng, mask, width)
        return ("branch", t, taken)
    return ("exit",)


# ---------------------------------------------------------------------------------------------
# Directed scripts (op tuples; "valid" / "pc" entries start a program on slot 0)
# ---------------------------------------------------------------------------------------------
def directed(width: int, depth: int) -> Iterator[tuple]:
    full = (1 << width) - 1
    odd = sum(1 << i for i in range(1, width, 2))
    even = full & ~odd
    low = (1 << (width // 2)) - 1
    # 4.3 if/else: taken path first, DIV popped at join, then the SYNC
    yield from [
        ("program", full, 10),
        ("ssy", 20),
        ("branch", 15, odd),
        ("next", 16),
        ("next", 20),
        ("next", 13),
        ("next", 20),
        ("exit",),
    ]
    # divergent loop whose exit path is not the rpc: the leavers merge into one DIV each iteration
    yield from [
        ("program", full, 10),
        ("ssy", 30),
        ("next", 12),
        ("next", 13),
        ("branch", 11, full & ~1),
        ("next", 12),
        ("next", 13),
        ("branch", 11, full & ~3),
        ("next", 12),
        ("next", 13),
        ("branch", 11, 0),
        ("next", 30),
        ("next", 30),
        ("exit",),
    ]
    # divergent loop whose exit path is the rpc: the leavers wait there, nothing is pushed
    yield from [
        ("program", full, 10),
        ("ssy", 14),
        ("next", 12),
        ("next", 13),
        ("branch", 11, full & ~1),
        ("next", 12),
        ("next", 13),
        ("branch", 11, full & ~7),
        ("next", 12),
        ("next", 13),
        ("branch", 11, 0),
        ("exit",),
    ]
    # the taken path's pc is the rpc: it waits; an SSY with target pc+1 pushes and pops at once
    yield from [("program", full, 10), ("ssy", 20), ("branch", 20, low), ("ssy", 13), ("next", 20), ("exit",)]
    # several SYNCs for one rpc pop in one instruction; a branch to pc+1 is uniform
    yield from [
        ("program", full, 5),
        ("ssy", 40),
        ("ssy", 40),
        ("branch", 8, odd),
        ("ssy", 40),
        ("branch", 9, even),
        ("next", 40),
        ("next", 40),
        ("exit",),
    ]
    # partial EXIT: SSY ok; BNE inrange, ok; EXIT; ok:
    yield from [("program", full, 0), ("ssy", 3), ("branch", 3, low), ("exit",), ("exit",)]
    # a restored SYNC mask that is empty because all its threads exited is popped again
    yield from [
        ("program", full, 10),
        ("ssy", 30),
        ("branch", 15, odd),
        ("ssy", 25),
        ("exit",),
        ("next", 30),
        ("exit",),
    ]
    # divergent branch without SSY (error) in a warp with invalid lanes; uniform branch to pc+1
    yield from [("program", low, 10), ("branch", 15, 1), ("program", full, 3), ("branch", 4, odd), ("exit",)]
    # stack overflow by SSY
    yield ("program", full, 0)
    yield from [("ssy", 800)] * (depth + 1)
    # a DIV push fills the stack; the next iteration's merge onto the full stack is no overflow
    yield ("program", full, 0)
    yield from [("ssy", 800)] * (depth - 1)
    p = depth - 1
    yield from [("branch", p - 1, odd), ("next", p), ("branch", p - 1, odd & ~2)]
    # stack overflow by a DIV push
    yield ("program", full, 0)
    yield from [("ssy", 800)] * depth
    yield ("branch", 700, odd)


# ---------------------------------------------------------------------------------------------
# The bench
# ---------------------------------------------------------------------------------------------
class Bench:
    def __init__(self, dut, cfg: dict) -> None:
        self.dut = dut
        self.width, self.nwarps, self.depth = cfg["WARP_SIZE"], cfg["NUM_WARPS"], cfg["STACK_DEPTH"]
        self.pc_mask = (1 << cfg["PC_W"]) - 1
        self.slots = [Slot(i, self.width) for i in range(self.nwarps)]
        self.cov: Counter[str] = Counter()
        self.rng = random.Random(random.getrandbits(64))
        self.last: dict = {}  # expectation of the operation just issued

    # ---- one operation: apply it to the model, return the expected RTL outputs -----------------
    def expect(self, slot: Slot, op: tuple) -> dict:
        w, cov = slot.warp, self.cov
        pc, mask, valid = w.pc, w.mask, w.valid
        name = op[0]
        npc = op[1] if name == "next" else 0
        target = op[1] if name in ("ssy", "branch") else 0
        taken = op[2] if name == "branch" else 0
        exited = (w.exited | (mask if name == "exit" else 0) | ~valid) & slot.full
        live = valid & ~exited
        drive = dict(
            warp=slot.idx,
            op=OPS[name],
            pc=pc,
            npc=npc,
            target=target,
            mask=mask,
            taken=taken,
            exited=exited,
            live=live,
        )
        # classify before the model changes the warp
        rpc = w.innermost_rpc()
        t, n = taken & mask, mask & ~taken
        if name == "branch" and t and n and target != pc + 1 and rpc is not None:
            cov[
                "skip taken path (target == rpc)"
                if target == rpc
                else "skip not-taken path (pc+1 == rpc)"
                if pc + 1 == rpc
                else "divergent, both paths run"
            ] += 1
        if name == "ssy" and target == pc + 1:
            cov["SSY with target pc+1"] += 1
        if name == "branch" and target == pc + 1 and t and n:
            cov["branch to pc+1 with mixed taken lanes"] += 1
        if valid != slot.full:
            cov["operations of warps with invalid lanes"] += 1
        cov[f"op {name}"] += 1
        old_depth = len(w.stack)
        try:
            events, divergent, wdone = w.control(name, self.depth, npc=npc, target=target, taken=taken)
        except KernelError as err:
            assert err.kind in (ErrorKind.STACK_OVERFLOW, ErrorKind.DIVERGENT_WITHOUT_SSY), err
            cov[f"error {err.kind.name} ({name})"] += 1
            # the RTL (like the model) changes nothing on an error
            return dict(
                drive=drive,
                error=1,
                err_kind=ERROR_CODES[err.kind],
                next_pc=pc,
                next_mask=mask,
                depth=old_depth,
                pops=0,
                pushes=0,
                merged=0,
            )
        acts = Counter(e.action for e in events)
        for e in events:
            cov[f"{e.action} {e.kind}"] += 1
            if e.action == "pop" and not e.mask & ~exited:
                cov["pop restoring an empty mask (popped again)"] += 1
        if acts["pop"] >= 2:
            cov["instructions with >= 2 pops"] += 1
        if name == "exit":
            cov["EXIT finishing the warp" if wdone else "partial EXIT"] += 1
        if divergent:
            cov["divergent branches"] += 1
        if len(w.stack) == self.depth:
            cov["stack full"] += 1
        return dict(
            drive=drive,
            error=0,
            err_kind=0,
            next_pc=w.pc,
            next_mask=w.mask,
            warp_done=int(wdone),
            divergent=int(divergent),
            pushes=acts["push"],
            pops=acts["pop"],
            merged=acts["merge"],
            depth=len(w.stack),
        )

    def model_top(self, slot: Slot) -> dict:
        """The slot's top entry as the RTL shows it (kind 1 = DIV); all zero for an empty stack."""
        if not slot.warp.stack:
            return dict(pc=0, mask=0, kind=0)
        kind, pc, mask = slot.warp.stack[-1]
        return dict(pc=pc & self.pc_mask, mask=mask, kind=int(kind == DIV))

    def sample_quick(self) -> dict:
        """The quick-completion outputs in the start cycle (read after the start is driven)."""
        names = ("done", "next_pc", "next_mask", "warp_done", "divergent", "pushes", "merged", "depth",
                 "error", "err_kind", "top_pc", "top_mask", "top_kind")  # fmt: skip
        return {n: int(getattr(self.dut, f"q_{n}").value) for n in names}

    def check(self, exp: dict, cycles: int, slot: Slot, quick: dict) -> None:
        dut = self.dut
        got = {k: int(getattr(dut, k).value) for k in exp if k != "drive"}
        want = {k: v for k, v in exp.items() if k != "drive"}
        want["next_pc"] &= self.pc_mask
        if got != want or cycles != 1 + want["pops"]:
            raise AssertionError(
                f"slot {exp['drive']['warp']} op {exp['drive']}: RTL {got} after {cycles} "
                f"cycles, model {want} after {1 + want['pops']} cycles"
            )
        # the top entry after the instruction (read from the storage; all zero for an empty stack)
        top = self.model_top(slot)
        after = {k: int(getattr(dut, f"top_after_{k}").value) for k in top}
        if after != top:
            raise AssertionError(
                f"slot {exp['drive']['warp']} op {exp['drive']}: top_after {after}, model top {top}"
            )
        # quick completion: in the start cycle exactly when no pop follows, with the final results
        if quick["done"] != (want["pops"] == 0):
            raise AssertionError(
                f"slot {exp['drive']['warp']} op {exp['drive']}: q_done {quick['done']} in the start cycle, "
                f"but the model pops {want['pops']} times (q_done must be 1 exactly when no pop follows)"
            )
        if quick["done"]:
            full = {k: got[k] for k in got if k != "pops"} | {f"top_{k}": v for k, v in top.items()}
            q = {k: v for k, v in quick.items() if k != "done"}
            for k in ("warp_done", "divergent"):  # only defined without an error (the registered ones too)
                if want["error"]:
                    full.pop(k, None)
                    q.pop(k)
            if q != {k: full[k] for k in q}:
                raise AssertionError(
                    f"slot {exp['drive']['warp']} op {exp['drive']}: q_* in the start cycle {q}, but the "
                    f"results are {full} (registered outputs with done, model top)"
                )
            self.cov["quick completions checked"] += 1
        self.cov["checked operations"] += 1

    # ---- operation source ------------------------------------------------------------------------
    def next_op(self, slot: Slot) -> tuple | None:
        """The slot's next operation; None when it must start a new program (and be cleared) first."""
        slot.ops += 1
        if self.rng.random() < 0.003:
            self.cov["programs abandoned (stack cleared by clr)"] += 1
            return None
        return choose_op(self.rng, slot, self.depth)

    def drive_idle(self) -> None:
        dut = self.dut
        dut.start.value = 0
        dut.clr.value = 0

    async def run(self, scripted: list[tuple], random_ops: int) -> None:
        """Phase 1: the directed programs on slot 0. Phase 2: random programs on every slot."""
        dut, rng = self.dut, self.rng
        programs: list[list[tuple]] = []  # ("program", valid, pc) starts one
        for op in scripted:
            if op[0] == "program":
                programs.append([op])
            else:
                programs[-1].append(op)
        directed_phase = True
        pending: tuple[dict, Slot] | None = None
        quick: dict = {}  # the q_* outputs in the pending operation's start cycle
        waited = issued = 0
        while True:
            await FallingEdge(dut.clk)
            done, idle = int(dut.done.value), int(dut.idle.value)
            if pending is not None:
                waited += 1
                exp, slot = pending
                if done:
                    self.check(exp, waited, slot, quick)
                    pending = None
                    if not directed_phase and (exp["error"] or exp.get("warp_done")):
                        # after an error the caller stops the SM; nothing changed, so half of the
                        # time the program simply goes on (checks that the stack survived)
                        if exp["error"] and rng.random() < 0.5:
                            self.cov["operations continued after an error"] += 1
                        else:
                            slot.needs_clr = True
                else:
                    assert not idle, "idle low expected while an operation is in progress"
                    assert waited <= 2 + self.depth, "done never came"
            else:
                assert not done, "done pulse without an operation"
            self.drive_idle()
            if pending is not None:
                continue
            assert idle, "idle high expected with nothing in progress"
            if directed_phase:
                s0 = self.slots[0]
                if not s0.script:
                    if not programs:  # on to the random phase: every slot starts afresh
                        directed_phase = False
                        for s in self.slots:
                            s.needs_clr = True
                        continue
                    _, valid, pc = programs[0][0]
                    s0.script = programs.pop(0)[1:]
                    s0.new_program(rng, valid=valid, pc=pc)
                    dut.clr.value, dut.clr_warp.value = 1, 0
                    self.cov["directed programs"] += 1
                    continue
                if rng.random() < 0.1:
                    continue
                self.issue(s0, s0.script.pop(0))
                pending, waited = (self.last, s0), 0
                await Timer(1, unit="ns")  # the start is applied; before the rising edge
                quick = self.sample_quick()
                continue
            if issued >= random_ops:
                break
            # clear one slot that starts a new program, possibly in the cycle of another warp's start
            cleared = next((s for s in self.slots if s.needs_clr), None)
            if cleared is not None:
                dut.clr.value, dut.clr_warp.value = 1, cleared.idx
                cleared.needs_clr = False
                cleared.new_program(rng)
                self.cov["clr"] += 1
            if rng.random() < 0.1:  # an idle gap now and then
                continue
            ready = [s for s in self.slots if not s.needs_clr and s is not cleared]
            if not ready:
                continue
            slot = rng.choice(ready)
            op = self.next_op(slot)
            if op is None:
                slot.needs_clr = True
                continue
            self.issue(slot, op)
            pending, waited = (self.last, slot), 0
            issued += 1
            await Timer(1, unit="ns")  # the start is applied; before the rising edge
            quick = self.sample_quick()

    def issue(self, slot: Slot, op: tuple) -> None:
        """Apply ``op`` to the model and drive it into the RTL with ``start`` (checked at ``done``)."""
        self.last = self.expect(slot, op)
        for k, v in self.last["drive"].items():
            getattr(self.dut, k).value = v
        self.dut.start.value = 1


@cocotb.test()
async def div_stack_vs_model(dut) -> None:
    """Directed scripts, then random structured programs on every warp slot, checked against the model."""
    cfg = benchenv.parameters()
    seed = benchutil.rerun_seed(__name__, "div_stack_vs_model")
    dut._log.info("regression seed %d (rerun with SEED=%d); config %s", seed, seed, cfg)
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    bench = Bench(dut, cfg)
    bench.drive_idle()
    for name in ("op", "pc", "npc", "target", "mask", "taken", "exited", "live", "warp", "clr_warp"):
        getattr(dut, name).value = 0
    dut.rst.value = 1
    for _ in range(2):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await bench.run(list(directed(bench.width, bench.depth)), RANDOM_OPS)
    cov = bench.cov
    for key in sorted(cov):
        dut._log.info("  %-48s %d", key, cov[key])
    dut._log.info(
        "checked %d operations (%d pushes, %d pops, %d merges, %d overflow errors)",
        cov["checked operations"],
        cov["push SYNC"] + cov["push DIV"],
        cov["pop SYNC"] + cov["pop DIV"],
        cov["merge DIV"],
        cov["error STACK_OVERFLOW (ssy)"] + cov["error STACK_OVERFLOW (branch)"],
    )
    required = [
        "checked operations", "push SYNC", "push DIV", "pop SYNC", "pop DIV", "merge DIV",
        "error STACK_OVERFLOW (ssy)", "error STACK_OVERFLOW (branch)", "error DIVERGENT_WITHOUT_SSY (branch)",
        "skip taken path (target == rpc)", "skip not-taken path (pc+1 == rpc)", "divergent, both paths run",
        "SSY with target pc+1", "branch to pc+1 with mixed taken lanes", "instructions with >= 2 pops",
        "pop restoring an empty mask (popped again)", "partial EXIT", "EXIT finishing the warp",
        "operations of warps with invalid lanes", "stack full", "clr", "quick completions checked",
    ]  # fmt: skip
    missing = [k for k in required if cov[k] == 0]
    assert not missing, f"cases never exercised: {missing}"


# ---------------------------------------------------------------------------------------------
# pytest launchers
# ---------------------------------------------------------------------------------------------
CONFIGS = [  # (WARP_SIZE, NUM_WARPS, STACK_DEPTH, PC_W)
    (32, 4, 16, 16),
    (32, 2, 4, 10),
    (8, 3, 8, 12),
    (16, 1, 64, 16),
]


@pytest.mark.parametrize("ws,nw,sd,pcw", CONFIGS, ids=[f"w{c[0]}-n{c[1]}-d{c[2]}" for c in CONFIGS])
def test_div_stack(ws: int, nw: int, sd: int, pcw: int) -> None:
    params = {"WARP_SIZE": ws, "NUM_WARPS": nw, "STACK_DEPTH": sd, "PC_W": pcw}
    rtlsim.run(
        "simt_div_stack", ["sm/simt_div_stack.v"], __name__, parameters=params, testcase="div_stack_vs_model"
    )


@pytest.mark.parametrize("param,value", [("STACK_DEPTH", 1)])
def test_div_stack_illegal_parameter(param: str, value: int) -> None:
    """An illegal parameter stops the simulation at time 0 with the module's message."""
    params = {"WARP_SIZE": 8, "NUM_WARPS": 1, "STACK_DEPTH": 4, "PC_W": 10, param: value}
    msg = f"simt_div_stack: illegal parameter {param}={value} (must be in 2..64)"
    rtlsim.expect_fatal("simt_div_stack", ["sm/simt_div_stack.v"], params, msg)
