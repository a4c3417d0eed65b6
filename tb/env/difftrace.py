"""Execution traces for the dual-simulator differential (tb/tests/differential, docs/verification.md).

:class:`TraceWriter` (a pyuvm component the ``TraceTest`` of tb/tests/system/gpu_tests.py adds to
the environment) writes one text line per event of the run, in order: every block dispatch, every
retired warp-instruction (sim cycle, SM, block, warp, pc, instruction, active mask, destination and
the value of every active lane, the divergence-stack and memory fields of the retire record), every
global-memory request and response, and at the end of each launch its outcome, performance counters
and final global memory (a SHA-256 and every non-zero word). Only what the design defines is
written: lanes outside the mask, store data outside the word mask and values of instructions that
write no register are left out, since Icarus (4-state, X) and Verilator (2-state, random initial
state) may legitimately differ there.

Events of one launch are sorted by (cycle, kind) before they are written, so the order in which the
simulator happens to wake the monitors within one cycle does not matter. Lines starting with ``#``
(the header: simulator, seeds) are not compared. :func:`first_difference` compares two traces.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cocotb
import numpy as np
import pyuvm

_RANK = {"D": 0, "R": 1, "Q": 2, "P": 3}


def _cycle() -> int:
    return int(cocotb.utils.get_sim_time("ns") // 10)


class TraceWriter(pyuvm.uvm_component):
    """Subscribes to the monitors and the host driver; writes the trace file ``path`` (SIMT_TRACE)."""

    def build_phase(self) -> None:
        db = pyuvm.ConfigDB()
        self.cfg = db.get(self, "", "GPU_CFG")
        self.mem: np.ndarray = db.get(self, "", "GMEM")
        self.path = Path(os.environ.get("SIMT_TRACE") or "trace.txt")
        self.pending: list[tuple[int, int, int, str]] = []
        self.seq = 0
        self.lines = 0
        self.file = open(self.path, "w")  # noqa: SIM115 - closed in final_phase
        Imp = pyuvm.uvm_subscriber.uvm_AnalysisImp
        self.retire_export = Imp("retire_export", self, self.write_retire)
        self.dispatch_export = Imp("dispatch_export", self, self.write_dispatch)
        self.request_export = Imp("request_export", self, self.write_request)
        self.response_export = Imp("response_export", self, self.write_response)
        self.launch_export = Imp("launch_export", self, self.write_launch)
        self.clock = _cycle  # the cycle of the event being written (the test may give the trace's own)

    def header(self, text: str) -> None:
        self.file.write(f"# {text}\n")

    def _add(self, kind: str, text: str) -> None:
        cycle = self.clock()
        self.pending.append((cycle, _RANK[kind], self.seq, f"{kind} {cycle} {text}"))
        self.seq += 1

    def _flush(self) -> None:
        for *_, line in sorted(self.pending):
            self.file.write(line + "\n")
        self.lines += len(self.pending)
        self.pending = []

    def _out(self, line: str) -> None:
        self.file.write(line + "\n")
        self.lines += 1

    # ---- observations ----------------------------------------------------------------------------
    def write_dispatch(self, event: tuple[int, int]) -> None:
        block, sm = event
        self._add("D", f"sm={sm} block={block}")

    def write_retire(self, event: tuple[Any, int]) -> None:
        r, sm = event
        lanes = [i for i in range(r.mask.bit_length()) if r.mask >> i & 1] if r.wr else []
        vals = " ".join(f"{i}:{'x' if r.lane(i) is None else f'{r.lane(i):08x}'}" for i in lanes)
        self._add(
            "R",
            f"sm={sm} block={r.block} warp={r.warp} pc={r.pc} instr={r.instr:08x} mask={r.mask:x} "
            f"wr={int(r.wr)} rd={r.rd} next={r.next_pc}/{r.next_mask:x} push={r.pushes} pop={r.pops} "
            f"merged={r.merged} depth={r.depth} top={r.top_kind}/{r.top_pc}/{r.top_mask:x} "
            f"passes={r.passes} txns={r.txns} bar={int(r.barrier)} done={int(r.done)} slot={r.slot} "
            f"v=[{vals}]",
        )

    def write_request(self, txn: Any) -> None:
        data = (
            " ".join(f"{w:08x}" if txn.mask >> i & 1 else "-" for i, w in enumerate(txn.data))
            if txn.write
            else ""
        )
        self._add(
            "Q", f"addr={txn.addr:x} write={int(txn.write)} mask={txn.mask:x} tag={txn.tag} data=[{data}]"
        )

    def write_response(self, rsp: Any) -> None:
        self._add("P", f"tag={rsp.tag} rdata=[{' '.join(f'{w:08x}' for w in rsp.rdata)}]")

    def write_launch(self, event: tuple[str, Any]) -> None:
        what, item = event
        self._flush()
        if what == "begin":
            self._out(f"L {_cycle()} begin {item.get_name()} seed={item.seed}")
            return
        self._out(
            f"L {_cycle()} {what} {item.get_name()} status={item.status:x} cycles={item.cycles} "
            f"perf={','.join(f'{k}={v}' for k, v in sorted(item.perf.items()))}"
        )
        if what == "end":
            words = self.mem.astype(np.uint32)
            self._out(
                f"M sha256={hashlib.sha256(words.tobytes()).hexdigest()} nonzero={int(np.count_nonzero(words))}"
            )
            for row in range(0, len(words), 8):
                chunk = words[row : row + 8]
                if chunk.any():
                    self._out(f"W {row:05x}: " + " ".join(f"{int(w):08x}" for w in chunk))

    def final_phase(self) -> None:
        self._flush()
        self.file.close()
        self.logger.info(f"trace: {self.lines} lines written to {self.path}")


# --------------------------------------------------------------------------- comparison


def _body(lines: Sequence[str]) -> list[tuple[int, str]]:
    return [(n, line.rstrip("\n")) for n, line in enumerate(lines, start=1) if not line.startswith("#")]


def first_difference(a: Sequence[str], b: Sequence[str], names: tuple[str, str] = ("a", "b")) -> str | None:
    """None if the traces agree (header lines aside), else where they first differ, in words.

    The message names the line of each trace, the launch it belongs to, and both lines.
    """
    ta, tb = _body(a), _body(b)
    launch = "(before the first launch)"
    for i in range(max(len(ta), len(tb))):
        la = ta[i] if i < len(ta) else None
        lb = tb[i] if i < len(tb) else None
        if la is not None and lb is not None and la[1] == lb[1]:
            if la[1].startswith("L ") and " begin " in la[1]:
                launch = la[1].split(" begin ", 1)[1]
            continue
        width = max(len(n) for n in names)
        where = f"line {la[0] if la else '-'} of {names[0]}, line {lb[0] if lb else '-'} of {names[1]}"
        return (
            f"traces differ at event {i + 1} ({where}), in launch {launch}:\n"
            f"  {names[0]:<{width}}: {la[1] if la else '<trace ended>'}\n"
            f"  {names[1]:<{width}}: {lb[1] if lb else '<trace ended>'}"
        )
    return None


def compare_files(a: Path, b: Path, names: tuple[str, str] | None = None) -> str | None:
    """:func:`first_difference` of two trace files (also an error when a trace holds no launch)."""
    texts = [Path(p).read_text().splitlines() for p in (a, b)]
    for p, t in zip((a, b), texts):
        if not any(line.startswith("L ") for line in t):
            return f"trace {p} holds no launch: the run did not get as far as starting a kernel"
    return first_difference(texts[0], texts[1], names or (str(a), str(b)))
