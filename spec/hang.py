"""What the golden model says about a hung launch (the harness watchdog's report, issue 20).

``warp_report`` lists every resident, unfinished warp of a model: block, warp, SM, pc, the instruction
there and the state (ready, waiting at barrier), with the last instruction it retired. In the pyuvm
environment's lock-step mode the model has retired exactly what the RTL retired, so this is the RTL's
warps as far as retires show them. ``golden_hang`` runs a fresh model of the launch with a per-warp
instruction budget and names where it ends: the warp that spins (INSTRUCTION_BUDGET at its pc), or
"the model finishes" when the hang is the RTL's (or the memory's) alone.

``WarpView`` is one warp slot as the RTL's debug view reports it (docs/gpu.md "Debug view", the SM's
``dbg_*`` ports); ``rtl_lines`` formats the RTL's report and ``compare_hang`` checks it against the
lock-step model and the fresh budget run with the rule of docs/verification.md "Hang report": the
same resident warps on the same SMs; a warp at a barrier or waiting on memory at exactly the model's
pc, with exactly its last retired pc; a warp that keeps running (ready or in the pipeline) at a pc of
its loop — a pc it retired lately, or the model's next pc — and the budget run's stop, when it names
that warp, at a pc of the same loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .config import GpuConfig
from .disasm import disassemble
from .image import LaunchImage
from .model import KernelError, Model, WarpState


def _instr(model: Model, pc: int) -> str:
    code = model.image.code
    return disassemble(code[pc]) if 0 <= pc < len(code) else "(outside the program)"


def warp_report(model: Model, last: dict[tuple[int, int], int] | None = None, limit: int = 8) -> list[str]:
    """One line per resident unfinished warp (at most ``limit``, then a count); ``last`` maps
    (block, warp) to the pc of its last retired instruction, when known."""
    lines: list[str] = []
    warps = [
        (b, w) for b in model.blocks.values() if not b.done for w in b.warps if w.state is not WarpState.DONE
    ]
    for block, w in warps[:limit]:
        state = "waiting at barrier" if w.state is WarpState.WAITING else "ready"
        text = (
            f"block {block.bid} warp {w.wid} (SM {block.sm}): pc {w.pc} `{_instr(model, w.pc)}` {state}, "
            f"{w.count} instructions retired"
        )
        if last and (block.bid, w.wid) in last:
            pc = last[(block.bid, w.wid)]
            text += f", last pc {pc} `{_instr(model, pc)}`"
        lines.append(text)
    if len(warps) > limit:
        lines.append(f"... and {len(warps) - limit} more warp(s)")
    return lines


def golden_hang(cfg: GpuConfig, image: LaunchImage, budget: int) -> str:
    """Run the launch on a fresh model with ``budget`` instructions per warp; say how it ends."""
    return golden_run(cfg, image, budget)[0]


def golden_run(cfg: GpuConfig, image: LaunchImage, budget: int) -> tuple[str, KernelError | None]:
    """:func:`golden_hang`'s text and the model's stop (None when the launch ends within the budget)."""
    model = Model(cfg, image, budget=max(1, budget))
    try:
        model.run()
    except KernelError as e:
        stuck = [
            line for line in warp_report(model) if not line.startswith(f"block {e.block} warp {e.warp} ")
        ]
        text = (
            f"the golden model (budget {budget} instructions per warp) stops at block {e.block} warp {e.warp} "
            f"pc {e.pc} `{_instr(model, e.pc)}`: {e.kind.name}"
        )
        return text + ("; other warps: " + "; ".join(stuck) if stuck else ""), e
    return (
        f"the golden model finishes this launch within {budget} instructions per warp "
        f"({model.counters.warp_instrs} in all): the hang is the RTL's or the memory's, not the kernel's"
    ), None


# The debug view's state codes (docs/gpu.md "Debug view", simt_sm.v WS_*).
ST_EMPTY, ST_READY, ST_PIPE, ST_MEM, ST_BAR, ST_DONE = range(6)
STATE_NAMES = {ST_EMPTY: "empty", ST_READY: "ready", ST_PIPE: "in pipeline", ST_MEM: "waiting on memory",
               ST_BAR: "at barrier", ST_DONE: "done"}  # fmt: skip
RUNNING = (ST_READY, ST_PIPE)  # a warp that can still retire by itself


@dataclass(frozen=True)
class WarpView:
    """One warp slot of one SM as the RTL reports it; ``last_pc`` is None before its first retire."""

    sm: int
    slot: int
    state: int
    block: int = 0
    warp: int = 0
    pc: int = 0
    last_pc: int | None = None

    @classmethod
    def from_registers(cls, sm: int, slot: int, warp_reg: int, block: int, pc: int, last_pc: int) -> WarpView:
        """Decode DBG_WARP ({wib[8:4], retired[3], state[2:0]}), DBG_BLOCK, DBG_PC and DBG_LAST_PC."""
        retired = bool(warp_reg >> 3 & 1)
        return cls(sm, slot, warp_reg & 7, block, warp_reg >> 4 & 0x1F, pc, last_pc if retired else None)

    @property
    def resident(self) -> bool:
        return self.state != ST_EMPTY

    @property
    def state_name(self) -> str:
        return STATE_NAMES.get(self.state, f"state {self.state}?")


def _code_instr(code: list[int] | None, pc: int) -> str:
    if code is None:
        return ""
    return f" `{disassemble(code[pc])}`" if 0 <= pc < len(code) else " `(outside the program)`"


def rtl_lines(views: Iterable[WarpView], code: list[int] | None = None) -> list[str]:
    """One line per resident warp slot: SM, slot, block, warp, pc with its instruction, state, last pc."""
    lines = []
    for v in views:
        if not v.resident:
            continue
        last = (
            "none retired"
            if v.last_pc is None
            else f"last retired pc {v.last_pc}{_code_instr(code, v.last_pc)}"
        )
        instr = "" if v.state == ST_DONE else _code_instr(code, v.pc)  # a finished warp's pc is past its EXIT
        lines.append(
            f"SM {v.sm} slot {v.slot}: block {v.block} warp {v.warp} pc {v.pc}{instr} {v.state_name}, {last}"
        )
    return lines


def compare_hang(
    views: Iterable[WarpView],
    model: Model,
    recent: Mapping[tuple[int, int], Iterable[int]],
    stop: KernelError | None = None,
) -> list[str]:
    """The RTL's debug view against the lock-step ``model`` (which has retired what the RTL retired) and
    the fresh budget run's ``stop``; ``recent`` maps (block, warp) to the pcs it retired lately, oldest
    first. Returns the disagreements (docs/verification.md "Hang report" states the rule)."""
    shown = [v for v in views if v.resident and v.state != ST_DONE]
    rtl = {(v.block, v.warp): v for v in shown}
    seen: dict[tuple[int, int], WarpView] = {}
    problems = []
    for v in shown:  # one warp in two slots: a slot the view decodes wrongly (an index out of range)
        if (v.block, v.warp) in seen:
            first = seen[v.block, v.warp]
            problems.append(
                f"the RTL shows block {v.block} warp {v.warp} twice: SM {first.sm} slot {first.slot} "
                f"and SM {v.sm} slot {v.slot}"
            )
        seen[v.block, v.warp] = v
    ref = {
        (b.bid, w.wid): (b, w)
        for b in model.blocks.values()
        if not b.done
        for w in b.warps
        if w.state is not WarpState.DONE
    }
    problems += [
        f"the RTL shows block {b} warp {w} resident and unfinished ({rtl[b, w].state_name}), "
        f"the model does not"
        for b, w in sorted(rtl.keys() - ref.keys())
    ]
    problems += [
        f"the model has block {b} warp {w} unfinished at pc {ref[b, w][1].pc}, the RTL's debug view "
        f"does not show it"
        for b, w in sorted(ref.keys() - rtl.keys())
    ]
    for key in sorted(rtl.keys() & ref.keys()):
        v, (block, w) = rtl[key], ref[key]
        name = f"block {key[0]} warp {key[1]}"
        pcs = list(recent.get(key, ()))
        last = pcs[-1] if pcs else None
        if block.sm is not None and v.sm != block.sm:
            problems.append(f"{name}: the RTL shows it on SM {v.sm}, it was dispatched to SM {block.sm}")
        if (v.state == ST_BAR) != (w.state is WarpState.WAITING):
            problems.append(f"{name}: the RTL says {v.state_name}, the model says {w.state.value}")
        if v.state in RUNNING:
            loop = set(pcs) | {w.pc}
            if v.pc not in loop:
                problems.append(
                    f"{name} ({v.state_name}): the RTL's pc {v.pc} is not a pc of its loop {sorted(loop)}"
                )
            if v.last_pc is not None and v.last_pc not in loop:
                problems.append(
                    f"{name}: the RTL's last retired pc {v.last_pc} is not a pc of its loop {sorted(loop)}"
                )
            if stop is not None and (stop.block, stop.warp) == key and stop.pc not in loop:
                problems.append(
                    f"{name}: the golden model's budget stop pc {stop.pc} is not a pc of the loop "
                    f"{sorted(loop)} the RTL's warp runs"
                )
        else:  # at a barrier, waiting on memory: the warp cannot move, so the pcs are exact
            if v.pc != w.pc:
                problems.append(f"{name} ({v.state_name}): the RTL's pc {v.pc}, the model's {w.pc}")
            if v.last_pc != last:
                problems.append(
                    f"{name} ({v.state_name}): the RTL's last retired pc {v.last_pc}, the model's {last}"
                )
    if stop is not None and stop.kind.name == "INSTRUCTION_BUDGET":
        key = (stop.block, stop.warp)
        if key not in rtl or rtl[key].state not in RUNNING:
            seen = rtl[key].state_name if key in rtl else "not resident"
            problems.append(
                f"the golden model's budget run stops at block {key[0]} warp {key[1]} (a warp spinning), "
                f"the RTL's debug view shows that warp {seen}"
            )
    return problems
