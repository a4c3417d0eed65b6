"""Special registers and kernel parameters (docs/isa.md sections 1 "block/grid/warp", 3.2, 8.2).

The expected value of every special register is derived in the test from the spec formulas:
flat tid = tid.x + tid.y*ntid.x + tid.z*ntid.x*ntid.y, warp = tid / WARP_SIZE, lane = tid % WARP_SIZE,
flat block = ctaid.x + ctaid.y*nctaid.x + ctaid.z*nctaid.x*nctaid.y, %smid from the scheduler.
"""

from __future__ import annotations

import itertools

import pytest

from spec.config import GpuConfig
from spec.model import ErrorKind, KernelError
from tb.tests.model import kit

NAMES = ["tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y", "ctaid.z",
         "nctaid.x", "nctaid.y", "nctaid.z", "tid", "laneid", "warpid", "smid"]  # fmt: skip
SRC = ".regs 17\n" + "\n".join(f"s{k}: LDS r{k + 1}, %{n}" for k, n in enumerate(NAMES)) + "\nEXIT\n"


def flat_index(dims: tuple[int, int, int]) -> dict[int, tuple[int, int, int]]:
    """flat -> (x, y, z) with flat = x + y*X + z*X*Y (docs/isa.md section 1)."""
    X, Y, Z = dims
    return {x + y * X + z * X * Y: (x, y, z) for x, y, z in itertools.product(range(X), range(Y), range(Z))}


def expected(block, grid, W, bid, wid, lane, sm) -> dict[str, int]:
    t = wid * W + lane
    tx, ty, tz = flat_index(block)[t]
    cx, cy, cz = flat_index(grid)[bid]
    return {
        "tid.x": tx,
        "tid.y": ty,
        "tid.z": tz,
        "ntid.x": block[0],
        "ntid.y": block[1],
        "ntid.z": block[2],
        "ctaid.x": cx,
        "ctaid.y": cy,
        "ctaid.z": cz,
        "nctaid.x": grid[0],
        "nctaid.y": grid[1],
        "nctaid.z": grid[2],
        "tid": t,
        "laneid": t % W,
        "warpid": t // W,
        "smid": sm,
    }


def check_sregs(m: kit.TracingModel, block, grid, W, sm_of) -> int:
    lab = kit.labels(SRC)
    nthreads = block[0] * block[1] * block[2]
    checked = 0
    for r in m.log:
        if r.mnemonic != "LDS":
            continue
        k = [i for i, n in enumerate(NAMES) if lab[f"s{i}"] == r.pc][0]
        valid = kit.full(min(W, nthreads - r.warp * W))
        assert r.mask == valid, "all valid threads are active, invalid ones never"
        for lane in kit.lanes_of(r.mask):
            exp = expected(block, grid, W, r.block, r.warp, lane, sm_of(r.block))[NAMES[k]]
            assert int(r.values[lane]) == exp, (NAMES[k], r.block, r.warp, lane)
            checked += 1
    return checked


@pytest.mark.parametrize(
    "warp_size,block,grid",
    [
        (32, (5, 3, 2), (3, 2, 2)),  # 30 threads: one partial warp
        (32, (4, 4, 3), (2, 3, 2)),  # 48 threads: a full and a partial warp
        (32, (1, 1, 64), (1, 1, 3)),  # z only
        (32, (2, 1, 33), (5, 1, 1)),  # 66 threads, 3 warps, last has 2 threads
        (8, (3, 5, 2), (2, 2, 2)),  # warp size 8: 4 warps, last partial
        (16, (7, 1, 3), (1, 4, 1)),
        (4, (3, 3, 1), (1, 1, 2)),
    ],
)
def test_special_registers_3d(warp_size, block, grid) -> None:
    nthreads = block[0] * block[1] * block[2]
    W = warp_size
    cfg = GpuConfig(warp_size=W, num_lanes=min(8, W), num_sms=3)
    m, _ = kit.launch(SRC, cfg, block=block, grid=grid)
    m.run()
    nblocks = grid[0] * grid[1] * grid[2]
    n = check_sregs(m, block, grid, W, sm_of=lambda b: b % 3)  # run() alone: flat block % NUM_SMS
    assert n == 16 * nthreads * nblocks


