"""The retire record: the one definition of what the RTL reports for every retired warp-instruction.

The SM's ``rt_*`` ports, their packing at the GPU top, the trace the test wrapper writes
(tb/hdl/simt_tb_trace.v), the Python record the scoreboards compare (:class:`RtlRetire`) and the
table in docs/sm.md "Retire port" all come from :data:`FIELDS`:

* ``python -m spec.gen`` writes ``rtl/include/simt_retire.vh`` (field widths, and the trace
  line of one SM's record) and the docs table; ``make model`` fails when either is stale;
* :class:`RtlRetire` is built from the table, and :func:`decode` reads a trace line in its order.

Widths are Verilog expressions in ``WARP_SIZE`` and ``DEPTH_W`` (= clog2(STACK_DEPTH + 1)).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, make_dataclass
from typing import Any


@dataclass(frozen=True)
class Field:
    name: str  # Python attribute; the port is rt_<name>
    width: str  # Verilog width expression
    kind: type  # int or bool (values: list of lanes)
    doc: str
    default: Any = None  # fields with a default may be left out by hand-built records (model tests)

    @property
    def port(self) -> str:
        return f"rt_{self.name}"

    @property
    def macro(self) -> str:
        return f"SIMT_RT_{self.name.upper()}_W"

    def bits(self, warp_size: int, depth_w: int) -> int:
        return int(eval(self.width, {}, {"WARP_SIZE": warp_size, "DEPTH_W": depth_w}))  # noqa: S307 - our table


FIELDS: tuple[Field, ...] = (
    Field("block", "32", int, "flat block index"),
    Field("warp", "5", int, "warp index in the block"),
    Field("pc", "17", int, "pc of the instruction"),
    Field("instr", "32", int, "instruction word"),
    Field("mask", "WARP_SIZE", int, "active mask"),
    Field("wr", "1", bool, "writes register `rd`"),
    Field("rd", "5", int, "destination register"),
    Field("values", "WARP_SIZE*32", list, "`rd` of every lane after the write (lane i in bits 32i+31..32i); only "
          "active lanes are meaningful (inactive lanes may hold anything, X included on Icarus: None)"),
    Field("next_pc", "17", int, "pc the warp continues with"),
    Field("next_mask", "WARP_SIZE", int, "active mask the warp continues with"),
    Field("pushes", "1", int, "divergence-stack pushes of the instruction"),
    Field("pops", "DEPTH_W", int, "divergence-stack pops of the instruction"),
    Field("merged", "1", int, "a DIV entry was merged"),
    Field("depth", "DEPTH_W", int, "stack depth after the instruction"),
    Field("passes", "7", int, "shared access: passes"),
    Field("txns", "6", int, "global access: transactions"),
    Field("barrier", "1", bool, "the warp arrived at a barrier"),
    Field("done", "1", bool, "the warp finished"),
    Field("slot", "4", int, "block slot of the warp's block in its SM (shared physical address = "
          "slot · `cfg_sh_stride` + address)", 0),
    Field("top_pc", "17", int, "top of the warp's divergence stack after the instruction: pc (rpc of a SYNC, "
          "path pc of a DIV); 0 when `depth` is 0", 0),
    Field("top_mask", "WARP_SIZE", int, "top of stack: mask as pushed, merges OR-ed in", 0),
    Field("top_kind", "1", int, "top of stack: kind, 0 SYNC, 1 DIV (the model's `Warp.stack[-1]` = "
          "[kind, pc, mask])", 0),
)  # fmt: skip

_TYPES = {int: int, bool: bool, list: "list[int | None]"}

#: One record of the retire port, as the scoreboards see it (RTL side).
RtlRetire = make_dataclass(
    "RtlRetire",
    [
        (f.name, _TYPES[f.kind]) if f.default is None else (f.name, _TYPES[f.kind], field(default=f.default))
        for f in FIELDS
    ],
    slots=True,
)
RtlRetire.__module__ = __name__
RtlRetire.__doc__ = (
    'One record of an SM\'s retire port (docs/sm.md "Retire port"); fields: spec/retire_record.py.'
)


def _lanes(hexdigits: str, warp_size: int) -> list[int | None]:
    """Lane values from the trace's hex (MSB first, lane 0 last); a lane with X/Z digits is None."""
    try:
        words = struct.unpack(f">{warp_size}I", bytes.fromhex(hexdigits))
    except ValueError:  # X or Z somewhere (Icarus: lanes never written): lane by lane
        pass
    else:
        return list(reversed(words))
    out: list[int | None] = []
    end = len(hexdigits)
    for _ in range(warp_size):
        chunk = hexdigits[end - 8 : end]
        end -= 8
        try:
            out.append(int(chunk, 16))
        except ValueError:
            out.append(None)
    return out


_VALUES = next(i for i, f in enumerate(FIELDS) if f.kind is list)
_BOOLS = tuple(i for i, f in enumerate(FIELDS) if f.kind is bool)


def decode(tokens: list[str], warp_size: int) -> Any:
    """An RtlRetire from the hex fields of a trace line's retire record (after ``R <cycle> <sm>``)."""
    if len(tokens) != len(FIELDS):
        raise AssertionError(
            f"retire record with {len(tokens)} fields, the table has {len(FIELDS)}: {tokens}"
        )
    try:
        vals: list[Any] = [int(t, 16) for t in tokens]
    except ValueError:
        vals = [0] * len(tokens)
        for i, (f, tok) in enumerate(zip(FIELDS, tokens, strict=True)):
            if i == _VALUES:
                continue
            try:
                vals[i] = int(tok, 16)
            except ValueError:
                raise AssertionError(f"retire field {f.name} carries X/Z: {tok}") from None
    vals[_VALUES] = _lanes(tokens[_VALUES], warp_size)
    for i in _BOOLS:
        vals[i] = bool(vals[i])
    return RtlRetire(*vals)


def verilog_format() -> tuple[str, str]:
    """The $fwrite format of a trace line ``R <cycle> <sm> <fields>`` and the argument list of SM
    ``s``'s record fields (slices of a packed bus ``rec`` of one record per SM, simt_retire.vh)."""
    fmt = "R %h %0d " + " ".join("%h" for _ in FIELDS) + "\\n"
    args = ", ".join(f"`SIMT_RT_{f.name.upper()}(rec, s)" for f in FIELDS)
    return fmt, args


def doc_rows() -> list[str]:
    rows = ["| port | width | meaning |", "|---|---|---|", "| `rt_valid` | 1 | a record this cycle |"]
    for f in FIELDS:
        width = f.width.replace("*", "·")
        rows.append(f"| `{f.port}` | {width} | {f.doc} |")
    return rows
