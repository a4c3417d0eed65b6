"""What the golden model says about a hung launch (the harness watchdog's report, issue 20).

``warp_report`` lists every resident, unfinished warp of a model: block, warp, SM, pc, the instruction
there and the state (ready, waiting at barrier), with the last instruction it retired. In the pyuvm
environment's lock-step mode the model has retired exactly what the RTL retired, so this is the RTL's
warps as far as retires show them. ``golden_hang`` runs a fresh model of the launch with a per-warp
instruction budget and names where it ends: the warp that spins (INSTRUCTION_BUDGET at its pc), or
"the model finishes" when the hang is the RTL's alone.
"""

from __future__ import annotations

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
    warps = [(b, w) for b in model.blocks.values() if not b.done for w in b.warps if w.state is not WarpState.DONE]
    for block, w in warps[:limit]:
        state = "waiting at barrier" if w.state is WarpState.WAITING else "ready"
        text = (f"block {block.bid} warp {w.wid} (SM {block.sm}): pc {w.pc} `{_instr(model, w.pc)}` {state}, "
                f"{w.count} instructions retired")  # fmt: skip
        if last and (block.bid, w.wid) in last:
            pc = last[(block.bid, w.wid)]
            text += f", last pc {pc} `{_instr(model, pc)}`"
        lines.append(text)
    if len(warps) > limit:
        lines.append(f"... and {len(warps) - limit} more warp(s)")
    return lines


def golden_hang(cfg: GpuConfig, image: LaunchImage, budget: int) -> str:
    """Run the launch on a fresh model with ``budget`` instructions per warp; say how it ends."""
    model = Model(cfg, image, budget=max(1, budget))
    try:
        model.run()
    except KernelError as e:
        stuck = [line for line in warp_report(model) if not line.startswith(f"block {e.block} warp {e.warp} ")]
        text = (f"the golden model (budget {budget} instructions per warp) stops at block {e.block} warp {e.warp} "
                f"pc {e.pc} `{_instr(model, e.pc)}`: {e.kind.name}")  # fmt: skip
        return text + ("; other warps: " + "; ".join(stuck) if stuck else "")
    return (f"the golden model finishes this launch within {budget} instructions per warp "
            f"({model.counters.warp_instrs} in all): the hang is the RTL's, not the kernel's")
