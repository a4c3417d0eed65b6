"""Launch legality (docs/isa.md 8.1), configuration legality (section 9) and the launch image format
(8.3). Each limit is tested on both sides of its boundary; the numbers come from the spec tables.
"""

from __future__ import annotations

import dataclasses

import pytest

from spec import isa
from spec.config import ConfigError, GpuConfig
from spec.image import LaunchError, LaunchImage
from spec.model import Model
from tb.tests.model import kit

EXIT = [isa.encode("EXIT")]


def img(**kw) -> LaunchImage:
    base = {"code": list(EXIT), "grid": (1, 1, 1), "block": (32, 1, 1), "regs": 4, "shared_words": 0}
    base.update(kw)
    return LaunchImage(**base)


def refused(image: LaunchImage, cfg: GpuConfig | None = None) -> bool:
    cfg = cfg or GpuConfig()
    try:
        image.check(cfg)
    except LaunchError:
        with pytest.raises(LaunchError):  # the model refuses it too, before any simulation
            Model(cfg, image)
        return True
    Model(cfg, image)
    return False


# (description, image fields, config fields, refused?)
LAUNCHES = [
    # "a block needs more than NUM_WARPS warps"
    ("512_threads_16_warps", {"block": (512, 1, 1), "regs": 1}, {}, False),
    ("513_threads_17_warps", {"block": (513, 1, 1), "regs": 1}, {}, True),
    ("3d_block_17_warps", {"block": (16, 17, 2), "regs": 1}, {}, True),
    (
        "warp8_64_threads_8_warps",
        {"block": (64, 1, 1)},
        {"warp_size": 8, "num_warps": 8, "num_blocks": 4},
        False,
    ),
    (
        "warp8_65_threads_9_warps",
        {"block": (65, 1, 1)},
        {"warp_size": 8, "num_warps": 8, "num_blocks": 4},
        True,
    ),
    # "warps x WARP_SIZE/NUM_LANES x regs > RF_DEPTH": 16 x 4 x 8 = 512
    ("rf_exactly_full", {"block": (512, 1, 1), "regs": 8}, {}, False),
    ("rf_one_register_too_many", {"block": (512, 1, 1), "regs": 9}, {}, True),
    ("rf_small_lanes4", {"block": (64, 1, 1), "regs": 4}, {"rf_depth": 64, "num_lanes": 4}, False),  # 2x8x4
    ("rf_small_lanes4_over", {"block": (64, 1, 1), "regs": 5}, {"rf_depth": 64, "num_lanes": 4}, True),
    ("rf_lanes32_one_row", {"block": (512, 1, 1), "regs": 32}, {"num_lanes": 32}, False),  # 16x1x32
    ("rf_lanes32_over", {"block": (512, 1, 1), "regs": 32}, {"num_lanes": 32, "rf_depth": 256}, True),
    # registers per thread 1..32
    ("regs_0", {"regs": 0}, {}, True),
    ("regs_1", {"regs": 1}, {}, False),
    ("regs_32", {"regs": 32}, {}, False),
    ("regs_33", {"regs": 33}, {}, True),
    # "more shared words than an SM has"
    ("shared_equal", {"shared_words": 1024}, {}, False),
    ("shared_over", {"shared_words": 1025}, {}, True),
    ("shared_small_sm", {"shared_words": 65}, {"shared_words": 64}, True),
    # "up to 16 parameters"
    ("params_16", {"params": list(range(16))}, {}, False),
    ("params_17", {"params": list(range(17))}, {}, True),
    # "more instructions or constants than their memories"
    ("code_fills_imem", {"code": EXIT * 16}, {"imem_words": 16}, False),
    ("code_over_imem", {"code": EXIT * 17}, {"imem_words": 16}, True),
    ("consts_fill", {"consts": [0] * 16}, {"const_words": 16}, False),
    ("consts_over", {"consts": [0] * 17}, {"const_words": 16}, True),
    # "data outside global memory"
    ("data_ends_at_end", {"data": [(1020, [1, 2, 3, 4])]}, {"global_words": 1024}, False),
    ("data_past_end", {"data": [(1020, [1, 2, 3, 4, 5])]}, {"global_words": 1024}, True),
    ("data_starts_past_end", {"data": [(1024, [1])]}, {"global_words": 1024}, True),
    ("data_second_record_out", {"data": [(0, [1]), (5000, [2])]}, {"global_words": 4096}, True),
    # "grid and block dimensions (each 1...65535)"
    ("grid_max", {"grid": (65535, 65535, 1)}, {}, False),
    # "more than 2^32 - 1 blocks (flat block indices are 32 bits)"
    ("grid_too_many_blocks", {"grid": (65535, 65535, 2)}, {}, True),
    ("grid_zero", {"grid": (0, 1, 1)}, {}, True),
    ("grid_65536", {"grid": (1, 65536, 1)}, {}, True),
    ("block_zero", {"block": (32, 1, 0)}, {}, True),
    ("block_65536", {"block": (65536, 1, 1)}, {}, True),
]


