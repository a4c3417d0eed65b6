"""Unit bench of rtl/top/simt_loader.v: launch images in, program/constant writes, launch configuration
and DATA stores out (docs/gpu.md, docs/isa.md 8.3, docs/sm.md "simt_sm").

Stimulus: random legal images made with spec.image.LaunchImage (random 1-D..3-D grids up to
65535 per dimension, blocks that fill 1..NUM_WARPS warps with uneven thread counts, registers and shared
words up to the machine's limits, 0..16 parameters, code and constants up to their memories, DATA runs
with unaligned bases and lengths including the last words of global memory), sent one word per
handshake with random gaps, on four machine configurations. The global memory is
tb/agents/gmem_responder.py with random request back-pressure, random latency, out-of-order responses
and response bubbles (knobs change from image to image).

Checks, every cycle and per image:
- every imem/cmem write (address, data, order) equals the image's code/constants
  (``LaunchImage.code``/``consts``; for an image cut short or refused, the words it had sent);
- every memory request, in order, equals the next expected SEG_WORDS-aligned segment of the DATA runs
  (address, mask, masked data; words outside the mask are 0), with a fixed tag; the responder also
  checks the protocol (stable held requests, aligned addresses inside memory);
- ``loaded`` rises only once the image is complete and every store has been acknowledged, and within
  a few cycles of that; then every cfg_* output equals ``LaunchImage`` (grid, block, threads, regs,
  shared, params padded with 0, counts) and ``SmLaunch.of`` (wpb, sh_stride, slots) and cfg_nblocks
  the grid's block count;
- ``error``/``err_code`` rise exactly in the cycle after the offending word (never earlier), with the
  code of docs/gpu.md, and stay until a magic word; every word is accepted (no hang); ``busy`` is
  high exactly while an image is in progress; a magic word restarts from any state;
- at the end, memory equals the initial contents plus every expected store, and the last image's DATA
  (applied independently from ``LaunchImage.data``) is in memory.

Illegal images (each kind on each configuration where it can occur): bad magic (from idle, after a
loaded image, right after END), bad version, unknown tag, records swapped / missing / repeated / DATA
too early, wrong record lengths, 0 instructions, END with a payload, DATA without base, dimensions 0 or
> 65535, registers 0 or 33, a grid of more than 2^32-1 blocks, DATA outside GLOBAL_WORDS, DATA
records overlapping or out of address order: 0x10; too many warps, registers (also with all 32 per
thread) or shared words: 0x11; program or constants larger than their memories: 0x12. The images that the model refuses are
also checked to raise LaunchError in ``LaunchImage.check``. Every illegal stream is also judged by
``spec.image_rules.check_words`` (the one definition of a legal image), which must name the
same word and code as this bench expects; the loader's ``err_rule`` and ``img_words`` must then show
that rule at that word (and a loaded image's length).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import cocotb
import numpy as np
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from spec.config import GpuConfig
from spec.image import MAGIC, VERSION, LaunchError, LaunchImage, Tag
from spec.image_rules import Rule, check_words
from spec.machines import LOADER_UNIT
from tb import benchenv, benchutil, rtlsim
from tb.agents.gmem_responder import GmemResponder, MemTxn
from tb.agents.sm_driver import SmLaunch
from tb.tests.model.test_bad_inputs import IMAGES as CORPUS_IMAGES
from tb.tests.model.test_bad_inputs import words_of

SOURCES = ["top/simt_loader.v", "top/simt_image_check.v", "top/simt_loader_store.v"]
TESTS = ["legal_images", "illegal_images", "restarts"]
M32 = 0xFFFF_FFFF
TAG_W = 5
E_IMAGE, E_FIT, E_SIZE = 0x10, 0x11, 0x12
QUICK_LOADED = 3  # cycles from the last acknowledgement (or END) to loaded, once the slot search is over
CONFIGS = LOADER_UNIT


# ---------------------------------------------------------------------------------------- images
def rand_word(rng: random.Random) -> int:
    """A payload word: any value, the magic word included (inside a payload it is ordinary data)."""
    return rng.choice([rng.getrandbits(32), rng.getrandbits(8), M32, 0, MAGIC])


def factor3(n: int, rng: random.Random) -> tuple[int, int, int]:
    """Random (x, y, z) with x * y * z == n."""
    divs = [d for d in range(1, n + 1) if n % d == 0]
    z = rng.choice(divs) if rng.random() < 0.4 else 1
    rest = n // z
    y = rng.choice([d for d in divs if rest % d == 0]) if rng.random() < 0.5 else 1
    return rest // y, y, z


def rand_grid(rng: random.Random) -> tuple[int, int, int]:
    while True:
        g = tuple(
            rng.choice([1, 1, rng.randint(1, 9), rng.randint(1, 300), rng.randint(1, 65535), 65535])
            for _ in range(3)
        )
        if g[0] * g[1] * g[2] < 1 << 32:
            return g  # type: ignore[return-value]


def segments(base: int, words: list[int], seg: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """The SEG-aligned store requests of a DATA run: (segment base, mask, SEG words, 0 outside mask)."""
    out = []
    a, i = base, 0
    while i < len(words):
        off = a % seg
        take = min(seg - off, len(words) - i)
        data = [0] * seg
        data[off : off + take] = words[i : i + take]
        out.append((a - off, ((1 << take) - 1) << off, tuple(data)))
        a += take
        i += take
    return out


def rand_image(cfg: GpuConfig, rng: random.Random, edge: bool = False) -> LaunchImage:
    ws, rows = cfg.warp_size, cfg.warp_rows
    max_wpb = min(cfg.num_warps, cfg.rf_depth // rows)
    wpb = max_wpb if edge and rng.random() < 0.5 else rng.randint(1, max_wpb)
    threads = wpb * ws if edge or rng.random() < 0.2 else rng.randint((wpb - 1) * ws + 1, wpb * ws)
    regs_max = min(32, cfg.rf_depth // (wpb * rows))
    regs = regs_max if edge or rng.random() < 0.2 else rng.randint(1, regs_max)
    sw, nb = cfg.shared_words, cfg.num_banks
    shared = rng.choice([0, sw, nb, nb + 1, rng.randint(0, sw), rng.randint(0, sw // 8)])
    if edge and rng.random() < 0.5:
        shared = sw
    n_code = cfg.imem_words if edge and cfg.imem_words <= 64 else rng.randint(1, min(cfg.imem_words, 40))
    n_const = cfg.const_words if edge and cfg.const_words <= 64 else rng.randint(0, min(cfg.const_words, 24))
    seg, gw = cfg.seg_words, cfg.global_words
    data = []
    for _ in range(rng.choice([0, 1, 2, 3, 4])):
        n = rng.choice([0, 1, seg - 1, seg, seg + 1, rng.randint(1, 3 * seg + 5)])
        n = max(0, n)
        base = gw - n if rng.random() < 0.15 else rng.randint(0, gw - n)
        data.append((base, [rand_word(rng) for _ in range(n)]))
    data.sort(key=lambda d: (d[0], len(d[1])))
    kept, end = [], 0
    for base, words in data:  # DATA records must not overlap (docs/isa.md 8.3)
        if base >= end:
            kept.append((base, words))
            end = base + len(words)
    data = kept
    img = LaunchImage(
        code=[rand_word(rng) for _ in range(n_code)],
        grid=rand_grid(rng),
        block=factor3(threads, rng),
        regs=regs,
        shared_words=shared,
        params=[rand_word(rng) for _ in range(16 if edge else rng.randint(0, 16))],
        consts=[rand_word(rng) for _ in range(n_const)],
        data=data,
    )
    return img.check(cfg)


def split_records(words: list[int]) -> list[list[int]]:
    """A well-formed stream as [[magic, version], record, record, ...] (record = header + payload)."""
    out, i = [words[:2]], 2
    while i < len(words):
        n = words[i] & 0xFF_FFFF
        out.append(words[i : i + 1 + n])
        i += 1 + n
    return out


def join(recs: list[list[int]]) -> list[int]:
    return [w for r in recs for w in r]


def prefix_effects(words: list[int], upto: int, seg: int):
    """What a loader does with the first ``upto`` words of a stream whose framing is sound up to there:
    instruction writes, constant writes, store requests (a segment is issued once its last word or
    the run's last word has arrived)."""
    instr, const, reqs = [], [], []
    i = 2
    while i < upto:
        tag, cnt = words[i] >> 24, words[i] & 0xFF_FFFF
        payload = words[i + 1 : min(i + 1 + cnt, upto)]
        if tag == Tag.INSTR:
            instr += list(enumerate(payload))
        elif tag == Tag.CONST:
            const += list(enumerate(payload))
        elif tag == Tag.DATA and payload:
            base = payload[0]
            k = len(payload) - 1
            segs = segments(base, payload[1:], seg)
            if segs and k < cnt - 1 and (base + k) % seg:
                segs.pop()  # the segment being gathered is dropped
            reqs += segs
        elif tag == Tag.END:
            break
        i += 1 + cnt
    return instr, const, reqs


# ---------------------------------------------------------------------------------------- illegal
@dataclass
class Bad:
    name: str
    words: list[int]
    index: int  # the offending word
    code: int
    image: LaunchImage | None = None  # given when LaunchImage.check must refuse it too


def make_illegal_images(cfg: GpuConfig, rng: random.Random) -> list[Bad]:
    """Each kind of illegal image that can occur on ``cfg``; the offending word's index and code."""
    out: list[Bad] = []

    def base() -> LaunchImage:
        return rand_image(cfg, rng)

    def recs_of(img: LaunchImage) -> list[list[int]]:
        return split_records(img.to_words())

    def at(recs: list[list[int]], r: int, off: int = 0) -> int:
        return sum(len(x) for x in recs[:r]) + off

    def add(name: str, recs: list[list[int]], r: int, off: int, code: int, img=None) -> None:
        out.append(Bad(name, join(recs), at(recs, r, off), code, img))

    # record indices in split_records: 0 magic/version, 1 GRID, 2 BLOCK, 3 REGS, 4 SHARED, 5 PARAM,
    # 6 INSTR, 7 CONST, 8.. DATA, last END
    recs = recs_of(base())
    recs[0][1] = rng.choice([0, 2, VERSION + 0x100])
    add("bad_version", recs, 0, 1, E_IMAGE)
    for r in (1, 3, 5, 7, -1):  # -1: END
        recs = recs_of(base())
        recs[r][0] = (rng.choice([0x00, 0x09, 0x0E, 0x10, 0x53, 0xFF]) << 24) | (recs[r][0] & 0xFF_FFFF)
        add(f"unknown_tag_rec{r}", recs, r, 0, E_IMAGE)
    recs = recs_of(base())
    recs[1], recs[2] = recs[2], recs[1]
    add("swap_grid_block", recs, 1, 0, E_IMAGE)
    recs = recs_of(base())
    recs[5], recs[7] = recs[7], recs[5]
    add("swap_param_const", recs, 5, 0, E_IMAGE)
    for r in (1, 4, 6, 7):
        recs = recs_of(base())
        del recs[r]
        add(f"missing_rec{r}", recs, r, 0, E_IMAGE)
    recs = recs_of(base())
    recs.insert(4, list(recs[3]))
    add("repeated_regs", recs, 4, 0, E_IMAGE)
    recs = recs_of(base())
    recs.insert(6, [Tag.DATA << 24 | 2, 0, 1])
    add("data_before_instr", recs, 6, 0, E_IMAGE)
    recs = recs_of(base())
    recs.insert(len(recs) - 1, list(recs[1]))
    add("grid_after_const", recs, len(recs) - 2, 0, E_IMAGE)
    for r, n in ((1, 2), (1, 4), (2, 0), (3, 2), (3, 0), (4, 2), (5, 17)):
        recs = recs_of(base())
        recs[r] = [recs[r][0] >> 24 << 24 | n] + [rand_word(rng) % 7 + 1 for _ in range(n)]
        add(f"count_rec{r}_{n}", recs, r, 0, E_IMAGE)
    recs = recs_of(base())
    recs[6] = [Tag.INSTR << 24]
    add("no_instructions", recs, 6, 0, E_IMAGE)
    recs = recs_of(base())
    recs[-1] = [Tag.END << 24 | 1, 5]
    add("end_with_payload", recs, len(recs) - 1, 0, E_IMAGE)
    recs = recs_of(base())
    recs.insert(len(recs) - 1, [Tag.DATA << 24])
    add("data_without_base", recs, len(recs) - 2, 0, E_IMAGE)
    for r, name in ((1, "grid"), (2, "block")):
        for v in (0, 65536, M32):
            img = base()
            dims = [1, 1, 1]
            k = rng.randrange(3)
            dims[k] = v
            if name == "grid":
                img.grid = tuple(dims)  # type: ignore[assignment]
            else:
                img.block = tuple(dims)  # type: ignore[assignment]
            add(f"{name}_dim{k}_{v:#x}", recs_of(img), r, 1 + k, E_IMAGE, img)
    for v in (0, 33, 64, M32):
        img = base()
        img.regs = v
        add(f"regs_{v:#x}", recs_of(img), 3, 1, E_IMAGE, img)
    for grid in ((65535, 65535, 2), (65535, 65535, 65535), (2, 65535, 32769)):
        img = base()
        img.grid = grid
        add(f"grid_blocks_{grid}", recs_of(img), 1, 3, E_IMAGE)  # the model accepts it (see docstring)
    gw = cfg.global_words
    for b, n in ((gw - 2, 3), (gw, 1), (M32 - 1, 4), (gw + 5, 0)):
        img = base()
        img.data = [(0, [1, 2]), (b, [rand_word(rng) for _ in range(n)])]
        recs = recs_of(img)
        add(f"data_outside_{b:#x}_{n}", recs, len(recs) - 2, 1, E_IMAGE, img)
    # DATA records overlapping or out of address order (docs/isa.md 8.3)
    for first, second in (((10, 3), (12, 1)), ((40, 2), (0, 4)), ((7, 0), (6, 0))):
        img = base()
        img.data = []
        recs = recs_of(img)
        recs.insert(len(recs) - 1, [Tag.DATA << 24 | (1 + first[1]), first[0], *range(first[1])])
        recs.insert(len(recs) - 1, [Tag.DATA << 24 | (1 + second[1]), second[0], *range(second[1])])
        add(f"data_order_{first}_{second}", recs, len(recs) - 2, 1, E_IMAGE)
    # a block that cannot fit one SM
    ws, rows = cfg.warp_size, cfg.warp_rows
    # (2049, 1, 1), (64, 64, 1), (1, 2048, 2): thread counts whose low 11 bits look small
    for block in (
        (cfg.num_warps * ws + 1, 1, 1),
        (ws, cfg.num_warps + 1, 1),
        (65535, 65535, 65535),
        (1, 1025, 1),
        (33, 32, 1),
        (1, 1, cfg.num_warps * ws + rng.randint(1, ws)),
        (2049, 1, 1),
        (64, 64, 1),
        (1, 2048, 2),
    ):
        img = base()
        img.block = block
        add(f"warps_{block}", recs_of(img), 2, 3, E_FIT, img)
    for wpb in range(1, cfg.num_warps + 1):  # the smallest block whose 32 registers do not fit
        if wpb * rows * 32 > cfg.rf_depth:
            regs = cfg.rf_depth // (wpb * rows) + 1
            img = base()
            img.block, img.regs = (wpb * ws - rng.randrange(ws), 1, 1), regs
            add(f"registers_{wpb}x{regs}", recs_of(img), 3, 1, E_FIT, img)
            if regs < 32:  # 32, the largest legal count, too: a block that does not fit, not a bad image
                img = base()
                img.block, img.regs = (wpb * ws - rng.randrange(ws), 1, 1), 32
                add(f"registers_{wpb}x32", recs_of(img), 3, 1, E_FIT, img)
            break
    for sh in (cfg.shared_words + 1, cfg.shared_words + cfg.num_banks, M32):
        img = base()
        img.shared_words = sh
        add(f"shared_{sh:#x}", recs_of(img), 4, 1, E_FIT, img)
    # program or constants larger than their memories (the header is refused: a short payload follows)
    recs = recs_of(base())
    recs[6] = [Tag.INSTR << 24 | (cfg.imem_words + 1), 1, 2, 3]
    add(
        "instr_too_long",
        recs,
        6,
        0,
        E_SIZE,
        LaunchImage(code=[0] * (cfg.imem_words + 1), block=(1, 1, 1), regs=1),
    )
    recs = recs_of(base())
    recs[7] = [Tag.CONST << 24 | (cfg.const_words + rng.choice([1, 1000])), 4, 5]
    add(
        "const_too_long",
        recs,
        7,
        0,
        E_SIZE,
        LaunchImage(code=[0], consts=[0] * (cfg.const_words + 1), block=(1, 1, 1), regs=1),
    )
    return out


# ---------------------------------------------------------------------------------------- bench
@dataclass
class Item:
    """One image (or image fragment) as sent, and what the loader must do with it."""

    name: str
    words: list[int]
    image: LaunchImage | None = None  # a legal complete image
    bad: int | None = None  # index of the offending word
    code: int = 0
    rule: int = 0  # ERR_RULE of the offending word (image_rules.check_words)
    index: int = 0  # img_words at the error: the offending word's index in the loader's image
    wait: bool = False  # wait for loaded after the last word
    sent: int = 0
    instr: list[tuple[int, int]] = field(default_factory=list)  # writes seen
    const: list[tuple[int, int]] = field(default_factory=list)
    loaded_cycle: int | None = None
    req_end: int = 0  # store requests expected up to and including this item's
    shared_at: int | None = None  # index of the SHARED payload word (legal images)
    shared_cycle: int | None = None  # when it was accepted: the slot search starts then

    def __post_init__(self) -> None:
        # After an error the loader cannot tell payload from header, so it restarts on any magic
        # word: the rest of an illegal image must not contain one, or the error would (rightly) end.
        if self.bad is not None:
            self.words[self.bad + 1 :] = [w ^ 1 if w == MAGIC else w for w in self.words[self.bad + 1 :]]


class LoaderBench:
    def __init__(self, dut, cfg: GpuConfig, rng: random.Random) -> None:
        self.dut, self.cfg, self.rng = dut, cfg, rng
        self.seg = cfg.seg_words
        self.mem = np.array([rng.getrandbits(32) for _ in range(cfg.global_words)], dtype=np.uint32)
        self.model_mem = self.mem.copy()
        self.responder = GmemResponder(dut, dut.clk, self.mem, reset=dut.rst, rng=rng)
        self.responder.on_request.append(self._on_request)
        self.exp_reqs: list[tuple[int, int, tuple[int, ...]]] = []
        self.n_reqs = 0
        self.cycle = 0
        self.status: Item | None = None  # the item of the last accepted word
        self.log_item: Item | None = None  # the item whose word was accepted in the previous cycle
        self.quiet_since: int | None = None
        self.gap_prob = 0.0
        self.last_image: LaunchImage | None = None
        self.pending: tuple[Item, list, list] | None = None
        self.slot_limits: dict[str, int] = {}
        self.ready_stalls = 0  # cycles a word was offered and img_ready was low
        # counts of checked things
        self.images = self.refused = self.restarted = self.words = self.model_refused = self.agreed = 0
        self.corpus = 0  # bad-input corpus streams sent
        self.imem_writes = self.cmem_writes = self.cfg_checks = self.stores = 0

    # ------------------------------------------------------------------ memory port
    def _on_request(self, t: MemTxn) -> None:
        assert self.n_reqs < len(self.exp_reqs), f"unexpected store request {t}"
        addr, mask, data = self.exp_reqs[self.n_reqs]
        got = (t.addr, t.mask, t.data)
        assert t.write, f"request {self.n_reqs}: a load {t}"
        assert got == (addr, mask, data), (
            f"store request {self.n_reqs}: got addr={t.addr:#x} mask={t.mask:#x} data={[hex(w) for w in t.data]}, "
            f"expected addr={addr:#x} mask={mask:#x} data={[hex(w) for w in data]}"
        )
        assert t.tag == 0, f"request tag {t.tag} (the loader uses a fixed tag 0)"
        self.n_reqs += 1
        self.stores += 1

    def knobs(self, fast: bool) -> None:
        r, rng = self.responder, self.rng
        if fast:
            r.req_ready_prob, r.latency, r.out_of_order, r.rsp_valid_prob = 1.0, (1, 1), False, 1.0
            self.gap_prob = 0.0
        else:
            r.req_ready_prob = rng.choice([0.3, 0.7, 1.0])
            r.latency = rng.choice([(1, 4), (1, 30), (10, 60)])
            r.out_of_order = rng.random() < 0.7
            r.rsp_valid_prob = rng.choice([0.5, 1.0])
            self.gap_prob = rng.choice([0.0, 0.2, 0.6])

    # ------------------------------------------------------------------ per cycle
    async def reset(self) -> None:
        d = self.dut
        d.rst.value = 1
        d.img_valid.value = 0
        d.img_word.value = 0
        # No GPU starts a launch here, so an image stays loaded; START using it up (launched) is
        # checked at the GPU by LaunchErrorTest (docs/gpu.md "Launch lifecycle").
        d.launched.value = 0
        self.responder.start()
        for _ in range(3):
            await RisingEdge(d.clk)
        d.rst.value = 0

    async def step(self, word: int | None) -> bool:
        """One cycle: offer ``word`` (None: img_valid low), check the outputs, return the handshake."""
        d = self.dut
        d.img_valid.value = int(word is not None)
        d.img_word.value = word if word is not None else self.rng.getrandbits(32)
        await ReadOnly()
        self.cycle += 1
        self._sample_writes()
        self._check_status()
        hs = word is not None and int(d.img_ready.value) == 1
        await RisingEdge(d.clk)
        return hs

    def _sample_writes(self) -> None:
        d = self.dut
        item = self.log_item
        if int(d.imem_we.value):
            assert item is not None, "imem write before any image"
            item.instr.append((int(d.imem_waddr.value), int(d.imem_wdata.value)))
            self.imem_writes += 1
        if int(d.cmem_we.value):
            assert item is not None, "cmem write before any image"
            item.const.append((int(d.cmem_waddr.value), int(d.cmem_wdata.value)))
            self.cmem_writes += 1
        self.log_item = self.status

    def _check_status(self) -> None:
        d, item = self.dut, self.status
        loaded, error, busy = int(d.loaded.value), int(d.error.value), int(d.busy.value)
        where = f"cycle {self.cycle} item '{item.name if item else None}'"
        exp_err = item is not None and item.bad is not None and item.sent > item.bad
        assert error == int(exp_err), (
            f"{where}: error={error}, expected {int(exp_err)} ({item.sent if item else 0} words accepted, "
            f"offending word {item.bad if item else None}); err_code={int(d.err_code.value):#x}"
        )
        if exp_err:
            assert int(d.err_code.value) == item.code, (
                f"{where}: err_code {int(d.err_code.value):#x}, expected {item.code:#x}"
            )
            got = (int(d.err_rule.value), int(d.img_words.value))
            assert got == (item.rule, item.index), (
                f"{where}: err_rule {Rule(got[0]).name if got[0] in iter(Rule) else got[0]} at word {got[1]}, "
                f"check_words says {Rule(item.rule).name} at word {item.index}"
            )
        else:
            assert int(d.err_code.value) == 0, f"{where}: err_code {int(d.err_code.value):#x} without error"
        complete = item is not None and item.image is not None and item.sent == len(item.words)
        if loaded:
            assert complete, (
                f"{where}: loaded before the image is complete ({item.sent if item else 0} words)"
            )
            if item.loaded_cycle is None:
                self._on_loaded(item)
        elif item is not None and item.loaded_cycle is not None:
            raise AssertionError(f"{where}: loaded fell without a new image")
        started = item is not None and not (item.bad == 0 and item.sent > 0)
        assert busy == int(started and not loaded and not exp_err), (
            f"{where}: busy={busy} (loaded={loaded} error={error})"
        )
        # loaded must follow soon after the last acknowledgement; at once if the slot search (at most
        # NUM_BLOCKS cycles after the SHARED record, simt_loader.v "Timing") has long ended
        if complete and not loaded and self.n_reqs == item.req_end and self.responder.outstanding == 0:
            self.quiet_since = self.cycle if self.quiet_since is None else self.quiet_since
            searched = (
                item.shared_cycle is not None
                and self.quiet_since - item.shared_cycle > self.cfg.num_blocks + 2
            )
            limit = QUICK_LOADED if searched else 24
            assert self.cycle - self.quiet_since < limit, (
                f"{where}: loaded not raised {limit} cycles after every store was acknowledged"
                + (
                    f" (the slot search began {self.quiet_since - item.shared_cycle} cycles before)"
                    if searched
                    else ""
                )
            )
        else:
            self.quiet_since = None

    def _on_loaded(self, item: Item) -> None:
        d, cfg, img = self.dut, self.cfg, item.image
        assert img is not None
        item.loaded_cycle = self.cycle
        assert int(d.img_words.value) == len(item.words) and int(d.err_rule.value) == 0, (
            f"loaded: img_words {int(d.img_words.value)} (expected {len(item.words)}), "
            f"err_rule {int(d.err_rule.value)}"
        )
        assert self.n_reqs == item.req_end, f"loaded with {item.req_end - self.n_reqs} stores not issued"
        assert self.responder.outstanding == 0, (
            f"loaded with {self.responder.outstanding} stores unacknowledged"
        )
        launch = SmLaunch.of(cfg, img)
        limits = {"blocks": cfg.num_blocks, "warps": cfg.num_warps // launch.wpb,
                  "registers": cfg.rf_depth // (launch.wpb * img.regs * cfg.warp_rows),
                  "shared": cfg.shared_words // launch.sh_stride if launch.sh_stride else cfg.num_blocks}  # fmt: skip
        for what, n in limits.items():  # which limits decided cfg_slots (coverage of the slot search)
            if n == launch.slots:
                self.slot_limits[what] = self.slot_limits.get(what, 0) + 1

        def pack(vals, width):
            return sum((v & ((1 << width) - 1)) << (i * width) for i, v in enumerate(vals))

        expect = {
            "cfg_grid": pack(img.grid, 16), "cfg_block": pack(img.block, 16),
            "cfg_threads": img.threads_per_block, "cfg_regs": img.regs, "cfg_wpb": launch.wpb,
            "cfg_slots": launch.slots, "cfg_shared": img.shared_words, "cfg_sh_stride": launch.sh_stride,
            "cfg_nparams": len(img.params), "cfg_params": pack(img.params + [0] * (16 - len(img.params)), 32),
            "cfg_ninstr": len(img.code), "cfg_nconst": len(img.consts), "cfg_nblocks": img.num_blocks,
        }  # fmt: skip
        for name, value in expect.items():
            got = int(getattr(d, name).value)
            assert got == value, f"image '{item.name}': {name} = {got:#x}, expected {value:#x}"
            self.cfg_checks += 1
        self.last_image = img
        self.images += 1

    # ------------------------------------------------------------------ images
    async def send(self, item: Item) -> None:
        """Send every word of ``item`` (with random gaps); wait for loaded if asked; check its writes."""
        rng = self.rng
        upto = len(item.words) if item.bad is None else item.bad
        instr, const, reqs = prefix_effects(item.words, upto, self.seg)
        if item.image is not None:  # the framing helper against the image itself
            assert instr == list(enumerate(item.image.code)) and const == list(enumerate(item.image.consts))
            assert reqs == [s for b, w in item.image.data for s in segments(b, w, self.seg)]
        self.exp_reqs += reqs
        item.req_end = len(self.exp_reqs)
        for a, m, data in reqs:
            for i in range(self.seg):
                if m >> i & 1:
                    self.model_mem[a + i] = data[i]
        stalls = 0
        for w in item.words:
            while True:
                gap = rng.random() < self.gap_prob
                hs = await self.step(None if gap else w)
                self._check_pending()  # the previous item's last write has shown by now
                if hs:
                    break
                stalls += not gap
                self.ready_stalls += not gap
                assert stalls < 5000, f"item '{item.name}': img_ready low for 5000 cycles"
            if item.sent == 0:
                self.status = item
            if item.sent == item.shared_at:
                item.shared_cycle = self.cycle
            item.sent += 1
            self.words += 1
        self.pending = (item, instr, const)
        if item.wait:
            for _ in range(3000):
                if item.loaded_cycle is not None:
                    break
                await self.step(None)
            assert item.loaded_cycle is not None, f"image '{item.name}' never loaded"

    def _check_pending(self) -> None:
        """An item's imem/cmem writes (they show up to one cycle after its last word)."""
        if self.pending is None:
            return
        item, instr, const = self.pending
        self.pending = None
        assert item.instr == instr, (
            f"item '{item.name}': instruction writes {item.instr[:4]}.. ({len(item.instr)}) != "
            f"{instr[:4]}.. ({len(instr)})"
        )
        assert item.const == const, f"item '{item.name}': constant writes {item.const[:4]}.. != {const[:4]}.."

    def legal(self, name: str, img: LaunchImage, wait: bool = True) -> Item:
        words = img.to_words()
        recs = split_records(words)
        return Item(name, words, image=img, wait=wait, shared_at=sum(len(r) for r in recs[:4]) + 1)

    async def finish(self) -> None:
        await self.step(None)
        self._check_pending()
        for _ in range(3000):
            if self.n_reqs == len(self.exp_reqs) and self.responder.outstanding == 0:
                break
            await self.step(None)
        assert self.n_reqs == len(self.exp_reqs), f"{len(self.exp_reqs) - self.n_reqs} stores never issued"
        assert self.responder.outstanding == 0, "stores never acknowledged"
        for _ in range(4):
            await self.step(None)
        assert self.responder.outstanding == 0 and len(self.responder.transactions) == self.n_reqs, (
            "stray request"
        )
        diff = np.nonzero(self.mem != self.model_mem)[0]
        assert diff.size == 0, f"memory differs at {diff.size} words, first {int(diff[0]):#x}"
        if self.last_image is not None:  # independent of the segment model: the DATA runs as written
            want: dict[int, int] = {}
            for base, words in self.last_image.data:
                for i, w in enumerate(words):
                    want[base + i] = w
            for a, w in want.items():
                assert int(self.mem[a]) == w, f"global word {a:#x} = {int(self.mem[a]):#x}, DATA wrote {w:#x}"

    def report(self, what: str) -> None:
        cocotb.log.info(
            "checked %d loaded images (%d cfg values), %d refused (%d also by the model, %d same rule and word as "
            "check_words; %d from the bad-input corpus), %d restarted, %d words, "
            "%d imem writes, %d cmem writes, %d store requests, %d img_ready stalls; cfg_slots set by %s (%s)",
            self.images,
            self.cfg_checks,
            self.refused,
            self.model_refused,
            self.agreed,
            self.corpus,
            self.restarted,
            self.words,
            self.imem_writes,
            self.cmem_writes,
            self.stores,
            self.ready_stalls,
            self.slot_limits,
            what,
        )
        assert self.images > 0 and self.cfg_checks > 0, "checked 0 images"


async def _start(dut, test: str) -> LoaderBench:
    benchutil.log_seed(__name__, test)
    cfg = benchenv.machine()
    Clock(dut.clk, 10, unit="ns").start()
    b = LoaderBench(dut, cfg, random.Random(random.getrandbits(32)))
    await b.reset()
    return b


# ---------------------------------------------------------------------------------------- tests
@cocotb.test()
async def legal_images(dut) -> None:
    """Random legal images, waiting for loaded or sent back to back; full-speed and stressed memory."""
    b = await _start(dut, "legal_images")
    rng = b.rng
    for k in range(26):
        b.knobs(fast=k % 4 == 0)
        img = rand_image(b.cfg, rng, edge=k % 5 == 1)
        await b.send(b.legal(f"legal{k}", img, wait=rng.random() < 0.75 or k == 25))
    await b.finish()
    b.report(f"legal images, {_cfg_name(b.cfg)}")


@cocotb.test()
async def illegal_images(dut) -> None:
    """Every refusal kind, each followed by a legal image that must load (recovery)."""
    b = await _start(dut, "illegal_images")
    rng = b.rng
    b.knobs(fast=False)
    first = rand_image(b.cfg, rng).to_words()
    first[0] = rng.choice([0, MAGIC ^ 1, 1])  # bad magic from idle
    await b.send(Item("bad_magic_idle", first, bad=0, code=E_IMAGE, rule=Rule.MAGIC, index=0))
    bads = make_illegal_images(b.cfg, rng)
    rng.shuffle(bads)
    for k, bad in enumerate(bads):
        if bad.image is not None:
            with pytest.raises(LaunchError):  # the model refuses it too
                bad.image.check(b.cfg)
            b.model_refused += 1
        b.knobs(fast=k % 3 == 0)
        # The one definition of a legal image names the same word and code as this bench expects,
        # and the loader must show its rule at that word (err_rule, img_words).
        verdict = check_words(bad.words, b.cfg)
        assert (verdict.index, verdict.code) == (bad.index, bad.code), (
            f"'{bad.name}': check_words says {verdict.message} (code {verdict.code}), the bench expects "
            f"word {bad.index} code {bad.code:#x}"
        )
        b.agreed += 1
        await b.send(
            Item(
                bad.name, bad.words, bad=bad.index, code=bad.code, rule=verdict.rule or 0, index=verdict.index
            )
        )
        b.refused += 1
        await b.send(b.legal(f"after_{bad.name}", rand_image(b.cfg, rng), wait=True))
        if k % 6 == 0:  # a word that is not a magic word after a loaded image, or right after END
            img = rand_image(b.cfg, rng)
            await b.send(b.legal(f"before_stray{k}", img, wait=k % 12 == 0))
            stray = rng.choice([0, 1, MAGIC ^ 0x80, img.to_words()[-1]])
            verdict = check_words([*img.to_words(), stray], b.cfg)
            assert verdict.rule is Rule.AFTER_END, verdict.message
            await b.send(
                Item(f"stray{k}", [stray], bad=0, code=E_IMAGE, rule=verdict.rule, index=verdict.index)
            )
            b.refused += 1
    # The bad-input corpus's image streams (tb/tests/model/corpus/images.toml), back to back: each must
    # get, on this configuration, the rule and word check_words gives. Left out: streams the loader
    # judges by what came before (a first word that is not magic after a loaded image is AFTER_END,
    # not MAGIC; words after END: the "stray" items above) and those without a loader verdict.
    for case in CORPUS_IMAGES:
        words = words_of(case)
        verdict = check_words(words, b.cfg)
        if verdict.rule is None or verdict.code is None or verdict.rule in (Rule.MAGIC, Rule.AFTER_END):
            continue
        b.knobs(fast=rng.random() < 0.5)
        await b.send(
            Item(
                f"corpus_{case['name']}",
                list(words),
                bad=verdict.index,
                code=verdict.code,
                rule=verdict.rule,
                index=verdict.index,
            )
        )
        b.refused += 1
        b.corpus += 1
    await b.send(b.legal("last", rand_image(b.cfg, rng), wait=True))
    await b.finish()
    assert b.corpus >= 30, f"only {b.corpus} corpus images sent"
    b.report(f"illegal images, {_cfg_name(b.cfg)}")


@cocotb.test()
async def restarts(dut) -> None:
    """A magic word where a header may start (after magic, after any complete record, while stores
    drain) restarts; the next image loads intact. Inside a payload the magic value is data, which
    legal_images proves (rand_word includes it)."""
    b = await _start(dut, "restarts")
    rng = b.rng
    for k in range(24):
        b.knobs(fast=k % 3 == 0)
        img = rand_image(b.cfg, rng)
        words = img.to_words()
        recs = split_records(words)
        # Where a header is expected: after the magic word, or after any complete record but END.
        boundaries = [1] + [sum(len(r) for r in recs[: i + 1]) for i in range(len(recs) - 1)]
        if k % 6 == 3:  # complete, restarted while stores drain (no wait for loaded)
            cut = len(words)
        else:
            cut = rng.choice(boundaries)
        item = Item(f"cut{k}_{cut}of{len(words)}", words[:cut])
        if cut == len(words):
            item = b.legal(f"complete{k}", img, wait=False)
        await b.send(item)
        b.restarted += 1
        await b.send(b.legal(f"after_cut{k}", rand_image(b.cfg, rng), wait=k % 4 != 3))
    await b.send(b.legal("last", rand_image(b.cfg, rng), wait=True))
    await b.finish()
    b.report(f"restarts, {_cfg_name(b.cfg)}")


def _cfg_name(cfg: GpuConfig) -> str:
    return next((n for n, c in CONFIGS.items() if c == cfg), "custom")


# ---------------------------------------------------------------------------------------- launchers
@pytest.mark.parametrize("name", list(CONFIGS))
def test_loader(name: str) -> None:
    cfg = CONFIGS[name].check()
    rtlsim.run("simt_loader", SOURCES, __name__, machine=cfg, parameters={"TAG_W": TAG_W}, testcase=TESTS)


def test_loader_illegal_parameter() -> None:
    params = rtlsim.machine_parameters(CONFIGS["default"], "simt_loader") | {"TAG_W": TAG_W, "SEG_WORDS": 3}
    rtlsim.expect_fatal(
        "simt_loader",
        SOURCES,
        params,
        "simt_loader: illegal parameter SEG_WORDS=3 (must be a power of two in 1..32)",
    )
