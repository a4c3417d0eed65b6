"""The fault soak, short (make test: SOAK_LAUNCHES, default 16 launches per top): launches back to back on
one GPU, faults injected at random cycles (ABORT and reset mid-launch, illegal images, trapping kernels,
memory at its extremes), each followed by a clean launch checked in lockstep with every scoreboard on,
on the native and the AXI top. ``make soak`` (tools/soak.py) runs thousands."""

from __future__ import annotations

import os

import pytest

from tb.gpurun import run_gpu
from tb.tests.system.test_axi import run_axi

SOAK_CONFIG = "sm2-l8"


@pytest.mark.parametrize("top", ["native", "axi"])
def test_soak(top: str) -> None:
    env = {"SOAK_LAUNCHES": os.environ.get("SOAK_LAUNCHES", "16")}
    if os.environ.get("SIMT_SOAK"):
        env["SIMT_SOAK"] = os.environ["SIMT_SOAK"]
    if top == "native":
        run_gpu(SOAK_CONFIG, ["SoakTest"], **env)
    else:
        run_axi(["AxiSoakTest"], **env)
