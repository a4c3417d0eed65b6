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


# The short soak of make test runs one fixed seed (a regression must not fail at random); make soak
# draws a new seed per run and gives it in SEED (tools/soak.py).
SHORT_SEED = "26"


@pytest.mark.parametrize("top", ["native", "axi"])
def test_soak(top: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.environ.get("SEED"):
        monkeypatch.setenv("SEED", SHORT_SEED)
    env = {"SOAK_LAUNCHES": os.environ.get("SOAK_LAUNCHES", "16")}
    if os.environ.get("SIMT_SOAK"):
        env["SIMT_SOAK"] = os.environ["SIMT_SOAK"]
    if top == "native":
        run_gpu(SOAK_CONFIG, ["SoakTest"], **env)
    else:
        run_axi(["AxiSoakTest"], **env)
