"""The constrained-random kernel generator (tb/sequences/random_kernel.py).

For each machine configuration the generator must work on, and seeds 0..59: the kernel is a function of
its seed (generated twice, identical source and image words), fits the machine, and runs to completion
on the golden model with race checking on, within the warp-instruction bound it announces, never deeper
in the divergence stack than it aimed, and every valid thread stores its checksum to the final region.
Over the seeds, every construct the generator promises appears several times, statically (features)
and dynamically (the model saw partial exits, DIV merges, barriers, the aimed stack depth...).

Reproduce a failing seed with ``python -m tb.sequences.random_kernel --seed N --config NAME``.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

from spec.config import GpuConfig
from spec.model import Model, Retire
from tb.sequences.random_kernel import CONFIGS, KernelKnobs, RandomKernel, generate, main
from tb.sequences.random_plan import MAX_BARRIERS

SEEDS = range(60)
MIN_SEEDS = 3  # a construct must appear in at least this many of the 60 seeds
WARP_INSTR_LIMIT = 6000  # the RTL simulation is slow: default kernels stay below this on the model


class TracingModel(Model):
    """The golden model, keeping every retire record."""

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.log: list[Retire] = []

    def step(self, bid: int, wid: int) -> Retire:
        rec = super().step(bid, wid)
        self.log.append(rec)
        return rec


@dataclass
class Observed:
    """What the model saw running one kernel."""

    warp_instrs: int
    max_stack_depth: int
    barrier_releases: int
    partial_exit: bool  # an EXIT left its warp with live threads
    merge: bool  # a DIV merge (docs/isa.md 4.2 rule 2)
    divergent_branches: int
    unstored: list[tuple[int, int, int]]  # valid threads (block, warp, lane) that never stored a checksum
    gmem_nonzero: int


def run(cfg: GpuConfig, rk: RandomKernel) -> Observed:
    m = TracingModel(cfg, rk.image, detect_races=True)  # raises KernelError on any error or race
    res = m.run()
    base, size = rk.regions["final"]
    stored: set[tuple[int, int, int]] = set()
    partial_exit = merge = False
    for rec in m.log:
        if rec.mnemonic == "EXIT" and not rec.done:
            partial_exit = True
        if any(e.action == "merge" for e in rec.stack):
            merge = True
        mem = rec.mem
        if mem is not None and mem.space == "global" and mem.store:
            for lane in range(cfg.warp_size):
                if rec.mask >> lane & 1 and base <= int(mem.addrs[lane]) < base + size:
                    stored.add((rec.block, rec.warp, lane))
    img, W = rk.image, cfg.warp_size
    valid = [(b, t // W, t % W) for b in range(img.num_blocks) for t in range(img.threads_per_block)]
    c = res.counters
    return Observed(
        c.warp_instrs,
        c.max_stack_depth,
        c.barrier_releases,
        partial_exit,
        merge,
        c.divergent_branches,
        [v for v in valid if v not in stored],
        int(np.count_nonzero(res.gmem)),
    )


def allowed_degrees(cfg: GpuConfig) -> list[int]:
    """Bank-conflict degrees a row can have (docs/isa.md 6.1): d lanes of one row in one bank, on d
    distinct words of that bank, all inside shared memory."""
    out, d = [], 1
    while d <= min(cfg.num_lanes, cfg.num_banks):
        if (d - 1) * cfg.num_banks + 1 <= cfg.shared_words:
            out.append(d)
        d *= 2
    return out


# ------------------------------------------------------------------------------------------------
# Every kernel of every configuration; then what the model saw over the seeds
# ------------------------------------------------------------------------------------------------
def check_kernel(cfg: GpuConfig, seed: int) -> tuple[RandomKernel, Observed]:
    """Deterministic, fits the machine, runs clean within its bounds, every thread stores."""
    rk = generate(seed, cfg)
    again = generate(seed, cfg)
    assert rk.source == again.source, "not deterministic (source)"
    assert rk.image.to_words() == again.image.to_words(), "not deterministic (image)"
    assert rk.features == again.features and rk.seed == seed

    img = rk.image
    img.check(cfg)  # docs/isa.md 8.1: the launch fits the machine
    assert len(img.code) <= cfg.imem_words and len(img.consts) <= cfg.const_words
    assert img.warps_per_block(cfg.warp_size) <= cfg.num_warps and img.shared_words <= cfg.shared_words
    assert all(0 <= b and b + len(w) <= cfg.global_words for b, w in img.data)
    assert rk.stack_target <= cfg.stack_depth

    seen = run(cfg, rk)  # KernelError (any error, any race) fails the kernel
    assert seen.warp_instrs <= rk.warp_instr_bound <= KernelKnobs().max_warp_instrs <= WARP_INSTR_LIMIT, (
        seen.warp_instrs,
        rk.warp_instr_bound,
    )
    assert seen.max_stack_depth <= rk.stack_target, (seen.max_stack_depth, rk.stack_target)
    if "deep_nest" in rk.features:
        assert seen.max_stack_depth == rk.stack_target, (seen.max_stack_depth, rk.stack_target)
    assert not seen.unstored, f"threads that never stored their checksum: {seen.unstored[:8]}"
    if "barrier" in rk.features:
        assert seen.barrier_releases >= img.num_blocks
    else:
        assert seen.barrier_releases == 0
    assert seen.gmem_nonzero > len(img.data[0][1]), "no output beyond the input"
    return rk, seen


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_kernel_runs_clean_and_the_model_sees_the_constructs(name: str) -> None:
    """Per seed: check_kernel. Over the seeds: the stack reaches the aimed depth (= STACK_DEPTH for
    some seeds), lanes exit while others go on, DIVs merge, branches diverge, barriers release, every
    seed gives another kernel and kernels have a useful size."""
    cfg = CONFIGS[name]
    failures = []
    at_limit = partial = merges = diverging = barriers = 0
    sizes = []
    sources = set()
    for seed in SEEDS:
        try:
            rk, seen = check_kernel(cfg, seed)
        except Exception as exc:  # report every failing seed, not just the first
            failures.append(
                f"seed {seed}: {type(exc).__name__}: {exc}  "
                f"(python -m tb.sequences.random_kernel --seed {seed} --config {name})"
            )
            continue
        sources.add(rk.source.split("\n", 1)[1])  # without the seed line
        sizes.append(seen.warp_instrs)
        at_limit += seen.max_stack_depth == rk.stack_target == cfg.stack_depth
        partial += seen.partial_exit
        merges += seen.merge
        diverging += seen.divergent_branches > 0
        barriers += seen.barrier_releases > 0
    assert not failures, "\n".join(failures)
    assert at_limit >= MIN_SEEDS, "the stack never reached STACK_DEPTH"
    assert partial >= MIN_SEEDS and merges >= MIN_SEEDS and barriers >= MIN_SEEDS
    assert diverging >= len(SEEDS) * 9 // 10
    assert len(sources) == len(SEEDS), "two seeds gave the same kernel"
    assert max(sizes) >= 1500 and sorted(sizes)[len(sizes) // 2] >= 500, f"kernels too small: {sorted(sizes)}"


# ------------------------------------------------------------------------------------------------
# Over the seeds: every construct
# ------------------------------------------------------------------------------------------------
def required_features(cfg: GpuConfig) -> list[str]:
    seg = cfg.seg_words
    return [
        # straight-line work, special registers, constants, parameters
        "alu",
        "alu_imm",
        "sreg",
        "sreg_3d",
        "const",
        "param",
        # structured control flow
        "if",
        "if_else",
        "nested_ssy",
        "loop",
        "loop_merge",
        "uniform_loop",
        "uniform_branch",
        "deep_nest",
        "partial_exit",
        "exit_in_divergence",
        "barrier",
        # shared memory
        "shared_store",
        "shared_load",
        "shared_broadcast",
        "shared_exchange",
        "shared_lane_exchange",
        *(f"shared_conflict_{d}" for d in allowed_degrees(cfg)),
        # global memory
        "global_coalesced",
        "global_strided",
        "global_scattered",
        "global_partial",
        "global_readback",
        "global_exchange",
        "gload_gather",
        "gload_broadcast",
        "gload_strided",
        "gload_scattered",
        *(f"global_stride_{s}" for s in sorted({2, 4, seg} - {1})),
        # launch shapes
        "block_1d",
        "block_2d",
        "block_3d",
        "grid_1d",
        "grid_2d",
        "grid_3d",
        "partial_warp",
        "multi_warp_block",
        "multi_block_grid",
        "grid_gt_sms",
        "grid_gt_resident",
    ]


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_construct_appears_in_several_seeds(name: str) -> None:
    cfg = CONFIGS[name]
    counts: Counter[str] = Counter()
    for seed in SEEDS:
        counts.update(generate(seed, cfg).features)
    rare = {f: counts[f] for f in required_features(cfg) if counts[f] < MIN_SEEDS}
    assert not rare, f"constructs in fewer than {MIN_SEEDS} of {len(SEEDS)} seeds: {rare}"


# ------------------------------------------------------------------------------------------------
# Knobs
# ------------------------------------------------------------------------------------------------
CFG = CONFIGS["sm2-l8"]


def clean(cfg: GpuConfig, knobs: KernelKnobs, seeds: range = range(8)) -> list[tuple[RandomKernel, Observed]]:
    out = []
    for seed in seeds:
        rk = generate(seed, cfg, knobs)
        seen = run(cfg, rk)
        assert seen.warp_instrs <= rk.warp_instr_bound <= knobs.max_warp_instrs
        assert seen.max_stack_depth <= rk.stack_target and not seen.unstored
        out.append((rk, seen))
    return out


def test_knob_max_barriers_fits_the_smallest_budget() -> None:
    """The most barriers the knobs allow fit the smallest warp budget: with max_barriers=8 and a
    600-instruction kernel, seed 110 once went to 612 (an AssertionError inside the generator)."""
    knobs = KernelKnobs(
        max_barriers=MAX_BARRIERS, barriers=True, max_warp_instrs=600, max_threads=128, max_blocks=4
    )
    phases = set()
    for seed in range(200):
        rk = generate(seed, CFG, knobs)
        assert rk.warp_instr_bound <= 600
        phases.add(sum(line.split(";")[0].split() == ["BAR"] for line in rk.source.splitlines()))
    assert max(phases) >= MAX_BARRIERS  # the bound is reached, not only allowed
    with pytest.raises(ValueError, match=rf"max_barriers={MAX_BARRIERS + 1}: use 0\.\.{MAX_BARRIERS};"):
        KernelKnobs(max_barriers=MAX_BARRIERS + 1)


@pytest.mark.parametrize("barriers", [False, True])
def test_knob_barriers(barriers: bool) -> None:
    for rk, seen in clean(CFG, KernelKnobs(barriers=barriers)):
        code = [line.split(";")[0].split() for line in rk.source.splitlines()]
        assert (["BAR"] in code) == barriers == ("barrier" in rk.features) == (seen.barrier_releases > 0)


@pytest.mark.parametrize("pattern", ["coalesced", "strided", "scattered"])
def test_knob_global_pattern(pattern: str) -> None:
    for rk, _ in clean(CFG, KernelKnobs(global_pattern=pattern)):
        stores = {f for f in rk.features if f in ("global_coalesced", "global_strided", "global_scattered")}
        assert stores == {f"global_{pattern}"}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_knob_shared_conflict(name: str) -> None:
    cfg = CONFIGS[name]
    for d in allowed_degrees(cfg):
        for rk, _ in clean(cfg, KernelKnobs(shared_conflict=d), range(2)):
            degrees = {f for f in rk.features if f.startswith("shared_conflict_")}
            assert degrees == {f"shared_conflict_{d}"}, (d, rk.seed, degrees)
    impossible = 2 * max(allowed_degrees(cfg))
    with pytest.raises(ValueError, match="bank conflict"):
        generate(0, cfg, KernelKnobs(shared_conflict=impossible))


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_knob_max_stack_depth(depth: int) -> None:
    reached = set()
    for rk, seen in clean(CFG, KernelKnobs(max_stack_depth=depth, deep_nest_prob=1.0)):
        assert rk.stack_target <= depth and seen.max_stack_depth == rk.stack_target
        reached.add(seen.max_stack_depth)
    assert depth in reached


def test_knob_sizes_and_shapes() -> None:
    knobs = KernelKnobs(max_blocks=3, max_threads=40, max_warp_instrs=1000, code_words=120)
    for rk, seen in clean(CFG, knobs, range(12)):
        assert rk.image.num_blocks <= 3 and rk.image.threads_per_block <= 40
        assert seen.warp_instrs <= 1000 and len(rk.image.code) <= 120


def test_knob_loops_and_nesting() -> None:
    for rk, _ in clean(CFG, KernelKnobs(loop_prob=0.0, max_nesting=1)):
        assert not {"loop", "uniform_loop", "loop_merge"} & rk.features
        assert "nested_ssy" not in rk.features or "deep_nest" in rk.features
    looped = 0
    for rk, _ in clean(CFG, KernelKnobs(max_trip=1, loop_prob=1.0)):
        looped += "loop" in rk.features
        # every immediate a loop counter (r13, r14) is set from allows one trip at most
        counts = re.findall(r"^\s+(?:MVI|ANDI|MINUI)\s+r1[34], (?:r\d+, )?(-?\d+)", rk.source, re.M)
        assert counts and all(int(n) <= 1 for n in counts), counts
        assert "TRIPS, 1\n" in rk.source
    assert looped >= 4


def test_knob_exit_before_barrier() -> None:
    """docs/isa.md 5 allows exited threads before a barrier; the knob produces such kernels."""
    early = 0
    for rk, _ in clean(
        CFG, KernelKnobs(exit_before_barrier=True, barriers=True, partial_exit_prob=1.0), range(12)
    ):
        code = [line.split(";")[0].strip() for line in rk.source.splitlines()]
        bars = [i for i, c in enumerate(code) if c == "BAR"]
        exits = [i for i, c in enumerate(code) if c == "EXIT"]
        early += exits[0] < bars[-1]
    assert early >= 1


def test_default_kernels_never_exit_before_a_barrier() -> None:
    for seed in range(30):
        code = [line.split(";")[0].strip() for line in generate(seed, CFG).source.splitlines()]
        bars = [i for i, c in enumerate(code) if c == "BAR"]
        exits = [i for i, c in enumerate(code) if c == "EXIT"]
        assert not bars or exits[0] > bars[-1]


def test_generator_ignores_global_random_state() -> None:
    random.seed(1)
    a = generate(5, CFG)
    random.seed(2)
    random.random()
    b = generate(5, CFG)
    assert a.source == b.source and a.image.to_words() == b.image.to_words()


def test_cli_prints_source_and_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "3", "--config", "w16-l4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("; random kernel: seed 3") and "; features:" in out and "warp-instructions" in out
    assert main(["--seed", "3", "--config", "sm1-l8", "--no-source", "--knob", "barriers=False"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("; seed 3")
    features = out.split("; features:")[1].split("\n")[0].split()
    assert "sreg" in features and "barrier" not in features


ODD_CONFIGS = {
    # more banks than lanes, 1-word segments, a 2-entry stack, a small register file
    "w8-l4-b8": GpuConfig(warp_size=8, num_lanes=4, num_warps=4, num_blocks=2, num_sms=3, rf_depth=128,
                          shared_words=128, num_banks=8, global_words=4096, imem_words=256, const_words=32,
                          stack_depth=2, seg_words=1),
    # fewer banks than lanes, 32-word segments, a deep stack
    "w32-l16-b4": GpuConfig(warp_size=32, num_lanes=16, num_warps=16, num_blocks=8, num_sms=2, rf_depth=1024,
                            shared_words=1024, num_banks=4, global_words=16384, imem_words=512,
                            const_words=128, stack_depth=16, seg_words=32),
    # one bank, 4-thread warps, 16 SMs, the smallest memories the generator accepts
    "w4-l4-b1": GpuConfig(warp_size=4, num_lanes=4, num_warps=32, num_blocks=16, num_sms=16, rf_depth=32,
                          shared_words=64, num_banks=1, global_words=2048, imem_words=128, const_words=16,
                          stack_depth=3, seg_words=2),
}  # fmt: skip


@pytest.mark.parametrize("name", list(ODD_CONFIGS))
def test_other_legal_configurations(name: str) -> None:
    cfg = ODD_CONFIGS[name]
    for seed in range(10):
        check_kernel(cfg, seed)


@pytest.mark.parametrize("seed", [1876, 0])
def test_small_budgets_keep_room_for_the_later_phases(seed: int) -> None:
    """Regression: with a small warp-instruction budget (the fault soak's knobs) seed 1876 drew a deep
    nest in the first of three phases that took the room the two later barriers and phase prologues
    needed, and the bound assertion failed (630 > 600). The generator now keeps room for them."""
    from spec.machines import SYSTEM
    from tb.sequences.soak import SOAK_KERNEL_KNOBS

    for knobs in (SOAK_KERNEL_KNOBS, KernelKnobs(max_blocks=4, code_words=80, max_warp_instrs=200)):
        rk = generate(seed, SYSTEM["sm2-l8"], knobs)
        assert rk.warp_instr_bound <= knobs.max_warp_instrs
        seen = run(SYSTEM["sm2-l8"], rk)
        assert seen.warp_instrs <= rk.warp_instr_bound and not seen.unstored
