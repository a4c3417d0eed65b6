"""Configurations of the SM and the GPU top that `make ppa` synthesises, and the sweeps over them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

# simt_sm's defaults (rtl/sm/simt_sm.v): Lies 2019 (seed 000) Table 5.1's Tesla-like SM with 8 lanes.
TOTAL_REG_ROWS = 4096  # lanes × RF_DEPTH of the 8-lane default: the constant-total-registers variant keeps it


@dataclass(frozen=True)
class Config:
    """One SM configuration (parameters of rtl/sm/simt_sm.v); ``sms`` is for the GPU top only."""

    lanes: int = 8
    warps: int = 16
    blocks: int = 4
    rf_depth: int = 512
    banks: int = 8
    shared_words: int = 1024
    const_words: int = 256
    imem_words: int = 1024
    stack_depth: int = 16
    seg_words: int = 8
    warp_size: int = 32
    sms: int = 1

    def __post_init__(self) -> None:
        def pow2(v: int) -> bool:
            return v > 0 and v & (v - 1) == 0

        problems = []
        if self.lanes not in (4, 8, 16, 32) or self.lanes > self.warp_size:
            problems.append(f"lanes={self.lanes} (4, 8, 16 or 32, at most warp_size={self.warp_size})")
        if not 1 <= self.warps <= 32:
            problems.append(f"warps={self.warps} (1..32)")
        if not 1 <= self.blocks <= min(16, self.warps):
            problems.append(f"blocks={self.blocks} (1..16, at most warps)")
        if not pow2(self.rf_depth) or not 32 <= self.rf_depth <= 4096:
            problems.append(f"rf_depth={self.rf_depth} (power of two 32..4096)")
        if not pow2(self.banks) or self.banks > 32:
            problems.append(f"banks={self.banks} (power of two 1..32)")
        if not 1 <= self.sms <= 16:
            problems.append(f"sms={self.sms} (1..16)")
        if problems:
            raise ValueError(
                "invalid PPA configuration: "
                + "; ".join(problems)
                + " — see the parameter ranges in rtl/sm/simt_sm.v"
            )

    @property
    def name(self) -> str:
        """Short label, e.g. ``L8-W16-R512-B8`` (SM) or ``L8-W16-R512-B8-S4`` (GPU)."""
        base = f"L{self.lanes}-W{self.warps}-R{self.rf_depth}-B{self.banks}"
        extra = [f"{k}{v}" for k, v, d in (("BL", self.blocks, 4), ("SH", self.shared_words, 1024)) if v != d]
        return "-".join([base, *extra]) + (f"-S{self.sms}" if self.sms > 1 else "")

    @property
    def threads(self) -> int:
        return self.warps * self.warp_size

    @property
    def registers(self) -> int:
        """32-bit registers in the SM's register file (lanes × rows)."""
        return self.lanes * self.rf_depth

    def sm_params(self) -> dict[str, int]:
        """simt_sm parameters (Verilog names) that differ from nothing: all of them, explicitly."""
        return {
            "WARP_SIZE": self.warp_size,
            "NUM_LANES": self.lanes,
            "NUM_WARPS": self.warps,
            "NUM_BLOCKS": self.blocks,
            "RF_DEPTH": self.rf_depth,
            "SHARED_WORDS": self.shared_words,
            "NUM_BANKS": self.banks,
            "CONST_WORDS": self.const_words,
            "IMEM_WORDS": self.imem_words,
            "STACK_DEPTH": self.stack_depth,
            "SEG_WORDS": self.seg_words,
        }

    def gpu_params(self) -> dict[str, int]:
        return {"NUM_SMS": self.sms, **self.sm_params()}

    def sm_only(self) -> Config:
        """The same SM without the GPU-level count (one synthesis serves every ``sms``)."""
        return replace(self, sms=1)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def lanes_sweep(total_registers_constant: bool, lanes: tuple[int, ...] = (4, 8, 16, 32)) -> list[Config]:
    """Lanes 4..32, banks = lanes (Lies 2019 (seed 000): the bank count grows with the processors), 16 warps.

    ``total_registers_constant``: RF_DEPTH = 4096 / lanes, as Lies 2019 (seed 000) section 5.2 did ("we set the
    register address width to maintain the same total number of registers"); otherwise RF_DEPTH stays
    512 rows per lane, so the register file grows with the lanes."""
    out = []
    for n in lanes:
        depth = TOTAL_REG_ROWS // n if total_registers_constant else 512
        out.append(Config(lanes=n, banks=n, rf_depth=depth))
    return out


def warps_sweep(warps: tuple[int, ...] = (8, 16, 32)) -> list[Config]:
    """8 lanes, 8 warps .. 32 warps (RF_DEPTH grows with the threads: 32 rows per warp)."""
    return [Config(warps=w, rf_depth=max(32, 32 * w)) for w in warps]


def sms_sweep(base: Config, sms: tuple[int, ...] = (1, 2, 4)) -> list[Config]:
    return [replace(base, sms=s) for s in sms]


SWEEPS = ("quick", "full")


def sweep(kind: str) -> tuple[list[Config], list[Config]]:
    """(SM configurations, GPU configurations) of a named sweep.

    quick: the 4- and 8-lane SMs and a 2-SM GPU (a few minutes, for development);
    full: lanes 4/8/16/32 in both register variants, warps 8/16/32, GPUs of 1/2/4 SMs of 8 lanes."""
    if kind == "quick":
        sms = lanes_sweep(True, (4, 8))
        return sms, sms_sweep(Config(), (2,))
    if kind == "full":
        sms = lanes_sweep(True) + lanes_sweep(False) + warps_sweep()
        unique = list(dict.fromkeys(sms))
        return unique, sms_sweep(Config(), (1, 2, 4)) + sms_sweep(lanes_sweep(True)[3], (1, 2))
    raise ValueError(f"unknown sweep {kind!r}: choose one of {', '.join(SWEEPS)}")
