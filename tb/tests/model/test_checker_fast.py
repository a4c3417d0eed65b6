"""The launch checker's per-retire fast path (tb/env/checker.py ``count_quiet``) counts exactly what the
divergence, shared-memory and coalescing boards' ``check`` would, and takes only retires those boards
would pass: two sets of boards see the same faithful retires and traffic, one through the fast path,
one always through ``check``, and end with the same counts."""

from __future__ import annotations

import pytest

from spec.model import Model, Retire
from tb.agents.gmem_responder import MemTxn
from tb.agents.sm_driver import RtlRetire, SmLaunch
from tb.env.checker import count_quiet
from tb.scoreboards.coalescing import CoalescingScoreboard
from tb.scoreboards.divergence import DivergenceScoreboard
from tb.scoreboards.retire import RetireScoreboard
from tb.scoreboards.shared import SharedMemoryScoreboard
from tb.tests.model.test_scoreboards import CFG, twin


class Boards:
    def __init__(self, model: Model) -> None:
        self.retire = RetireScoreboard(model)
        self.div = DivergenceScoreboard(model)
        self.shared = SharedMemoryScoreboard(CFG, model, SmLaunch.of(CFG, model.image).sh_stride)
        self.coal = CoalescingScoreboard(CFG, model.image)
        self.wpb = model.image.warps_per_block(CFG.warp_size)
        self.quiet = 0

    def traffic(self, rec: Retire, rtl: RtlRetire, seq: int) -> int:
        """The bank writes and memory transactions a faithful SM sends before this retire."""
        mem = rec.mem
        if mem is not None and mem.space == "shared" and mem.store:
            self.shared.observe(0, False, self.shared.expected_writes(rtl, rec), wslot=rtl.warp)
        if mem is not None and mem.space == "global":
            for i, t in enumerate(mem.transactions):
                txn = MemTxn(
                    t.base, t.store, t.mask, t.data or (0,) * CFG.seg_words, (rtl.warp << 5) | i, 0, seq=seq
                )
                self.coal.on_request(txn)
                self.coal.on_response(txn)
                seq += 1
        return seq

    def check(self, rtl: RtlRetire, fast: bool) -> list[str]:
        exp = self.retire.check(rtl)
        if fast and count_quiet(self.div, self.shared, self.coal, self.wpb, rtl, exp, 0):
            self.quiet += 1
            return []
        return [d for b in (self.div, self.shared, self.coal) for d in b.check(rtl, exp, 0)]

    def counts(self) -> dict[str, int]:
        return {
            f"{b.name}.{k}": getattr(b, k)
            for b in (self.div, self.shared, self.coal)
            for k in ("compared", *b.counts)
        }


@pytest.mark.parametrize(
    "kernel", ["vecadd", "divergence", "shared_barrier", "matmul", "full_stack", "barrier_exit"]
)
def test_fast_path_counts_what_the_boards_count(kernel: str) -> None:
    model_fast, pairs = twin(kernel)
    model_slow, _ = twin(kernel)
    fast, slow = Boards(model_fast), Boards(model_slow)
    seq = 0
    for rec, rtl in pairs:
        fast.traffic(rec, rtl, seq)
        seq = slow.traffic(rec, rtl, seq)
        assert fast.check(rtl, True) == [] == slow.check(rtl, False)
    assert fast.counts() == slow.counts()
    assert 0 < fast.quiet < len(pairs) or kernel == "divergence"  # (every retire of it may be quiet)
    assert fast.shared.leftovers() == [] == fast.coal.leftovers()
