"""Every named machine the project builds, defined once.

Benches and tools pick a machine from here by name; none builds its own :class:`GpuConfig`. The table
in docs/verification.md ("Machines") lists them; ``python -m spec.machines`` prints them.

- ``SYSTEM``: the GPU regression's machines (tb/tests/system). CI's kernel runs use ``CI_MACHINE``.
- ``RANDOM``: the random-kernel generator's machines: the system ones and a 16-thread-warp one.
- ``SM_UNIT``: the SM unit bench's machines (tb/tests/unit/test_sm.py and test_sm_pipeline.py).
- ``LOADER_UNIT``: the loader unit bench's machines, from the smallest legal to the widest.
- :func:`bench`: the machine the benchmark kernels are measured on (``make bench``) and checked
  against C on the model: one SM as in FlexGrip's Table 4 (Merchant 2013, seed 001; docs/references.md), with 8, 16 or 32
  lanes and as many shared-memory banks as lanes.
- :func:`tesla`: Lies 2019 (seed 000) Table 5.1's 16-SM Tesla configuration (and its 1-16-SM, 4-32-lane
  relatives), on which ``make bench`` measures scaling with SMs (tools/bench/kernels_bench.py).
- ``PPA``: the machines ``make ppa``, ``make ppa-sweep`` and ``make ppa-timing`` synthesise (ppa/), keyed
  by the PPA flow's label (``L8-W16-R512-B8``, ``…-S2`` for a GPU of 2 SMs); :func:`ppa_machine` builds one.
"""

from __future__ import annotations

from .config import GpuConfig

BENCH_LANES = (8, 16, 32)
SYSTEM_GLOBAL_WORDS = 8192  # the system benches' global memory (tb/hdl/simt_tb_mem.v is sized from it)
SM_GLOBAL_WORDS = 4096  # the SM unit bench's


def bench(lanes: int = 8, num_sms: int = 1) -> GpuConfig:
    """The benchmark machine with ``lanes`` integer lanes (and banks) per SM."""
    return GpuConfig(
        warp_size=32,
        num_lanes=lanes,
        num_warps=16,
        num_blocks=4,
        num_sms=num_sms,
        rf_depth=1024,
        shared_words=2048,
        num_banks=lanes,
        const_words=64,
        imem_words=512,
        stack_depth=16,
        seg_words=8,
        global_words=1 << 18,
    ).check()


def system(num_sms: int, lanes: int) -> GpuConfig:
    """A system-regression machine: ``num_sms`` SMs of ``lanes`` lanes, small memories (fast builds)."""
    return GpuConfig(
        warp_size=32,
        num_lanes=lanes,
        num_warps=8,
        num_blocks=4,
        num_sms=num_sms,
        rf_depth=512,
        shared_words=512,
        num_banks=lanes,
        global_words=SYSTEM_GLOBAL_WORDS,
        imem_words=256,
        const_words=64,
        stack_depth=8,
        seg_words=8,
    ).check()


TESLA_SMS = 16  # Lies 2019 (seed 000) Table 5.1: NUM_MPS
TESLA_TOTAL_REGS = 4096  # Table 5.1: 8 lanes x 512 rows (R_ADDR_WIDTH 9); Lies 2019 section 5.2 keeps it


def tesla(num_sms: int = TESLA_SMS, lanes: int = 8) -> GpuConfig:
    """Lies 2019 (seed 000) Table 5.1's Tesla configuration on the benchmark machine: 16 SMs (NUM_MPS) of
    8 lanes (SP_PER_MP), 4 blocks, 16 warps, warps of 32, 512 register rows per lane (R_ADDR_WIDTH 9),
    64 constant words (C_ADDR_WIDTH 6), 1024 shared words (L_ADDR_WIDTH 10); banks = lanes. Other lane
    counts keep the total registers (RF_DEPTH = 4096 / lanes), as Lies 2019 section 5.2 does. The
    rest is :func:`bench`'s (Table 5.1 gives no instruction-memory size: its LADDR_WIDTH 8 is not in the
    thesis's parameter list). At 8, 16 and 32 lanes and 1, 2 or 4 SMs these are the machines the PPA
    sweep simulates and synthesises (ppa/sweep.py), so their cycles and areas pair up."""
    from dataclasses import replace

    return replace(
        bench(lanes, num_sms), rf_depth=TESLA_TOTAL_REGS // lanes, shared_words=1024, const_words=64
    ).check()


def ppa_machine(lanes: int, rf_depth: int, warps: int = 16, num_sms: int = 1) -> GpuConfig:
    """A machine the PPA flow synthesises: simt_sm's defaults (GpuConfig's: Lies 2019 (seed 000) Table
    5.1's SM, 4 blocks, 1024 shared words, 256 constant and 1024 instruction words) with ``lanes`` lanes
    and as many shared-memory banks (Lies 2019: the banks grow with the processors), ``rf_depth`` register
    rows per lane and ``warps`` resident warps; ``num_sms`` > 1 is a GPU top of that many such SMs."""
    return GpuConfig(
        num_lanes=lanes, num_banks=lanes, rf_depth=rf_depth, num_warps=warps, num_sms=num_sms
    ).check()


def ppa_label(cfg: GpuConfig) -> str:
    """The PPA flow's name of a machine: ``L8-W16-R512-B8``, ``-BL<blocks>``/``-SH<shared words>`` when
    not the default, ``-S<sms>`` for a GPU of several SMs (build/ppa/cache folders carry it)."""
    base = f"L{cfg.num_lanes}-W{cfg.num_warps}-R{cfg.rf_depth}-B{cfg.num_banks}"
    extra = [f"{k}{v}" for k, v, d in (("BL", cfg.num_blocks, 4), ("SH", cfg.shared_words, 1024)) if v != d]
    return "-".join([base, *extra]) + (f"-S{cfg.num_sms}" if cfg.num_sms > 1 else "")


