"""Ye's equal-area model (Ye 2009 (seed 003) section 5.2, Equations 34–41, parameters of Tables 9 and 10).

A fixed silicon budget is split between SMs (a fixed area each), registers (per thread) and the
scratchpad (what is left); the utilisation of the processing elements (PEs) follows Guz's model with the
latency hidden by the *effective* threads — limited by the scratchpad working sets and by the memory
bandwidth. For matrix multiplication the memory-to-compute ratio falls with the scratchpad size
(Equation 41). Sweeping the PE count and the thread count gives the optimum PE count per budget.

Self-test: with the 8800GTX-like parameters of Table 10 the optima are 160 / 160 / 176 / 176 / 192 / 184
PEs for (bandwidth GB/s, registers per thread) = (104, 30), (32, 30), (104, 20), (32, 20), (104, 10),
(32, 10) (Ye 2009 (seed 003) Figure 18 (a)–(f)); tb/tests/ppa/test_ppa_models.py checks them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class YeParams:
    """Ye 2009 (seed 003) Table 10 (areas in mm², from Table 9)."""

    total_area_mm2: float = 118.88
    fixed_area_per_sm_mm2: float = 3.99
    smem_area_per_word_mm2: float = 0.144e-3
    reg_area_per_word_mm2: float = 0.352e-3
    pes_per_sm: int = 8
    bandwidth_gbs: float = 104.0
    regs_per_thread: int = 30
    cpi_exe: float = 1.0
    f_ghz: float = 1.5
    t_avg_cycles: float = 400.0
    bytes_per_thread: float = 4.0
    workingset_min_words: float = 3.0


@dataclass(frozen=True)
class Point:
    n_pe: int
    n_threads: int
    performance: float  # operations per second (Equation 34)
    eta: float
    smem_words: float  # scratchpad per SM, words (Equation 39)
    limited_by: str  # "threads", "smem" or "bandwidth" (which term of Equation 36 is the minimum)


def evaluate(p: YeParams, n_pe: int, n_threads: int) -> Point | None:
    """Equations 34–41 for one (N_PE, n_threads); None when registers and SMs exceed the budget."""
    n_sm = n_pe / p.pes_per_sm  # Eq. 40
    # Eq. 39, with the SMs' fixed area taken from the budget first (Table 8: the budget holds the SMs'
    # fixed parts, their registers and their scratchpads).
    left = (
        p.total_area_mm2
        - n_sm * p.fixed_area_per_sm_mm2
        - n_threads * p.regs_per_thread * p.reg_area_per_word_mm2
    )
    if left <= 0:
        return None
    smem = left / (n_sm * p.smem_area_per_word_mm2)
    r_m = 2.0 / math.sqrt(smem)  # Eq. 41 (matrix multiplication)
    full_smem = n_sm * smem / p.workingset_min_words  # Eq. 37
    full_bw = p.bandwidth_gbs * 1e9 * p.t_avg_cycles / (p.f_ghz * 1e9 * p.bytes_per_thread)  # Eq. 38
    effective = min(n_threads, full_smem, full_bw)  # Eq. 36
    limited = {n_threads: "threads", full_smem: "smem", full_bw: "bandwidth"}[effective]
    eta = min(1.0, effective / (n_pe * (1 + p.t_avg_cycles * r_m / p.cpi_exe)))  # Eq. 35
    perf = n_pe * p.f_ghz * 1e9 / p.cpi_exe * eta  # Eq. 34
    return Point(n_pe, n_threads, perf, eta, smem, limited)


def optimum(
    p: YeParams, pe_range: range = range(128, 217, 8), thread_range: range = range(1000, 10001, 100)
) -> Point:
    """The best (N_PE, n_threads) over Table 10's tuning ranges (N_PE 128..216, threads 1000..10000)."""
    best: Point | None = None
    for n_pe in pe_range:
        for n in thread_range:
            pt = evaluate(p, n_pe, n)
            if pt is not None and (best is None or pt.performance > best.performance):
                best = pt
    if best is None:
        raise ValueError("no configuration fits the area budget: raise total_area_mm2 or lower the PE range")
    return best


SEED003_FIGURE18 = {
    (104, 30): 160,
    (32, 30): 160,
    (104, 20): 176,
    (32, 20): 176,
    (104, 10): 192,
    (32, 10): 184,
}


def figure18(p: YeParams | None = None) -> dict[tuple[int, int], int]:
    """Optimum N_PE for each (bandwidth, regs per thread) panel of Ye 2009 (seed 003) Figure 18."""
    base = p or YeParams()
    return {
        k: optimum(replace(base, bandwidth_gbs=k[0], regs_per_thread=k[1])).n_pe for k in SEED003_FIGURE18
    }
