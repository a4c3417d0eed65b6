"""The fault soak (``make soak``, tb/tests/system/test_soak.py): launches back to back on one GPU, with
faults injected at random cycles, every launch after a fault a clean one checked in lockstep.

Fault kinds: ABORT mid-launch and reset mid-launch (at a random cycle), an illegal launch image (each of
the loader's refusals in turn), a kernel that traps (each kernel error kind in turn), and a launch under
memory at the extremes (almost no backpressure or nearly always stalled, latencies from 1 to 500
cycles, responses reordered); on the AXI top also a slave error (one read beat answered SLVERR, with
its data: the launch must end exactly, axi_error bit 0 rise, and a reset clear it). The launches between faults are directed and constrained-random kernels.
Every launch goes through the same environment as every system test: each retire checked against the
golden model, every memory transaction and shared write on its scoreboard.

Two random streams, both from the run's seed: the *plan* (which launch is faulted, with which fault, at
which cycle, which kernel kind runs) and, per launch, the *kernel* (its input data, the random kernel's
seed). Changing the kernel generator or its knobs does not move a single fault, and the reverse.
The random kernels are soak-sized (``SOAK_KERNEL_KNOBS``): a few hundred warp-instructions, so a launch
is short and a fault at 20..300 cycles lands mid-kernel, not in a long tail.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from kernels.directed import ERROR_KERNELS, image_of
from spec.config import GpuConfig
from tb.agents.gmem_agent import GMEM_PROFILES
from tb.env.items import LaunchItem
from tb.sequences import library
from tb.sequences.random_plan import KernelKnobs

FAULT_KINDS = ("abort", "reset", "illegal-image", "trap", "memory-extreme")
AXI_FAULT_KINDS = (*FAULT_KINDS, "slave-error")  # the AXI top's soak (a slave error needs an AXI slave)
# soak-sized random kernels: few blocks and threads, short code, about 600 warp-instructions at most
SOAK_KERNEL_KNOBS = KernelKnobs(
    max_blocks=4, max_threads=128, code_words=80, max_warp_instrs=600, max_nesting=2, max_trip=3
)
CLEAN_KERNELS = ["vecadd", "alu", "divergence", "shared_barrier", "matmul"]
# memory at its extremes: nearly never ready and very slow; or always ready with the shortest latency
MEMORY_EXTREMES = [
    {"req_ready_prob": 0.05, "latency": (1, 500), "out_of_order": True, "rsp_valid_prob": 0.1},
    {"req_ready_prob": 1.0, "latency": (1, 1), "out_of_order": False, "rsp_valid_prob": 1.0},
    {"req_ready_prob": 0.5, "latency": (200, 500), "out_of_order": True, "rsp_valid_prob": 0.05},
]


@dataclass
class SoakPlan:
    items: list[LaunchItem]
    faults: Counter = field(default_factory=Counter)
    recoveries: int = 0  # clean launches right after a fault (each one checked in lockstep)
    faulted: list[int] = field(default_factory=list)  # the indices of the faulted launches

    @property
    def launches(self) -> int:
        return len(self.items)


def plan_stream(seed: int) -> random.Random:
    """The plan's stream: faults, their kinds and cycles, the kind of every launch."""
    return random.Random(f"soak-plan:{seed}")


def kernel_stream(seed: int, launch: int) -> random.Random:
    """Launch ``launch``'s own stream for its kernel: input data, the random kernel's seed."""
    return random.Random(f"soak-kernel:{seed}:{launch}")


def _clean(
    cfg: GpuConfig,
    prng: random.Random,
    krng: random.Random,
    tag: str,
    random_share: float,
    knobs: KernelKnobs,
) -> LaunchItem:
    if prng.random() < random_share:
        from tb.sequences.random_kernel import generate

        kseed = krng.randrange(1 << 31)
        return LaunchItem(f"{tag}: random kernel {kseed}", generate(kseed, cfg, knobs).image, seed=kseed)
    name = prng.choice(CLEAN_KERNELS)
    return LaunchItem(f"{tag}: {name}", image_of(name, krng))


def plan(
    cfg: GpuConfig,
    seed: int,
    launches: int,
    fault_share: float = 0.3,
    random_share: float = 0.3,
    kinds: Sequence[str] = FAULT_KINDS,
    knobs: KernelKnobs = SOAK_KERNEL_KNOBS,
) -> SoakPlan:
    """``launches`` launches for the run seeded ``seed``; about ``fault_share`` of them faulted (0.5:
    every other one), each fault one of ``kinds`` and followed by a clean one; ``random_share`` of the
    clean launches are constrained-random kernels (``knobs``), the rest directed ones."""
    unknown = set(kinds) - set(AXI_FAULT_KINDS)
    if unknown or not kinds:
        raise ValueError(
            f"soak fault kinds {sorted(unknown) or '(none)'}: choose from {', '.join(AXI_FAULT_KINDS)} "
            "(slave-error on the AXI top only)"
        )
    prng = plan_stream(seed)
    out = SoakPlan([])
    illegal = [
        i for i in library.launch_errors(cfg, kernel_stream(seed, -1)) if i.expect_launch_error is not None
    ]
    traps = list(ERROR_KERNELS)
    while len(out.items) < launches:
        n = len(out.items)
        krng = kernel_stream(seed, n)
        if launches - n >= 2 and prng.random() < fault_share / (1 - fault_share):
            kind = prng.choice(list(kinds))
            out.faults[kind] += 1
            if kind in ("abort", "reset"):
                after_cycles = prng.randrange(20, 300)
                item = LaunchItem(
                    f"{n}: matmul, {kind} after {after_cycles} cycles",
                    image_of("matmul", krng),
                    interrupt=kind,
                    interrupt_after=after_cycles,
                )
            elif kind == "illegal-image":
                template = illegal[out.faults[kind] % len(illegal)]
                item = LaunchItem(
                    f"{n}: illegal image ({template.get_name()})",
                    template.image,
                    words=template.words,
                    start=template.start,
                    expect_launch_error=template.expect_launch_error,
                    expect_rule=template.expect_rule,
                )
            elif kind == "slave-error":
                name = prng.choice(["vecadd", "matmul"])  # both read global memory from the start
                item = LaunchItem(
                    f"{n}: {name}, a read beat answered SLVERR", image_of(name, krng), slave_error=True
                )
            elif kind == "trap":
                err = traps[out.faults[kind] % len(traps)]
                item = LaunchItem(f"{n}: trap {err}", image_of(err, krng), expect_error=err)
            else:
                item = _clean(cfg, prng, krng, f"{n}: under extreme memory", random_share, knobs)
                item.gmem = prng.choice(MEMORY_EXTREMES)
                item.max_cycles *= 4
            out.faulted.append(len(out.items))
            out.items.append(item)
            after = _clean(
                cfg, prng, kernel_stream(seed, n + 1), f"{n + 1}: after {kind}", random_share, knobs
            )
            after.gmem = dict(GMEM_PROFILES["default"])  # the ordinary memory again
            out.items.append(after)
            out.recoveries += 1
        else:
            out.items.append(_clean(cfg, prng, krng, str(n), random_share, knobs))
    return out