PPA_TOTAL_REG_ROWS = TESLA_TOTAL_REGS  # lanes x RF_DEPTH kept constant in the constant-registers variant


def _ppa_machines() -> dict[str, GpuConfig]:
    """make ppa's full sweep and make ppa-sweep's 12 configurations (docs/ppa.md), each machine once."""
    rows = PPA_TOTAL_REG_ROWS
    ms = [ppa_machine(n, rows // n) for n in (4, 8, 16, 32)]  # constant total registers (Lies 2019 §5.2)
    ms += [ppa_machine(n, 512) for n in (4, 16, 32)]  # 512 rows per lane: registers grow with the lanes
    ms += [ppa_machine(8, max(32, 32 * w), warps=w) for w in (8, 32)]  # make ppa: 32 rows per warp
    ms += [ppa_machine(8, 512, warps=8), ppa_machine(4, 1024, warps=8)]  # make ppa-sweep's warp points
    ms += [ppa_machine(8, 512, num_sms=s) for s in (2, 4)] + [ppa_machine(32, 128, num_sms=2)]  # GPUs
    return {ppa_label(m): m for m in ms}


PPA: dict[str, GpuConfig] = _ppa_machines()


SYSTEM: dict[str, GpuConfig] = {
    "sm1-l8": system(1, 8),
    "sm2-l8": system(2, 8),
    "sm4-l16": system(4, 16),
    "sm2-l32": system(2, 32),
}
CI_MACHINE = "sm2-l8"  # the machine CI runs the benchmark kernels and the differential on

RANDOM: dict[str, GpuConfig] = {
    **SYSTEM,
    "w16-l4": GpuConfig(warp_size=16, num_lanes=4, num_warps=8, num_blocks=4, num_sms=1, rf_depth=512,
                        shared_words=256, num_banks=4, global_words=SYSTEM_GLOBAL_WORDS, imem_words=256,
                        const_words=64, stack_depth=8, seg_words=4).check(),
}  # fmt: skip

SM_UNIT: dict[str, GpuConfig] = {
    "w32l8": GpuConfig(warp_size=32, num_lanes=8, num_warps=8, num_blocks=4, rf_depth=512,
                       shared_words=512, num_banks=8, global_words=SM_GLOBAL_WORDS, imem_words=256,
                       const_words=64, stack_depth=8, seg_words=8).check(),
    "w32l32": GpuConfig(warp_size=32, num_lanes=32, num_warps=4, num_blocks=2, rf_depth=128,
                        shared_words=256, num_banks=16, global_words=SM_GLOBAL_WORDS, imem_words=256,
                        const_words=64, stack_depth=8, seg_words=4).check(),
    # stack_depth 7: a full stack fills the 3-bit depth field (kernel full_stack reaches it)
    "w16l4": GpuConfig(warp_size=16, num_lanes=4, num_warps=8, num_blocks=3, rf_depth=1024,
                       shared_words=512, num_banks=4, global_words=SM_GLOBAL_WORDS, imem_words=256,
                       const_words=64, stack_depth=7, seg_words=16).check(),
}  # fmt: skip

LOADER_UNIT: dict[str, GpuConfig] = {
    "default": GpuConfig(global_words=4096).check(),
    "small": GpuConfig(warp_size=8, num_lanes=4, num_warps=4, num_blocks=2, rf_depth=32, shared_words=64,
                       num_banks=1, const_words=16, imem_words=16, seg_words=1, global_words=1024).check(),
    "wide": GpuConfig(warp_size=16, num_lanes=16, num_warps=32, num_blocks=16, rf_depth=4096,
                      shared_words=65536, num_banks=32, const_words=64, imem_words=64, seg_words=32,
                      global_words=2048).check(),
    "rows8": GpuConfig(warp_size=32, num_lanes=4, num_warps=8, num_blocks=8, rf_depth=256, shared_words=256,
                       num_banks=4, const_words=32, imem_words=32, seg_words=4, global_words=1024).check(),
}  # fmt: skip


def named() -> dict[str, GpuConfig]:
    """Every named machine, keyed ``group/name`` (bench machines as ``bench/l<lanes>``, PPA machines as
    ``ppa/<label>``)."""
    out = {f"bench/l{lanes}": bench(lanes) for lanes in BENCH_LANES}
    out["bench/tesla"] = tesla()
    groups = (("system", SYSTEM), ("random", RANDOM), ("sm", SM_UNIT), ("loader", LOADER_UNIT), ("ppa", PPA))
    for group, table in groups:
        out |= {f"{group}/{name}": cfg for name, cfg in table.items()}
    return out


def doc_table() -> list[str]:
    """The markdown table of every named machine (docs/verification.md, generated)."""
    keys = list(GpuConfig().as_dict())
    rows = ["| machine | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    for name, cfg in named().items():
        if name.startswith("random/") and name.split("/")[1] in SYSTEM:
            continue  # the same machines as system/
        values = cfg.as_dict()
        rows.append(f"| `{name}` | " + " | ".join(str(values[k]) for k in keys) + " |")
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the named machines' table (docs/machines.md)."""
    from . import cli

    cli.ArgumentParser(prog="python -m spec.machines", description=main.__doc__).parse_args(argv)
    print("\n".join(doc_table()))
    return 0


if __name__ == "__main__":
    from . import cli

    cli.run(main)
