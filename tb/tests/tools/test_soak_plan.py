"""The fault soak's plan (tb/sequences/soak.py): every fault is followed by a clean launch (the one
checked for recovery), every fault kind is drawn, the launch count is exact. The soak itself runs in
tb/tests/system/test_soak.py and make soak."""

from __future__ import annotations

import pytest

from spec.machines import SYSTEM
from tb.sequences import soak
from tb.sequences.random_plan import KernelKnobs


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
    p = soak.plan(SYSTEM["sm2-l8"], launches, launches, random_share=0.02, kinds=kinds)
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
    p = soak.plan(SYSTEM["sm2-l8"], 7, 300, random_share=0.0, kinds=kinds)
    assert set(p.faults) == set(kinds)
    assert 0.2 <= sum(p.faults.values()) / p.launches <= 0.4  # about 30 % of the launches faulted


def _schedule(p: soak.SoakPlan) -> list[tuple[int, str]]:
    """Where the faults are and what they are (a random kernel's own seed left out)."""
    return [(k, p.items[k].get_name().split(": random kernel")[0]) for k in p.faulted]


def _words(item) -> list[int]:  # type: ignore[no-untyped-def]
    return list(item.words) if item.image is None else item.image.to_words()


def test_the_plan_and_the_kernels_draw_from_their_own_streams() -> None:
    """Other kernel knobs (another kernel stream's use) move no fault; the same seed gives the same
    launches; another seed another plan."""
    cfg = SYSTEM["sm2-l8"]
    small = soak.plan(cfg, 11, 120, random_share=0.5, kinds=soak.AXI_FAULT_KINDS)
    big = soak.plan(cfg, 11, 120, random_share=0.5, kinds=soak.AXI_FAULT_KINDS, knobs=KernelKnobs())
    assert _schedule(small) == _schedule(big) and small.faults == big.faults
    assert [i.interrupt_after for i in small.items] == [i.interrupt_after for i in big.items]
    assert any(_words(a) != _words(b) for a, b in zip(small.items, big.items, strict=True)), (
        "the kernel knobs changed no kernel: the test proves nothing"
    )
    again = soak.plan(cfg, 11, 120, random_share=0.5, kinds=soak.AXI_FAULT_KINDS)
    assert [_words(i) for i in again.items] == [_words(i) for i in small.items]
    assert _schedule(soak.plan(cfg, 12, 120, random_share=0.5)) != _schedule(small)


def test_soak_kernels_are_soak_sized() -> None:
    """The soak's random kernels keep to SOAK_KERNEL_KNOBS (short launches, faults land mid-kernel)."""
    p = soak.plan(SYSTEM["sm2-l8"], 5, 60, random_share=1.0)
    k = soak.SOAK_KERNEL_KNOBS
    kernels = [i for i in p.items if i.seed is not None]
    assert len(kernels) >= 20
    for item in kernels:
        assert item.image.num_blocks <= (k.max_blocks or 0) and item.image.threads_per_block <= k.max_threads
        assert len(item.image.code) <= k.code_words
