"""Shared-memory scoreboard: every bank write, and each block's final shared contents.

The shared-memory monitor reports each cycle's bank writes of every SM (physical word address and
data; block-start line clears flagged apart). This board keeps a mirror of each SM's physical
shared memory from those writes, so it sees exactly what the banks hold.

Attribution: the monitor reports the warp slot whose store row is being written (``sh_obs_warp``),
and a warp has one instruction in execution at a time, so the writes of a warp slot since its
previous retire belong to its next retire (warp slot = block slot x warps per block + warp).

For a shared store the expected writes are, per warp row, one write per distinct address carrying
the data of the highest active lane with that address (docs/isa.md 3.3 and 6.1), at physical address
``slot * sh_stride + address`` (docs/sm.md "Shared memory"); the observed multiset must equal it (a
wrong bank, a lost or an extra write all show). Any other instruction must not write shared memory. When the model finishes a block, the
block's region of the mirror must equal the model's shared memory of that block.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from spec.config import GpuConfig
from spec.model import Model, Retire
from tb.scoreboards.base import Scoreboard, SharedMismatch

Write = tuple[int, int]  # (physical word address, data)


class SharedMemoryScoreboard(Scoreboard):
    name = "shared memory"
    mismatch = SharedMismatch
    counts = ("stores", "writes", "blocks_checked", "words_checked", "clears")

    def __init__(self, cfg: GpuConfig, model: Model, sh_stride: int) -> None:
        super().__init__()
        self.cfg, self.model, self.stride = cfg, model, sh_stride
        self.wpb = model.image.warps_per_block(cfg.warp_size)
        self.mirror = [np.zeros(cfg.shared_words, np.uint32) for _ in range(cfg.num_sms)]
        self.pending: dict[tuple[int, int], list[Write]] = defaultdict(list)  # (sm, warp slot) -> writes
        self.writes = self.stores = self.blocks_checked = self.words_checked = self.clears = 0

    def observe(self, sm: int, clear: bool, writes: list[Write], wslot: int = 0) -> None:
        """One cycle's bank writes of SM ``sm`` by warp slot ``wslot`` (from the monitor)."""
        mirror = self.mirror[sm]
        for addr, data in writes:
            mirror[addr] = data
        if clear:
            self.clears += len(writes)
        else:
            self.pending[(sm, wslot)].extend(writes)

    def expected_writes(self, rtl: Any, exp: Retire) -> list[Write]:
        """The bank writes a correct SM makes for the shared store ``exp``, row by row (any order)."""
        mem = exp.mem
        assert mem is not None and mem.data is not None
        base = rtl.slot * self.stride
        addrs, data, mask = mem.addrs.tolist(), mem.data.tolist(), exp.mask
        L, W = self.cfg.num_lanes, self.cfg.warp_size
        want: list[Write] = []
        for lo in range(0, W, L):
            rm = mask >> lo & ((1 << L) - 1)
            if rm == (1 << L) - 1:  # a full row: a dict keeps the highest lane of each address
                row = dict(zip(addrs[lo : lo + L], data[lo : lo + L]))
            else:
                row = {addrs[lane]: data[lane] for lane in range(lo, lo + L) if mask >> lane & 1}
            want += [(base + a, d) for a, d in row.items()]
        return want

    def check(self, rtl: Any, exp: Retire, sm: int) -> list[str]:
        mem = exp.mem
        store = mem is not None and mem.store and mem.space == "shared"
        if not store and not exp.done:
            # no shared store, no block end: only stray writes of this warp slot to look for
            if not self.pending or (sm, rtl.slot * self.wpb + rtl.warp) not in self.pending:
                self.compared += 1
                return []
        got = self.pending.pop((sm, rtl.slot * self.wpb + rtl.warp), [])
        diffs: list[str] = []
        if store:
            want = self.expected_writes(rtl, exp)
            if len(got) != len(want) or sorted(got) != sorted(want):  # the multisets differ: say how
                seen, wanted = Counter(got), Counter(want)
                missing, extra = wanted - seen, seen - wanted
                nb = self.cfg.num_banks
                for (a, d), n in sorted(missing.items())[:4]:
                    diffs.append(
                        f"missing bank write: bank {a % nb} word {a} = 0x{d:08x}"
                        + (f" (x{n})" if n > 1 else "")
                    )
                for (a, d), n in sorted(extra.items())[:4]:
                    diffs.append(
                        f"unexpected bank write: bank {a % nb} word {a} = 0x{d:08x}"
                        + (f" (x{n})" if n > 1 else "")
                    )
            self.stores += 1
            self.writes += len(got)
        elif got:
            a, d = got[0]
            diffs.append(
                f"{len(got)} shared write(s) during an instruction that stores nothing to shared "
                f"memory, first word {a} = 0x{d:08x}"
            )
        block = self.model.blocks.get(rtl.block)
        if not diffs and block is not None and block.done and exp.done:
            diffs += self.check_block(rtl.block, sm, rtl.slot)
        self.compared += 1
        return diffs

    def check_block(self, bid: int, sm: int, slot: int) -> list[str]:
        """The finished block's region of the SM's shared memory against the model's."""
        want = self.model.blocks[bid].shared
        if not len(want):
            return []
        base = slot * self.stride
        got = self.mirror[sm][base : base + len(want)]
        bad = np.flatnonzero(got != want)
        self.blocks_checked += 1
        self.words_checked += len(want)
        if len(bad):
            i = int(bad[0])
            return [
                f"block {bid} finished with {len(bad)} shared word(s) differing from the model, first "
                f"word {i} (physical {base + i}): expected 0x{int(want[i]):08x}, RTL 0x{int(got[i]):08x}"
            ]
        return []

    def leftovers(self) -> list[str]:
        return [
            f"SM {sm} warp slot {w}: {len(p)} shared write(s) no retire accounted for"
            for (sm, w), p in self.pending.items()
            if p
        ]

    def summary(self) -> str:
        return (
            f"{self.stores} stores / {self.writes} bank writes matched, {self.blocks_checked} blocks' final "
            f"contents ({self.words_checked} words), {self.compared} retires free of stray writes"
        )
