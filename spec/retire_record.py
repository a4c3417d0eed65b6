"""The retire record: the one definition of what the RTL reports for every retired warp-instruction.

The SM's ``rt_*`` ports, their packing at the GPU top, the trace the test wrapper writes
(tb/hdl/simt_tb_trace.v), the Python record the scoreboards compare (:class:`RtlRetire`) and the
table in docs/sm.md "Retire port" all come from :data:`FIELDS`:

* ``python -m spec.gen`` writes ``rtl/include/simt_retire.vh`` (field widths, and the trace
  line of one SM's record) and the docs table; ``make model`` fails when either is stale;
* :class:`RtlRetire` is built from the table, and :func:`decode` reads a trace line in its order;
* :func:`project` turns the golden model's retire into the RtlRetire a correct RTL reports, so the
  scoreboards compare whole records with ``==``; on a difference :func:`differences` lists the
  differing fields, each with the scoreboard that owns it (``Field.board``: the table is the
  partition of the record among the boards).

Widths are Verilog expressions in ``WARP_SIZE`` and ``DEPTH_W`` (= clog2(STACK_DEPTH + 1)).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np

#: The scoreboards that own the record's fields, in the order a mismatch is attributed: when fields of
#: several boards differ on one retire, the first board here names the mismatch (docs/verification.md).
BOARDS = ("retire", "divergence", "shared memory", "coalescing/bank")


@dataclass(frozen=True)
class Field:
    name: str  # Python attribute; the port is rt_<name>
    width: str  # Verilog width expression
    kind: type  # int or bool; list: the lanes' values, packed as on the bus (lane i in bits 32i+31..32i)
    doc: str
    board: str  # the scoreboard that owns (reports) this field: one of BOARDS
    default: Any = None  # fields with a default may be left out by hand-built records (model tests)
    show: str = "{}"  # how a value is printed in a mismatch table

    @property
    def port(self) -> str:
        return f"rt_{self.name}"

    @property
    def macro(self) -> str:
        return f"SIMT_RT_{self.name.upper()}_W"

    def bits(self, warp_size: int, depth_w: int) -> int:
        return int(eval(self.width, {}, {"WARP_SIZE": warp_size, "DEPTH_W": depth_w}))  # noqa: S307 - our table


R, D, S, C = BOARDS
HEX, WORD = "0x{:x}", "0x{:08x}"
FIELDS: tuple[Field, ...] = (
    Field("block", "32", int, "flat block index", R),
    Field("warp", "5", int, "warp index in the block", R),
    Field("pc", "17", int, "pc of the instruction", R),
    Field("instr", "32", int, "instruction word", R, show=WORD),
    Field("mask", "WARP_SIZE", int, "active mask", R, show=HEX),
    Field("wr", "1", bool, "writes register `rd`", R),
    Field("rd", "5", int, "destination register", R, show="r{}"),
    Field("values", "WARP_SIZE*32", list, "`rd` of every lane after the write (lane i in bits 32i+31..32i); only "
          "active lanes are meaningful (inactive lanes may hold anything, X included on Icarus)", R, show=WORD),
    Field("next_pc", "17", int, "pc the warp continues with", D),
    Field("next_mask", "WARP_SIZE", int, "active mask the warp continues with", D, show=HEX),
    Field("pushes", "1", int, "divergence-stack pushes of the instruction", D),
    Field("pops", "DEPTH_W", int, "divergence-stack pops of the instruction", D),
    Field("merged", "1", int, "a DIV entry was merged", D),
    Field("depth", "DEPTH_W", int, "stack depth after the instruction", D),
    Field("passes", "7", int, "shared access: passes", C),
    Field("txns", "6", int, "global access: transactions", C),
    Field("barrier", "1", bool, "the warp arrived at a barrier", R),
    Field("done", "1", bool, "the warp finished", R),
    Field("slot", "4", int, "block slot of the warp's block in its SM (shared physical address = "
          "slot · `cfg_sh_stride` + address)", S, 0),
    Field("top_pc", "17", int, "top of the warp's divergence stack after the instruction: pc (rpc of a SYNC, "
          "path pc of a DIV); 0 when `depth` is 0", D, 0),
    Field("top_mask", "WARP_SIZE", int, "top of stack: mask as pushed, merges OR-ed in", D, 0, HEX),
    Field("top_kind", "1", int, "top of stack: kind, 0 SYNC, 1 DIV (the model's `Warp.stack[-1]` = "
          "[kind, pc, mask])", D, 0),
)  # fmt: skip
assert all(f.board in BOARDS for f in FIELDS)

M32 = 0xFFFF_FFFF


class RtlRetire(
    namedtuple(  # noqa: PYI024 - built from the table, so not a class statement
        "RtlRetire",
        [f.name for f in FIELDS] + ["xlanes"],
        defaults=[f.default for f in FIELDS if f.default is not None] + [0],
    )
):
    """One record of an SM's retire port (docs/sm.md "Retire port"), as the scoreboards see it, and what
    the model's retire projects to (:func:`project`): the scoreboards compare the two with ``==``.

    Fields: :data:`FIELDS` in table order, then ``xlanes`` (not a port: the lanes whose value the
    trace showed as X/Z, bit i = lane i; Icarus only). ``values`` packs the lanes as the bus does;
    :meth:`lane` reads one. A tuple: built, compared and read at C speed, once per retire."""

    __slots__ = ()

    def lane(self, i: int) -> int | None:
        """Lane ``i``'s value of ``values`` (None: the trace showed X/Z there)."""
        return None if self.xlanes >> i & 1 else self.values >> (32 * i) & M32


