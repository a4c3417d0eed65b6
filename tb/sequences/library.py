"""Launch sequences for the host agent: lists of :class:`~tb.env.items.LaunchItem` run in order.

Each helper returns the items of one kind of test (directed kernels, kernel errors, impossible
launches, interrupted kernels, random kernels); :class:`LaunchSequence` plays any list of them back to
back on one GPU without a reset in between.
"""

from __future__ import annotations

import random

import pyuvm

from kernels.directed import ERROR_KERNELS, GPU_KERNELS, KERNELS, image_of, scenario_image
from spec.config import GpuConfig
from spec.image_rules import Rule, Tag, check_words
from tb.env.items import LaunchItem


class LaunchSequence(pyuvm.uvm_sequence):
    def __init__(self, name: str, items: list[LaunchItem]) -> None:
        super().__init__(name)
        self.items = items

    async def body(self) -> None:
        for item in self.items:
            await self.start_item(item)
            await self.finish_item(item)


def directed(rng: random.Random, names: list[str] | None = None) -> list[LaunchItem]:
    """Every directed kernel (or ``names``), then the multi-block 3-D grid."""
    names = names if names is not None else [*KERNELS, *GPU_KERNELS]
    return [LaunchItem(n, image_of(n, rng)) for n in names]


def kernel_errors(rng: random.Random, cfg: GpuConfig | None = None) -> list[LaunchItem]:
    """Each kernel error kind, each followed by an ABORT; one raised by a later warp of a later block;
    with several SMs (``cfg``) also an error that only SM 1 and up raise; then a clean launch proves
    recovery."""
    items = [LaunchItem(n, image_of(n, rng), expect_error=n) for n in ERROR_KERNELS]
    image = scenario_image("late_warp_error")
    items.append(
        LaunchItem("ILLEGAL_INSTRUCTION in warp 3 of block 3", image, expect_error="ILLEGAL_INSTRUCTION")
    )
    if cfg is not None and cfg.num_sms > 1:
        image = scenario_image("other_sm_error")
        items.append(LaunchItem("ILLEGAL_INSTRUCTION on SM 1+", image, expect_error="ILLEGAL_INSTRUCTION"))
    if cfg is not None:
        items.append(global_boundary(cfg, rng))
    return [*items, LaunchItem("vecadd after errors", image_of("vecadd", rng))]


def global_boundary(cfg: GpuConfig, rng: random.Random) -> LaunchItem:
    """GLOBAL_OUT_OF_RANGE at the boundary (scenarios/global_boundary.s): a load of the last word of
    global memory (random data there) is no error, the next word is; the error names lane 1."""
    last = cfg.global_words - 1
    image = scenario_image("global_boundary", params=[cfg.global_words], data=[(last, [rng.getrandbits(32)])])
    return LaunchItem("GLOBAL_OUT_OF_RANGE at the boundary", image, expect_error="GLOBAL_OUT_OF_RANGE")


def _rule(words: list[int], cfg: GpuConfig, rule: Rule) -> tuple[int, int]:
    verdict = check_words(words, cfg)
    assert verdict.rule is rule, verdict.message
    return int(rule), verdict.index


def launch_errors(cfg: GpuConfig, rng: random.Random) -> list[LaunchItem]:
    """Impossible launches end with a launch error, never a hang; then a clean launch, and a START
    after it with no new image (launch error 0x13: the finished launch used its image up)."""
    too_big = image_of("vecadd", rng)
    too_big.block = ((cfg.num_warps + 1) * cfg.warp_size, 1, 1)  # one warp more than an SM holds
    bad = image_of("vecadd", rng).to_words()
    bad[1] = 7  # unknown image version
    words = image_of("vecadd", rng).to_words()
    overlap = words[:-1] + [Tag.DATA << 24 | 3, 40, 1, 2, Tag.DATA << 24 | 2, 41, 3, words[-1]]
    after_end = image_of("vecadd", rng).to_words() + [0]
    return [
        LaunchItem("start without image", None, words=[], expect_launch_error=0x13),
        LaunchItem("block too big", too_big, expect_launch_error=0x11),
        LaunchItem("bad image version", None, words=bad, start=False, expect_launch_error=0x10),
        # the GPU's ERR_RULE and IMG_WORDS name the rule and word image_rules.check_words names
        LaunchItem(
            "overlapping DATA",
            None,
            words=overlap,
            start=False,
            expect_launch_error=0x10,
            expect_rule=_rule(overlap, cfg, Rule.DATA_ORDER),
        ),
        LaunchItem(
            "word after END",
            None,
            words=after_end,
            start=False,
            expect_launch_error=0x10,
            expect_rule=_rule(after_end, cfg, Rule.AFTER_END),
        ),
        LaunchItem("vecadd after launch errors", image_of("vecadd", rng)),
        # START consumes its image (docs/gpu.md "Launch lifecycle"): a second START after a launch that
        # finished is START with no image, not a rerun of the old one (the soak found the GPU rerunning it)
        LaunchItem(
            "START again after a finished launch (its image is used up)",
            None,
            words=[],
            expect_launch_error=0x13,
        ),
    ]


