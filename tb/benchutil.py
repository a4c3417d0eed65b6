"""Helpers shared by the cocotb benches (run inside the simulator).

Rerun seeds. cocotb 2.1 takes one *regression* seed per run (``COCOTB_RANDOM_SEED``, which
``SEED=n`` sets through tb/rtlsim.py, or a random value) and, before each test, reseeds Python's
``random`` with ``regression seed + int(sha1("<module>.<test>").hexdigest(), 16)``, where
``<module>.<test>`` is the test's full name (e.g. ``tb.tests.unit.test_barrier.random_blocks``).
While a test runs, ``cocotb.RANDOM_SEED`` holds that per-test seed, not the regression seed, so
``SEED=cocotb.RANDOM_SEED`` would *not* repeat the test: the bench must subtract the hash again and
log the difference, which is what :func:`rerun_seed` returns.
"""

from __future__ import annotations

import hashlib

import cocotb


def rerun_seed(module: str, test: str) -> int:
    """The regression seed (what ``SEED=n`` sets) that repeats the running test ``module.test``.

    Call it from inside that test: cocotb 2.1 seeds each test with ``regression seed +
    sha1("<module>.<test>")`` and leaves that sum in ``cocotb.RANDOM_SEED``; this subtracts the hash.
    ``module`` is the bench's ``__name__``, ``test`` the cocotb test's function name.
    """
    return cocotb.RANDOM_SEED - int(hashlib.sha1(f"{module}.{test}".encode()).hexdigest(), 16)


def log_seed(module: str, test: str) -> None:
    """Log ``regression seed n (rerun with SEED=n)`` for the running test ``module.test``."""
    seed = rerun_seed(module, test)
    cocotb.log.info("regression seed %d (rerun with SEED=%d)", seed, seed)