assert RtlRetire._fields[: len(FIELDS)] == tuple(f.name for f in FIELDS)
_new = tuple.__new__  # RtlRetire from a sequence in field order, without the keyword machinery

_VALUES = next(i for i, f in enumerate(FIELDS) if f.kind is list)
_BOOLS = tuple(i for i, f in enumerate(FIELDS) if f.kind is bool)
_BASES = (16,) * len(FIELDS)


def _lanes_with_x(hexdigits: str) -> tuple[int, int]:
    """Packed lane values and X/Z lanes from the trace's hex (MSB first, lane 0 last); an X/Z lane
    reads 0 and sets its bit in the second result."""
    value = xlanes = 0
    end, lane = len(hexdigits), 0
    while end > 0:
        chunk = hexdigits[max(0, end - 8) : end]
        try:
            value |= int(chunk, 16) << (32 * lane)
        except ValueError:
            xlanes |= 1 << lane
        end -= 8
        lane += 1
    return value, xlanes


def decode(tokens: list[str], warp_size: int) -> Any:
    """An RtlRetire from the hex fields of a trace line's retire record (after ``R <cycle> <sm>``)."""
    if len(tokens) != len(FIELDS):
        raise AssertionError(
            f"retire record with {len(tokens)} fields, the table has {len(FIELDS)}: {tokens}"
        )
    xlanes = 0
    try:
        vals: list[Any] = list(map(int, tokens, _BASES))
    except ValueError:
        vals = [0] * len(tokens)
        for i, (f, tok) in enumerate(zip(FIELDS, tokens, strict=True)):
            if i == _VALUES:
                vals[i], xlanes = _lanes_with_x(tok)
                continue
            try:
                vals[i] = int(tok, 16)
            except ValueError:
                raise AssertionError(f"retire field {f.name} carries X/Z: {tok}") from None
    for i in _BOOLS:
        vals[i] = vals[i] == 1  # (a 1-bit field: the bool the table names)
    vals.append(xlanes)
    return _new(RtlRetire, vals)


# ---- many trace lines at once ------------------------------------------------------------------------
_NIBBLE = np.full(256, 255, np.uint8)  # ASCII -> digit value (hex and decimal); 255: not a digit (X, Z, ...)
for _i, _c in enumerate("0123456789abcdef"):
    _NIBBLE[ord(_c)] = _NIBBLE[ord(_c.upper())] = _i
_SPACE = ord(" ")
BULK_MIN = 16  # fewer retire lines than this of one length are decoded line by line


