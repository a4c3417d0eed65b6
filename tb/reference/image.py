"""Kernel launch image: everything a launch needs, as a stream of 32-bit words.

The format (docs/isa.md, "Launch image") follows the spirit of seed 000 Table 4.3: tagged records.
Word 0 is the magic ``0x53494D54`` (the ASCII bytes "SIMT"), word 1 the format version; then records, each a header word ``tag << 24 | count`` and ``count`` payload
words, closed by an END record. As a ``.hex`` file it holds one 8-digit hex word per line, with
``//`` comments, so Verilog's ``$readmemh`` loads it unchanged.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from .config import GpuConfig
from .isa import NUM_PARAMS, NUM_REG_FIELD, WORD_MASK

MAGIC = 0x53494D54
VERSION = 1
MAX_DIM = 0xFFFF  # each grid and block dimension is 1..65535
MAX_COUNT = (1 << 24) - 1


class Tag(enum.IntEnum):
    GRID = 0x01  # 3 words: x, y, z
    BLOCK = 0x02  # 3 words: x, y, z
    REGS = 0x03  # 1 word: registers per thread (1..32)
    SHARED = 0x04  # 1 word: shared-memory words per block
    PARAM = 0x05  # n words: kernel parameters 0..n-1 (n <= 16)
    INSTR = 0x06  # n words: instruction memory 0..n-1; execution starts at 0
    CONST = 0x07  # n words: constant memory 0..n-1
    DATA = 0x08  # 1 + n words: global base address, then n words of initial global memory
    END = 0x0F  # 0 words


# Records other than DATA and END: each exactly once, in this order.
RECORD_ORDER = (Tag.GRID, Tag.BLOCK, Tag.REGS, Tag.SHARED, Tag.PARAM, Tag.INSTR, Tag.CONST)
MAX_BLOCKS = (1 << 32) - 1  # flat block indices are 32 bits wide


class LaunchError(ValueError):
    """A launch that cannot run on the configured machine (refused before simulation)."""


class ImageFormatError(ValueError):
    """A word stream that is not a well-formed launch image."""


@dataclass
class LaunchImage:
    code: list[int]
    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (32, 1, 1)
    regs: int = 8
    shared_words: int = 0
    params: list[int] = field(default_factory=list)
    consts: list[int] = field(default_factory=list)
    data: list[tuple[int, list[int]]] = field(default_factory=list)  # (global base, words)

    @property
    def threads_per_block(self) -> int:
        x, y, z = self.block
        return x * y * z

    @property
    def num_blocks(self) -> int:
        x, y, z = self.grid
        return x * y * z

    def warps_per_block(self, warp_size: int) -> int:
        return -(-self.threads_per_block // warp_size)

    # ---- word stream --------------------------------------------------------------------------
    def to_words(self) -> list[int]:
        out = [MAGIC, VERSION]

        def rec(tag: Tag, payload: list[int]) -> None:
            if len(payload) > MAX_COUNT:
                raise ImageFormatError(f"{tag.name} record too long ({len(payload)} words)")
            out.append((tag << 24) | len(payload))
            out.extend(w & WORD_MASK for w in payload)

        rec(Tag.GRID, list(self.grid))
        rec(Tag.BLOCK, list(self.block))
        rec(Tag.REGS, [self.regs])
        rec(Tag.SHARED, [self.shared_words])
        rec(Tag.PARAM, list(self.params))
        rec(Tag.INSTR, list(self.code))
        rec(Tag.CONST, list(self.consts))
        for base, words in self.data:
            rec(Tag.DATA, [base, *words])
        rec(Tag.END, [])
        return out

    @classmethod
    def from_words(cls, words: list[int]) -> LaunchImage:
        if len(words) < 2 or words[0] != MAGIC:
            raise ImageFormatError("not a launch image (bad magic word)")
        if words[1] != VERSION:
            raise ImageFormatError(f"unsupported launch image version {words[1]} (expected {VERSION})")
        fields_seen: dict[Tag, list[int]] = {}
        data: list[tuple[int, list[int]]] = []
        order = list(RECORD_ORDER)  # the records still expected, in order (docs/isa.md 8.3)
        i = 2
        while True:
            if i >= len(words):
                raise ImageFormatError("launch image ends without an END record")
            tag_raw, count = words[i] >> 24, words[i] & MAX_COUNT
            try:
                tag = Tag(tag_raw)
            except ValueError:
                raise ImageFormatError(f"word {i}: unknown record tag 0x{tag_raw:02x}") from None
            payload = words[i + 1 : i + 1 + count]
            if len(payload) != count:
                raise ImageFormatError(f"word {i}: {tag.name} record truncated")
            i += 1 + count
            if tag is Tag.END:
                if count:
                    raise ImageFormatError(f"word {i - 1 - count}: END record with a payload")
                if order:
                    raise ImageFormatError(f"END before the {order[0].name} record")
                break
            if tag is Tag.DATA:
                if order:
                    raise ImageFormatError(f"DATA record before the {order[0].name} record")
                if not payload:
                    raise ImageFormatError(f"word {i}: DATA record without a base address")
                data.append((payload[0], payload[1:]))
                continue
            if tag in fields_seen:
                raise ImageFormatError(f"duplicate {tag.name} record")
            if not order or tag is not order[0]:
                expected = order[0].name if order else "DATA or END"
                raise ImageFormatError(f"{tag.name} record out of order: expected {expected}")
            order.pop(0)
            fields_seen[tag] = payload
        for tag, n in ((Tag.GRID, 3), (Tag.BLOCK, 3), (Tag.REGS, 1), (Tag.SHARED, 1)):
            if len(fields_seen.get(tag, [])) != n:
                raise ImageFormatError(f"{tag.name} record missing or not {n} word(s)")
        if Tag.INSTR not in fields_seen:
            raise ImageFormatError("INSTR record missing")
        g, b = fields_seen[Tag.GRID], fields_seen[Tag.BLOCK]
        return cls(
            code=fields_seen[Tag.INSTR],
            grid=(g[0], g[1], g[2]),
            block=(b[0], b[1], b[2]),
            regs=fields_seen[Tag.REGS][0],
            shared_words=fields_seen[Tag.SHARED][0],
            params=fields_seen.get(Tag.PARAM, []),
            consts=fields_seen.get(Tag.CONST, []),
            data=data,
        )

    # ---- hex file -----------------------------------------------------------------------------
    def to_hex(self) -> str:
        lines = ["// SIMT launch image (docs/isa.md, 'Launch image'); $readmemh-compatible"]
        lines += [f"{w:08x}" for w in self.to_words()]
        return "\n".join(lines) + "\n"

    def write_hex(self, path: str | Path) -> None:
        Path(path).write_text(self.to_hex())

    @classmethod
    def read_hex(cls, path: str | Path) -> LaunchImage:
        words: list[int] = []
        for lineno, line in enumerate(Path(path).read_text().splitlines(), 1):
            text = line.split("//", 1)[0]
            for tok in text.split():
                try:
                    words.append(int(tok, 16))
                except ValueError:
                    raise ImageFormatError(f"{path}:{lineno}: not a hex word: {tok!r}") from None
        return cls.from_words(words)

    # ---- legality -----------------------------------------------------------------------------
    def check(self, cfg: GpuConfig) -> LaunchImage:
        """Refuse a launch that cannot run on ``cfg`` (LaunchError naming the limit); return self."""
        cfg.check()

        def fail(msg: str) -> None:
            raise LaunchError(f"illegal launch: {msg}")

        for name, dims in (("grid", self.grid), ("block", self.block)):
            if len(dims) != 3 or not all(1 <= d <= MAX_DIM for d in dims):
                fail(f"{name} dimensions {dims} must be three values in 1..{MAX_DIM}")
        if self.num_blocks > MAX_BLOCKS:
            fail(f"a grid of {self.num_blocks} blocks exceeds {MAX_BLOCKS} (flat block indices are 32 bits)")
        if not 1 <= self.regs <= NUM_REG_FIELD:
            fail(f"registers per thread {self.regs} must be in 1..{NUM_REG_FIELD}")
        warps = self.warps_per_block(cfg.warp_size)
        if warps > cfg.num_warps:
            fail(
                f"a block of {self.threads_per_block} threads needs {warps} warps; "
                f"an SM holds {cfg.num_warps} (num_warps)"
            )
        rf_need = warps * cfg.warp_rows * self.regs
        if rf_need > cfg.rf_depth:
            fail(
                f"a block needs {rf_need} register rows per lane ({warps} warps x {cfg.warp_rows} rows x "
                f"{self.regs} registers); the register file has {cfg.rf_depth} (rf_depth)"
            )
        if not 0 <= self.shared_words <= cfg.shared_words:
            fail(f"shared words per block {self.shared_words} exceed the SM's {cfg.shared_words}")
        if len(self.params) > NUM_PARAMS:
            fail(f"{len(self.params)} parameters given; at most {NUM_PARAMS}")
        if not self.code:
            fail("the kernel has no instructions")
        if len(self.code) > cfg.imem_words:
            fail(f"{len(self.code)} instructions exceed instruction memory ({cfg.imem_words} words)")
        if len(self.consts) > cfg.const_words:
            fail(f"{len(self.consts)} constants exceed constant memory ({cfg.const_words} words)")
        for base, words in self.data:
            if base < 0 or base + len(words) > cfg.global_words:
                fail(
                    f"data at global [{base}, {base + len(words)}) outside global memory "
                    f"({cfg.global_words} words)"
                )
        return self
