"""Machine parameters shared by the golden model, the harness and the RTL's Verilog parameters.

Each field names the Verilog parameter it mirrors and its legal range (docs/isa.md, "Configuration").
``GpuConfig.check()`` refuses an illegal combination with a message naming the parameter, before any
simulation starts; the RTL checks the same ranges at elaboration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields


class ConfigError(ValueError):
    """An illegal machine configuration (raised before simulation)."""


def _pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


# Each parameter's own range (the rules that need no other parameter): name -> (legal?, wording).
FIELD_RULES: dict[str, tuple[Callable[[int], bool], str]] = {
    "warp_size": (lambda v: _pow2(v) and 4 <= v <= 32, "a power of two in 4..32"),
    "num_lanes": (lambda v: v in (4, 8, 16, 32), "one of 4, 8, 16, 32"),
    "num_warps": (lambda v: 1 <= v <= 32, "in 1..32"),
    "num_blocks": (lambda v: 1 <= v <= 16, "in 1..16"),
    "num_sms": (lambda v: 1 <= v <= 16, "in 1..16"),
    "rf_depth": (lambda v: _pow2(v) and 32 <= v <= 4096, "a power of two in 32..4096"),
    "shared_words": (lambda v: _pow2(v) and 64 <= v <= 65536, "a power of two in 64..65536"),
    "num_banks": (lambda v: _pow2(v) and v <= 32, "a power of two in 1..32"),
    "const_words": (lambda v: _pow2(v) and 16 <= v <= 65536, "a power of two in 16..65536"),
    "imem_words": (lambda v: _pow2(v) and 16 <= v <= 65536, "a power of two in 16..65536"),
    "stack_depth": (lambda v: 2 <= v <= 64, "in 2..64"),
    "seg_words": (lambda v: _pow2(v) and v <= 32, "a power of two in 1..32"),
    "global_words": (lambda v: _pow2(v) and 1024 <= v <= 1 << 30, "a power of two in 1024..2**30"),
}


def check_parameters(params: Mapping[str, object], design: str = "the design") -> None:
    """Refuse an out-of-range Verilog parameter (``NUM_SMS=0``) before any build, with a readable
    message: the RTL's own elaboration check may come after the simulator's errors about the widths
    the bad value makes (Icarus: "Concatenation repeat may not be zero"). Parameters that are not
    machine parameters, and the rules that relate two parameters, are left to the RTL."""
    for name, value in params.items():
        rule = FIELD_RULES.get(name.lower())
        if rule is None:
            continue
        ok, legal = rule
        if not isinstance(value, int) or isinstance(value, bool) or not ok(value):
            raise ConfigError(f"illegal parameter {name}={value} for {design} (must be {legal}); "
                              "the RTL refuses it at elaboration: fix the parameter")  # fmt: skip


@dataclass(frozen=True)
class GpuConfig:
    warp_size: int = 32  # WARP_SIZE: threads per warp, power of two in 4..32
    num_lanes: int = 8  # NUM_LANES: integer lanes per SM, 4/8/16/32 and <= warp_size
    num_warps: int = 16  # NUM_WARPS: resident warps per SM, 1..32
    num_blocks: int = 4  # NUM_BLOCKS: resident blocks per SM, 1..16
    num_sms: int = 1  # NUM_SMS: streaming multiprocessors, 1..16
    rf_depth: int = 512  # RF_DEPTH: registers per lane partition, power of two 32..4096
    shared_words: int = 1024  # SHARED_WORDS: shared memory words per SM, power of two 64..65536
    num_banks: int = 8  # NUM_BANKS: shared memory banks, power of two 1..32
    const_words: int = 256  # CONST_WORDS: constant memory words, power of two 16..65536
    imem_words: int = 1024  # IMEM_WORDS: instruction memory words, power of two 16..65536
    stack_depth: int = 16  # STACK_DEPTH: divergence stack entries per warp, 2..64
    seg_words: int = 8  # SEG_WORDS: global-memory segment (transaction) size in words, 1..32, pow2
    global_words: int = 1 << 20  # words of global memory the harness provides, pow2 <= 2**30

    @property
    def warp_rows(self) -> int:
        """Rows a warp is split into when the warp is wider than the lanes."""
        return self.warp_size // self.num_lanes

    @property
    def full_mask(self) -> int:
        return (1 << self.warp_size) - 1

    def check(self) -> GpuConfig:
        """Raise ConfigError naming the first illegal parameter; return self when legal."""
        # Each field's own range (FIELD_RULES), and the two rules relating fields.
        cross = {"num_lanes": (self.num_lanes <= self.warp_size, " and at most warp_size"),
                 "num_blocks": (self.num_blocks <= self.num_warps, " and at most num_warps")}  # fmt: skip
        rules: list[tuple[str, bool, str]] = []
        for name, (rule, legal) in FIELD_RULES.items():
            also, extra = cross.get(name, (True, ""))
            rules.append((name, rule(getattr(self, name)) and also, legal + extra))
        for name, ok, legal in rules:
            if not ok:
                raise ConfigError(f"illegal configuration: {name}={getattr(self, name)} (must be {legal})")
        # One warp's registers must fit the register file (32 registers per thread at most).
        if self.rf_depth < self.warp_rows:
            raise ConfigError(
                f"illegal configuration: rf_depth={self.rf_depth} cannot hold one register of one warp "
                f"({self.warp_rows} rows)"
            )
        return self

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, int]) -> GpuConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ConfigError(f"unknown configuration parameter(s): {', '.join(sorted(unknown))}")
        return cls(**d).check()
