"""The fault soak's plan (tb/sequences/soak.py): every fault is followed by a clean launch (the one
checked for recovery), every fault kind is drawn, the launch count is exact. The soak itself runs in
tb/tests/system/test_soak.py and make soak."""

from __future__ import annotations

import random

import pytest

from spec.machines import SYSTEM
from tb.sequences import soak


def _faulted(item) -> bool:  # type: ignore[no-untyped-def]
    return bool(
        item.interrupt
        or item.expect_error
        or item.expect_launch_error
        or item.slave_error
        or "extreme" in item.get_name()
    )


@pytest.mark.parametrize("kinds", [soak.FAULT_KINDS, soak.AXI_FAULT_KINDS], ids=["native", "axi"])
@pytest.mark.parametrize("launches", [2, 3, 17, 200])
def test_every_fault_is_followed_by_a_clean_launch(launches: int, kinds: tuple[str, ...]) -> None:
    p = soak.plan(SYSTEM["sm2-l8"], random.Random(launches), launches, random_share=0.02, kinds=kinds)
    assert p.launches == launches
    flags = [k in p.faulted for k in range(p.launches)]
    for k, item in enumerate(p.items):  # an injected fault is what makes a launch faulted
        injected = bool(item.interrupt or item.expect_error or item.expect_launch_error or item.slave_error)
        assert injected <= flags[k] and (injected or not flags[k] or item.gmem in soak.MEMORY_EXTREMES)
    assert not flags[-1], "the last launch must be a clean one"
    for k, f in enumerate(flags):
        if f:
            assert not flags[k + 1], f"fault at launch {k} not followed by a clean launch"
    assert sum(flags) == sum(p.faults.values()) == p.recoveries


@pytest.mark.parametrize("kinds", [soak.FAULT_KINDS, soak.AXI_FAULT_KINDS], ids=["native", "axi"])
def test_every_fault_kind_is_drawn(kinds: tuple[str, ...]) -> None:
    p = soak.plan(SYSTEM["sm2-l8"], random.Random(7), 300, random_share=0.0, kinds=kinds)
    assert set(p.faults) == set(kinds)
    assert 0.2 <= sum(p.faults.values()) / p.launches <= 0.4  # about 30 % of the launches faulted
