"""Kernel launch image: everything a launch needs, as a stream of 32-bit words.

The format (docs/isa.md, "Launch image") follows the spirit of Lies 2019 (seed 000)
Table 4.3: tagged records.
Word 0 is the magic ``0x53494D54`` (the ASCII bytes "SIMT"), word 1 the format version; then records, each a header word ``tag << 24 | count`` and ``count`` payload
words, closed by an END record. As a ``.hex`` file it holds one 8-digit hex word per line, with
``//`` comments, so Verilog's ``$readmemh`` loads it unchanged.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from pathlib import Path

from . import cli
from .config import GpuConfig
from .image_rules import (
    MAGIC,
    MAX_COUNT,
    MAX_DIM,
    RECORD_ORDER,
    VERSION,
    WORD_LIMIT,
    Rule,
    Tag,
    Verdict,
    check_words,
)

__all__ = ["MAGIC", "MAX_COUNT", "MAX_DIM", "RECORD_ORDER", "VERSION", "Rule", "Tag", "LaunchImage",
           "LaunchError", "ImageFormatError", "MAX_BLOCKS"]  # fmt: skip
MAX_BLOCKS = (1 << 32) - 1  # flat block indices are 32 bits wide


class LaunchError(ValueError, cli.InputError):
    """A launch that cannot run on the configured machine (refused before simulation)."""


class ImageFormatError(ValueError, cli.InputError):
    """A word stream that is not a well-formed launch image."""


def _is_int(v: object) -> bool:
    # (a plain int first: the abc check costs ~1 us a word, and an image has thousands)
    return type(v) is int or (isinstance(v, numbers.Integral) and not isinstance(v, bool))


def _words_problem(name: str, values: object) -> str | None:
    """Why ``values`` is not a list of 32-bit words (None when it is)."""
    if not isinstance(values, (list, tuple)):
        return f"{name} must be a list of 32-bit words, not {type(values).__name__}"
    for k, v in enumerate(values):
        if not _is_int(v) or not 0 <= v < WORD_LIMIT:
            shown = (f"0x{v:x}" if v >= 0 else str(v)) if _is_int(v) else repr(v)
            return f"{name}[{k}] = {shown} is not a 32-bit word (an integer in 0..0xffffffff)"
    return None


# The verdicts of the last few checks, by machine and word stream: a launch is checked when it is
# built and again by the model that runs it (check_words is a Python loop over every word, ~0.1 s for
# a MatrixMul 128 image); the same words on the same machine get the same verdict.
_VERDICTS: dict[tuple[GpuConfig, tuple[int, ...]], Verdict] = {}


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

        if problem := self.field_problem():
            raise LaunchError(f"illegal launch: {problem}")

        def rec(tag: Tag, payload: list[int]) -> None:
            if len(payload) > MAX_COUNT:
                raise LaunchError(f"illegal launch: {tag.name} record too long ({len(payload)} words)")
            out.append((tag << 24) | len(payload))
            out.extend(payload)

        rec(Tag.GRID, list(self.grid))
        rec(Tag.BLOCK, list(self.block))
        rec(Tag.REGS, [self.regs])
        rec(Tag.SHARED, [self.shared_words])
        rec(Tag.PARAM, list(self.params))
        rec(Tag.INSTR, list(self.code))
        rec(Tag.CONST, list(self.consts))
        # DATA in increasing address order (the stream's rule); overlapping records are then refused.
        for base, words in sorted(self.data, key=lambda d: (d[0], len(d[1]))):
            rec(Tag.DATA, [base, *words])
        rec(Tag.END, [])
        return out

    @classmethod
    def from_words(cls, words: list[int]) -> LaunchImage:
        """Parse a stream; ImageFormatError names the first offending word (image_rules.check_words)."""
        verdict = check_words(words)
        if not verdict.ok:
            raise ImageFormatError(verdict.message)
        fields_seen: dict[Tag, list[int]] = {}
        data: list[tuple[int, list[int]]] = []
        i = 2
        while (tag := Tag(words[i] >> 24)) is not Tag.END:
            count = words[i] & MAX_COUNT
            payload = list(words[i + 1 : i + 1 + count])
            if tag is Tag.DATA:
                data.append((payload[0], payload[1:]))
            else:
                fields_seen[tag] = payload
            i += 1 + count
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
        """Read a ``.hex`` image; ImageFormatError says file:line (and byte) of what is wrong."""
        words, lines = parse_hex(Path(path).read_bytes(), str(path))
        verdict = check_words(words)
        if not verdict.ok:
            line = lines[verdict.index] if verdict.index < len(lines) else (lines[-1] if lines else 1)
            raise ImageFormatError(f"{path}:{line}: error: {verdict.message}")
        return cls.from_words(words)

    # ---- legality -----------------------------------------------------------------------------
    def field_problem(self) -> str | None:
        """Why a field does not hold the values a stream can carry (None when all do)."""
        for name, dims in (("grid", self.grid), ("block", self.block)):
            if not isinstance(dims, (tuple, list)) or len(dims) != 3 or not all(_is_int(d) for d in dims):
                return f"{name} dimensions {dims!r} must be three integers in 1..{MAX_DIM}"
        for name, v in (("registers per thread", self.regs), ("shared words per block", self.shared_words)):
            if not _is_int(v) or not 0 <= v < WORD_LIMIT:
                return f"{name} {v!r} is not a 32-bit word"
        for name, values in (("code", self.code), ("params", self.params), ("consts", self.consts)):
            if problem := _words_problem(name, values):
                return problem
        if not isinstance(self.data, (list, tuple)):
            return "data must be a list of (global base, [words]) pairs"
        for k, item in enumerate(self.data):
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                return f"data[{k}] = {item!r} must be a (global base, [words]) pair"
            base, words = item
            if not _is_int(base) or not 0 <= base < WORD_LIMIT:
                return f"data[{k}] base {base!r} is not a 32-bit address"
            if problem := _words_problem(f"data[{k}] words", words):
                return problem
        return None

    def check(self, cfg: GpuConfig) -> LaunchImage:
        """Refuse a launch that cannot run on ``cfg`` (LaunchError naming the limit); return self.

        The same verdict as the loader's on ``to_words()`` (image_rules.check_words), worded for the
        field instead of the word; overlapping DATA records are refused."""
        cfg.check()
        words = self.to_words()  # (a field that is no word stream: LaunchError, from field_problem)
        key = (cfg, tuple(words))
        verdict = _VERDICTS.get(key)
        if verdict is None:
            verdict = check_words(words, cfg)
            if len(_VERDICTS) >= 4:
                _VERDICTS.clear()
            _VERDICTS[key] = verdict
        if not verdict.ok:
            text = verdict.what
            if verdict.rule is Rule.DATA_ORDER:
                text = text.split(": DATA records", 1)[0].replace(
                    "starts below the end", "overlaps data ending at"
                )
                text += " (DATA records must not overlap)"
            raise LaunchError(f"illegal launch: {text}")
        return self


def parse_hex(raw: bytes, path: str = "<hex>") -> tuple[list[int], list[int]]:
    """The words of a ``.hex`` image (one hex word of 1..8 digits per token, ``//`` comments) and the
    line of each; ImageFormatError says ``path:line:col: error: ...``."""
    words: list[int] = []
    lines: list[int] = []
    for lineno, line in enumerate(raw.split(b"\n"), 1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ImageFormatError(
                f"{path}:{lineno}:{e.start + 1}: error: byte 0x{line[e.start]:02x} is not "
                "UTF-8 text: a .hex image holds hex words and // comments"
            ) from None
        text = text.split("//", 1)[0]
        col = 0
        for tok in text.split():
            col = text.index(tok, col) + 1
            if tok.startswith("-"):
                raise ImageFormatError(
                    f"{path}:{lineno}:{col}: error: negative word {tok!r}: write the 32-bit "
                    "two's complement (e.g. ffffffff)"
                )
            if not all(c in "0123456789abcdefABCDEF" for c in tok):
                hint = " (no 0x prefix: $readmemh reads bare hex digits)" if tok[:2] in ("0x", "0X") else ""
                raise ImageFormatError(f"{path}:{lineno}:{col}: error: not a hex word: {tok!r}{hint}")
            value = int(tok, 16)
            if value >= WORD_LIMIT:
                raise ImageFormatError(
                    f"{path}:{lineno}:{col}: error: {tok!r} is wider than 32 bits (at most 8 hex digits)"
                )
            words.append(value)
            lines.append(lineno)
            col += len(tok) - 1
    return words, lines
