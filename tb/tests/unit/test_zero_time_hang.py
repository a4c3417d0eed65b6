"""A simulation stuck in zero simulated time ends (tb/rtlsim.py's bound on the simulator's CPU time): a copy of a small
module with a planted ``for`` loop whose step never advances hangs both simulators at one time step,
where no cocotb watchdog can run; the run is killed at its bound with a message naming the test, the
seed and the last simulated time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tb import rtlsim

PLANT = """
    // planted by tb/tests/unit/test_zero_time_hang.py: a for loop whose step never advances
    integer zt_k;
    always @(posedge clk) if (!rst && arrive) for (zt_k = 0; zt_k < 2; zt_k = zt_k + 0) begin end
endmodule
"""


def planted_copy() -> Path:
    """simt_barrier.v with the loop before its endmodule, under build/ (rewritten only when changed)."""
    text = (rtlsim.RTL / "sm" / "simt_barrier.v").read_text()
    cut = text.rindex("endmodule")
    planted = text[:cut] + PLANT.lstrip("\n") + text[cut + len("endmodule") :]
    out = rtlsim.ROOT / "build" / "zero-time" / "simt_barrier.v"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text() != planted:
        out.write_text(planted)
    return out


# The bound, in seconds of the simulator's CPU time: the bench reaches the loop after about 1-2 s of CPU
# (simulator and Python start-up), the stuck loop then burns the rest. CPU time, not wall clock, so a
# loaded machine only makes the test slower, never ends the run before the loop.
CPU_BOUND = 8.0


def test_zero_time_loop_ends_with_a_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIMT_SIM_TIMEOUT", raising=False)
    monkeypatch.setenv("SEED", "2626")
    with pytest.raises(rtlsim.SimulationTimeout) as exc:
        rtlsim.run(
            "simt_barrier",
            [planted_copy()],
            "tb.tests.unit.zero_time_bench",
            parameters={"NUM_BLOCKS": 2, "NUM_WARPS": 4},
            tag="zero-time",
            cpu_timeout=CPU_BOUND,
        )
    text = str(exc.value)
    assert "test_zero_time_loop_ends_with_a_report" in text and "seed 2626" in text, text
    m = re.search(r"last simulated time printed: ([\d.]+)(ns|ps)", text)
    assert m and float(m.group(1)) > 0, text  # the time of the bench's last line before the hang
