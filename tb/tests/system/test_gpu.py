"""pytest launchers of the GPU system tests: the pyuvm tests of gpu_tests.py on each configuration.

One pytest test = one build (shared, per configuration) and one simulator run of a list of pyuvm
tests, so ``pytest -n`` spreads configurations and random-seed batches over the cores. Every random
kernel seed runs on one configuration; ``KERNEL_SEEDS=17`` in the environment replaces a batch's
seeds (the rerun command printed with a mismatch sets it).
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from spec import machines
from spec.config import ConfigError
from spec.machines import SYSTEM as CONFIGS
from tb import rtlsim
from tb.gpurun import BENCH_SOURCES, MODULE, SOURCES, TOPLEVEL, run_gpu
from tools import simenv

DIRECTED = ["SmokeTest", "DirectedTest", "ErrorTest", "LaunchErrorTest", "HangTest", "ResetMidKernelTest"]
# The recovery tests (watchdog hangs, reset and ABORT mid-kernel) cost Icarus most on the wide machines
# (sm2-l32: 134 of its 181 CPU s; sm4-l16: 76 of 104) for logic that is per SM and not per lane: Icarus
# runs them on the 8-lane machines (one and two SMs), Verilator on all four. Every other directed test runs
# on every machine on both simulators.
RECOVERY = ["HangTest", "ResetMidKernelTest"]
ICARUS_RECOVERY_MACHINES = ["sm1-l8", "sm2-l8"]


def directed_tests(tag: str, sim: str) -> list[str]:
    """The pyuvm tests that test_directed[tag] runs on ``sim``."""
    if sim == "icarus" and tag not in ICARUS_RECOVERY_MACHINES:
        return [t for t in DIRECTED if t not in RECOVERY]
    return list(DIRECTED)


# (configuration, pyuvm tests, kernel seeds), per simulator, in batches small enough for pytest -n to
# balance. A random kernel costs ~3.5 s of CPU on Icarus on sm1-l8/sm2-l8 (~10 s on sm4-l16, ~40 s on
# sm2-l32) and < 0.5 s on Verilator, so Verilator carries the seed count and Icarus (4-state: an X
# reaching a retire fails it) runs a sample that still holds every (configuration, test) pair:
# - Verilator: seeds 0:365, 365 kernels; every seed of the 0:200 batches as before, and 200:365 on
#   sm2-l32 (no random batch before), sm4-l16 and sm2-l8;
# - Icarus: 40 kernels, a slice of each of the 0:200 batches (same configuration and test).
# 405 kernel runs in all (400 before: 0:200 on both), 365 distinct seeds (200 before); the
# differential (tb/tests/differential) runs 4 more on both simulators, trace against trace.
RANDOM_BATCHES_BY_SIM = {
    "verilator": [
        ("sm1-l8", ["RandomTest"], "0:40"),
        ("sm1-l8", ["RandomTest"], "40:80"),
        ("sm2-l8", ["RandomTest"], "80:92"),  # (the same batch on Icarus: tools/mutants runs it on either)
        ("sm2-l8", ["RandomTest"], "92:150"),
        ("sm2-l8", ["MemStressTest"], "150:165"),
        ("sm4-l16", ["RandomTest"], "165:177"),
        ("sm1-l8", ["BackToBackTest"], "177:200"),
        ("sm2-l32", ["RandomTest"], "200:260"),
        ("sm4-l16", ["RandomTest"], "260:310"),
        ("sm2-l8", ["RandomTest"], "310:365"),
    ],
    "icarus": [
        ("sm1-l8", ["RandomTest"], "0:10"),
        ("sm2-l8", ["RandomTest"], "80:92"),
        ("sm2-l8", ["MemStressTest"], "150:155"),
        ("sm4-l16", ["RandomTest"], "165:169"),
        ("sm1-l8", ["BackToBackTest"], "177:186"),
    ],
}
RANDOM_BATCHES = RANDOM_BATCHES_BY_SIM[simenv.sim_from_env()]
# planted fault (docs/gpu.md "Test-only fault hooks") -> the scoreboard that must catch it
FAULTS = {
    1: "RetireMismatch",
    2: "DivergenceMismatch",
    3: "SharedMismatch",
    4: "CoalescingMismatch",
    7: "HangMismatch",
}
FAULT_CONFIG = "sm2-l8"
# planted harness fault of the HDL image driver (tb/hdl/simt_tb_loader.v) -> the check that must catch it
LOAD_FAULTS = {16: "CoalescingMismatch", 17: "Watchdog"}


@pytest.mark.parametrize("tag", list(CONFIGS))
def test_directed(tag: str) -> None:
    run_gpu(tag, directed_tests(tag, simenv.sim_from_env()))


@pytest.mark.parametrize(
    ("tag", "tests", "seeds"), RANDOM_BATCHES, ids=[f"{t}-{x[0]}-{s}" for t, x, s in RANDOM_BATCHES]
)
def test_random(tag: str, tests: list[str], seeds: str) -> None:
    run_gpu(tag, tests, KERNEL_SEEDS=os.environ.get("KERNEL_SEEDS", seeds))


@pytest.mark.parametrize("fault", list(FAULTS), ids=[FAULTS[f] for f in FAULTS])
def test_planted_fault_is_caught(fault: int) -> None:
    """Meta-test: each planted RTL fault is caught, and by the scoreboard responsible for it."""
    run_gpu(FAULT_CONFIG, ["FaultTest"], SIMT_FAULT=str(fault), SIMT_FAULT_EXPECT=FAULTS[fault])


@pytest.mark.parametrize("fault", list(LOAD_FAULTS), ids=["bit-flip", "short-load"])
def test_load_fault_is_caught(fault: int) -> None:
    """Meta-test of the image load: a word loaded with a bit flipped (16) is caught by the coalescing
    scoreboard (the GPU's loader stores it to memory with the wrong data), an image loaded short (17) by
    the host agent's watchdog, which names the loader waiting for the missing word."""
    run_gpu(
        FAULT_CONFIG,
        ["FaultTest"],
        SIMT_FAULT=str(fault),
        SIMT_FAULT_EXPECT=LOAD_FAULTS[fault],
        SIMT_HOST_LOAD="hdl",
    )


def test_posted_launch_end_fault_is_caught() -> None:
    """Meta-test of the launch end with posted stores (POST_STORES = 1, docs/gpu.md "Posted stores"):
    with fault 27 the GPU reports the launch done while stores' acknowledgements are outstanding, and the
    coalescing scoreboard's end-of-launch check (every request answered, every transaction seen) fails."""
    run_gpu(
        f"{FAULT_CONFIG}-post",
        ["FaultTest"],
        cfg=replace(CONFIGS[FAULT_CONFIG], post_stores=1),
        SIMT_FAULT="27",
        SIMT_FAULT_EXPECT="CoalescingMismatch",
    )


def test_ignored_fault_is_caught() -> None:
    """Meta-test of STATUS.IGNORED (docs/gpu.md "Launch lifecycle"): with fault 10 planted (the writes of a
    running launch are still ignored, but the flag never rises) ResetMidKernelTest must fail, and fail in
    the host agent's check that the launch written into ends with IGNORED set."""
    with pytest.raises(rtlsim.CocotbTestsFailed) as failed:
        run_gpu(FAULT_CONFIG, ["ResetMidKernelTest"], SIMT_FAULT="10")
    want = "lacks IGNORED right after 8 IMAGE words during the launch"
    assert any(want in m for m in failed.value.messages), (
        f"ResetMidKernelTest failed, but not with {want!r}: {failed.value.messages}"
    )


def test_irq_fault_is_caught() -> None:
    """Meta-test of the launch-end interrupt (docs/gpu.md): with fault 29 planted (irq rises on an error
    only, not on DONE) SmokeTest must fail in the host's check that irq matches STATUS at the launch end
    (host_bfm.wait_idle; the wait itself would still end by polling STATUS)."""
    with pytest.raises(rtlsim.CocotbTestsFailed) as failed:
        run_gpu(FAULT_CONFIG, ["SmokeTest"], SIMT_FAULT="29")
    want = "irq is 0 at the launch end, but STATUS is 0x2"
    assert any(want in m for m in failed.value.messages), (
        f"SmokeTest failed, but not with {want!r}: {failed.value.messages}"
    )


@pytest.mark.parametrize("fault", [None, 24], ids=["clean", "planted-sched-history"])
def test_launch_history(fault: int | None) -> None:
    """A launch's cycles do not depend on the launches before it (HistoryTest). Meta-test: with fault 24
    (the warp scheduler's pointer survives from the previous launch) the same test must fail, in its
    cycle comparison."""
    # the benchmark machine (16 warps: two matrixmul blocks share the SM, so the pointer matters)
    cfg = machines.bench(8)
    if fault is None:  # on the meta-test's build (hooks in, inert: SIMT_FAULT=0), not one of its own
        run_gpu("bench-l8", ["HistoryTest"], cfg=cfg, SIMT_FAULT="0")
        return
    with pytest.raises(rtlsim.CocotbTestsFailed) as failed:
        run_gpu("bench-l8", ["HistoryTest"], cfg=cfg, SIMT_FAULT=str(fault))
    assert any("launch history:" in m for m in failed.value.messages), (
        f"HistoryTest failed, but not in its cycle comparison: {failed.value.messages}"
    )


@pytest.mark.parametrize("params", [{"NUM_SMS": 0}, {"WARP_SIZE": -32}, {"NUM_LANES": 6}], ids=str)
def test_gpu_illegal_parameter_message_comes_first(params: dict[str, int]) -> None:
    """An illegal parameter is refused before any build, its readable message the first line a user
    sees on either simulator (the RTL's own check may come after the simulator's width errors)."""
    ((name, value),) = params.items()
    with pytest.raises(ConfigError) as exc:
        rtlsim.run(TOPLEVEL, BENCH_SOURCES, MODULE, machine=CONFIGS["sm1-l8"], parameters=params)
    assert (
        str(exc.value)
        .splitlines()[0]
        .startswith(f"illegal parameter {name}={value} for {TOPLEVEL} (must be ")
    )


@pytest.mark.parametrize(
    "params,message",
    [
        ({"NUM_SMS": 17}, "simt_gpu: illegal parameter NUM_SMS=17 (must be in 1..16)"),
        ({"NUM_LANES": 6}, "simt_sm: illegal parameter NUM_LANES=6 (must be one of 4, 8, 16, 32)"),
        ({"NUM_LANES": 32, "WARP_SIZE": 16}, "simt_sm: illegal parameter NUM_LANES=32"),
        ({"POST_STORES": 2}, "illegal parameter POST_STORES=2 (must be in 0..1)"),
    ],
)
def test_gpu_illegal_parameters(params: dict[str, int], message: str) -> None:
    """Illegal parameter combinations stop elaboration (Verilator) or time 0 (Icarus) with a message."""
    rtlsim.expect_fatal(
        "simt_gpu", SOURCES, rtlsim.machine_parameters(CONFIGS["sm1-l8"], "simt_gpu") | params, message
    )


@pytest.mark.parametrize("fault", [None, 25], ids=["clean", "planted-arbiter-history"])
def test_arbiter_history(fault: int | None) -> None:
    """A launch's cycles do not depend on where the memory arbiter's round-robin pointer was left by
    the launch before (ArbiterHistoryTest, on a two-SM machine). Meta-test: with fault 25 (the arbiter's
    pointer survives from the previous launch, as before the pointer restarted at each launch) the same
    test must fail, in its cycle comparison."""
    if fault is None:
        run_gpu("sm2-l8", ["ArbiterHistoryTest"])
        return
    with pytest.raises(rtlsim.CocotbTestsFailed) as failed:
        run_gpu("sm2-l8", ["ArbiterHistoryTest"], SIMT_FAULT=str(fault))
    assert any("launch history:" in m for m in failed.value.messages), (
        f"ArbiterHistoryTest failed, but not in its cycle comparison: {failed.value.messages}"
    )