def test_smid_is_the_sm_given_to_start_block() -> None:
    cfg = GpuConfig(num_sms=4)
    block, grid = (8, 2, 3), (2, 2, 1)
    m, _ = kit.launch(SRC, cfg, block=block, grid=grid)
    sms = {0: 3, 1: 0, 2: 3, 3: 2}
    for bid in (2, 0, 3, 1):  # any order
        m.start_block(bid, sm=sms[bid])
        for wid in range(2):
            kit.run_warp(m, bid, wid)
    assert check_sregs(m, block, grid, 32, sm_of=sms.__getitem__) == 16 * 48 * 4


def test_sregs_end_to_end_through_stores() -> None:
    """Flat block and thread indices computed by the kernel from %ctaid/%nctaid/%tid.* address a
    per-thread output slot; every slot is written exactly with the expected flat ids."""
    src = """
        .regs 12
        LDS r1, %tid.x
        LDS r2, %tid.y
        LDS r3, %tid.z
        LDS r4, %ntid.x
        LDS r5, %ntid.y
        MUL r6, r4, r5
        MAD r7, r3, r6, r1      ; z*nx*ny + x
        MAD r7, r2, r4, r7      ; + y*nx  = flat tid
        LDS r8, %ctaid.x
        LDS r9, %ctaid.y
        LDS r10, %nctaid.x
        MAD r8, r9, r10, r8     ; flat block (grid z = 1)
        LDS r11, %ntid.z
        MUL r11, r11, r6        ; threads per block
        MAD r9, r8, r11, r7     ; global slot
        LDS r10, %tid
        SUB r11, r10, r7        ; %tid - computed flat tid (0)
        SHLI r9, r9, 1
        STG [r9 + 0], r10
        STG [r9 + 1], r11
        EXIT
    """
    block, grid = (3, 4, 5), (3, 2, 1)
    res = kit.run(src, block=block, grid=grid)
    n = 60 * 6
    got = kit.gmem(res, 0, 2 * n)
    assert got[0::2] == [i % 60 for i in range(n)]
    assert got[1::2] == [0] * n


def test_params_all_sixteen() -> None:
    values = [0, 1, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, 0x1234_5678] + [0xA000_0000 + k for k in range(10)]
    src = "\n".join(f".param {v}" for v in values) + "\n"
    src += "\n".join(f"LDS r1, %param{k}\nSTG [r0 + {k}], r1" for k in range(16)) + "\nEXIT\n"
    res = kit.run(src, block=1)
    assert kit.gmem(res, 0, 16) == values


def test_params_same_in_every_thread_and_block() -> None:
    src = """
        .param 0xCAFEF00D
        .param 7
        LDS r0, %tid
        LDS r1, %ctaid.x
        SHLI r1, r1, 6
        ADD r0, r0, r1
        LDS r2, %param1
        LDS r3, %param0
        ADD r2, r2, r3
        STG [r0 + 0], r2
        EXIT
    """
    res = kit.run(src, block=64, grid=3)
    assert kit.gmem(res, 0, 192) == [(0xCAFEF00D + 7) & kit.M32] * 192


@pytest.mark.parametrize("nparams,k", [(0, 0), (2, 2), (2, 15), (15, 15)])
def test_bad_param(nparams: int, k: int) -> None:
    """ "reading a parameter the launch did not supply is error BAD_PARAM" (block 1, warp 1)."""
    src = "".join(f".param {i}\n" for i in range(nparams))
    src += f"LDS r1, %tid\nLDS r2, %warpid\nbad: LDS r3, %param{k}\nEXIT\n"
    m, _ = kit.launch(src, grid=2, block=64)
    m.start_block(1)
    m.step(1, 1)
    m.step(1, 1)
    with pytest.raises(KernelError) as ei:
        m.step(1, 1)
    e = ei.value
    assert (e.kind, e.block, e.warp, e.pc) == (ErrorKind.BAD_PARAM, 1, 1, kit.labels(src)["bad"])


def test_last_supplied_param_is_fine_and_unexecuted_bad_param_is_not_an_error() -> None:
    src = ".param 11\n.param 22\nLDS r1, %param1\nSTG [r0 + 0], r1\nEXIT\nLDS r2, %param9\n"
    res = kit.run(src, block=1)
    assert kit.gmem(res, 0, 1) == [22]
