"""ppa/micro.py's energy-only micro-kernels of the 32-lane refit (issue 28): each exercises the activity it
is there for, counted by the golden model (ppa/perf.py count_all, no RTL). Each check has a planted fault:
the older kernel that lacks the activity fails the same check."""

from __future__ import annotations

import pytest

from ppa import micro
from ppa.perf import count_all
from ppa.rtlcycles import machine


def _extra(name: str, lanes: int = 32) -> dict[str, float]:
    """Counters of the N_HI run minus the N_LO run: what the extra body instructions add."""
    cfg = machine(lanes)
    lo = count_all(cfg, micro.image(name, micro.N_LO, cfg))[1]
    hi = count_all(cfg, micro.image(name, micro.N_HI, cfg))[1]
    return {k: hi[k] - lo[k] for k in hi if isinstance(hi[k], (int, float))}


def test_stream_loads_computes_and_stores_fresh_data() -> None:
    d = _extra("stream")
    assert d["global_transactions"] > 0 and d["thread_alu"] > 0
    # every extra store carries new data: store-lane flips per stored thread well above 0
    stores = d["global_accesses"] / 2  # half the stream's global accesses are stores
    assert d["lane_hd"] / (stores * 32) > 8
    # planted fault: gstorem stores the same register value at moving addresses (its data does not change
    # from one store of a warp to the next), so its flips per store are far lower
    g = _extra("gstorem")
    assert g["lane_hd"] / (g["global_accesses"] * 32) < 0.5 * d["lane_hd"] / (stores * 32)


def test_aluimm_reads_immediates_not_a_second_register() -> None:
    cfg = machine(32)
    prog = micro.source("aluimm", micro.N_HI)
    ops = [ln.split()[0] for ln in prog.splitlines()[prog.splitlines().index("loop:") + 1 :] if ln.strip()]
    body = ops[: micro.N_HI]
    assert sum(op.endswith("I") for op in body) >= micro.N_HI // 2
    d, a = _extra("aluimm"), _extra("alu")
    assert d["thread_alu"] == a["thread_alu"]  # as many ALU thread-operations as the register mix
    # planted fault: the register mix (alu) reads a second register on every instruction
    assert not all(op.endswith("I") for op in [ln.split()[0] for ln in micro.KERNELS["alu"][0].split(";")])
    assert cfg.num_lanes == 32


@pytest.mark.parametrize("name", ["stream", "aluimm"])
def test_new_kernels_are_in_the_refit(name: str) -> None:
    from ppa import kernelpower

    names = [n for n, kind, _, _ in kernelpower.launches(8, "micro")]
    assert f"{name}@{micro.N_LO}" in names and f"{name}@{micro.N_HI}" in names
