"""pytest launchers of the AXI system tests (axi_tests.py): the AXI top simt_gpu_axi inside the test
wrapper tb/hdl/simt_gpu_axi_tb.v, with cocotbext-axi's AxiLiteMaster as host and AxiRam as memory.

A few short kernels only (the native-port regression, test_gpu.py, is the thorough one): directed
kernels, one random kernel and one benchmark kernel against its C reference, every scoreboard on;
and the meta-tests, a fault planted in the AXI slave that the named check must catch.
"""

from __future__ import annotations

import pytest

from tb import rtlsim
from tb.gpurun import CONFIGS, HDL, SOURCES

TOPLEVEL = "simt_gpu_axi_tb"
MODULE = "tb.tests.system.axi_tests"
AXI_SOURCES = [
    *SOURCES,
    *(
        str(HDL / f)
        for f in ("simt_tb_trace.v", "simt_tb_axi_pace.v", "simt_tb_loader.v", "simt_gpu_axi_tb.v")
    ),
]
VISIBILITY = HDL / "simt_gpu_axi_tb.vlt"
CONFIG = "sm2-l8"
# planted AXI-slave fault (tb/agents/axi_mem_agent.py) -> the check that must catch it
AXI_FAULTS = {
    "corrupt_read": "RetireMismatch",
    "drop_write": "EndOfKernelMismatch",
    "slverr_read": "AxiError",
    "decerr_write": "AxiError",
    "bad_rlast": "AxiProtocolError",
    "extra_b": "AxiProtocolError",
}


def run_axi(tests: list[str], **env: str) -> None:
    """Run pyuvm ``tests`` on the AXI top; SIMT_FAULT=n in ``env`` plants the RTL's fault n. Every run
    uses the one build with the fault hooks (inert without a fault: rtlsim.fault_build), so the clean
    tests and the meta-tests share one Verilator model of the AXI top instead of two."""
    cfg = CONFIGS[CONFIG]
    extra = {"GPU_TAG": f"axi-{CONFIG}", **env}
    rtlsim.run(
        TOPLEVEL,
        AXI_SOURCES,
        MODULE,
        machine=cfg,
        extra_env=extra,
        testcase=tests,
        tag=f"axi-{CONFIG}-faults",
        fault=int(env.get("SIMT_FAULT", "0")),
        visibility=VISIBILITY,
        trace=True,
    )


def test_axi_kernels() -> None:
    """Directed, random and one benchmark kernel through AXI4 (AxiRam, changing backpressure) and
    AXI4-Lite, every scoreboard on, the C reference for the benchmark kernel."""
    run_axi(["AxiKernelTest"], KERNEL_SEEDS="0:1", KERNEL_CASES="reduction:100")


@pytest.mark.parametrize("fault", list(AXI_FAULTS))
def test_axi_fault_is_caught(fault: str) -> None:
    """Meta-test: a corrupted AXI read response, a lost AXI write, a SLVERR read and a DECERR write
    response, a read burst without RLAST and a B response for an ID not in flight are each caught by
    their check (retire scoreboard, end-of-kernel check, the bridge's axi_error bit 0 for an error
    response, bit 1 for a slave protocol violation: docs/gpu.md "AXI option")."""
    run_axi(["AxiFaultTest"], AXI_FAULT=fault, SIMT_FAULT_EXPECT=AXI_FAULTS[fault])


def test_axi_pacing_planted_fault_is_caught() -> None:
    """Meta-test of the pacing check: with fault 19 planted (tb/hdl/simt_tb_axi_pace.v never holds a
    channel off) a run under heavy backpressure must fail the check that some cycle was held off."""
    with pytest.raises(rtlsim.CocotbTestsFailed) as failed:
        run_axi(["AxiPaceTest"], SIMT_FAULT="19")
    want = "no AXI cycle was held off"
    assert any(want in m for m in failed.value.messages), (
        f"the run failed, but not with {want!r}: {failed.value.messages}"
    )


def test_axi_load_handshakes_hidden_fault_is_caught() -> None:
    """Meta-test of the check that the AXI-Lite master holds no B response it did not ask for
    (tb/agents/axi_host.py): with fault 21 planted (simt_gpu_axi_tb.v shows the HDL image driver's
    write handshakes on the host ports) a launch loaded by the driver must fail that check."""
    with pytest.raises(rtlsim.CocotbTestsFailed) as failed:
        run_axi(["AxiLoadTest"], SIMT_FAULT="21", SIMT_HOST_LOAD="hdl")
    want = "B response(s) nobody asked for"
    assert any(want in m for m in failed.value.messages), (
        f"the run failed, but not with {want!r}: {failed.value.messages}"
    )
