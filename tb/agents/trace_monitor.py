"""The GPU's observations in batches: a passive monitor of the test wrapper's trace (tb/hdl/simt_gpu_tb.v).

The wrapper writes every block dispatch, memory request and response, shared-memory bank write and
retire record to a file, one line per event in the order the GPU produced them
(tb/hdl/simt_tb_trace.v), and counts flushes on ``trace_batch``. This monitor sleeps until that
count changes, then reads the new lines and publishes each event, in order, on its analysis ports:

* ``dispatch_ap``  ``(block, sm)``
* ``request_ap``   :class:`~tb.agents.gmem_responder.MemTxn` (a store's data, or a load's data as read)
* ``response_ap``  :class:`MemResponse` (tag, data, latency in cycles, whether it overtook an older one)
* ``shared_ap``    ``(sm, clear, [(physical address, data), ...], warp slot)``
* ``retire_ap``    ``(RtlRetire, sm)``

Nothing is sampled or skipped: every line is decoded and published. :func:`sync` lets the host
driver see everything up to the present (it toggles ``trace_sync``, and the wrapper flushes at that
edge) before it announces the end of a launch.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyuvm
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, ValueChange

from spec.retire_record import decode as decode_retire
from spec.retire_record import decode_lines
from tb.agents.gmem_responder import MemTxn, ProtocolError

_B16 = (16,) * 6
_HEX = frozenset("0123456789abcdefABCDEF")
PROTOCOL_ERRORS = {
    1: "mreq_valid is X/Z out of reset",
    2: "request changed while held (valid, not ready)",
    3: "request address unaligned or outside memory",
}


@dataclass
class MemResponse:
    tag: int
    rdata: tuple[int, ...]
    latency: int = 0  # cycles from the request's handshake to the response's
    overtook: bool = False  # answered while an earlier-accepted request was still unanswered


def port_writers(port: Any) -> list[Any]:
    """What ``port.write`` calls for each of its subscribers (a pyuvm AnalysisImp's ``write_fn``, else
    the subscriber's ``write``): the per-retire ports call these directly, a call or two less per
    retire. Cached on the port, looked up again when a subscriber is connected."""
    subs = port.subscribers
    cached = port.__dict__.get("_simt_writers")
    if cached is None or cached[0] != len(subs):
        cached = port._simt_writers = (len(subs), [getattr(x, "write_fn", None) or x.write for x in subs])
    return cached[1]


def trace_path() -> Path:
    """Where a run's trace goes: ``SIMT_TRACE_FILE`` (tb/rtlsim.py sets it), else ``trace.txt`` here."""
    return Path(os.environ.get("SIMT_TRACE_FILE") or "trace.txt")


async def sync(dut: Any) -> None:
    """Return once every event up to the present edge has been published (the wrapper flushes at the
    edge after ``trace_sync`` toggles; the monitor wakes on the flush before ReadOnly). Returns on a
    falling edge, where the caller may drive signals again."""
    dut.trace_sync.value = 1 - int(dut.trace_sync.value)
    await RisingEdge(dut.clk)
    await ReadOnly()
    await FallingEdge(dut.clk)


class TraceMonitor(pyuvm.uvm_component):
    def build_phase(self) -> None:
        db = pyuvm.ConfigDB()
        self.dut = db.get(self, "", "DUT")
        self.cfg = db.get(self, "", "GPU_CFG")
        self.path: Path = db.get(self, "", "TRACE_PATH")
        self.dispatch_ap = pyuvm.uvm_analysis_port("dispatch_ap", self)
        self.request_ap = pyuvm.uvm_analysis_port("request_ap", self)
        self.response_ap = pyuvm.uvm_analysis_port("response_ap", self)
        self.shared_ap = pyuvm.uvm_analysis_port("shared_ap", self)
        self.retire_ap = pyuvm.uvm_analysis_port("retire_ap", self)
        self.lines = self.batches = 0  # lines the Python path decoded (not those the fast path took); batches
        self._file: Any = None
        self._rest = b""
        self._pending: list[tuple[int, int]] = []  # requests not answered, oldest first: (tag, cycle)
        self._seq = 0
        self.cycle = 0  # cycle of the event being published (the HDL memory's count since reset)

    def start_of_simulation_phase(self) -> None:
        # Earlier pyuvm tests of this simulator run wrote to the same file: start after their lines.
        if self.path.exists():
            self._file = open(self.path, "rb")  # noqa: SIM115 - kept open for the whole run
            self._file.seek(0, os.SEEK_END)

    async def run_phase(self) -> None:
        batch = self.dut.trace_batch
        while True:
            await ValueChange(batch)
            self.drain()

    def drain(self) -> None:
        """Read and publish every complete line written so far."""
        if self._file is None:
            if not self.path.exists():
                return
            self._file = open(self.path, "rb")  # noqa: SIM115 - kept open for the whole run
        # (bytes: the fast path parses them as they are; the trace is ASCII, so latin-1 decodes it
        # exactly and cheaply for the Python path)
        raw = self._rest + self._file.read()
        if not raw:
            return
        self.batches += 1
        cut = raw.rfind(b"\n") + 1
        self._rest = raw[cut:]
        to = port_writers(self.retire_ap)
        only = to[0] if len(to) == 1 else None  # (one subscriber, the launch checker: called directly)
        checker = getattr(only, "__self__", None)
        if getattr(checker, "fast", None) is not None:
            self._drain_fast(raw[:cut], only, checker)
            return
        lines = raw[:cut].decode("latin-1").splitlines()
        self.lines += len(lines)
        # Retire lines are most of the trace: decoded all at once (spec/retire_record.py decode_lines)
        # and handed straight to the subscribers' write functions (the port's connections, read once),
        # in trace order; a line the bulk decoder leaves (X/Z, an odd layout) is decoded on its own.
        retires = iter(decode_lines(lines, self.cfg.warp_size))
        for line in lines:
            if line[:1] == "R":
                decoded = next(retires)
                if decoded is None:
                    self._event(line)
                    continue
                self.cycle, sm, record = decoded
                if only is not None:
                    only((record, sm))
                    continue
                event = (record, sm)
                for write in to:
                    write(event)
            else:
                self._event(line)

    def _drain_fast(self, buf: bytes, write: Any, checker: Any) -> None:
        """:meth:`drain` with the compiled fast path on (``SIMT_FAST_CHECK=1``, tb/fastcheck): it checks
        the retire lines it takes, in trace order; every other line is published here as without it
        (a retire it leaves goes to the launch checker, with the model's warp handed over and back)."""
        pos, end = 0, len(buf)
        fast = None
        while pos < end:
            f = checker.fast
            if buf[pos] in (80, 81, 82, 83) and f is not None and checker.fault is None:  # (P, Q, R, S)
                if f is not fast:
                    if fast is not None:
                        fast.flush()
                    fast = f
                    if f.monitor is None:
                        f.bind(self, checker, port_writers(self.request_ap), port_writers(self.response_ap))
                new = f.run(buf, pos, end)
                if new != pos:
                    self.cycle = f.st.last_cycle
                    pos = new
                    if pos >= end:
                        break
            nl = buf.index(b"\n", pos)
            line = buf[pos:nl].decode("latin-1")
            pos = nl + 1
            self.lines += 1
            if line[:1] != "R":
                if fast is not None:
                    if line[:1] == "S":
                        fast.spill()  # (the shared board is about to see bank writes: those held first)
                    elif line[:1] in "QPZE":
                        fast.release()  # (global memory traffic: what the fast path holds first)
                    elif line[:1] == "D":
                        fast.blocks_done()  # (a dispatch: the blocks it finished first, for residency)
                self._event(line)
                continue
            t = line.split()
            self.cycle = int(t[1], 16)
            record, sm = decode_retire(t[3:], self.cfg.warp_size), int(t[2])
            f = checker.fast
            if f is None:
                write((record, sm))
                continue
            f.before_python(record.block, record.warp, sm, record.slot)
            write((record, sm))
            f.after_python(record.block, record.warp)
        if fast is not None:
            fast.flush()

    def _event(self, line: str) -> None:
        t = line.split()
        kind = t[0]
        if kind == "R":  # (drain decodes these itself)
            self.cycle = int(t[1], 16)
            self.retire_ap.write((decode_retire(t[3:], self.cfg.warp_size), int(t[2])))
            return
        if kind == "Z":
            self._pending.clear()
            return
        if kind == "E":
            raise ProtocolError(
                f"memory port: {PROTOCOL_ERRORS.get(int(t[1], 16), t[1])} (trace {self.path})"
            )
        self.cycle = int(t[1], 16)
        if kind == "S":
            try:
                flat = [int(x, 16) for x in " ".join(t[5:]).replace(":", " ").split()]
            except ValueError:
                bad = next((p for p in t[5:] if not set(p.replace(":", "")) <= _HEX), " ".join(t[5:]))
                raise AssertionError(
                    f"shared-memory observation carries X/Z in a written bank: {bad}"
                ) from None
            event: Any = (int(t[2]), t[3] == "1", list(zip(flat[::2], flat[1::2])), int(t[4], 16))
            for write in port_writers(self.shared_ap):
                write(event)
        elif kind == "Q":
            cycle, addr, write, mask, data, tag = map(int, t[1:7], _B16)
            event = MemTxn(
                addr, bool(write), mask, self._words(data), tag, cycle, seq=self._seq, held=t[7] == "1"
            )
            for w in port_writers(self.request_ap):
                w(event)
            self._pending.append((tag, cycle))
            self._seq += 1
        elif kind == "P":
            cycle, tag, rdata = self.cycle, int(t[2], 16), int(t[3], 16)
            latency, overtook = 0, False
            for i, (ptag, pcycle) in enumerate(self._pending):
                if ptag == tag:
                    latency, overtook = cycle - pcycle, i > 0
                    del self._pending[i]
                    break
            event = MemResponse(tag, self._words(rdata), latency, overtook)
            for w in port_writers(self.response_ap):
                w(event)
        elif kind == "D":
            self.dispatch_ap.write((int(t[2], 16), int(t[3])))
        else:
            raise AssertionError(f"trace {self.path}: unknown line {line!r}")

    def _words(self, packed: int) -> tuple[int, ...]:
        """The segment's words (word i in bits 32i+31..32i of ``packed``)."""
        n = self.cfg.seg_words
        return struct.unpack(f"<{n}I", (packed & ((1 << (32 * n)) - 1)).to_bytes(4 * n, "little"))
