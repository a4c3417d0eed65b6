"""The memory inventory (every array Yosys's ``memory`` pass found) and its cost per bit.

Classification (stated rule): an array with exactly one write port and at least
``flow.MACRO_MIN_WORDS`` (32) words is a **memory macro**, costed here per bit. Anything else (several
write ports — the warp and block tables written by many lanes or events —, fewer words, read-only
tables such as the decoder's ROMs) is a **flip-flop array**: Yosys maps it to flip-flops and gates, so
its area is already in the unit's logic.

Cost per bit (published, Ye 2009 (seed 003) Table 9, CACTI at 90 nm): scratchpad 0.144e-3 mm² per 32-bit word
(16 KB, 16 banks, 1RW) and register file 0.352e-3 mm² per word (2R1W), i.e. 4.50 µm² and 11.0 µm² per
bit. Scaled to the 130 nm of the logic's cells by (130/90)² (ideal area scaling — modelled, not
measured; a real sky130 SRAM compiler would differ).

Port-replication rule: an array with at most one read port costs the 1RW per-bit area; an array with R
read ports costs ceil(R / 2) copies of the 2R1W per-bit area (each copy serves two reads, all copies are
written together — the usual way to add read ports; a 3-read register file is two 2R1W copies, an
8-read table four).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ppa.flow import MACRO_MIN_WORDS, unit_name

SEED003_SMEM_MM2_PER_WORD = 0.144e-3  # Ye 2009 (seed 003) Table 9: smem_area_per_word (CACTI, 90 nm, 1RW)
SEED003_REG_MM2_PER_WORD = 0.352e-3  # Ye 2009 (seed 003) Table 9: reg_area_per_word (CACTI, 90 nm, 2R1W)
SEED003_NODE_NM = 90.0
LOGIC_NODE_NM = 130.0  # sky130
NODE_SCALE = (LOGIC_NODE_NM / SEED003_NODE_NM) ** 2
UM2_PER_BIT_1RW = SEED003_SMEM_MM2_PER_WORD * 1e6 / 32 * NODE_SCALE
UM2_PER_BIT_2R1W = SEED003_REG_MM2_PER_WORD * 1e6 / 32 * NODE_SCALE


@dataclass(frozen=True)
class Array:
    unit: str  # module holding the array (e.g. simt_regfile)
    name: str  # Yosys MEMID without the leading backslash
    words: int
    width: int
    read_ports: int
    write_ports: int
    sync_read_ports: int  # read ports with a clocked (registered) output
    instances: int = 1  # instances of the module in the design

    @property
    def bits(self) -> int:
        return self.words * self.width

    @property
    def kind(self) -> str:
        return "macro" if self.write_ports == 1 and self.words >= MACRO_MIN_WORDS else "flops"

    @property
    def copies(self) -> int:
        """Replicas the port-replication rule charges (1 for 0/1 read port)."""
        return 1 if self.read_ports <= 1 else math.ceil(self.read_ports / 2)

    @property
    def um2_per_bit(self) -> float:
        return UM2_PER_BIT_1RW if self.read_ports <= 1 else UM2_PER_BIT_2R1W * self.copies

    @property
    def area_um2(self) -> float:
        """Modelled macro area of all instances (0 for flip-flop arrays: they are in the logic)."""
        return self.bits * self.um2_per_bit * self.instances if self.kind == "macro" else 0.0

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(bits=self.bits, kind=self.kind, copies=self.copies, area_um2=self.area_um2)
        return d


def _int(v: object) -> int:
    """A Yosys JSON parameter: a binary string (or already an int)."""
    if isinstance(v, int):
        return v
    s = str(v)
    return int(s, 2) if s and set(s) <= {"0", "1"} else int(s)


def inventory(design: dict, mult: dict[str, int] | None = None) -> list[Array]:
    """Every ``$mem_v2`` cell of a Yosys JSON design (after ``memory -nomap``)."""
    out: list[Array] = []
    for mod_name, mod in design.get("modules", {}).items():
        for cell in mod.get("cells", {}).values():
            if not str(cell.get("type", "")).startswith("$mem"):
                continue
            p = cell["parameters"]
            rd = _int(p["RD_PORTS"])
            clk_en = _int(p.get("RD_CLK_ENABLE", 0))
            out.append(
                Array(
                    unit=unit_name(mod_name),
                    name=str(p.get("MEMID", "?")).lstrip("\\"),
                    words=_int(p["SIZE"]),
                    width=_int(p["WIDTH"]),
                    read_ports=rd,
                    write_ports=_int(p["WR_PORTS"]),
                    sync_read_ports=bin(clk_en).count("1"),
                    instances=(mult or {}).get(mod_name, 1),
                )
            )
    return sorted(out, key=lambda a: (a.unit, -a.bits, a.name))


def totals(arrays: list[Array]) -> dict[str, float]:
    """Bits and modelled area of the macros, bits of the flip-flop arrays."""
    macro = [a for a in arrays if a.kind == "macro"]
    flops = [a for a in arrays if a.kind == "flops"]
    return {
        "macro_bits": sum(a.bits * a.instances for a in macro),
        "macro_area_um2": sum(a.area_um2 for a in macro),
        "flop_array_bits": sum(a.bits * a.instances for a in flops),
    }
