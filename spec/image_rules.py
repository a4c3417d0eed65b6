"""The one definition of a legal launch-image word stream (docs/isa.md 8.3, docs/gpu.md launch errors).

``check_words`` walks a stream exactly as ``rtl/top/simt_loader.v`` does, one word at a time, and
returns the verdict of the first offending word: the rule it breaks, the word's index and the launch
error code the loader reports (``ERR_KIND``), with the rule number it shows in ``ERR_RULE`` and the
index in ``IMG_WORDS`` (docs/gpu.md). ``LaunchImage.from_words`` and ``LaunchImage.check`` use it, and
the loader's unit bench (tb/tests/unit/test_loader.py) feeds the same streams to the RTL and expects
the same rule at the same word. Rules the loader cannot see (a Python value that is not a 32-bit word,
a stream that stops before END: the loader just waits) have no RTL number.
"""

from __future__ import annotations

import enum
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

from .config import GpuConfig

MAGIC = 0x53494D54
VERSION = 1
MAX_DIM = 0xFFFF
MAX_COUNT = (1 << 24) - 1
MAX_PARAMS = 16
MAX_REGS = 32
WORD_LIMIT = 1 << 32

E_IMAGE, E_FIT, E_SIZE = 0x10, 0x11, 0x12


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


class Rule(enum.IntEnum):
    """A rule of a legal image; the value is the loader's ERR_RULE number (0 = no error)."""

    MAGIC = 1  # word 0 is not the magic word
    VERSION = 2  # word 1 is not the format version
    TAG = 3  # a record header with an unknown tag
    ORDER = 4  # a record out of order, missing or repeated; DATA before CONST; a record after END's place
    LENGTH = 5  # a record of the wrong length (GRID/BLOCK 3, REGS/SHARED 1, PARAM <= 16, INSTR >= 1, END 0, DATA >= 1)
    DIM = 6  # a grid or block dimension outside 1..65535
    BLOCKS = 7  # a grid of more than 2^32 - 1 blocks
    REGS = 8  # registers per thread outside 1..32
    DATA_RANGE = 9  # DATA outside global memory
    DATA_ORDER = 10  # DATA below the end of the previous DATA record (overlap or out of address order)
    AFTER_END = 11  # a word after the END record
    FIT_WARPS = 12  # a block needs more warps than an SM holds
    FIT_REGS = 13  # a block needs more register rows than the register file has
    FIT_SHARED = 14  # a block needs more shared words than an SM has
    SIZE_INSTR = 15  # more instructions than instruction memory
    SIZE_CONST = 16  # more constants than constant memory
    # Not visible to the loader (no ERR_RULE number is ever shown for these):
    TRUNCATED = 64  # the stream stops before END: the loader waits for the next word
    NOT_A_WORD = 65  # a value that is not an integer in 0..2^32-1
    RESTART = 66  # the magic word where the version or a header is expected: the loader starts anew

    @property
    def code(self) -> int | None:
        """The launch error code (ERR_KIND) the loader reports, None when it reports none."""
        if self >= Rule.TRUNCATED:
            return None
        if Rule.FIT_WARPS <= self <= Rule.FIT_SHARED:
            return E_FIT
        if self in (Rule.SIZE_INSTR, Rule.SIZE_CONST):
            return E_SIZE
        return E_IMAGE


RTL_RULES = [r for r in Rule if r.code is not None]


@dataclass(frozen=True)
class Verdict:
    rule: Rule | None  # None: a legal image
    index: int  # the offending word (len(words) when the stream stops early)
    what: str  # what is wrong, without the location

    @property
    def message(self) -> str:
        return self.what if self.rule in (None, Rule.TRUNCATED) else f"word {self.index}: {self.what}"

    @property
    def ok(self) -> bool:
        return self.rule is None

    @property
    def code(self) -> int | None:
        return None if self.rule is None else self.rule.code

    def __str__(self) -> str:
        return "legal launch image" if self.rule is None else self.message


def _is_word(w: object) -> bool:
    # (a plain int first: the abc check costs ~1 us a word, and an image has thousands)
    return (
        type(w) is int or (isinstance(w, numbers.Integral) and not isinstance(w, bool))
    ) and 0 <= w < WORD_LIMIT


