"""Run the GPU test wrapper (``tb/hdl/simt_gpu_tb.v``) with pyuvm tests: the one launcher that the system
tests, the differential, the kernel suite, the benches and the PPA flow share.

``run_gpu(tag, tests, …)`` builds (cached per configuration) and runs the pyuvm ``tests`` of
``tb.tests.system.gpu_tests`` on configuration ``tag`` of ``spec.machines.SYSTEM`` (or a given
``GpuConfig``), and returns the run's results.xml, whose folder holds the retire trace.
"""

from __future__ import annotations

import os
from pathlib import Path

from spec.config import GpuConfig
from spec.machines import SYSTEM as CONFIGS
from tb import rtlsim
from tools import envvars

__all__ = ["BENCH_SOURCES", "CONFIGS", "HDL", "MODULE", "SOURCES", "TOPLEVEL", "VISIBILITY", "run_gpu"]

HDL = rtlsim.ROOT / "tb" / "hdl"  # the test wrapper: HDL memory and trace writer around simt_gpu
SOURCES = sorted(
    str(p.relative_to(rtlsim.RTL)) for d in ("sm", "top") for p in (rtlsim.RTL / d).glob("simt_*.v")
)
BENCH_SOURCES = [
    *SOURCES,
    *(str(HDL / f) for f in ("simt_tb_mem.v", "simt_tb_trace.v", "simt_tb_loader.v", "simt_gpu_tb.v")),
]
VISIBILITY = HDL / "simt_gpu_tb.vlt"
TOPLEVEL = "simt_gpu_tb"
MODULE = "tb.tests.system.gpu_tests"


def run_gpu(
    tag: str,
    tests: list[str],
    cfg: GpuConfig | None = None,
    sim: str | None = None,
    fast_build: bool = False,
    **env: str,
) -> Path:
    """Run pyuvm ``tests`` on configuration ``tag`` (CONFIGS, or ``cfg`` named ``tag``); ``env`` goes to
    the tests' environment (SIMT_FAULT=n also builds with the fault hooks and passes +SIMT_FAULT);
    ``sim`` overrides SIM for this run; ``fast_build`` compiles a Verilator model at -O0 (for a big
    machine run briefly, whose build costs far more than its run; always for a planted fault). Returns the run's results.xml (its
    folder holds trace.txt)."""
    envvars.check(
        {**os.environ, **env},
        [
            "KERNEL_SEEDS",
            "KERNEL_CASES",
            "GMEM_PROFILE",
            "GMEM_LATENCY",
            "CHECK_MODE",
            "SIMT_HOST_LOAD",
            "SIMT_FAST_CHECK",
        ],
    )
    cfg = cfg if cfg is not None else CONFIGS[tag]
    extra = {"GPU_TAG": tag, **env}
    for var in ("SIMT_STATS", "SIMT_BENCH", "SIMT_FCOV", "SIMT_PROFILE", "SIMT_FAST_CHECK"):
        if os.environ.get(var):
            extra[var] = os.environ[var]
    plusargs = []
    if env.get("CHECK_MODE", os.environ.get("CHECK_MODE", "full")) == "end":
        plusargs.append("+SIMT_TRACE_RETIRES=0")  # end-of-kernel checking reads no retire
    # The fault hooks only with SIMT_FAULT=n: n > 0 plants fault n, n = 0 runs clean on the meta-tests' build
    # (rtlsim.fault_build: hooks inert without the plusarg; not under mutation testing).
    fault = int(env["SIMT_FAULT"]) if "SIMT_FAULT" in env else None
    fdefs, plusargs = rtlsim.fault_build(fault, None, plusargs)
    defines = fdefs or None
    # A fault build serves only meta-tests, which run briefly and catch their fault early: its C++ at -O0
    # (Verilator, a folder of its own) saves ~18 of ~57 CPU s per build (docs/verification.md "Where the
    # time of make test goes"); no benchmark ever runs a fault build.
    fast_build = fast_build or defines is not None
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
        fast_build=fast_build,
    )