def decode_lines(lines: list[str], warp_size: int) -> list[tuple[int, int, Any] | None]:
    """``(cycle, sm, record)`` of each retire line (``R <cycle> <sm> <fields>``) of ``lines``, in order
    (other lines are skipped), equal to what :func:`decode` gives line by line, but decoded column by
    column: the lines of one length share one layout (every field is written at its full hex width),
    so each field is one slice of a character matrix. A line this cannot decode exactly (X/Z in a
    field, a layout of its own, too few lines of its length to be worth it) is None, for
    :func:`decode` to decode, or report, in its turn."""
    rl = [line for line in lines if line[:1] == "R"]
    out: list[tuple[int, int, Any] | None] = [None] * len(rl)
    lengths = set(map(len, rl))
    if len(lengths) == 1:
        groups = [list(range(len(rl)))] if len(rl) >= BULK_MIN else []
    else:
        by: dict[int, list[int]] = {}
        for i, line in enumerate(rl):
            by.setdefault(len(line), []).append(i)
        groups = [g for g in by.values() if len(g) >= BULK_MIN]
    for idx in groups:
        _decode_group(rl, idx, out)
    return out


def _decode_group(lines: list[str], idx: list[int], out: list[tuple[int, int, Any] | None]) -> None:
    first = lines[idx[0]]
    tokens = first.split(" ")
    if len(tokens) != 3 + len(FIELDS) or not all(tokens) or tokens[0] != "R":
        return  # not the layout of a record (decode reports it)
    starts, at = [], 0
    for tok in tokens:
        starts.append(at)
        at += len(tok) + 1
    spans = [(starts[k], starts[k] + len(tokens[k])) for k in range(len(tokens))]
    group = [lines[i] for i in idx]
    raw = "".join(group).encode("latin-1", "replace")
    chars = np.frombuffer(raw, np.uint8).reshape(len(idx), len(first))
    seps = [s - 1 for s in starts[1:]]
    same = (chars[:, seps] == _SPACE).all(axis=1)  # the same layout as the first line
    # every numeric column but the lanes' values (too wide for one machine word: parsed with int())
    v = 3 + _VALUES
    cols = [k for k in range(1, len(tokens)) if k != v]
    if any(spans[k][1] - spans[k][0] > 15 for k in cols):
        return  # a field wider than 60 bits: decode (int) handles any width
    picks = np.concatenate([np.arange(*spans[k]) for k in cols])
    digits = _NIBBLE[chars[:, picks]]
    ok = same & (digits != 255).all(axis=1)
    weights = np.concatenate(
        [
            (10 if k == 2 else 16) ** np.arange(spans[k][1] - spans[k][0] - 1, -1, -1, dtype=np.uint64)
            for k in cols
        ]  # the SM number is decimal (%0d)
    )
    bounds = np.cumsum([0] + [spans[k][1] - spans[k][0] for k in cols[:-1]])
    values = np.add.reduceat(digits.astype(np.uint64) * weights, bounds, axis=1)
    columns: dict[int, list[Any]] = {k: values[:, j].tolist() for j, k in enumerate(cols)}
    for b in _BOOLS:
        columns[3 + b] = (values[:, cols.index(3 + b)] == 1).tolist()
    vs, ve = spans[v]
    nib = _NIBBLE[chars[:, vs:ve]]  # the lanes' hex digits (255: X, Z, a space, ...: decode's lines)
    ok &= (nib != 255).all(axis=1)
    if nib.shape[1] % 2:
        nib = np.concatenate([np.zeros((len(idx), 1), np.uint8), nib], axis=1)
    raw_lanes = ((nib[:, 0::2] << 4) | (nib[:, 1::2] & 15)).tobytes()  # big-endian bytes, row by row
    step = nib.shape[1] // 2
    lanes = list(
        map(int.from_bytes, [raw_lanes[i : i + step] for i in range(0, len(raw_lanes), step)], repeat("big"))
    )
    columns[v] = lanes
    order = [columns[3 + f] for f in range(len(FIELDS))]
    records = map(_new, repeat(RtlRetire), zip(*order, repeat(0, len(idx)), strict=True))
    triples = zip(columns[1], columns[2], records, strict=True)
    if ok.all():
        for i, triple in zip(idx, triples, strict=True):
            out[i] = triple
    else:
        for i, good, triple in zip(idx, ok.tolist(), triples, strict=True):
            if good:
                out[i] = triple


