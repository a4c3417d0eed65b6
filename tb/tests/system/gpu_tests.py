"""pyuvm tests of the GPU top, run by tb/tests/system/test_gpu.py (one simulator run per list).

Every test builds :class:`~tb.env.gpu_env.GpuEnv`, resets the GPU and plays launch sequences through
the host agent; the environment checks every retire in lock-step and every launch at its end.
The machine comes from the launcher (tb/benchenv.py). Environment variables (set by the pytest
launcher): KERNEL_SEEDS ("a:b" range or
"n,m,..." list, random tests), CHECK_MODE (full|end), SIMT_FAULT_EXPECT (meta-test), SIMT_STATS
(a JSON-lines file the run appends its counts to, for the regression summary); for the benchmark
kernels KERNEL_CASES ("name:size[:seed],..."), GMEM_PROFILE, GMEM_LATENCY (fixed latency in cycles) and
SIMT_BENCH (a JSON-lines file of each case's performance counters, for the benchmark report).
"""

from __future__ import annotations

import gc
import json
import os
import random
import time

import cocotb
import numpy as np
import pyuvm
from cocotb.clock import Clock
from cocotb.triggers import First

from kernels.directed import image_of, scenario_image
from spec.image import MAGIC
from tb import benchenv
from tb.agents.gmem_agent import GMEM_PROFILES
from tb.agents.host_bfm import (
    REG_BLOCKS_DISPATCHED,
    REG_BLOCKS_DONE,
    REG_CONFIG,
    REG_DBG_BLOCK,
    REG_DBG_LAST_PC,
    REG_DBG_PC,
    REG_DBG_SEL,
    REG_DBG_WARP,
    REG_ERR_BLOCK,
    REG_ERR_SM,
    REG_ID,
    REG_IMAGE,
    REG_PERF_SEL,
    REG_UNLISTED,
    ST_IGNORED,
    RegAccess,
)
from tb.agents.trace_monitor import trace_path
from tb.env.gpu_env import GpuEnv
from tb.env.items import LaunchItem
from tb.sequences import library
from tools import envvars


def seeds_from_env(default: str = "0:4") -> list[int]:
    return envvars.kernel_seeds(os.environ.get("KERNEL_SEEDS", default))


