"""tools/bench/load_ahead_reach.py: the passing rules on a hand-written program, and vecadd's counts."""

from __future__ import annotations

from kernels import launch
from spec import machines
from spec.model import Model
from tools.bench import load_ahead_reach as reach

PROGRAM = """
.block 32
        LDS  r1, %tid.x
        LDG  r2, [r1]        ; 0 passes: r3 <- r1 + 1 passes, LDG r4 stops "one", passes "many"
        ADDI r3, r1, 1
        LDG  r4, [r3]
        ADDI r5, r5, 1       ; passes both
        ADD  r6, r2, r4      ; reads r2: stops both
        EXIT
"""


def _code_and_pcs():  # type: ignore[no-untyped-def]
    image = launch.build(PROGRAM, "reach")
    model = Model(machines.bench(8), image)
    return model.code, list(range(len(image.code)))


def test_one_load_stops_at_the_next_load() -> None:
    code, pcs = _code_and_pcs()
    assert reach._reach(code, pcs, 1, many=False) == (1, 1)


def test_many_loads_stop_at_the_first_reader_of_a_busy_register() -> None:
    code, pcs = _code_and_pcs()
    assert reach._reach(code, pcs, 1, many=True) == (3, 2)
    assert reach._reach(code, pcs, 3, many=True) == (1, 1)  # r6 <- r2 + r4 reads the load's r4


def test_vecadd_counts() -> None:
    """vecadd/256: 16 LDGs; the first of each warp passes LDS + ADD (its address register, already read),
    the second none (the ADD reads it); with several loads the first also passes the second LDG."""
    r = reach.measure("vecadd", 256)
    assert (r.ldgs, sum(r.one), sum(r.many), r.in_flight) == (16, 16, 24, 2)
