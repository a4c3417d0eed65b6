"""An AXI slave read side that answers out of order: cocotbext-axi's ``AxiRamRead`` answers the read
bursts in the order of their AR; this one gathers every AR waiting (up to ``depth``) and answers a
random one of them first, whole (beats of one burst are never interleaved with another's, as
docs/gpu.md "AXI option" requires). Bursts of different IDs then overtake each other, which is what
the bridge's IDs are for; same-ID bursts keep their order (AXI's rule): among the waiting ARs only the
oldest of each ID may be picked.

``arm_slave_error(beat)`` makes the ``beat``-th read beat from now (0: the next) answer SLVERR while
still carrying the data the RAM holds, as a slave that reports an error it corrected would; the bridge
must raise ``axi_error`` bit 0 and the GPU compute on (the fault soak's "slave-error" kind).
"""

from __future__ import annotations

import random
from typing import Any

from cocotb.triggers import RisingEdge
from cocotbext.axi.axi_ram import AxiRamRead
from cocotbext.axi.constants import AxiResp


class ReorderingAxiRamRead(AxiRamRead):
    def __init__(self, *args: Any, rng: random.Random, depth: int = 4, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rng, self.depth = rng, depth
        self.overtaken = 0  # bursts answered while an older AR of another ID waited
        self.error_in: int | None = None  # beats until the armed SLVERR beat (None: none armed)
        self.slave_errors = 0  # SLVERR beats given with the RAM's data
        self.bad_rlast = (
            False  # planted broken slave (AXI_FAULT=bad_rlast): the next burst ends without RLAST
        )

    def arm_slave_error(self, beat: int = 0) -> None:
        self.error_in = beat

    async def _process_read(self) -> None:
        waiting: list[Any] = []
        while True:
            if not waiting:
                waiting.append(await self.ar_channel.recv())
            for _ in range(2):  # give the master two cycles to present more ARs
                await RisingEdge(self.clock)
                while not self.ar_channel.empty() and len(waiting) < self.depth:
                    waiting.append(self.ar_channel.recv_nowait())
            ids = [int(getattr(ar, "arid", 0)) for ar in waiting]
            eligible = [i for i, arid in enumerate(ids) if arid not in ids[:i]]
            pick = self.rng.choice(eligible)
            self.overtaken += pick > 0
            await self._answer(waiting.pop(pick))

    async def _answer(self, ar: Any) -> None:
        arid, addr = int(getattr(ar, "arid", 0)), int(ar.araddr)
        length, size = int(getattr(ar, "arlen", 0)) + 1, int(getattr(ar, "arsize", self.max_burst_size))
        num_bytes = 2**size
        cur = (addr // num_bytes) * num_bytes
        for n in range(length):  # INCR bursts only: the bridge issues nothing else
            r = self.r_channel._transaction_obj()
            r.rid, r.rlast, r.rresp = arid, n == length - 1, AxiResp.OKAY
            if self.bad_rlast and r.rlast:  # a protocol violation: the burst's last beat without RLAST
                r.rlast, self.bad_rlast = False, False
            try:
                data = await self._read((cur // self.byte_lanes) * self.byte_lanes, self.byte_lanes)
            except Exception:  # noqa: BLE001 - as cocotbext-axi: a failed read answers SLVERR
                data, r.rresp = bytes(self.byte_lanes), AxiResp.SLVERR
            if self.error_in is not None:
                if self.error_in == 0:
                    r.rresp, self.error_in = AxiResp.SLVERR, None
                    self.slave_errors += 1
                else:
                    self.error_in -= 1
            r.rdata = int.from_bytes(data, "little")
            await self.r_channel.send(r)
            cur += num_bytes
