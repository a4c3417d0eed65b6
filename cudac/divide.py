"""Division by a constant through a high multiply (MULHU), and the magic numbers it needs.

For an unsigned divisor ``d`` (not a power of two) :func:`magic` finds ``m = ceil(2^p / d)`` with
``m·d − 2^p ≤ 2^(p−32)``, which makes ``floor(x·m / 2^p) = floor(x / d)`` for every 32-bit ``x``
(Granlund & Montgomery 1994, "Division by invariant integers using multiplication", Theorem 4.2).
When ``m`` needs 33 bits the quotient is ``((x − t) >> 1) + t) >> (p − 33)`` with ``t = MULHU(x, m − 2^32)``.
Signed division divides the magnitudes and restores the sign (C truncates toward zero).
"""

from __future__ import annotations


def magic(d: int) -> tuple[int, int]:
    """(m, p) for 2 <= d < 2^32, d not a power of two: floor(x / d) = (x * m) >> p for x < 2^32."""
    for p in range(32, 65):
        m = -(-(1 << p) // d)
        if m * d - (1 << p) <= 1 << (p - 32):
            return m, p
    raise AssertionError(f"no magic number for {d}")  # unreachable: p = 32 + ceil(log2 d) always works


def udiv_by_magic(x: int, d: int) -> int:
    """The instruction sequence's result, in Python (the unit tests compare it with x // d)."""
    m, p = magic(d)
    if m < 1 << 32:
        return (x * m >> 32) >> (p - 32)
    t = x * (m - (1 << 32)) >> 32
    return (((x - t) >> 1) + t) >> (p - 33)
