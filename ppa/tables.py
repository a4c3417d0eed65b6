"""From cached synthesis results to numbers per unit and per configuration (no plotting here)."""

from __future__ import annotations

from dataclasses import dataclass

from ppa import liberty

NAND2_UM2 = 3.7536  # sky130_fd_sc_hd__nand2_1, LEF 1.38 x 2.72 µm (checked against the LEF at run time)

# Report units: the list (lanes, register file, shared memory and its conflict logic,
# coalescer/global unit, divergence stacks, scheduler, decode) plus what else the SM holds.
UNIT_OF_MODULE = {
    "simt_alu": "lanes (ALUs)",
    "simt_regfile": "register file",
    "simt_shared_lsu": "shared memory + conflicts",
    "simt_gmem_unit": "global unit (capture slots)",
    "simt_coalescer": "coalescer",
    "simt_div_stack": "divergence stacks",
    "simt_warp_sched": "warp scheduler",
    "simt_decode": "decode",
    "simt_barrier": "barriers",
    "simt_perf": "perf counters",
    "simt_warp_table": "warp table",
    "simt_block_init": "block start",
    "simt_tid_table": "thread-id table",
    "simt_issue": "issue (F, DEC)",
    "simt_execute": "execute (EX)",
    "simt_shared_wb": "shared writeback (SWB)",
    "simt_scoreboard": "issue scoreboard",
    "simt_commit": "commit (CM)",
    "simt_sm": "SM memories + glue",
    "simt_gpu": "GPU top glue",
    "simt_sm_select": "GPU top glue",
    "simt_ignore_flag": "GPU top glue",
    "simt_block_sched": "block scheduler",
    "simt_loader": "loader",
    "simt_image_check": "loader",
    "simt_loader_store": "loader",
    "simt_mem_arbiter": "memory arbiter",
}
UNIT_ORDER = list(dict.fromkeys(UNIT_OF_MODULE.values()))


def unit_of(module: str) -> str:
    return UNIT_OF_MODULE.get(module, module)


@dataclass
class UnitRow:
    unit: str
    instances: int = 0
    cells: int = 0
    ffs: int = 0
    generic_gates: int = 0
    logic_um2: float = 0.0
    macro_bits: int = 0
    macro_um2: float = 0.0
    depth: int | None = None  # longest gate chain of the unit's modules (None: not measured)

    @property
    def nand2_eq(self) -> float:
        return self.logic_um2 / NAND2_UM2

    @property
    def total_um2(self) -> float:
        return self.logic_um2 + self.macro_um2


def unit_rows(result: dict) -> dict[str, UnitRow]:
    """Per report unit, all instances together: logic from the mapped netlist, macros from the inventory."""
    rows: dict[str, UnitRow] = {}
    for module, u in result["units"].items():
        k = u["instances"]
        row = rows.setdefault(unit_of(module), UnitRow(unit_of(module)))
        row.instances = max(row.instances, k)
        row.cells += k * u["cells"]
        row.ffs += k * u["ffs"]
        row.generic_gates += k * u["generic_gates"]
        row.logic_um2 += k * u["area_um2"]
        d = result.get("depths", {}).get(module)
        if d is not None and d >= 0:
            row.depth = max(row.depth or 0, d)
    for a in result["memories"]:
        if a["kind"] != "macro":
            continue
        row = rows.setdefault(unit_of(a["unit"]), UnitRow(unit_of(a["unit"])))
        row.macro_bits += a["bits"] * a["instances"]
        row.macro_um2 += a["area_um2"]
    return dict(sorted(rows.items(), key=lambda kv: UNIT_ORDER.index(kv[0]) if kv[0] in UNIT_ORDER else 99))


@dataclass
class Summary:
    name: str
    lanes: int
    warps: int
    rf_depth: int
    logic_um2: float
    macro_um2: float
    macro_bits: int
    flop_array_bits: int
    ffs: int
    generic_gates: int
    cells: int
    gmem_ff_share: float  # flip-flops of the global unit (capture slots) / all flip-flops

    @property
    def total_um2(self) -> float:
        return self.logic_um2 + self.macro_um2

    @property
    def mem_to_logic(self) -> float:
        return self.macro_um2 / self.logic_um2 if self.logic_um2 else float("nan")

    @property
    def nand2_eq(self) -> float:
        return self.logic_um2 / NAND2_UM2


def summary(result: dict) -> Summary:
    rows = unit_rows(result)
    ffs = sum(r.ffs for r in rows.values())
    gmem = rows.get(unit_of("simt_gmem_unit"))
    cfg = result["config"]
    return Summary(
        name=result["name"],
        lanes=cfg["lanes"],
        warps=cfg["warps"],
        rf_depth=cfg["rf_depth"],
        logic_um2=sum(r.logic_um2 for r in rows.values()),
        macro_um2=sum(r.macro_um2 for r in rows.values()),
        macro_bits=sum(r.macro_bits for r in rows.values()),
        flop_array_bits=sum(a["bits"] * a["instances"] for a in result["memories"] if a["kind"] == "flops"),
        ffs=ffs,
        generic_gates=sum(r.generic_gates for r in rows.values()),
        cells=sum(r.cells for r in rows.values()),
        gmem_ff_share=(gmem.ffs / ffs) if gmem and ffs else 0.0,
    )


def check_nand2(cells: dict[str, liberty.Cell]) -> None:
    if abs(cells[liberty.NAND2].area - NAND2_UM2) > 1e-6:
        raise ValueError(
            f"nand2_1 is {cells[liberty.NAND2].area} µm² in the installed sky130 package, "
            f"ppa/tables.py assumes {NAND2_UM2}: update NAND2_UM2"
        )
