"""Coalescing and bank scoreboard: the memory traffic of every access, as the model predicts it.

Global memory: the memory monitor reports every transaction accepted on the GPU's external port;
the port number in the tag's top bits says which SM (or the launch loader, port NUM_SMS) sent it.
An SM tags each transaction with the issuing warp's slot (docs/sm.md: tag = {warp slot, index}; warp
slot = block slot x warps per block + warp), and a warp has one memory instruction in flight at a
time, so the transactions a warp slot sends before its next retire belong to that retire: for a global load or store they must equal the model's transactions
(docs/isa.md 6.3) one for one and in order — segment base, word mask, load/store and, for stores,
the data of every masked word — and the retire's transaction count must agree. Any other
instruction sends nothing. The loader's stores must write exactly the image's DATA words.

Posted stores (``cfg.post_stores``, docs/isa.md 6.4): a global store retires once its transactions
have left the SM, which can be before the external port accepts them (the arbiter's skid buffer, a
memory holding ``mreq_ready`` low). Its retire then compares the transactions seen so far with the
model's first ones, and the rest are *owed* by the warp slot: the slot's next transactions on the
port must be exactly those, in order (an SM's requests leave in the order it issued them), before any
is counted for the slot's next retire. Every transaction is still compared once; at the end of the
launch nothing may be owed. Without posted stores a retire that finds too few transactions fails.

Shared memory: the retire's pass count must equal the model's (6.1: serialized passes per row); like
the transaction count it is a record field of this board (spec/retire_record.py), compared by the
retire scoreboard in the whole-record ``==``.

Port integrity: a tag is never reused while its request is outstanding, every response answers an
outstanding request, and at the end of a launch nothing is left unanswered (no transaction lost or
duplicated).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from spec.config import GpuConfig
from spec.image import LaunchImage
from spec.model import Retire
from tb.scoreboards.base import CoalescingMismatch, Scoreboard


def wid_width(cfg: GpuConfig) -> int:
    return max(1, (cfg.num_warps - 1).bit_length())


def sm_tag_width(cfg: GpuConfig) -> int:
    return wid_width(cfg) + (cfg.warp_size - 1).bit_length()


class CoalescingScoreboard(Scoreboard):
    name = "coalescing/bank"
    mismatch = CoalescingMismatch
    counts = ("accesses", "txns", "loader_txns", "shared_accesses", "responses", "posted_late")

    def __init__(self, cfg: GpuConfig, image: LaunchImage) -> None:
        super().__init__()
        self.cfg = cfg
        self.tag_w = sm_tag_width(cfg)
        self.idx_w = (cfg.warp_size - 1).bit_length()
        self.wid_mask = (1 << wid_width(cfg)) - 1
        self.wpb = image.warps_per_block(cfg.warp_size)
        self.pending: dict[tuple[int, int], list[Any]] = defaultdict(list)  # (sm, warp slot) -> txns
        # (sm, warp slot) -> a retired posted store's expected transactions not yet seen on the port
        self.owed: dict[tuple[int, int], list[Any]] = {}
        self.loader_want = {
            base + i: w & 0xFFFF_FFFF for base, words in image.data for i, w in enumerate(words)
        }
        self.loader_done: set[int] = set()
        self.outstanding: dict[int, list[Any]] = defaultdict(list)  # tag -> requests without response
        self.errors: list[str] = []  # protocol errors found between retires, raised at the next check
        self.accesses = self.txns = self.loader_txns = self.shared_accesses = self.responses = 0
        self.posted_late = 0  # posted stores retired before the port had taken all their transactions

    # ---- from the memory monitor ---------------------------------------------------------------
    def port_of(self, tag: int) -> int:
        return tag >> self.tag_w

    def on_request(self, txn: Any) -> None:
        port = self.port_of(txn.tag)
        # An SM matches responses by tag, so its tags must be unique while outstanding; the loader
        # only counts its store acknowledgements and may reuse one tag.
        if self.outstanding[txn.tag] and port < self.cfg.num_sms:
            self.errors.append(f"SM {port} reused tag 0x{txn.tag:x} while its request is outstanding")
        self.outstanding[txn.tag].append(txn)
        if port == self.cfg.num_sms:
            self._loader(txn)
        elif port < self.cfg.num_sms:
            key = (port, txn.tag >> self.idx_w & self.wid_mask)
            if key in self.owed:
                self._pay(key, txn)
            else:
                self.pending[key].append(txn)
        else:
            self.errors.append(f"request with tag 0x{txn.tag:x} names port {port}: no such SM or loader")

    def on_response(self, txn: Any) -> None:
        queue = self.outstanding.get(txn.tag)
        if not queue:
            self.errors.append(f"response with tag 0x{txn.tag:x} answers no outstanding request")
            return
        queue.pop(0)
        self.responses += 1

    def _loader(self, txn: Any) -> None:
        self.loader_txns += 1
        if not txn.write:
            self.errors.append(f"the loader read global memory at {txn.addr:#x}")
            return
        for i in range(self.cfg.seg_words):
            if txn.mask >> i & 1:
                a = txn.addr + i
                if self.loader_want.get(a) != txn.data[i]:
                    want = self.loader_want.get(a)
                    self.errors.append(
                        f"loader wrote word {a} = 0x{txn.data[i]:08x}; the image has "
                        + ("no DATA there" if want is None else f"0x{want:08x}")
                    )
                self.loader_done.add(a)

    def _pay(self, key: tuple[int, int], txn: Any) -> None:
        """A transaction of a warp slot that owes a retired posted store's: it must be the next one."""
        owed = self.owed[key]
        want = owed.pop(0)
        if not owed:
            del self.owed[key]
        self.txns += 1
        where = f"SM {key[0]} warp slot {key[1]}, after its store retired"
        self.errors += [f"{where}: {d}" for d in self._compare(0, txn, want)]

    def _compare(self, i: int, g: Any, w: Any) -> list[str]:
        """Transaction ``i`` of an access: the RTL's ``g`` against the model's ``w``."""
        if (g.addr, g.mask, g.write) != (w.base, w.mask, w.store):
            return [f"transaction {i}: expected {self._show([w])}, RTL {self._show([g])}"]
        if w.store and w.data is not None:
            for k in range(self.cfg.seg_words):
                if w.mask >> k & 1 and g.data[k] != w.data[k]:
                    return [
                        f"transaction {i} word {w.base + k}: store data expected "
                        f"0x{w.data[k]:08x}, RTL 0x{g.data[k]:08x}"
                    ]
        return []

    def open_traffic(self, held: int = 0) -> list[str]:
        """The memory traffic still open (the launch-end check, tb/env/checker.py ``launch_open``):
        requests not yet answered (this board's, plus ``held`` the compiled fast path still holds) and
        transactions retired posted stores still owe."""
        unanswered = held + sum(len(q) for q in self.outstanding.values())
        owed = sum(len(o) for o in self.owed.values())
        found = [f"{unanswered} request(s) unanswered"] if unanswered else []
        found += [f"{owed} transaction(s) of retired posted stores not yet on the port"] if owed else []
        return found

    # ---- per retire ----------------------------------------------------------------------------
    def check(self, rtl: Any, exp: Retire, sm: int) -> list[str]:
        """The memory port's transactions of this retire against the model's (the retire's own
        ``txns`` and ``passes`` are record fields of this board, compared by the retire scoreboard)."""
        mem = exp.mem
        self.compared += 1
        if not self.errors and (mem is None or mem.space != "global"):
            # no global access, no protocol error: only stray transactions of this warp slot to look for
            if not self.pending or (sm, rtl.slot * self.wpb + rtl.warp) not in self.pending:
                if mem is not None and mem.space == "shared":
                    self.shared_accesses += 1
                return []
        diffs, self.errors = self.errors[:3], []
        key = (sm, rtl.slot * self.wpb + rtl.warp)
        got = self.pending.pop(key, [])
        if mem is not None and mem.space == "global":
            want = mem.transactions
            self.accesses += 1
            # a posted store may retire before the port has accepted all of its transactions: the
            # rest are owed by the slot (on_request compares them as they come, after any an older
            # posted store of the slot still owes)
            if self.cfg.post_stores and mem.store and len(got) < len(want):
                self.owed.setdefault(key, []).extend(want[len(got) :])
                self.posted_late += 1
            elif len(got) != len(want):
                diffs.append(
                    f"{len(got)} transactions on the memory port, the model expects {len(want)}: "
                    f"seen {self._show(got)}, expected {self._show(want)}"
                )
            for i, (g, w) in enumerate(zip(got, want)):
                diffs += self._compare(i, g, w)
            self.txns += len(got)
        elif got:
            diffs.append(
                f"{len(got)} global transaction(s) from an instruction that accesses no global "
                f"memory: {self._show(got)}"
            )
        if mem is not None and mem.space == "shared":
            self.shared_accesses += 1
        return diffs

    @staticmethod
    def _show(txns: Any) -> str:
        parts = []
        for t in txns[:4]:
            base = getattr(t, "base", None)
            base = t.addr if base is None else base
            store = getattr(t, "store", None)
            store = t.write if store is None else store
            parts.append(f"{'ST' if store else 'LD'} {base:#x}/m{t.mask:#x}")
        return "[" + ", ".join(parts) + (", ..." if len(txns) > 4 else "") + "]"

    def end(self) -> list[str]:
        return self.leftovers() + self.end_of_load()

    def end_of_load(self) -> list[str]:
        missing = sorted(set(self.loader_want) - self.loader_done)
        return [f"the loader never wrote {len(missing)} DATA word(s), first {missing[0]}"] if missing else []

    def leftovers(self) -> list[str]:
        left = list(self.errors)
        left += [
            f"SM {sm} warp slot {w}: {len(p)} transaction(s) no retire accounted for"
            for (sm, w), p in self.pending.items()
            if p
        ]
        left += [
            f"SM {sm} warp slot {w}: {len(o)} transaction(s) of a retired posted store never reached "
            "the memory port"
            for (sm, w), o in self.owed.items()
        ]
        lost = sum(len(q) for q in self.outstanding.values())
        if lost:
            left.append(f"{lost} request(s) never answered")
        return left

    def summary(self) -> str:
        return (
            f"{self.accesses} global accesses / {self.txns} transactions, {self.shared_accesses} shared "
            f"pass counts, {self.loader_txns} loader writes, {self.responses} responses matched"
            + (
                f", {self.posted_late} posted stores retired before all their transactions"
                if self.posted_late
                else ""
            )
        )
