"""Switching activity the golden model can count exactly: Hamming distances on the SM's datapaths.

An event count says *how often* a unit works; the energy of a CMOS datapath also depends on *what* flows
through it: a bus that carries the same word again does not switch. The golden model knows every
retired warp-instruction's word, every lane's written value and every lane's memory address, so it can
count the bit flips on each of these paths exactly, in its own issue order (round-robin over the ready
warps, as the RTL's scheduler; the RTL's interleaving differs in detail, which is what makes this a
model):

- ``instr_hd``: bits that differ between consecutive issued instruction words (the decode and
  pipeline registers carry the word, its fields and the register addresses derived from it);
- ``lane_hd``: per physical lane, bits that differ between consecutive values the lane writes to a
  register or stores (the ALU result, writeback and store-data path). With fewer lanes than threads
  per warp a lane carries one thread of each row in turn (rows of ``num_lanes`` threads, docs/sm.md),
  so the sequence is row by row. An ALU instruction's lanes compute every thread of a row with an
  active thread (the model applies the operation to the inactive threads' operands too); for other
  writes a lane with no active thread keeps its last value;
- ``slot_hd``: per thread slot of the warp-wide buffers (simt_sm's per-instruction result buffer and
  the global unit's completion data: one 32-bit word per thread of a warp, whichever warp), bits that
  differ between consecutive values written to that slot;
- ``gaddr_hd`` (per thread slot: the global unit captures a whole warp's addresses) and ``saddr_hd``
  (per lane: the shared unit's bank selection): the same for memory addresses;
- ``operand_hd``: per physical lane and ALU input (a, b, c), bits that differ between consecutive
  operands (the register read or, for a and b, the immediate): the lanes' ALU, multiplier and address
  adder see their inputs change whatever the operation (simt_alu computes every function, the product
  included, and the SM selects one). The register file reads whole rows: every lane of a row with an
  active thread reads, active or not;
- ``data_bits``: 1 bits of the values written or stored (the older, order-free data measure).

Used by ppa/perf.py ``count_all`` (every retire passes through :meth:`Activity.observe`) for the energy
model of ppa/power.py.
"""

from __future__ import annotations

import numpy as np

_NAMES = ("instr_hd", "lane_hd", "slot_hd", "gaddr_hd", "saddr_hd", "operand_hd", "data_bits")


def popcount(words: np.ndarray) -> int:
    """Number of 1 bits in an array of 32-bit words."""
    return int(np.unpackbits(np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8)).sum())


class Activity:
    """Bit flips on the instruction, data and address paths of one SM, fed retire by retire."""

    def __init__(self, warp_size: int, num_lanes: int) -> None:
        if num_lanes <= 0 or warp_size % num_lanes:
            raise ValueError(f"warp_size {warp_size} is not a multiple of num_lanes {num_lanes}")
        self.warp_size, self.lanes = warp_size, num_lanes
        self.counts = dict.fromkeys(_NAMES, 0)
        self._word = 0
        self._bus = {k: np.zeros(num_lanes, dtype=np.uint32) for k in ("lane", "shared", "a", "b", "c")}
        self._bus.update({k: np.zeros(warp_size, dtype=np.uint32) for k in ("slot", "global")})

    def _lanes(self, bus: str, values, active: np.ndarray, whole_rows: bool = False) -> int:
        """Flips on a per-lane bus that carries ``values`` (one per thread) row by row: the active
        lanes' values, or with ``whole_rows`` every lane of a row that has an active thread."""
        last = self._bus[bus]
        vals = np.asarray(values, dtype=np.int64).astype(np.uint32)
        flips = 0
        for r in range(self.warp_size // self.lanes):
            row = slice(r * self.lanes, (r + 1) * self.lanes)
            on = active[row]
            if not on.any():
                continue
            new = vals[row] if whole_rows else np.where(on, vals[row], last)
            flips += popcount(new ^ last)
            last = new
        self._bus[bus] = last
        return flips

    def _slots(self, bus: str, values, active: np.ndarray) -> int:
        """Flips on a warp-wide bus (one word per thread slot) that takes the active threads' values."""
        last = self._bus[bus]
        new = np.where(active, np.asarray(values, dtype=np.int64).astype(np.uint32), last)
        self._bus[bus] = new
        return popcount(new ^ last)

    def observe(self, word: int, mask: int, values=None, mem=None, operands=(), row_values=None) -> None:
        """One retired warp-instruction: its word, active mask, written values (or None), memory access
        (a records.MemAccess or None) and the register operands it read (per read port a, b, c: the
        source register of every thread before the instruction, or None for a port it does not use).
        ``row_values``: an ALU instruction's result for every thread, active or not: the lanes compute
        whole rows and the SM writes whole rows into its result buffer, so the data paths carry it."""
        c = self.counts
        c["instr_hd"] += (word ^ self._word).bit_count()
        self._word = word
        active = ((mask >> np.arange(self.warp_size)) & 1).astype(bool)
        for port, vals in zip("abc", operands):
            if vals is not None:
                c["operand_hd"] += self._lanes(port, vals, active, whole_rows=True)
        data = values if values is not None else (mem.data if mem is not None else None)
        if row_values is not None:
            rows = active.reshape(-1, self.lanes).any(axis=1).repeat(self.lanes)
            c["lane_hd"] += self._lanes("lane", row_values, active, whole_rows=True)
            c["slot_hd"] += self._slots("slot", row_values, rows)
        elif data is not None:
            c["lane_hd"] += self._lanes("lane", data, active)
            c["slot_hd"] += self._slots("slot", data, active)
            on = np.asarray(data, dtype=np.int64).astype(np.uint32)[active]
            c["data_bits"] += popcount(on)
        if mem is not None and mem.space == "global":
            c["gaddr_hd"] += self._slots("global", mem.addrs, active)
        elif mem is not None and mem.space == "shared":
            c["saddr_hd"] += self._lanes("shared", mem.addrs, active)