# ---- the model's retire as the RTL reports it ------------------------------------------------------
_LANE_BITS: dict[int, int] = {}
_U4LE = np.dtype("<u4")  # (a dtype object: astype does not parse a string on every retire)


def lane_bits(mask: int) -> int:
    """The bits of ``values`` that the lanes of ``mask`` occupy."""
    bits = _LANE_BITS.get(mask)
    if bits is None:
        bits = sum(M32 << (32 * i) for i in range(mask.bit_length()) if mask >> i & 1)
        if len(_LANE_BITS) < 4096:
            _LANE_BITS[mask] = bits
    return bits


def project(exp: Any, warp: Any, rtl: Any) -> Any:
    """The record a correct RTL reports for the model's retire ``exp`` (spec/records.py ``Retire``;
    ``warp``: the model's warp after it, for its divergence stack).

    What docs/isa.md section 10 leaves open is taken from ``rtl``, so ``project(exp, warp, rtl) == rtl``
    compares exactly the defined fields: the values of inactive lanes, ``rd`` and ``values`` of an
    instruction that writes no register, the next pc, mask and stack of a finished warp, the top of
    an empty stack, the pass count of an access that is not shared, the transaction count of one
    that is not global, and the block slot (the SM's choice)."""
    wr = exp.rd is not None
    values, xlanes, rd = rtl.values, rtl.xlanes, rtl.rd
    if wr:
        rd = exp.rd
        packed = int.from_bytes(exp.values.astype(_U4LE, copy=False).tobytes(), "little")
        mask = exp.mask
        if mask == (1 << len(exp.values)) - 1:  # every lane active: every lane's value is defined
            values, xlanes = packed, 0
        else:
            lanes = lane_bits(mask)
            values = (values & ~lanes) | (packed & lanes)
            xlanes &= ~mask
    pushes = pops = merged = 0
    if exp.stack:
        for e in exp.stack:
            if e.action == "push":
                pushes += 1
            elif e.action == "pop":
                pops += 1
            else:
                merged += 1
    if exp.done:
        next_pc, next_mask, depth = rtl.next_pc, rtl.next_mask, rtl.depth
        top_pc, top_mask, top_kind = rtl.top_pc, rtl.top_mask, rtl.top_kind
    else:
        stack = warp.stack
        next_pc, next_mask, depth = exp.next_pc, exp.next_mask, len(stack)
        if stack:
            kind, top_pc, top_mask = stack[-1]
            top_kind = int(kind == "DIV")
        else:
            top_pc, top_mask, top_kind = rtl.top_pc, rtl.top_mask, rtl.top_kind
    mem = exp.mem
    passes = mem.passes if mem is not None and mem.space == "shared" else rtl.passes
    txns = len(mem.transactions) if mem is not None and mem.space == "global" else rtl.txns
    return _new(RtlRetire, (
        exp.block, exp.warp, exp.pc, exp.word, exp.mask, wr, rd, values, next_pc, next_mask, pushes, pops,
        merged, depth, passes, txns, exp.barrier, exp.done, rtl.slot, top_pc, top_mask, top_kind, xlanes,
    ))  # fmt: skip


def differences(want: Any, got: Any) -> list[tuple[str, str, str, str]]:
    """The fields where ``got`` (the RTL) differs from ``want`` (:func:`project`), as rows
    (field, board, expected, RTL), in table order; ``values`` one row per differing lane."""
    rows = []
    for f in FIELDS:
        w, g = getattr(want, f.name), getattr(got, f.name)
        if f.kind is list:
            if w == g and want.xlanes == got.xlanes:
                continue
            for lane in range(want.mask.bit_length()):  # project() took every other lane from the RTL
                wl, gl = want.lane(lane), got.lane(lane)
                if want.mask >> lane & 1 and wl != gl:
                    shown = "X" if gl is None else f.show.format(gl)
                    rows.append((f"values[lane {lane}] (r{want.rd})", f.board, f.show.format(wl), shown))
        elif w != g:
            rows.append((f.name, f.board, f.show.format(w), f.show.format(g)))
    return rows


def difference_table(rows: list[tuple[str, str, str, str]]) -> str:
    """``rows`` of :func:`differences` as an aligned text table with a header."""
    table = [("field", "board", "expected", "RTL"), *rows]
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    return "\n".join("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in table)


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