def check_words(words: Sequence[object], cfg: GpuConfig | None = None) -> Verdict:
    """The verdict on one image: legal, or the first offending word (cfg None: format rules only)."""
    n = len(words)

    def bad(rule: Rule, i: int, what: str) -> Verdict:
        return Verdict(rule, i, what)

    for i in range(min(n, 2)):
        if not _is_word(words[i]):
            return bad(Rule.NOT_A_WORD, i, f"{words[i]!r} is not a 32-bit word (an integer in 0..0xffffffff)")
    if n < 1 or words[0] != MAGIC:
        got = f"0x{words[0]:08x}" if n else "nothing"
        return bad(
            Rule.MAGIC,
            0,
            f"not a launch image (bad magic word): {got} where the magic word 0x{MAGIC:08x} ('SIMT') belongs",
        )
    if n < 2:
        return Verdict(
            Rule.TRUNCATED, 1, "the image stops after word 0: the loader would wait for the version word"
        )
    if words[1] == MAGIC:  # the loader restarts on a magic word wherever a payload word is not expected
        return bad(
            Rule.RESTART,
            1,
            "the magic word where the version word belongs: the loader would drop "
            "the image so far and start a new one",
        )
    if words[1] != VERSION:
        return bad(Rule.VERSION, 1, f"unsupported launch image version {words[1]} (expected {VERSION})")
    order = list(RECORD_ORDER)
    grid: list[int] = []
    block: list[int] = []
    wpb = 0
    data_end = 0
    i = 2
    while True:
        if i >= n:
            where = f"the {order[0].name} record's header" if order else "a DATA or END record header"
            return Verdict(
                Rule.TRUNCATED,
                n,
                f"the image stops after {n} words, before END: the loader would wait for word {n} ({where})",
            )
        hdr = words[i]
        if not _is_word(hdr):
            return bad(Rule.NOT_A_WORD, i, f"{hdr!r} is not a 32-bit word (an integer in 0..0xffffffff)")
        assert isinstance(hdr, int)
        if hdr == MAGIC:
            return bad(
                Rule.RESTART,
                i,
                "the magic word where a record header belongs: the loader would drop "
                "the image so far and start a new one",
            )
        raw, cnt = hdr >> 24, hdr & MAX_COUNT
        try:
            tag: Tag | None = Tag(raw)
        except ValueError:
            tag = None
        expect = order[0].name if order else "DATA or END"
        if tag is None:
            return bad(Rule.TAG, i, f"unknown record tag 0x{raw:02x} (header 0x{hdr:08x}); expected {expect}")
        if not order:
            if tag is Tag.DATA and cnt == 0:
                return bad(
                    Rule.LENGTH, i, "DATA record without a base address (count 0; DATA needs 1 + n words)"
                )
            if tag is Tag.END and cnt:
                return bad(Rule.LENGTH, i, f"END record with a payload ({cnt} words; END has none)")
            if tag not in (Tag.DATA, Tag.END):
                return bad(
                    Rule.ORDER,
                    i,
                    f"{tag.name} record out of order: expected {expect} (duplicate {tag.name} record?)",
                )
        elif tag is not order[0]:
            what = "DATA record before" if tag is Tag.DATA else f"{tag.name} record in place of"
            return bad(
                Rule.ORDER,
                i,
                f"{what} the {order[0].name} record: records come in the order "
                "GRID BLOCK REGS SHARED PARAM INSTR CONST, then DATA, then END "
                "(out of order, missing or duplicate)",
            )
        else:
            want = {Tag.GRID: 3, Tag.BLOCK: 3, Tag.REGS: 1, Tag.SHARED: 1}.get(tag)
            if want is not None and cnt != want:
                return bad(Rule.LENGTH, i, f"{tag.name} record of {cnt} words (must be {want})")
            if tag is Tag.PARAM and cnt > MAX_PARAMS:
                return bad(Rule.LENGTH, i, f"{cnt} parameters given; at most {MAX_PARAMS}")
            if tag is Tag.INSTR and cnt == 0:
                return bad(Rule.LENGTH, i, "the kernel has no instructions (INSTR record of 0 words)")
            if cfg is not None and tag is Tag.INSTR and cnt > cfg.imem_words:
                return bad(
                    Rule.SIZE_INSTR,
                    i,
                    f"{cnt} instructions exceed instruction memory ({cfg.imem_words} words)",
                )
            if cfg is not None and tag is Tag.CONST and cnt > cfg.const_words:
                return bad(
                    Rule.SIZE_CONST, i, f"{cnt} constants exceed constant memory ({cfg.const_words} words)"
                )
            order.pop(0)
        if tag is Tag.END:
            if i + 1 < n:
                return bad(
                    Rule.AFTER_END,
                    i + 1,
                    f"a word after the END record (at word {i}); the image has "
                    f"{i + 1} words (remove the rest)",
                )
            return Verdict(None, i, "legal launch image")
        # payload
        for k in range(cnt):
            j = i + 1 + k
            if j >= n:
                return Verdict(
                    Rule.TRUNCATED,
                    n,
                    f"the image stops after {n} words, inside the {tag.name} "
                    f"record that starts at word {i} ({cnt} payload words): the "
                    f"loader would wait for word {n}",
                )
            w = words[j]
            if not _is_word(w):
                return bad(
                    Rule.NOT_A_WORD,
                    j,
                    f"{w!r} in the {tag.name} record is not a 32-bit word (an integer in 0..0xffffffff)",
                )
            assert isinstance(w, int)
            if tag in (Tag.GRID, Tag.BLOCK):
                name = "grid" if tag is Tag.GRID else "block"
                dims = grid if tag is Tag.GRID else block
                if not 1 <= w <= MAX_DIM:
                    return bad(Rule.DIM, j, f"{name} dimensions: {'xyz'[k]} = {w} outside 1..{MAX_DIM}")
                dims.append(w)
                if k == 2 and tag is Tag.GRID and dims[0] * dims[1] * dims[2] >= WORD_LIMIT:
                    return bad(
                        Rule.BLOCKS,
                        j,
                        f"a grid of {dims[0] * dims[1] * dims[2]} blocks exceeds "
                        f"{WORD_LIMIT - 1} (flat block indices are 32 bits)",
                    )
                if k == 2 and tag is Tag.BLOCK and cfg is not None:
                    threads = dims[0] * dims[1] * dims[2]
                    wpb = -(-threads // cfg.warp_size)
                    if wpb > cfg.num_warps:
                        return bad(
                            Rule.FIT_WARPS,
                            j,
                            f"a block of {threads} threads needs {wpb} warps; an SM "
                            f"holds {cfg.num_warps} (num_warps)",
                        )
            elif tag is Tag.REGS:
                if not 1 <= w <= MAX_REGS:
                    return bad(Rule.REGS, j, f"registers per thread {w} must be in 1..{MAX_REGS}")
                if cfg is not None and wpb * cfg.warp_rows * w > cfg.rf_depth:
                    return bad(
                        Rule.FIT_REGS,
                        j,
                        f"a block needs {wpb * cfg.warp_rows * w} register rows per "
                        f"lane ({wpb} warps x {cfg.warp_rows} rows x {w} registers); "
                        f"the register file has {cfg.rf_depth} (rf_depth)",
                    )
            elif tag is Tag.SHARED:
                if cfg is not None and w > cfg.shared_words:
                    return bad(
                        Rule.FIT_SHARED, j, f"shared words per block {w} exceed the SM's {cfg.shared_words}"
                    )
            elif tag is Tag.DATA and k == 0:
                end = w + cnt - 1
                if cfg is not None and end > cfg.global_words:
                    return bad(
                        Rule.DATA_RANGE,
                        j,
                        f"data at global [{w}, {end}) outside global memory ({cfg.global_words} words)",
                    )
                if w < data_end:
                    return bad(
                        Rule.DATA_ORDER,
                        j,
                        f"data at global [{w}, {end}) starts below the end {data_end} "
                        "of the previous DATA record: DATA records must not overlap "
                        "and come in increasing address order",
                    )
                data_end = end
        i += 1 + cnt