@pytest.mark.parametrize("name,image_kw,cfg_kw,is_refused", LAUNCHES, ids=[x[0] for x in LAUNCHES])
def test_launch_legality(name, image_kw, cfg_kw, is_refused) -> None:
    assert refused(img(**image_kw), GpuConfig(**cfg_kw)) == is_refused


def test_legal_launch_at_every_limit_runs() -> None:
    """A launch exactly at the limits is accepted and runs."""
    cfg = GpuConfig(imem_words=16, const_words=16, global_words=1024)
    src = """
            .regs 8
            .shared 1024
            LDS r0, %tid
            LDC r1, [r0 + 0]
            ST [r0 + 1000], r1
            STG [r0 + 1008], r1
            EXIT
    """
    res = kit.run(
        src, cfg, block=16, consts=list(range(100, 116)), params=list(range(16)), data=[(1008, [7] * 16)]
    )
    assert kit.gmem(res, 1008, 16) == list(range(100, 116))


def test_empty_program_is_a_refused_launch() -> None:
    """8.1: "A launch is refused before simulation (LaunchError) when it has no instructions ..."
    (the spec said nothing about empty programs until commit 0af4201; reported by this suite)."""
    assert refused(img(code=[]))


# ---------------------------------------------------------------------------------------------
# Section 9: configuration
# ---------------------------------------------------------------------------------------------
CONFIGS_OK = [
    {"warp_size": 4, "num_lanes": 4},
    {"warp_size": 8, "num_lanes": 8},
    {"warp_size": 16, "num_lanes": 16},
    {"warp_size": 32, "num_lanes": 32},
    {"warp_size": 32, "num_lanes": 4},
    {"num_warps": 1, "num_blocks": 1},
    {"num_warps": 32, "num_blocks": 16},
    {"num_warps": 4, "num_blocks": 4},
    {"num_sms": 1},
    {"num_sms": 16},
    {"rf_depth": 32},
    {"rf_depth": 4096},
    {"shared_words": 64},
    {"shared_words": 65536},
    {"num_banks": 1},
    {"num_banks": 32},
    {"const_words": 16},
    {"const_words": 65536},
    {"imem_words": 16},
    {"imem_words": 65536},
    {"stack_depth": 2},
    {"stack_depth": 3},
    {"stack_depth": 64},
    {"seg_words": 1},
    {"seg_words": 32},
    {"global_words": 1024},
    {"global_words": 1 << 30},
]
CONFIGS_BAD = [
    {"warp_size": 2, "num_lanes": 4},
    {"warp_size": 12},
    {"warp_size": 64},
    {"num_lanes": 6},
    {"num_lanes": 2},
    {"num_lanes": 64},
    {"warp_size": 8, "num_lanes": 16},
    {"warp_size": 16, "num_lanes": 32},
    {"num_warps": 0, "num_blocks": 1},
    {"num_warps": 33},
    {"num_blocks": 0},
    {"num_blocks": 17, "num_warps": 32},
    {"num_blocks": 5, "num_warps": 4},
    {"num_sms": 0},
    {"num_sms": 17},
    {"rf_depth": 16},
    {"rf_depth": 48},
    {"rf_depth": 8192},
    {"shared_words": 32},
    {"shared_words": 100},
    {"shared_words": 131072},
    {"num_banks": 0},
    {"num_banks": 3},
    {"num_banks": 64},
    {"const_words": 8},
    {"const_words": 17},
    {"const_words": 131072},
    {"imem_words": 8},
    {"imem_words": 24},
    {"imem_words": 131072},
    {"stack_depth": 1},
    {"stack_depth": 65},
    {"seg_words": 0},
    {"seg_words": 3},
    {"seg_words": 64},
    {"global_words": 512},
    {"global_words": 1000},
    {"global_words": 1 << 31},
]


