"""Lane-doubling trends of the synthesised SMs beside Lies 2019 (seed 000) Table 5.3.

Lies 2019 (seed 000) Table 5.3 gives, per doubling of the streaming processors (lanes) of a multiprocessor, the
"increase in processors per unit area": with A(n) the area of an SM of n lanes, processors per area is
n / A(n), so the increase for n -> 2n is 2·A(n)/A(2n) − 1 (+83 % means A(8) = 1.093·A(4)).
"""

from __future__ import annotations

from collections.abc import Mapping

# Lies 2019 (seed 000) Table 5.3: (from lanes, to lanes) -> (processors per unit area, total power per processor)
SEED000_TABLE_5_3: dict[tuple[int, int], tuple[float, float]] = {
    (4, 8): (0.83, -0.49),
    (8, 16): (0.81, -0.47),
    (16, 32): (0.32, -0.32),
    (32, 64): (-0.05, -0.08),
}


def per_area_gain(area_n: float, area_2n: float) -> float:
    """Increase in processors per unit area when the lanes double: 2·A(n)/A(2n) − 1."""
    if area_n <= 0 or area_2n <= 0:
        raise ValueError(f"areas must be positive (got {area_n}, {area_2n})")
    return 2.0 * area_n / area_2n - 1.0


def area_ratio_from_gain(gain: float) -> float:
    """A(2n)/A(n) implied by a Table 5.3 gain (inverse of per_area_gain)."""
    return 2.0 / (1.0 + gain)


def doubling_table(areas: Mapping[int, float]) -> list[dict[str, float | int | None]]:
    """Rows (n, 2n, our gain, Lies 2019 (seed 000) gain, difference in percentage points) for consecutive lane counts."""
    rows: list[dict[str, float | int | None]] = []
    lanes = sorted(areas)
    for a, b in zip(lanes, lanes[1:]):
        if b != 2 * a:
            raise ValueError(f"lane counts must double: {a} then {b}")
        ours = per_area_gain(areas[a], areas[b])
        seed = SEED000_TABLE_5_3.get((a, b), (None, None))[0]
        rows.append(
            {
                "from": a,
                "to": b,
                "area_ratio": areas[b] / areas[a],
                "gain": ours,
                "seed000": seed,
                "diff_pp": None if seed is None else 100.0 * (ours - seed),
            }
        )
    return rows


def energy_doubling_table(per_thread_instr: Mapping[int, float]) -> list[dict[str, float | int | None]]:
    """Rows (n, 2n, change of the energy per thread-instruction, Lies 2019 Table 5.3's change of the
    total power per processor) for consecutive lane counts.

    Not the same quantity: Table 5.3's is the power of one processor of a synthesised 65 nm SM at
    300 MHz, ours the toggle-proxy energy (µm²·toggles, ppa/power.py) of one thread-instruction of the
    benchmark kernels; both fall when a larger SM spreads its fixed control over more lanes, which is the
    trend compared."""
    rows: list[dict[str, float | int | None]] = []
    lanes = sorted(per_thread_instr)
    for a, b in zip(lanes, lanes[1:]):
        if b != 2 * a:
            raise ValueError(f"lane counts must double: {a} then {b}")
        if per_thread_instr[a] <= 0 or per_thread_instr[b] <= 0:
            raise ValueError(f"energies must be positive (got {per_thread_instr[a]}, {per_thread_instr[b]})")
        ours = per_thread_instr[b] / per_thread_instr[a] - 1.0
        seed = SEED000_TABLE_5_3.get((a, b), (None, None))[1]
        rows.append(
            {
                "from": a,
                "to": b,
                "change": ours,
                "seed000": seed,
                "diff_pp": None if seed is None else 100.0 * (ours - seed),
            }
        )
    return rows
