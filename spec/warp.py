"""A block and a warp of the golden model: a warp's lanes, masks and divergence stack, with the
branch, SSY, EXIT and reconvergence rules of docs/isa.md section 4. Part of the model
(spec/model.py), which steps warps and owns the memories.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .records import DIV, SYNC, ErrorKind, KernelError, StackEvent, WarpState

U32 = np.uint32


class Block:
    __slots__ = ("bid", "ctaid", "sm", "warps", "shared", "regs", "epoch", "done")

    def __init__(self, bid: int, ctaid: tuple[int, int, int], sm: int, shared_words: int) -> None:
        self.bid, self.ctaid, self.sm = bid, ctaid, sm
        self.warps: list[Warp] = []
        self.shared = np.zeros(shared_words, U32)
        self.regs: np.ndarray = np.zeros(0, U32)
        self.epoch = 0  # barrier generation, for race checking
        self.done = False


class Warp:
    __slots__ = ("block", "wid", "pc", "mask", "exited", "valid", "stack", "state", "regs", "sregs",
                 "count")  # fmt: skip

    def __init__(
        self, block: Block | None, wid: int, valid: int, regs: np.ndarray, sregs: np.ndarray
    ) -> None:
        self.block, self.wid = block, wid
        self.pc = 0
        self.valid = valid
        self.mask = valid
        self.exited = 0
        self.stack: list[list[Any]] = []  # [kind, pc, mask]
        self.state = WarpState.READY
        self.regs = regs  # (R, W) view into the block's register array
        self.sregs = sregs  # (32, W) special-register values
        self.count = 0

    @property
    def live(self) -> int:
        return self.valid & ~self.exited

    def innermost_rpc(self) -> int | None:
        for entry in reversed(self.stack):
            if entry[0] is SYNC:
                return entry[1]
        return None

    def error(self, kind: ErrorKind, message: str, lane: int | None = None) -> KernelError:
        bid = self.block.bid if self.block is not None else -1
        return KernelError(kind, message, block=bid, warp=self.wid, pc=self.pc, lane=lane)

    # ---- control flow and the divergence stack (docs/isa.md section 4) ---------------------------
    def control(
        self, op: str, depth_limit: int, *, npc: int = 0, target: int = 0, taken: int = 0
    ) -> tuple[list[StackEvent], bool, bool]:
        """Apply rules 1-4 of docs/isa.md 4.2 for one warp-instruction of this warp.

        ``op``: "next" (pc <- npc: any non-control instruction with npc = pc + 1, or BRA with its
        target), "ssy" (push SYNC(target)), "branch" (BEQ/BNE; ``taken`` = lanes taking it) or
        "exit". Returns (stack events, divergent branch, warp finished). The RTL's divergence unit is
        checked against this very method.
        """
        events: list[StackEvent] = []
        divergent = False
        if op == "next":
            self.pc = npc
        elif op == "branch":
            self.pc, divergent = self._branch(taken, target, depth_limit, events)
        elif op == "ssy":
            if len(self.stack) >= depth_limit:
                raise self.error(ErrorKind.STACK_OVERFLOW, f"SSY onto a full stack ({depth_limit})")
            self.stack.append([SYNC, target, self.mask])
            events.append(StackEvent("push", SYNC, target, self.mask, len(self.stack)))
            self.pc += 1
        elif op == "exit":
            self.exited |= self.mask
            self.mask = 0
            self.pc += 1
            if not self.live:
                self.stack.clear()  # a finished warp's stack is discarded, not popped
                return events, False, True
        else:
            raise ValueError(f"unknown control op {op!r}")
        if self.stack or not self.mask:
            self._reconverge(events)
        return events, divergent, False

    def _branch(
        self, taken: int, target: int, depth_limit: int, events: list[StackEvent]
    ) -> tuple[int, bool]:
        mask, npc = self.mask, self.pc + 1
        taken &= mask
        not_taken = mask & ~taken
        if target == npc or not not_taken:
            return target, False
        if not taken:
            return npc, False
        rpc = self.innermost_rpc()
        if rpc is None:
            raise self.error(
                ErrorKind.DIVERGENT_WITHOUT_SSY,
                f"threads 0x{taken:x} take the branch to "
                f"{target}, threads 0x{not_taken:x} do not, and no SSY is in effect",
            )
        if target == rpc:  # the taken threads reached the reconvergence point: they wait there
            self.mask = not_taken
            return npc, True
        if npc == rpc:  # the not-taken threads reached it
            self.mask = taken
            return target, True
        stack = self.stack
        top = stack[-1] if stack else None
        if top is not None and top[0] is DIV and top[1] == npc:
            top[2] |= not_taken
            events.append(StackEvent("merge", DIV, npc, top[2], len(stack)))
        else:
            if len(stack) >= depth_limit:
                raise self.error(
                    ErrorKind.STACK_OVERFLOW, f"divergent branch onto a full stack ({depth_limit})"
                )
            stack.append([DIV, npc, not_taken])
            events.append(StackEvent("push", DIV, npc, not_taken, len(stack)))
        self.mask = taken
        return target, True

    def _reconverge(self, events: list[StackEvent]) -> None:
        stack = self.stack
        while stack:
            if self.mask:
                rpc = self.innermost_rpc()
                if rpc is None or self.pc != rpc:
                    return
            kind, pc, mask = stack.pop()
            self.pc, self.mask = pc, mask & ~self.exited
            events.append(StackEvent("pop", kind, pc, mask, len(stack)))
        if not self.mask:  # a live thread is always active or on the stack (docs/isa.md 4.2 rule 4)
            raise AssertionError(f"model invariant broken: warp {self.wid} lost live threads")