@pytest.mark.parametrize("kw", CONFIGS_OK, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_legal_configuration(kw) -> None:
    cfg = GpuConfig(**kw)
    assert cfg.check() is cfg


@pytest.mark.parametrize("kw", CONFIGS_BAD, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_illegal_configuration(kw) -> None:
    cfg = GpuConfig(**kw)
    with pytest.raises(ConfigError):
        cfg.check()
    with pytest.raises(ConfigError):  # refused before simulation
        Model(cfg, img())


def test_config_from_dict_rejects_unknown_and_illegal() -> None:
    with pytest.raises(ConfigError):
        GpuConfig.from_dict({"warp_size": 32, "lanes": 8})
    with pytest.raises(ConfigError):
        GpuConfig.from_dict({"num_lanes": 6})
    assert GpuConfig.from_dict({"num_lanes": 16}).num_lanes == 16


# ---------------------------------------------------------------------------------------------
# 8.3 launch image format
# ---------------------------------------------------------------------------------------------
def test_image_words_follow_the_spec_layout() -> None:
    image = LaunchImage(
        code=[0x11, 0x22],
        grid=(2, 3, 4),
        block=(5, 6, 1),
        regs=7,
        shared_words=9,
        params=[0xFFFF_FFFF],
        consts=[8, 9, 10],
        data=[(7, []), (100, [1, 2])],
    )
    w = image.to_words()
    assert w == [
        0x53494D54,
        1,
        0x01000003,
        2,
        3,
        4,
        0x02000003,
        5,
        6,
        1,
        0x03000001,
        7,
        0x04000001,
        9,
        0x05000001,
        0xFFFF_FFFF,
        0x06000002,
        0x11,
        0x22,
        0x07000003,
        8,
        9,
        10,
        0x08000001,
        7,
        0x08000003,
        100,
        1,
        2,
        0x0F000000,
    ]
    back = LaunchImage.from_words(w)
    assert dataclasses.asdict(back) == dataclasses.asdict(image)


def test_image_hex_form_one_word_per_line_with_comments(tmp_path) -> None:
    image = kit.image_of("LDS r1, %tid\nEXIT", params=[3])
    text = image.to_hex()
    words = []
    for line in text.splitlines():
        body = line.split("//", 1)[0].strip()
        if body:
            assert len(body) == 8 and int(body, 16) >= 0
            words.append(int(body, 16))
    assert words == image.to_words()
    p = tmp_path / "k.hex"
    image.write_hex(p)
    assert dataclasses.asdict(LaunchImage.read_hex(p)) == dataclasses.asdict(image)


def test_image_records_must_come_in_the_specified_order() -> None:
    """docs/isa.md 8.3: "GRID, BLOCK, REGS, SHARED, PARAM, INSTR and CONST appear once each, in this
    order, then any DATA records, then END" — the RTL loader refuses anything else, so does Python."""
    from spec.image import ImageFormatError
    from spec.image import LaunchImage as Image

    words = Image(code=[0xFC000000], data=[(8, [1, 2])]).to_words()
    assert Image.from_words(words).data == [(8, [1, 2])]
    swapped = words[:2] + words[6:10] + words[2:6] + words[10:]  # BLOCK before GRID
    with pytest.raises(ImageFormatError, match="out of order"):
        Image.from_words(swapped)
    end_with_payload = words[:-1] + [0x0F000001, 0]
    with pytest.raises(ImageFormatError, match="END record with a payload"):
        Image.from_words(end_with_payload)
    no_const = words[:-6] + words[-5:]  # drop the (empty) CONST record; DATA (4 words) and END stay
    with pytest.raises(ImageFormatError, match="DATA record before the CONST record"):
        Image.from_words(no_const)
