"""Which instructions a kernel can reach from pc 0 (for the assembler's "no reachable EXIT" warning).

Successors of an instruction: EXIT none; BRA its target; BEQ/BNE the target and the next pc; SSY the
next pc and its reconvergence target; an illegal word or a pc outside the program none (an error ends
the warp there); anything else the next pc. Per-thread conditions are not evaluated: a branch may go
either way, so "not reachable" is certain and "reachable" only possible.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import isa


def successors(code: Sequence[int], pc: int) -> list[int]:
    try:
        d = isa.decode(code[pc])
    except isa.IllegalInstruction:
        return []
    unit, name = d.op.unit, d.mnemonic
    if unit is isa.Unit.EXIT:
        return []
    if name == "BRA":
        return [d.imm]
    if name in ("BEQ", "BNE", "SSY"):
        return [pc + 1, d.imm]
    return [pc + 1]


def reachable(code: Sequence[int]) -> set[int]:
    seen: set[int] = set()
    todo = [0]
    while todo:
        pc = todo.pop()
        if pc in seen or not 0 <= pc < len(code):
            continue
        seen.add(pc)
        todo.extend(successors(code, pc))
    return seen


def exit_reachable(code: Sequence[int]) -> bool:
    """True when some EXIT can be reached from pc 0."""
    for pc in reachable(code):
        try:
            if isa.decode(code[pc]).op.unit is isa.Unit.EXIT:
                return True
        except isa.IllegalInstruction:
            continue
    return False
