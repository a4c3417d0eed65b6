"""Unit bench of rtl/top/simt_sm_select.v: the GPU's per-SM selection for the host registers (docs/gpu.md
"Registers", "Debug view").

Reference (:func:`expect`, written from docs/gpu.md): ERR_SM names the lowest-numbered SM reporting an
error; PERF_SEL = {sm[7:0], counter[4:0]} reads that SM's counter, and with sm = 0xFF every SM's
combined (the sum modulo 2^64, the maximum for `max_stack_depth`); an SM that does not exist reads 0;
DBG_SEL's SM field selects the debug view {wib[4:0], RETIRED, state[2:0]}, block, pc and last pc, an SM
that does not exist reading as an empty slot (all zero).

* ``random_selects``: random error vectors (none, one, several SMs), counters (small, near 2^64 so the
  sum wraps, equal maxima), every counter index with sm = 0xFF, existing and missing SMs, random debug
  fields; every output compared.

Configurations: NUM_SMS 1, 3 (not a power of two: SM fields 3..254 select nothing) and 16, and 3 with
planted fault 14 (the combined `max_stack_depth` summed like the other counters), which the bench must
catch.
"""

from __future__ import annotations

import os
import random

import cocotb
import pytest
from cocotb.triggers import Timer

from spec.model import PERF_COUNTERS
from tb import benchutil, rtlsim

SOURCES = ["top/simt_sm_select.v"]
M64 = (1 << 64) - 1
MAX_DEPTH = PERF_COUNTERS.index("max_stack_depth")
DBG = {"sm_dbg_state": 3, "sm_dbg_block": 32, "sm_dbg_wib": 5, "sm_dbg_pc": 17, "sm_dbg_last_pc": 17,
       "sm_dbg_retired": 1}  # fmt: skip


def expect(n: int, ins: dict[str, object]) -> dict[str, int | None]:
    err = [ins["sm_err"] >> i & 1 for i in range(n)]  # type: ignore[operator]
    out: dict[str, int | None] = {"any_sm_err": int(any(err)), "first_sm": err.index(1) if any(err) else None}
    sm, counter = ins["perf_sel"] >> 5, ins["perf_sel"] & 31  # type: ignore[operator]
    perf: list[int] = ins["perf"]  # type: ignore[assignment]
    picked = perf if sm == 0xFF else perf[sm : sm + 1] if sm < n else []
    if counter == MAX_DEPTH:
        out["perf_value"] = max(picked, default=0)
    else:
        out["perf_value"] = sum(picked) & M64
    d = ins["dbg_sm"]
    dbg: dict[str, list[int]] = ins["dbg"]  # type: ignore[assignment]
    if d < n:  # type: ignore[operator]
        f = {k: v[d] for k, v in dbg.items()}  # type: ignore[index]
        out["dbg_warp"] = f["sm_dbg_wib"] << 4 | f["sm_dbg_retired"] << 3 | f["sm_dbg_state"]
        out["dbg_block"], out["dbg_pc"], out["dbg_last_pc"] = (
            f["sm_dbg_block"],
            f["sm_dbg_pc"],
            f["sm_dbg_last_pc"],
        )
    else:
        out.update(dbg_warp=0, dbg_block=0, dbg_pc=0, dbg_last_pc=0)
    return out


def _counter(rng: random.Random) -> int:
    kind = rng.random()
    if kind < 0.3:
        return rng.randrange(1000)
    if kind < 0.5:
        return M64 - rng.randrange(1 << 20)  # sums wrap around
    if kind < 0.6:
        return 7  # equal maxima
    return rng.getrandbits(64)


def _pack(values: list[int], width: int) -> int:
    return sum(v << (i * width) for i, v in enumerate(values))


@cocotb.test()
async def random_selects(dut):
    benchutil.log_seed(__name__, "random_selects")
    rng = random.Random(random.getrandbits(64))
    n = len(dut.sm_err)
    fault = int(os.environ.get("SELECT_FAULT", "0"))
    counts = {"checked": 0, "combined_max": 0, "missing_sm": 0, "several_err": 0}
    mismatch = None
    for _ in range(int(os.environ.get("SELECT_VECTORS", "3000"))):
        err_kind = rng.random()
        sm_err = 0 if err_kind < 0.2 else 1 << rng.randrange(n) if err_kind < 0.5 else rng.getrandbits(n)
        sm = rng.choice([0xFF, 0xFF, rng.randrange(n), rng.randrange(n), rng.randrange(256)])
        counter = MAX_DEPTH if rng.random() < 0.3 else rng.randrange(32)
        ins: dict[str, object] = {
            "sm_err": sm_err,
            "perf_sel": sm << 5 | counter,
            "perf": [_counter(rng) for _ in range(n)],
            "dbg_sm": rng.choice([rng.randrange(n), rng.randrange(256)]),
            "dbg": {k: [rng.getrandbits(w) for _ in range(n)] for k, w in DBG.items()},
        }
        dut.sm_err.value = sm_err
        dut.perf_sel.value = ins["perf_sel"]
        dut.sm_perf.value = _pack(ins["perf"], 64)  # type: ignore[arg-type]
        dut.dbg_sm.value = ins["dbg_sm"]
        for k, w in DBG.items():
            getattr(dut, k).value = _pack(ins["dbg"][k], w)  # type: ignore[index]
        await Timer(1, unit="ns")
        for name, want in expect(n, ins).items():
            got = int(getattr(dut, name).value)
            if want is not None and got != want:
                mismatch = f"{name} = {got:#x}, expected {want:#x} (perf_sel {ins['perf_sel']:#x}, sm_err {sm_err:#x})"
                break
        if mismatch:
            break
        counts["checked"] += 1
        counts["combined_max"] += sm == 0xFF and counter == MAX_DEPTH and n > 1
        counts["missing_sm"] += sm not in (0xFF, *range(n))
        counts["several_err"] += bin(sm_err).count("1") > 1
    if fault:
        assert mismatch, f"planted fault {fault} not caught in {counts['checked']} vectors"
        dut._log.info("planted fault %d caught: %s", fault, mismatch)
        return
    assert mismatch is None, mismatch
    dut._log.info("checked %s", counts)
    assert counts["checked"] > 0 and counts["missing_sm"] > 0
    assert n == 1 or (counts["combined_max"] > 0 and counts["several_err"] > 0), counts


@pytest.mark.parametrize(
    "num_sms,fault", [(1, 0), (3, 0), (16, 0), (3, 14)], ids=["s1", "s3", "s16", "s3-planted-max-summed"]
)
def test_sm_select(num_sms: int, fault: int) -> None:
    rtlsim.run(
        "simt_sm_select",
        SOURCES,
        __name__,
        parameters={"NUM_SMS": num_sms},
        extra_env={"SELECT_FAULT": str(fault)},
        fault=fault,  # one build with the hooks for the fault-free and the planted runs
    )
