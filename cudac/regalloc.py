"""Register allocation: liveness, dead-code removal, move coalescing and graph colouring.

Each thread has its own registers, so the allocation is the usual one over a single thread's control
flow graph: a divergent branch runs both ways one after the other, but each thread follows one path
(the reconvergence stack only decides *when* a path runs). Virtual registers are coloured into
``r0..r{budget-1}`` (Chaitin–Briggs: simplify, optimistic select, copies preferring their partner's
colour). A kernel that does not fit the budget goes to cudac/spill.py (values in shared memory, or
recomputed at their uses).
"""

from __future__ import annotations

from cudac.ir import BRANCHES, LOADS, STORES, Ins

PURE = {"LI", "LDS", "MV"}


def _is_pure(ins: Ins) -> bool:
    return ins.dst is not None and (ins.op in PURE or ins.op not in LOADS and ins.op not in STORES)


def successors(code: list[Ins]) -> list[list[int]]:
    where = {ins.target: i for i, ins in enumerate(code) if ins.is_label}
    succ: list[list[int]] = []
    n = len(code)
    for i, ins in enumerate(code):
        if ins.op == "BRA":
            succ.append([where[ins.target]])
        elif ins.op == "EXIT":
            succ.append([])
        elif ins.op in BRANCHES:
            succ.append([where[ins.target], *([i + 1] if i + 1 < n else [])])
        else:
            succ.append([i + 1] if i + 1 < n else [])
    return succ


def liveness(code: list[Ins]) -> list[set[int]]:
    """live-out set of each instruction (backward dataflow to a fixed point)."""
    succ = successors(code)
    live_in: list[set[int]] = [set() for _ in code]
    live_out: list[set[int]] = [set() for _ in code]
    changed = True
    while changed:
        changed = False
        for i in range(len(code) - 1, -1, -1):
            out: set[int] = set()
            for s in succ[i]:
                out |= live_in[s]
            ins = code[i]
            new_in = (out - set(ins.defs())) | set(ins.uses())
            if out != live_out[i] or new_in != live_in[i]:
                live_out[i], live_in[i] = out, new_in
                changed = True
    return live_out


def remove_dead(code: list[Ins]) -> list[Ins]:
    while True:
        live = liveness(code)
        keep = [
            ins for ins, out in zip(code, live, strict=True) if not (_is_pure(ins) and ins.dst not in out)
        ]
        if len(keep) == len(code):
            return keep
        code = keep


class AllocError(Exception):
    def __init__(self, needed: int, budget: int) -> None:
        super().__init__(f"needs {needed} registers")
        self.needed, self.budget = needed, budget


def interference(code: list[Ins]) -> tuple[dict[int, set[int]], list[tuple[int, int]]]:
    live = liveness(code)
    graph: dict[int, set[int]] = {}
    moves: list[tuple[int, int]] = []
    for ins in code:
        for r in (*ins.uses(), *ins.defs()):
            graph.setdefault(r, set())
    for ins, out in zip(code, live, strict=True):
        if ins.dst is None:
            continue
        d = ins.dst
        skip = ins.srcs[0] if ins.op == "MV" else None
        if ins.op == "MV":
            moves.append((d, ins.srcs[0]))
        for r in out:
            if r != d and r != skip:
                graph[d].add(r)
                graph[r].add(d)
    return graph, moves


def rename(code: list[Ins], m: dict[int, int]) -> None:
    for ins in code:
        ins.srcs = tuple(m.get(r, r) for r in ins.srcs)
        if ins.dst is not None:
            ins.dst = m.get(ins.dst, ins.dst)


def coalesce(code: list[Ins]) -> None:
    """Merge the two registers of a copy when they never hold different values at once."""
    graph, moves = interference(code)
    merged: dict[int, int] = {}

    def find(r: int) -> int:
        while r in merged:
            r = merged[r]
        return r

    for d, s in moves:
        a, b = find(d), find(s)
        if a == b or b in graph[a]:
            continue
        merged[b] = a
        for n in graph.pop(b):
            graph[n].discard(b)
            graph[n].add(a)
            graph[a].add(n)
    if merged:
        rename(code, {r: find(r) for r in merged})
        code[:] = [i for i in code if not (i.op == "MV" and i.dst == i.srcs[0])]


def color(code: list[Ins], budget: int) -> dict[int, int]:
    graph, moves = interference(code)
    partners: dict[int, set[int]] = {}
    for d, s in moves:
        partners.setdefault(d, set()).add(s)
        partners.setdefault(s, set()).add(d)
    degree = {r: len(n) for r, n in graph.items()}
    removed: set[int] = set()
    stack: list[int] = []
    order = sorted(graph)
    while len(stack) < len(graph):
        pick = next((r for r in order if r not in removed and degree[r] < budget), None)
        if pick is None:  # optimistic: the highest degree may still find a colour
            pick = max((r for r in order if r not in removed), key=lambda r: degree[r])
        removed.add(pick)
        stack.append(pick)
        for n in graph[pick]:
            degree[n] -= 1
    colors: dict[int, int] = {}
    worst = 0
    for r in reversed(stack):
        used = {colors[n] for n in graph[r] if n in colors}
        prefer = [colors[p] for p in partners.get(r, ()) if p in colors and colors[p] not in used]
        if prefer:
            c = prefer[0]
        else:
            c = next(i for i in range(len(graph) + 1) if i not in used)
        colors[r] = c
        worst = max(worst, c + 1)
    if worst > budget:
        raise AllocError(worst, budget)
    return colors


def allocate(code: list[Ins], budget: int) -> tuple[list[Ins], int]:
    """Physical registers for ``code`` within ``budget``: (code, registers used)."""
    code = remove_dead(code)
    work = [Ins(i.op, i.dst, i.srcs, i.imm, i.target, i.loc) for i in code]
    coalesce(work)
    try:
        colors = color(work, budget)
        code = work
    except AllocError:
        colors = color(code, budget)  # without coalescing (raises if this does not fit either)
    rename(code, colors)
    code = [i for i in code if not (i.op == "MV" and i.dst == i.srcs[0])]
    return code, max([*colors.values(), 0]) + 1 if colors else 1
