"""pytest launchers of the GPU system tests: the pyuvm tests of gpu_tests.py on each configuration.

One pytest test = one build (shared, per configuration) and one simulator run of a list of pyuvm
tests, so ``pytest -n`` spreads configurations and random-seed batches over the cores. Every random
kernel seed runs on one configuration; ``KERNEL_SEEDS=17`` in the environment replaces a batch's
seeds (the rerun command printed with a mismatch sets it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tb import rtlsim
from tb.reference.config import ConfigError, GpuConfig
from tb.reference.machines import SYSTEM as CONFIGS

HDL = rtlsim.ROOT / "tb" / "hdl"  # the test wrapper: HDL memory and trace writer around simt_gpu
SOURCES = sorted(
    str(p.relative_to(rtlsim.RTL)) for d in ("sm", "top") for p in (rtlsim.RTL / d).glob("simt_*.v")
)
BENCH_SOURCES = [*SOURCES, *(str(HDL / f) for f in ("simt_tb_mem.v", "simt_tb_trace.v", "simt_gpu_tb.v"))]
VISIBILITY = HDL / "simt_gpu_tb.vlt"
TOPLEVEL = "simt_gpu_tb"
MODULE = "tb.tests.system.gpu_tests"
DIRECTED = ["SmokeTest", "DirectedTest", "ErrorTest", "LaunchErrorTest", "HangTest", "ResetMidKernelTest"]
# (configuration, pyuvm tests, kernel seeds): 200 random seeds per simulator, spread over configurations
# and over batches small enough for pytest -n to balance. Weighted to the configurations Icarus runs
# fastest (per kernel: sm1-l8 / sm2-l8 ~2.5 s, sm4-l16 ~7 s, sm2-l32 ~40 s on Icarus; all < 0.3 s on
# Verilator); the 32-lane machine runs every directed test.
RANDOM_BATCHES = [
    ("sm1-l8", ["RandomTest"], "0:40"),
    ("sm1-l8", ["RandomTest"], "40:80"),
    ("sm2-l8", ["RandomTest"], "80:115"),
    ("sm2-l8", ["RandomTest"], "115:150"),
    ("sm2-l8", ["MemStressTest"], "150:165"),
    ("sm4-l16", ["RandomTest"], "165:177"),
    ("sm1-l8", ["BackToBackTest"], "177:200"),
]
# planted fault (docs/gpu.md "Test-only fault hooks") -> the scoreboard that must catch it
FAULTS = {
    1: "RetireMismatch",
    2: "DivergenceMismatch",
    3: "SharedMismatch",
    4: "CoalescingMismatch",
    7: "HangMismatch",
}
FAULT_CONFIG = "sm2-l8"


def run_gpu(
    tag: str, tests: list[str], cfg: GpuConfig | None = None, sim: str | None = None, **env: str
) -> Path:
    """Run pyuvm ``tests`` on configuration ``tag`` (CONFIGS, or ``cfg`` named ``tag``); ``env`` goes to
    the tests' environment (SIMT_FAULT=n also builds with the fault hooks and passes +SIMT_FAULT);
    ``sim`` overrides SIM for this run. Returns the run's results.xml (its folder holds trace.txt)."""
    cfg = cfg if cfg is not None else CONFIGS[tag]
    extra = {"GPU_TAG": tag, **env}
    for var in ("SIMT_STATS", "SIMT_BENCH", "SIMT_FCOV", "SIMT_PROFILE"):
        if os.environ.get(var):
            extra[var] = os.environ[var]
    plusargs = [f"+SIMT_FAULT={env['SIMT_FAULT']}"] if "SIMT_FAULT" in env else []
    if env.get("CHECK_MODE", os.environ.get("CHECK_MODE", "full")) == "end":
        plusargs.append("+SIMT_TRACE_RETIRES=0")  # end-of-kernel checking reads no retire
    defines = {"SIMT_FAULTS": 1} if "SIMT_FAULT" in env else None  # the fault hooks only for a planted fault
    return rtlsim.run(
        TOPLEVEL,
        BENCH_SOURCES,
        MODULE,
        machine=cfg,
        extra_env=extra,
        testcase=tests,
        tag=tag + ("-faults" if defines else ""),
        defines=defines,
        plusargs=plusargs,
        sim=sim,
        visibility=VISIBILITY,
        trace=True,
    )


@pytest.mark.parametrize("tag", list(CONFIGS))
def test_directed(tag: str) -> None:
    run_gpu(tag, DIRECTED)


@pytest.mark.parametrize(
    ("tag", "tests", "seeds"), RANDOM_BATCHES, ids=[f"{t}-{x[0]}-{s}" for t, x, s in RANDOM_BATCHES]
)
def test_random(tag: str, tests: list[str], seeds: str) -> None:
    run_gpu(tag, tests, KERNEL_SEEDS=os.environ.get("KERNEL_SEEDS", seeds))


@pytest.mark.parametrize("fault", list(FAULTS), ids=[FAULTS[f] for f in FAULTS])
def test_planted_fault_is_caught(fault: int) -> None:
    """Meta-test: each planted RTL fault is caught, and by the scoreboard responsible for it."""
    run_gpu(FAULT_CONFIG, ["FaultTest"], SIMT_FAULT=str(fault), SIMT_FAULT_EXPECT=FAULTS[fault])


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
    ],
)
def test_gpu_illegal_parameters(params: dict[str, int], message: str) -> None:
    """Illegal parameter combinations stop elaboration (Verilator) or time 0 (Icarus) with a message."""
    rtlsim.expect_fatal(
        "simt_gpu", SOURCES, rtlsim.machine_parameters(CONFIGS["sm1-l8"], "simt_gpu") | params, message
    )
