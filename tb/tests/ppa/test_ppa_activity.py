"""Switching-activity counts of the energy model (ppa/activity.py): each count follows its definition
on hand-made retires, and a wrong bus (a planted change of lane order) changes the count."""

from __future__ import annotations

import numpy as np
import pytest

from ppa.activity import Activity, popcount
from spec.records import MemAccess


def test_popcount():
    assert popcount(np.array([0, 1, 0xFFFF_FFFF, 0x8000_0001], dtype=np.uint32)) == 0 + 1 + 32 + 2


def test_instruction_words_count_the_bits_that_change():
    a = Activity(warp_size=4, num_lanes=4)
    for word in (0b1010, 0b1010, 0b0101):
        a.observe(word, mask=0)
    assert a.counts["instr_hd"] == 2 + 0 + 4


def test_a_lane_carries_one_thread_per_row():
    # 4 threads on 2 lanes: lane 0 carries threads 0 then 2, lane 1 threads 1 then 3
    a = Activity(warp_size=4, num_lanes=2)
    a.observe(0, mask=0b1111, values=[0b1, 0b10, 0b11, 0b10])
    # lane 0: 0 -> 1 (1 flip) -> 3 (1 flip); lane 1: 0 -> 2 (1) -> 2 (0)
    assert a.counts["lane_hd"] == 3
    # slots: each thread's slot from 0 to its value
    assert a.counts["slot_hd"] == 1 + 1 + 2 + 1
    assert a.counts["data_bits"] == 1 + 1 + 2 + 1


def test_inactive_threads_keep_their_lane_and_slot():
    a = Activity(warp_size=4, num_lanes=2)
    a.observe(0, mask=0b1111, values=[7, 7, 7, 7])
    before = dict(a.counts)
    a.observe(0, mask=0b0001, values=[7, 0, 0, 0])  # only thread 0 writes, the same value
    assert a.counts["lane_hd"] == before["lane_hd"]
    assert a.counts["slot_hd"] == before["slot_hd"]


def test_addresses_go_to_their_own_buses():
    a = Activity(warp_size=4, num_lanes=4)
    g = MemAccess("global", False, np.array([1, 2, 3, 4]))
    s = MemAccess("shared", True, np.array([1, 1, 1, 1]), data=np.array([0, 0, 0, 0]))
    a.observe(0, mask=0b1111, mem=g)
    a.observe(0, mask=0b1111, mem=s)
    assert a.counts["gaddr_hd"] == 1 + 1 + 2 + 1
    assert a.counts["saddr_hd"] == 4
    assert a.counts["lane_hd"] == 0  # the store's data is all zeros


def test_the_lane_order_matters():
    """Planted: the same values in another thread order flip a different number of lane bits."""
    a, b = Activity(4, 2), Activity(4, 2)
    a.observe(0, 0b1111, values=[0, 0, 0xFF, 0xFF])
    b.observe(0, 0b1111, values=[0, 0xFF, 0, 0xFF])
    assert a.counts["slot_hd"] == b.counts["slot_hd"]
    assert a.counts["lane_hd"] != b.counts["lane_hd"]


def test_lanes_must_divide_the_warp():
    with pytest.raises(ValueError, match="not a multiple"):
        Activity(warp_size=32, num_lanes=12)


def test_operands_read_whole_rows_per_port():
    # 4 threads on 2 lanes; only thread 0 is active, so only row 0 is read, both of its lanes
    a = Activity(warp_size=4, num_lanes=2)
    a.observe(0, mask=0b0001, operands=[np.array([1, 3, 0xFF, 0xFF]), None, np.array([0, 0, 7, 7])])
    assert a.counts["operand_hd"] == (1 + 2) + 0  # port a: lanes 0 -> 1 and 0 -> 3; port c: zeros
    a.observe(0, mask=0b0001, operands=[np.array([1, 3, 0, 0]), None, None])
    assert a.counts["operand_hd"] == 3  # the same row again on port a: nothing flips


def _model_order(cfg, img) -> list[list[int]]:
    from spec.model import Model

    order: list[list[int]] = []

    class Recording(Model):
        def step(self, bid: int, wid: int):
            order.append([self.blocks[bid].sm, bid, wid])
            return super().step(bid, wid)

    Recording(cfg, img).run()
    return order


def test_counting_in_a_given_order_counts_the_same_events():
    """count_all stepped in an order (the RTL's, in ppa/power.py) gives the model's own counts when
    that order is the model's own; another legal order (warps of a block reversed each round) keeps
    every event count and changes only the switching activity. Planted: an order that steps a warp
    after it exited is refused."""
    import random

    from kernels.directed import image_of
    from ppa.perf import count_all
    from spec.config import GpuConfig
    from spec.model import StepError

    cfg = GpuConfig()
    img = image_of("divergence", random.Random(1))
    own = _model_order(cfg, img)
    _, ref = count_all(cfg, img)
    _, same = count_all(cfg, img, own)
    assert same == ref
    # another order: each pair of consecutive retires of one block swapped (warps run independently
    # between barriers in this kernel, so the model accepts it)
    swapped = list(own)
    for i in range(0, len(own) - 1, 2):
        if own[i][1] == own[i + 1][1] and own[i][2] != own[i + 1][2]:
            swapped[i], swapped[i + 1] = own[i + 1], own[i]
    assert swapped != own
    _, other = count_all(cfg, img, swapped)
    assert {k: v for k, v in other.items() if not k.endswith("_hd")} == {
        k: v for k, v in ref.items() if not k.endswith("_hd")
    }
    with pytest.raises(StepError):
        count_all(cfg, img, [*own, own[-1]])
