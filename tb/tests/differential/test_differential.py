"""Dual-simulator differential: the same random kernels, with the same seeds, on Icarus (4-state, X
until reset) and Verilator (2-state, every bit random at time 0) must give identical traces: every
retire in the same cycle with the same values, every memory request and response, the same final
memory (tb/env/difftrace.py, written by TraceTest in tb/tests/system/gpu_tests.py).

A difference means the RTL depends on something it does not define (a register without reset, a
read of an unwritten location, an X), or one simulator mis-simulates it. The failure names the first
differing event of each trace and the command that reruns exactly this case. The Verilator seed
derives from the regression seed (tb/rtlsim.py), so ``SEED=n`` repeats the random initial state too.
"""

from __future__ import annotations

import os
import re
import secrets
from concurrent.futures import ThreadPoolExecutor

import pytest

from tb import rtlsim
from tb.env import difftrace
from tb.gpurun import run_gpu

CONFIG = "sm2-l8"  # the system tests' build of it is reused
KERNEL_SEEDS = (
    "903,905,906,907"  # four short random kernels (~1000 warp-instructions), not in the regression's 0:200
)
SIMS = ("icarus", "verilator")
OUT = rtlsim.ROOT / "build" / "differential"


def _rerun(seed: int, kernel_seeds: str) -> str:
    return f"SEED={seed} KERNEL_SEEDS={kernel_seeds} .venv/bin/python -m pytest tb/tests/differential -n0"


def test_icarus_and_verilator_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    seed = int(os.environ.get("SEED") or secrets.randbelow(1 << 31))
    kernel_seeds = os.environ.get("KERNEL_SEEDS") or KERNEL_SEEDS
    monkeypatch.setenv("SEED", str(seed))
    rerun = _rerun(seed, kernel_seeds)
    print(
        f"differential on {CONFIG}: kernel seeds {kernel_seeds}, regression seed {seed}, Verilator "
        f"+verilator+seed+{rtlsim.verilator_seed(seed)}; rerun: {rerun}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    traces = {sim: OUT / f"{CONFIG}-{sim}.trace" for sim in SIMS}  # the seeds are in their headers
    for path in traces.values():
        path.unlink(missing_ok=True)

    def one(sim: str) -> None:
        run_gpu(CONFIG, ["TraceTest"], sim=sim, KERNEL_SEEDS=kernel_seeds, SIMT_TRACE=str(traces[sim]))

    # Both simulators at once: each is one single-threaded process, and CI runs this session alone.
    with ThreadPoolExecutor(len(SIMS)) as pool:
        list(pool.map(one, SIMS))
    diff = difftrace.compare_files(traces["icarus"], traces["verilator"], names=SIMS)
    assert diff is None, f"{diff}\n  traces: {traces['icarus']} {traces['verilator']}\n  rerun: {rerun}"

    # Meta-test on these very traces: one planted difference in a retire is found, where it is.
    lines = traces["verilator"].read_text().splitlines()
    retires = [i for i, line in enumerate(lines) if line.startswith("R ")]
    assert len(retires) > 100, f"the differential compared only {len(retires)} retires"
    i = retires[len(retires) // 2]
    lines[i] = re.sub(r"mask=([0-9a-f]+)", lambda m: f"mask={int(m.group(1), 16) ^ 1:x}", lines[i], count=1)
    planted = difftrace.first_difference(traces["icarus"].read_text().splitlines(), lines, SIMS)
    assert planted is not None and f"line {i + 1} of icarus, line {i + 1} of verilator" in planted, planted
    assert lines[i] in planted


def test_the_comparison_reports_the_first_difference() -> None:
    """Pure Python: equal traces pass (headers aside); a changed value, a missing event and a
    truncated trace are each reported at the right line with both lines and the launch."""
    a = ["# sim=icarus", "L 10 begin random kernel 3 seed=3", "D 12 sm=0 block=0",
         "R 20 sm=0 block=0 warp=0 pc=0 mask=ff v=[0:00000001]", "R 21 sm=0 block=0 warp=0 pc=1 mask=ff v=[]",
         "L 40 end random kernel 3 status=2", "M sha256=ab nonzero=1"]  # fmt: skip
    assert difftrace.first_difference(a, ["# sim=verilator seed=7", *a[1:]]) is None
    b = list(a)
    b[3] = b[3].replace("00000001", "00000003")
    msg = difftrace.first_difference(a, b, ("icarus", "verilator"))
    assert msg is not None and "line 4 of icarus, line 4 of verilator" in msg and "random kernel 3" in msg
    assert "icarus   : R 20" in msg and "00000003" in msg
    msg = difftrace.first_difference(a, a[:4] + a[5:], ("icarus", "verilator"))
    assert msg is not None and "pc=1" in msg and "L 40 end" in msg
    msg = difftrace.first_difference(a, a[:5], ("icarus", "verilator"))
    assert msg is not None and "<trace ended>" in msg
