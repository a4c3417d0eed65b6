"""The machines `make ppa` synthesises, and the sweeps over them.

A configuration is a :class:`spec.config.GpuConfig`, the project's one machine type; the PPA flow's
machines are named machines (``spec.machines.PPA``, keyed by :func:`name`). This module picks the
sweeps from them and gives the flow's views of a machine: its label, simt_sm's Verilog parameters, and
the record written into the results (``as_dict``: the PPA flow's short keys, ``lanes``, ``warps``, …).
"""

from __future__ import annotations

from dataclasses import replace

from spec.config import GpuConfig
from spec.machines import PPA, PPA_TOTAL_REG_ROWS, ppa_label, ppa_machine

TOTAL_REG_ROWS = PPA_TOTAL_REG_ROWS  # lanes x RF_DEPTH of the 8-lane default: the constant-registers variant

# The results' record of a machine (result.json "config"): short key -> GpuConfig field, in this order.
FIELDS = {
    "lanes": "num_lanes",
    "warps": "num_warps",
    "blocks": "num_blocks",
    "rf_depth": "rf_depth",
    "banks": "num_banks",
    "shared_words": "shared_words",
    "const_words": "const_words",
    "imem_words": "imem_words",
    "stack_depth": "stack_depth",
    "seg_words": "seg_words",
    "warp_size": "warp_size",
    "sms": "num_sms",
}

# simt_sm's parameters as every Yosys script sets them, in this order (the order is part of the
# scripts' text, so of the synthesis cache keys).
SM_PARAMS = (
    "warp_size",
    "num_lanes",
    "num_warps",
    "num_blocks",
    "rf_depth",
    "shared_words",
    "num_banks",
    "const_words",
    "imem_words",
    "stack_depth",
    "seg_words",
)


def machine(name_: str) -> GpuConfig:
    """The named PPA machine ``name_`` (``L8-W16-R512-B8``); a clear error for an unknown name."""
    try:
        return PPA[name_]
    except KeyError:
        raise ValueError(
            f"unknown PPA machine {name_!r}: the PPA machines are {', '.join(PPA)} (spec/machines.py PPA)"
        ) from None


def name(cfg: GpuConfig) -> str:
    """Short label, e.g. ``L8-W16-R512-B8`` (SM) or ``L8-W16-R512-B8-S4`` (GPU)."""
    return ppa_label(cfg)


def sm_only(cfg: GpuConfig) -> GpuConfig:
    """The same SM without the GPU-level count (one synthesis serves every ``num_sms``)."""
    return replace(cfg, num_sms=1)


def sm_params(cfg: GpuConfig) -> dict[str, int]:
    """simt_sm's parameters (Verilog names), all of them, explicitly."""
    return cfg.verilog_parameters(*SM_PARAMS)


def gpu_params(cfg: GpuConfig) -> dict[str, int]:
    return {"NUM_SMS": cfg.num_sms, **sm_params(cfg)}


def as_dict(cfg: GpuConfig) -> dict[str, int]:
    """The record of *cfg* in the PPA results (result.json, sweep.json): the flow's short keys."""
    return {k: getattr(cfg, f) for k, f in FIELDS.items()}


def lanes_sweep(total_registers_constant: bool, lanes: tuple[int, ...] = (4, 8, 16, 32)) -> list[GpuConfig]:
    """Lanes 4..32, banks = lanes (Lies 2019 (seed 000): the bank count grows with the processors), 16 warps.

    ``total_registers_constant``: RF_DEPTH = 4096 / lanes, as Lies 2019 (seed 000) section 5.2 did ("we set the
    register address width to maintain the same total number of registers"); otherwise RF_DEPTH stays
    512 rows per lane, so the register file grows with the lanes."""
    return [ppa_machine(n, TOTAL_REG_ROWS // n if total_registers_constant else 512) for n in lanes]


def warps_sweep(warps: tuple[int, ...] = (8, 16, 32)) -> list[GpuConfig]:
    """8 lanes, 8 warps .. 32 warps (RF_DEPTH grows with the threads: 32 rows per warp)."""
    return [ppa_machine(8, max(32, 32 * w), warps=w) for w in warps]


def sms_sweep(base: GpuConfig, sms: tuple[int, ...] = (1, 2, 4)) -> list[GpuConfig]:
    return [replace(base, num_sms=s) for s in sms]


SWEEPS = ("quick", "full")


def sweep(kind: str) -> tuple[list[GpuConfig], list[GpuConfig]]:
    """(SM configurations, GPU configurations) of a named sweep.

    quick: the 4- and 8-lane SMs and a 2-SM GPU (a few minutes, for development);
    full: lanes 4/8/16/32 in both register variants, warps 8/16/32, GPUs of 1/2/4 SMs of 8 lanes."""
    base = ppa_machine(8, 512)
    if kind == "quick":
        sms = lanes_sweep(True, (4, 8))
        return registered(sms), registered(sms_sweep(base, (2,)))
    if kind == "full":
        sms = lanes_sweep(True) + lanes_sweep(False) + warps_sweep()
        unique = list(dict.fromkeys(sms))
        gpus = sms_sweep(base, (1, 2, 4)) + sms_sweep(lanes_sweep(True)[3], (1, 2))
        return registered(unique), registered(gpus)
    raise ValueError(f"unknown sweep {kind!r}: choose one of {', '.join(SWEEPS)}")


def registered(cfgs: list[GpuConfig]) -> list[GpuConfig]:
    """*cfgs* as the named machines they are; an error naming any that spec/machines.py does not hold."""
    missing = [name(c) for c in cfgs if PPA.get(name(c)) != c]
    if missing:
        raise ValueError(
            f"PPA machines not in spec/machines.py PPA: {', '.join(missing)}; register them there"
        )
    return cfgs