AGREE = "the RTL and the golden model agree"
DEAF = {"req_ready_prob": 1.0, "latency": (1, 1), "out_of_order": False, "rsp_valid_prob": 0.0}


def hangs(rng: random.Random) -> list[LaunchItem]:
    """Launches that never end, each reported by the watchdog with what is stuck, then ABORTed; a
    clean launch after them. The RTL's debug view (docs/gpu.md) and the golden model (lock-step with
    the RTL's retires, and a fresh run with a budget) must name the same warps, pcs and states
    (docs/verification.md "Hang report"): a warp spinning alone (past its instruction budget, and
    past its cycle budget), a warp spinning while another waits at BAR, a warp waiting on a memory that never answers; a truncated image names the word the
    loader waits for."""
    spin = scenario_image("spin_at_barrier")
    loop = scenario_image("spin_loop")
    stuck = scenario_image("stuck_load")
    cut = image_of("vecadd", rng).to_words()[:-4]
    return [
        LaunchItem(
            "one warp spins in a loop",
            loop,
            max_instrs=2000,
            stall_cycles=2000,
            expect_hang=[
                "ran past its budget of 2000 warp-instructions",
                "block 0 warp 0 (SM 0): pc ",
                "slot 0: block 0 warp 0 pc ",
                "INSTRUCTION_BUDGET",
                AGREE,
            ],
        ),
        LaunchItem(
            "one warp spins in a loop: cycle budget",
            loop,
            max_cycles=5000,
            stall_cycles=2000,
            expect_hang=["the GPU stayed busy for 5000 cycles", "slot 0: block 0 warp 0 pc ", AGREE],
        ),
        LaunchItem(
            "warp 0 spins while warp 1 waits at BAR",
            spin,
            max_instrs=3000,
            stall_cycles=2000,
            expect_hang=[
                "ran past its budget of 3000 warp-instructions",
                "SM 0 slot 0: block 0 warp 0 pc 3 `BRA    3` ",
                "SM 0 slot 1: block 0 warp 1 pc 5 `EXIT` at barrier, last retired pc 4 `BAR`",
                "block 0 warp 0 (SM 0): pc 3 `BRA    3` ready",
                "block 0 warp 1 (SM 0): pc 5 `EXIT` waiting at barrier",
                "stops at block 0 warp 0 pc 3 `BRA    3`: INSTRUCTION_BUDGET",
                AGREE,
            ],
        ),
        LaunchItem(
            "warp 0 waits on a memory that never answers",
            stuck,
            gmem=DEAF,
            stall_cycles=2000,
            expect_hang=[
                "no warp-instruction retired and no memory response in 2000 cycles",
                "memory responses 0, outstanding ",
                "SM 0 slot 0: block 0 warp 0 pc 3 `LDG    r3, [r1]` waiting on memory, last retired pc 2",
                "the hang is the RTL's or the memory's",
                AGREE,
            ],
        ),
        LaunchItem(
            "truncated image then START",
            None,
            words=cut,
            stall_cycles=2000,
            expect_hang=[
                "no warp-instruction retired and no memory response in 2000 cycles",
                f"the loader is waiting for word {len(cut)} of the launch image",
            ],
        ),
        LaunchItem("vecadd after hangs", image_of("vecadd", rng)),
    ]


def interrupted(rng: random.Random) -> list[LaunchItem]:
    """rst, then ABORT, then IMAGE words, then a START (to be ignored), in the middle of a kernel; each
    followed by an exact launch. The IMAGE words and the START go to separate launches, so each must
    raise STATUS.IGNORED on its own."""
    return [
        LaunchItem(
            "matmul reset mid-kernel", image_of("matmul", rng), interrupt="reset", interrupt_after=300
        ),
        LaunchItem("matmul after reset", image_of("matmul", rng)),
        LaunchItem(
            "matmul aborted mid-kernel", image_of("matmul", rng), interrupt="abort", interrupt_after=400
        ),
        LaunchItem("matmul after abort", image_of("matmul", rng)),
        LaunchItem(
            "matmul with IMAGE words written while it runs",
            image_of("matmul", rng),
            meddle=image_of("vecadd", rng).to_words()[:8],
            meddle_start=False,
            interrupt_after=200,
        ),
        LaunchItem(
            "matmul with a START written while it runs",
            image_of("matmul", rng),
            meddle=[],
            interrupt_after=200,
        ),
        LaunchItem("matmul after the ignored writes", image_of("matmul", rng)),
    ]


def random_kernels(cfg: GpuConfig, seeds: list[int]) -> list[LaunchItem]:
    from tb.sequences.random_kernel import generate

    items = []
    for seed in seeds:
        k = generate(seed, cfg)
        items.append(LaunchItem(f"random kernel {seed}", k.image, seed=seed))
    return items