class GpuTest(pyuvm.uvm_test):
    """Base: environment, clock, reset, one launch sequence, report."""

    gmem_profile = "default"
    env_class: type[GpuEnv] = GpuEnv  # the AXI tests (axi_tests.py) put AXI agents in its place

    def build_phase(self) -> None:
        self.cfg = benchenv.machine()
        self.rng = random.Random(cocotb.RANDOM_SEED)
        self.mem = np.zeros(self.cfg.global_words, np.uint32)
        db = pyuvm.ConfigDB()
        db.set(None, "*", "DUT", cocotb.top)
        db.set(None, "*", "GPU_CFG", self.cfg)
        db.set(None, "*", "GMEM", self.mem)
        db.set(None, "*", "GMEM_KNOBS", self.gmem_knobs())
        db.set(None, "*", "RNG", self.rng)
        db.set(None, "*", "CHECK_MODE", os.environ.get("CHECK_MODE", "full"))
        db.set(None, "*", "TRACE_PATH", trace_path())
        self.env = self.env_class("env", self)
        self.wall, self.cpu = time.monotonic(), time.process_time()
        self.profile = None
        if os.environ.get(
            "SIMT_PROFILE"
        ):  # a cProfile of the harness's Python (tools/bench/check_overhead.py --profile)
            import cProfile

            self.profile = cProfile.Profile()
            self.profile.enable()
        self.t0 = cocotb.utils.get_sim_time("ns")  # tests of one run share the simulator's clock

    def gmem_knobs(self) -> dict:
        return dict(GMEM_PROFILES[self.gmem_profile])

    def start_of_simulation_phase(self) -> None:
        dut = cocotb.top
        # the clock toggles in the simulator interface (C), not in a Python task: no Python per edge
        cocotb.start_soon(Clock(dut.clk, 10, unit="ns", impl="gpi").start())
        dut.rst.value = 1
        # What exists now (cocotb, pyuvm, the environment, numpy's and the spec's tables) lives for the
        # whole run: out of the collector's sight, so its full collections during the run scan only the
        # launch's own objects (they were a few per cent of a checked run's CPU time)
        gc.freeze()

    def items(self) -> list[LaunchItem]:
        raise NotImplementedError

    async def run_phase(self) -> None:
        self.raise_objection()
        await self.env.host.driver.reset()
        await library.LaunchSequence("launches", self.items()).start(self.env.host.sequencer)
        self.drop_objection()

    def report_phase(self) -> None:
        c = self.env.checker
        # a test whose only launch must hang before any retire (a short image load) compares no retire
        full = c.mode == "full" and not getattr(self, "no_retires_ok", False)
        lines = c.report_lines() if full else [f"end of kernel: {c.end_board.summary()}"]
        if c.kernels_checked == 0 and not getattr(self, "no_kernels_ok", False):
            raise AssertionError(f"{type(self).__name__}: no launch was checked to its end")
        for line in lines:
            self.logger.info(line)
        self.write_stats()
        if self.profile is not None:
            self.profile.disable()
            self.profile.dump_stats(os.environ["SIMT_PROFILE"])

    def write_stats(self) -> None:
        path = os.environ.get("SIMT_STATS")
        if not path:
            return
        c = self.env.checker
        t = c.totals
        stats = {
            "test": type(self).__name__, "config": os.environ.get("GPU_TAG", ""), "sim": os.environ.get("SIM", ""),
            "mode": c.mode, "launches": c.launches, "kernels": c.kernels_checked, "seeds": len(c.seeds),
            "retires": t["retire"].get("compared", 0), "lanes": t["retire"].get("lanes_compared", 0),
            "transactions": t["coalescing/bank"].get("txns", 0) + t["coalescing/bank"].get("loader_txns", 0),
            "shared_writes": t["shared memory"].get("writes", 0), "golden_words": c.golden_words, "cycles": int((cocotb.utils.get_sim_time("ns") - self.t0) // 10),
            "seconds": round(time.monotonic() - self.wall, 3), "cpu_seconds": round(time.process_time() - self.cpu, 3),
        }  # fmt: skip
        with open(path, "a") as f:
            f.write(json.dumps(stats) + "\n")


class SoakMixin:
    """The fault soak (tb/sequences/soak.py): SOAK_LAUNCHES launches back to back on one GPU, faults
    injected at random cycles, each followed by a clean launch checked in lockstep. The tally (launches,
    faults by kind, recoveries) goes to the log and, with SIMT_SOAK=file, to a JSON line there."""

    soak_kinds: tuple[str, ...] | None = None  # None: every fault kind of tb/sequences/soak.py
    soak_fault_share = 0.3

    def items(self) -> list[LaunchItem]:
        from tb.sequences import soak

        launches = int(os.environ.get("SOAK_LAUNCHES", "24"))
        kinds = self.soak_kinds or soak.FAULT_KINDS
        self.soak = soak.plan(self.cfg, cocotb.RANDOM_SEED, launches, self.soak_fault_share, kinds=kinds)  # type: ignore[attr-defined]
        return self.soak.items

    def report_phase(self) -> None:
        super().report_phase()  # type: ignore[misc]
        tally = {
            "top": "axi" if "Axi" in type(self).__name__ else "native", "config": os.environ.get("GPU_TAG", ""),
            "sim": os.environ.get("SIM", ""), "launches": self.soak.launches,
            "faults": dict(self.soak.faults), "recoveries": self.soak.recoveries,
            "checked": self.env.checker.kernels_checked,  # type: ignore[attr-defined]
            "seconds": round(time.monotonic() - self.wall, 3),  # type: ignore[attr-defined]
            "cpu_seconds": round(time.process_time() - self.cpu, 3),  # type: ignore[attr-defined]
        }  # fmt: skip
        memory = self.env.memory  # type: ignore[attr-defined]
        if hasattr(memory, "stalls"):  # the AXI top: cycles the Verilog pacing held a channel off
            tally["pace_stalls"] = memory.stalls()
        self.logger.info(f"soak: {tally}")  # type: ignore[attr-defined]
        if path := os.environ.get("SIMT_SOAK"):
            with open(path, "a") as f:
                f.write(json.dumps(tally) + "\n")


@pyuvm.test()
class SoakTest(SoakMixin, GpuTest):
    """The fault soak on the native top."""


@pyuvm.test()
class SmokeTest(GpuTest):
    """One vector addition: the environment and the GPU work at all; first the ID and CONFIG registers
    read what docs/gpu.md says (no launch ever looks at them), afterwards the block counts, the
    PERF_SEL read-back, an unlisted index (reads 0, writes ignored), the debug view of SMs and warp slots
    that do not exist (reads 0) and an IMAGE word while idle (no IGNORED)."""

    def items(self) -> list[LaunchItem]:
        self.launches = library.directed(self.rng, ["vecadd"])
        return self.launches

    async def run_phase(self) -> None:
        self.raise_objection()
        await self.env.host.driver.reset()
        bfm = self.env.host.driver.bfm
        ident, config = await bfm.read(REG_ID), await bfm.read(REG_CONFIG)
        c = self.cfg
        want = c.num_sms << 24 | c.num_lanes << 16 | c.warp_size << 8 | 1  # version 1
        assert ident == MAGIC, f"ID register 0x{ident:08x}, docs/gpu.md says 0x{MAGIC:08x}"
        assert config == want, (
            f"CONFIG register 0x{config:08x}, expected 0x{want:08x} for {c.num_sms} SMs, "
            f"{c.num_lanes} lanes, warp size {c.warp_size}, version 1 (docs/gpu.md)"
        )
        await super().run_phase()
        await self.check_after_launch(bfm)
        self.drop_objection()

    async def check_after_launch(self, bfm) -> None:
        """Registers the launch flow does not read (docs/gpu.md): BLOCKS_DONE and BLOCKS_DISPATCHED
        give the last launch's grid, PERF_SEL reads back its 13 bits and keeps them over a write to an
        unlisted index, which reads 0."""
        blocks = self.launches[-1].image.num_blocks
        done, dispatched = await bfm.read(REG_BLOCKS_DONE), await bfm.read(REG_BLOCKS_DISPATCHED)
        assert (done, dispatched) == (blocks, blocks), (
            f"BLOCKS_DONE {done}, BLOCKS_DISPATCHED {dispatched} after a launch of {blocks} blocks"
        )
        sel = self.rng.randrange(1, 1 << 13)
        await bfm.write(REG_PERF_SEL, 0xFFFF_E000 | sel)  # bits 31..13 are not stored
        await bfm.write(REG_UNLISTED, sel ^ 0x1FFF)  # ignored: PERF_SEL keeps its value
        back = await bfm.read(REG_PERF_SEL)
        assert back == sel, (
            f"PERF_SEL reads 0x{back:x} after writing 0x{0xFFFF_E000 | sel:x} (13 bits: 0x{sel:x}), "
            f"then 0x{sel ^ 0x1FFF:x} to the unlisted index 0x{REG_UNLISTED:02x}"
        )
        unlisted = await bfm.read(REG_UNLISTED)
        assert unlisted == 0, (
            f"register 0x{REG_UNLISTED:02x} (not in docs/gpu.md) reads 0x{unlisted:x}, not 0"
        )
        # the debug view of an SM or a warp slot that does not exist reads as an empty slot (docs/gpu.md)
        c = self.cfg
        absent = [(c.num_sms, 0), (0xFF, 0)] + ([(0, c.num_warps)] if c.num_warps < 32 else [])
        for sm, slot in absent:
            await bfm.write(REG_DBG_SEL, sm << 5 | slot)
            fields = [await bfm.read(r) for r in (REG_DBG_WARP, REG_DBG_BLOCK, REG_DBG_PC, REG_DBG_LAST_PC)]
            assert fields == [0, 0, 0, 0], (
                f"the debug view of SM {sm}, slot {slot} (not in a GPU of {c.num_sms} SMs, {c.num_warps} warp "
                f"slots) reads {fields} (DBG_WARP, DBG_BLOCK, DBG_PC, DBG_LAST_PC), not all 0 (docs/gpu.md)"
            )
        # STATUS.IGNORED is about writes while a launch runs: an IMAGE word while idle starts the next image
        await bfm.write(REG_IMAGE, MAGIC)
        st = await bfm.status()
        assert not st & ST_IGNORED, f"STATUS 0x{st:x} has IGNORED set after an IMAGE word written while idle"
        await bfm.abort()  # drop the begun image
        await bfm.wait_idle()


@pyuvm.test()
class DirectedTest(GpuTest):
    """Every directed kernel back to back without reset, then the multi-block 3-D grid."""

    def items(self) -> list[LaunchItem]:
        return library.directed(self.rng)


class ErrorSmCheck(pyuvm.uvm_component):
    """ERR_SM must name the SM the blamed block was dispatched to (the host driver checks the other
    error registers against the model): follows each launch's dispatches and the error-register reads."""

    def build_phase(self) -> None:
        self.launch_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("launch_export", self, self.write_launch)
        self.dispatch_export = pyuvm.uvm_subscriber.uvm_AnalysisImp(
            "dispatch_export", self, self.write_dispatch
        )
        self.reg_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("reg_export", self, self.write_reg)
        self.sm_of: dict[int, int] = {}  # block -> SM, this launch
        self.err_sm: int | None = None
        self.checked = 0
        self.wrong: list[str] = []

    def write_launch(self, event: tuple[str, LaunchItem]) -> None:
        if event[0] == "begin":
            self.sm_of.clear()

    def write_dispatch(self, event: tuple[int, int]) -> None:
        bid, sm = event
        self.sm_of[bid] = sm

    def write_reg(self, acc: RegAccess) -> None:
        if acc.write:
            return
        if acc.addr == REG_ERR_SM:
            self.err_sm = acc.data
        elif acc.addr == REG_ERR_BLOCK and self.err_sm is not None and acc.data in self.sm_of:
            if self.err_sm != self.sm_of[acc.data]:
                self.wrong.append(
                    f"ERR_SM reads {self.err_sm}, but block {acc.data} ran on SM {self.sm_of[acc.data]}"
                )
            self.checked += 1
            self.err_sm = None


@pyuvm.test()
class ErrorTest(GpuTest):
    """Every kernel error kind through the error registers (with several SMs, also one raised on SM 1
    and up only; ERR_SM against the block's SM); ABORT recovers the GPU."""

    def build_phase(self) -> None:
        super().build_phase()
        self.err_sm = ErrorSmCheck("err_sm", self)

    def connect_phase(self) -> None:
        self.env.host.driver.launch_ap.connect(self.err_sm.launch_export)
        self.env.trace.dispatch_ap.connect(self.err_sm.dispatch_export)
        self.env.host.ap.connect(self.err_sm.reg_export)

    def items(self) -> list[LaunchItem]:
        return library.kernel_errors(self.rng, self.cfg)

    def report_phase(self) -> None:
        super().report_phase()
        wrong = self.err_sm.wrong
        assert not wrong, f"{len(wrong)} kernel error(s) with a wrong ERR_SM: " + "; ".join(wrong[:3])
        assert self.err_sm.checked > 0, "no kernel error's ERR_SM was checked"


@pyuvm.test()
class LaunchErrorTest(GpuTest):
    """Impossible launches are refused with a launch error, never a hang."""

    def items(self) -> list[LaunchItem]:
        return library.launch_errors(self.cfg, self.rng)


@pyuvm.test()
class HangTest(GpuTest):
    """Hangs end in the watchdog's report (the RTL's debug view of every warp next to the golden
    model's, compared; the loader's word), then ABORT."""

    def items(self) -> list[LaunchItem]:
        return library.hangs(self.rng)


@pyuvm.test()
class ResetMidKernelTest(GpuTest):
    """rst and ABORT in the middle of a kernel; the next launches are exact."""

    def items(self) -> list[LaunchItem]:
        return library.interrupted(self.rng)


@pyuvm.test()
class RandomTest(GpuTest):
    """Constrained-random kernels (KERNEL_SEEDS), back to back."""

    def items(self) -> list[LaunchItem]:
        return library.random_kernels(self.cfg, seeds_from_env())


@pyuvm.test()
class MemStressTest(GpuTest):
    """Random kernels under heavy backpressure, long random latency and reordered responses: no
    transaction lost or duplicated (the coalescing board matches every response to its request)."""

    gmem_profile = "stress"

    def items(self) -> list[LaunchItem]:
        return library.random_kernels(self.cfg, seeds_from_env()) + library.directed(self.rng, ["matmul"])


@pyuvm.test()
class BackToBackTest(GpuTest):
    """Directed and random kernels interleaved without reset, the memory's behaviour changing between
    launches (ideal, default, stress)."""

    def items(self) -> list[LaunchItem]:
        items = library.directed(self.rng, ["vecadd", "divergence", "shared_barrier"])
        items += library.random_kernels(self.cfg, seeds_from_env())
        profiles = list(GMEM_PROFILES.values())
        for i, item in enumerate(items):
            item.gmem = profiles[i % len(profiles)]
        return items


@pyuvm.test()
class HistoryTest(GpuTest):
    """A launch's cycles do not depend on the launches before it (docs/sm.md "Warp scheduler"): a benchmark
    kernel after reset, another launch, then the first again with the same image, without reset, on the
    fixed-latency memory. Both runs must take the same cycles on every SM."""

    gmem_profile = "ideal"

    def items(self) -> list[LaunchItem]:
        from kernels.suite import prepare

        launches = []
        for name, size in HISTORY_CASES:
            case = prepare(name, size, 1, self.cfg)
            launches.append(LaunchItem(f"{case.label}", case.image, golden=case))
        first = launches[0]
        again = LaunchItem(f"{first.get_name()} again", first.image, golden=first.golden)
        self.pairs = [(first, again)]
        return [*launches, again]

    def report_phase(self) -> None:
        super().report_phase()
        differ = [
            f"{a.get_name()}: {a.cycles_per_sm} then {b.cycles_per_sm}"
            for a, b in self.pairs
            if a.cycles_per_sm != b.cycles_per_sm
        ]
        for a, b in self.pairs:
            self.logger.info(
                f"{a.get_name()}: {a.cycles_per_sm} cycles per SM first, {b.cycles_per_sm} again"
            )
        assert all(a.cycles_per_sm for a, _ in self.pairs), "launch history: a launch reported no cycles"
        assert not differ, (
            "launch history: the same launch took different cycles per SM the second time; some state "
            "survives between launches: " + "; ".join(differ)
        )


# HistoryTest's launches: the first runs again at the end (after the others moved the scheduler's pointer)
HISTORY_CASES = [("matrixmul.cu", 32), ("matrixmul.cu", 5), ("matrixmul.cu", 16)]


@pyuvm.test()
class ArbiterHistoryTest(HistoryTest):
    """The memory arbiter's round-robin pointer starts every launch from its reset value (docs/gpu.md
    "Global memory port"). scenarios/arb_collide.s, two one-warp blocks without DATA records whose SMs
    make their first memory request in the same cycle, runs after a launch whose last request is the
    loader's (a DATA record, no kernel access: the pointer where reset leaves it), then after a one-block
    launch whose last request is SM 0's. With the pointer kept from the launch before, the second run
    grants SM 1 first at that collision; SM 1 works on after its store, so the launch's cycles differ. Which padding makes the requests
    collide depends on the machine's timing: each pad of ARB_PADS ("SM 0's/SM 1's", ";" between
    instructions) runs as its own pair."""

    gmem_profile = "ideal"

    def items(self) -> list[LaunchItem]:
        from kernels import launch

        pads = os.environ.get("ARB_PADS", "|".join(ARB_PADS)).split("|")
        loader_last = launch.build(".block 32\n        EXIT\n", "exit", data=[(4096, [1])])
        only_sm0 = scenario_image("arb_collide", grid=(1, 1, 1))
        items: list[LaunchItem] = []
        self.pairs = []
        for pad in pads:
            first = LaunchItem(f"arb_collide pad {pad}", arb_collide_image(pad))
            again = LaunchItem(f"arb_collide pad {pad} after SM 0's", arb_collide_image(pad))
            self.pairs.append((first, again))
            items += [
                LaunchItem("DATA only: the loader requests last", loader_last),
                first,
                LaunchItem("one block: SM 0 requests last", only_sm0),
                again,
            ]
        return items


def arb_collide_image(pad: str):  # noqa: ANN201 - a LaunchImage
    """scenarios/arb_collide.s with ``pad`` ("SM 0's/SM 1's" instructions, ";" between them) in place
    of its PAD0 and PAD1 lines."""
    from kernels import launch
    from kernels.directed import SCENARIOS

    source = SCENARIOS["arb_collide"]
    for sm, text in enumerate(pad.split("/")):
        source = source.replace(f"; PAD{sm}\n", "".join(f"{i}\n        " for i in text.split(";") if i))
    return launch.build(source, "arb_collide")


# ArbiterHistoryTest's paddings ("SM 0's/SM 1's"): on sm2-l8 the SMs' first requests collide with these
ARB_PADS = ["ADDI r9, r9, 1;ADDI r10, r10, 1/LD r9, [r0]"]


BENCH_KERNELS = ["matmul", "shared_barrier", "divergence", "vecadd", "alu", "big_grid"]


@pyuvm.test()
class BenchTest(GpuTest):
    """The checking-overhead benchmark's workload (tools/bench/check_overhead.py): the same launches in
    either checking mode (CHECK_MODE=full or end)."""

    gmem_profile = "ideal"

    def items(self) -> list[LaunchItem]:
        rng = random.Random(7)  # the same data in both modes
        return library.directed(rng, BENCH_KERNELS) + library.random_kernels(
            self.cfg, seeds_from_env("100:104")
        )


@pyuvm.test()
class KernelTest(GpuTest):
    """Benchmark kernels (kernels/, KERNEL_CASES) with every scoreboard on; each output word is compared
    with the kernel's C reference program, compiled with gcc at test time."""

    def gmem_knobs(self) -> dict:
        knobs = dict(GMEM_PROFILES[os.environ.get("GMEM_PROFILE", "default")])
        if os.environ.get("GMEM_LATENCY"):
            knobs["latency"] = (int(os.environ["GMEM_LATENCY"]),) * 2
        return knobs

    def items(self) -> list[LaunchItem]:
        from kernels.suite import SuiteError, prepare
        from spec.image import LaunchError

        self.cases, self.refused = [], []
        for spec in os.environ["KERNEL_CASES"].split(","):
            name, size, *seed = spec.split(":")  # name:size or name:size:inputs-seed
            try:
                case = prepare(
                    name, int(size), int(seed[0]) if seed else self.rng.randrange(1 << 31), self.cfg
                )
            except (LaunchError, SuiteError) as exc:  # this case cannot run here; the others still do
                self.refused.append(f"{exc} (machine {os.environ.get('GPU_TAG', '')})")
                self.logger.error(self.refused[-1])
                continue
            self.cases.append(
                LaunchItem(
                    f"{case.label} (inputs seed {case.seed})", case.image, golden=case, max_cycles=1 << 31
                )
            )
        self.no_kernels_ok = bool(self.refused) and not self.cases  # the report below says why
        return self.cases

    def report_phase(self) -> None:
        super().report_phase()
        if self.refused:
            raise AssertionError(
                f"{len(self.refused)} kernel case(s) refused before launch, "
                f"{len(self.cases)} ran: " + "; ".join(self.refused)
            )
        path = os.environ.get("SIMT_BENCH")
        if path:
            with open(path, "a") as f:
                for item in self.cases:
                    row = {
                        "kernel": item.golden.kernel,
                        "size": item.golden.size,
                        "seed": item.golden.seed,
                        "config": os.environ.get("GPU_TAG", ""),
                        "sim": os.environ.get("SIM", ""),
                        "lanes": self.cfg.num_lanes,
                        "sms": self.cfg.num_sms,
                        "blocks": item.golden.image.num_blocks,
                        "latency": self.gmem_knobs()["latency"],
                        "golden_words": sum(len(o.expected) for o in item.golden.outputs),
                        **item.perf,
                        # the counters sum over SMs: "cycles" is the launch's own length (its
                        # busiest SM's), "sm_cycles" the sum (what idle_cycles is a share of)
                        "cycles": max(item.cycles_per_sm),
                        "sm_cycles": item.perf["cycles"],
                        "cycles_per_sm": item.cycles_per_sm,
                    }
                    f.write(json.dumps(row) + "\n")


@pyuvm.test()
class CudacFuzzTest(GpuTest):
    """Random CUDA-C programs (cudac/fuzz.py; CUDAC_FUZZ=start:count) compiled by cudac: every retire
    checked in lock-step against the golden model, the final global memory against the same program
    compiled by gcc with the host header (docs/kernels-c.md, "Fuzzer")."""

    def items(self) -> list[LaunchItem]:
        from cudac.fuzz import rtl_cases
        from kernels.suite import Case, Output

        start, count, *full = os.environ["CUDAC_FUZZ"].strip().split(":")
        items = []
        for prog, image, want in rtl_cases(int(start), int(count), self.cfg, small=not full):
            case = Case(f"cudac-fuzz{prog.seed}", 0, prog.seed, image, [Output("memory", 0, want)], None)
            items.append(LaunchItem(f"cudac fuzz seed {prog.seed}", image, golden=case, max_cycles=1 << 24))
        return items


FAULT_KERNELS = {"RetireMismatch": "alu", "DivergenceMismatch": "divergence", "SharedMismatch": "shared_barrier",
                 "CoalescingMismatch": "vecadd"}  # fmt: skip
# Harness faults of the HDL image driver (tb/hdl/simt_tb_loader.v), by +SIMT_FAULT number: the kernel whose
# image they spoil. 16 flips bit 0 of the image's second-to-last word: vecadd's last input word (b[99]);
# the GPU's loader stores it to global memory, and the coalescing scoreboard finds that store's data
# differing from the model's (before any kernel retire). 17 leaves the last word (END's header)
# unwritten: the GPU's loader waits for it after START, which the host agent's watchdog reports.
LOAD_FAULT_KERNELS = {"16": "vecadd", "17": "vecadd"}
LOAD_SHORT_HANG = ["the loader is waiting for word", "the image sent was cut short"]


@pyuvm.test()
class FaultTest(GpuTest):
    """Meta-test: a fault planted in the RTL (+SIMT_FAULT=n), or in a C reference's answer
    (GoldenMismatch), must be caught by the named scoreboard."""

    def build_phase(self) -> None:
        self.expect = os.environ["SIMT_FAULT_EXPECT"]
        pyuvm.ConfigDB().set(None, "*", "EXPECT_FAULT", self.expect)
        super().build_phase()
        self.no_kernels_ok = True
        self.no_retires_ok = self.expect == "Watchdog"  # fault 17: the launch hangs before its first retire

    def items(self) -> list[LaunchItem]:
        if self.expect == "GoldenMismatch":  # not an RTL fault: one word of the C answer is planted wrong
            from kernels.suite import prepare

            case = prepare("vecadd", 100, 1, self.cfg)
            case.outputs[0].expected[42] ^= 1
            return [LaunchItem("vecadd with a corrupted C answer", case.image, golden=case)]
        if self.expect == "HangMismatch":  # fault 7: the debug view's pc is one too high
            spin = scenario_image("spin_at_barrier")
            return [
                LaunchItem(
                    "warp 0 spins while warp 1 waits at BAR",
                    spin,
                    max_instrs=3000,
                    stall_cycles=2000,
                    expect_hang=["ran past its budget of 3000 warp-instructions"],
                )
            ]
        if self.expect == "Watchdog":  # fault 17: a short image load leaves the GPU's loader waiting
            kernel = LOAD_FAULT_KERNELS[os.environ.get("SIMT_FAULT", "")]
            return [
                LaunchItem(
                    f"{kernel}, loaded short",
                    image_of(kernel, self.rng),
                    max_cycles=20_000,
                    stall_cycles=5_000,
                    expect_hang=LOAD_SHORT_HANG,
                )
            ]
        fault = os.environ.get("SIMT_FAULT", "")
        return library.directed(self.rng, [LOAD_FAULT_KERNELS.get(fault, FAULT_KERNELS[self.expect])])

    async def run_phase(self) -> None:
        self.raise_objection()
        await self.env.host.driver.reset()
        items = self.items()
        seq = cocotb.start_soon(library.LaunchSequence("launches", items).start(self.env.host.sequencer))
        if self.expect == "Watchdog":  # caught by the host agent (it raises when the launch does not hang)
            await seq
            assert items[0].hang_report, f"{items[0]}: the planted fault was not caught by the watchdog"
            self.logger.info(f"caught as expected by the watchdog: {items[0].hang_report.splitlines()[0]}")
            self.drop_objection()
            return
        await First(seq, self.env.checker.fault_event.wait())
        fault = self.env.checker.fault
        assert fault is not None, f"the planted fault was not caught: expected a {self.expect}"
        assert type(fault).__name__ == self.expect, (
            f"the planted fault was caught by the wrong scoreboard: {type(fault).__name__}, expected {self.expect}:\n{fault}"
        )
        self.logger.info(f"caught as expected by {self.expect}: {str(fault).splitlines()[0]}")
        self.drop_objection()


@pyuvm.test()
class ResetSoakTest(SoakMixin, GpuTest):
    """A soak of resets only: every other launch reset mid-way, each followed by a clean launch (the soak's
    meta-test plants a fault that a reset does not clear, tb/tests/system/test_soak.py)."""

    soak_kinds = ("reset",)
    soak_fault_share = 0.5

    def items(self) -> list[LaunchItem]:
        items = super().items()
        for (
            item
        ) in items:  # each reset at a cycle with a retire: the planted fault has an instruction to keep
            item.interrupt_on_retire = True
        return items


@pyuvm.test()
class TraceTest(GpuTest):
    """The dual-simulator differential's run (tb/tests/differential): random kernels (KERNEL_SEEDS) with
    every scoreboard on, and a trace of every dispatch, retire, memory request and response and each
    launch's final memory written to the file SIMT_TRACE (tb/env/difftrace.py), to compare simulators."""

    def build_phase(self) -> None:
        super().build_phase()
        from tb.env.difftrace import TraceWriter

        self.trace = TraceWriter("trace", self)

    def connect_phase(self) -> None:
        env, t = self.env, self.trace
        env.trace.retire_ap.connect(t.retire_export)
        env.trace.dispatch_ap.connect(t.dispatch_export)
        env.trace.request_ap.connect(t.request_export)
        env.trace.response_ap.connect(t.response_export)
        env.host.driver.launch_ap.connect(t.launch_export)
        t.clock = lambda: env.trace.cycle  # events arrive in batches: their cycle comes from the trace

    def start_of_simulation_phase(self) -> None:
        super().start_of_simulation_phase()
        from tb.benchutil import rerun_seed

        seed = rerun_seed(__name__, type(self).__name__)
        self.trace.header(
            f"sim={os.environ.get('SIM', '')} config={os.environ.get('GPU_TAG', '')} "
            f"regression_seed={seed} verilator_seed={os.environ.get('SIMT_VERILATOR_SEED', '-')} "
            f"kernel_seeds={os.environ.get('KERNEL_SEEDS', '')}"
        )
        self.logger.info(f"regression seed {seed} (rerun with SEED={seed}); trace: {self.trace.path}")

    def items(self) -> list[LaunchItem]:
        return library.random_kernels(self.cfg, seeds_from_env())
