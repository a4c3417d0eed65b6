"""Analytical cycle model of one SM (issue 17): MWP-CWP (Hong & Kim, Hong 2012 (seed 004)) with Ye's PWP and a
barrier term, from the golden model's event counts and machine parameters measured once by the
micro-benchmarks of ppa/micro.py on the RTL. Nothing here is fitted to a benchmark kernel.

    python -m ppa.perf [--report]      # predicted vs RTL cycles for every cached RTL configuration

Inputs of :func:`predict`:

- ``Events``: per launch, from the golden model (``count_events``): warp-instructions per class, shared
  accesses and passes, global loads / stores and transactions, stack pops, barrier releases, the
  warp-instructions executed with a non-empty divergence stack (each visits the stack unit), and the
  launch shape (blocks, warps and threads per block).
- ``Machine``: the configuration (lanes -> ROWS, resident warps and blocks) and the measured parameters
  (``Params``; each field names the micro-benchmark that measured it).

The model, per SM (blocks spread evenly over the SMs; docs/ppa.md "Performance model"):

    Comp   = EX cycles of all warp-instructions (single issue: every warp-instruction occupies EX),
             times PWP_full/PWP (Ye) when fewer warps than PWP_full are resident
           = c_alu*(alu+sreg+const) + c_shared*shared + c_pass*extra_passes
             + c_branch*branch + pops + c_stack*stacked + 1*(sync+exit) + c_load*loads + c_store*stores
    Mem_L  = c_gmem_lat - c_load  (a dependent load's exposed latency beyond its own EX rows; a store's
             from c_store_lat - c_store), + c_txn per transaction beyond the first
    Departure_delay = c_txn * transactions / accesses
    MWP    = min(Mem_L / Departure_delay, N);  CWP = min((Mem_cycles + Comp_w) / Comp_w, N)
    per wave of N warps (Hong's Equations 21-23; Comp_w, Mem_cycles per warp):
      MWP = N = CWP (too few warps):  Mem_cycles + Comp_w + Comp_p*(MWP-1)
      CWP >= MWP (memory bound):       Mem_cycles*N/MWP + Comp_p*(MWP-1)
      MWP > CWP (compute bound):       Mem_L + Comp_w*N
    and never less than the wave's EX work (Comp_w*N) or its port time (c_txn*transactions)
    + barriers: releases * c_release (the pipeline refill after a release, micro "bar")
    and never less than the GPU memory port's time (c_txn x all SMs' transactions, one port)
    and never less than the critical warp's own chain (its instructions at c + d, its loads + Mem_L)
    + barriers: releases * c_release (the pipeline refill after a release, micro "bar")
    + launch: the first block's load (c_launch_fixed + c_launch_thread*(threads - 32)); the later
      blocks' loads (c_launch_block + c_launch_thread*threads each) overlap the body, only the excess
      is added
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from spec import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CACHE = ROOT / "build" / "ppa" / "perf"


@dataclass(frozen=True)
class Events:
    """Event counts of one launch (all warps, all blocks): the golden model's, see count_events."""

    alu: int  # ALU + special-register + constant warp-instructions (one EX row pass each)
    shared: int  # shared-memory warp-instructions
    shared_passes: int  # their passes (bank conflicts replayed), summed
    branch: int  # BEQ / BNE / BRA
    sync: int  # SSY + BAR
    exit: int
    loads: int  # LDG warp-instructions
    stores: int  # STG warp-instructions
    transactions: int  # global transactions (segments)
    pops: int  # divergence-stack pops
    stacked: int  # non-branch warp-instructions executed with a non-empty stack
    releases: int  # barrier releases
    blocks: int
    warps_per_block: int
    threads_per_block: int
    # the warp with the most warp-instructions (the critical warp): its own counts, for the latency
    # bound (a warp cannot run faster than its own chain of instructions and loads)
    crit_instrs: int = 0
    crit_loads: int = 0
    regs: int = 8  # registers per thread (the launch's)
    shared_words: int = 0  # shared words per block

    @property
    def warp_instrs(self) -> int:
        return self.alu + self.shared + self.branch + self.sync + self.exit + self.loads + self.stores


@dataclass(frozen=True)
class Params:
    """Machine parameters in cycles, each measured by one micro-benchmark of ppa/micro.py (named)."""

    alu: float  # micro "alu": ALU warp-instruction, 8 warps ready
    alu1: float  # micro "alu1": ALU warp-instruction of one warp alone (pipeline latency)
    shared: float  # micro "shared": conflict-free shared load
    pass_: float  # micro "shared2": per extra pass of a bank conflict
    branch: float  # micro "branch": uniform BNE
    stacked: float  # micro "stacked": extra cycles of an ALU instruction under a non-empty stack
    bar: float  # micro "bar": per barrier of a block of 8 warps (including the 8 BARs)
    gmem_lat: float  # micro "gmem1": dependent coalesced load of one warp alone
    load: float  # micro "gmem16": one-transaction load, 16 warps (EX rows: gather + completion)
    store: float  # micro "gstore": one-transaction store, 16 warps
    store_lat: float  # micro "gstore1": coalesced store of one warp alone (the warp waits for its acks)
    txn: float  # micro "gmemx": per transaction, 32 transactions per access, 16 warps (port)
    launch_fixed: float  # micro "empty": one block of 32 threads
    launch_block: float  # micro "empty": per extra block
    launch_thread: float  # micro "empty": per extra thread of a block

    @classmethod
    def from_micro(cls, p: dict) -> Params:
        return cls(
            alu=p["alu"],
            alu1=p["alu1"],
            shared=p["shared"],
            pass_=p["pass"],
            branch=p["branch"],
            stacked=p["stacked"],
            bar=p["bar"],
            gmem_lat=p["gmem_lat"],
            load=p["gmem_acc"],
            store=p["gstore"],
            store_lat=p["gstore_lat"],
            txn=p["gmem_txn"],
            launch_fixed=p["launch_fixed"],
            launch_block=p["launch_block"],
            launch_thread=p["launch_thread"],
        )


@dataclass(frozen=True)
class Machine:
    lanes: int
    num_warps: int  # resident warp slots per SM
    num_blocks: int  # resident block slots per SM
    num_sms: int
    params: Params
    warp_size: int = 32
    rf_depth: int = 1024  # register rows per lane
    shared_words: int = 2048  # per SM

    @property
    def rows(self) -> int:
        return self.warp_size // self.lanes


@dataclass(frozen=True)
class Prediction:
    cycles: float
    case: str  # which of Hong's cases held
    comp: float  # EX cycles per SM
    mem_l: float
    mwp: float
    cwp: float
    n: int  # warps per SM in a wave
    waves: int
    launch: float
    barrier: float


def predict(ev: Events, m: Machine) -> Prediction:
    """Cycles of the launch ``ev`` on machine ``m`` (see the module docstring)."""
    p = m.params
    # resident blocks (docs/sm.md cfg_slots): block slots, warp slots, register rows, shared words
    stride = -(-ev.shared_words // m.lanes) * m.lanes
    rows_per_block = ev.warps_per_block * ev.regs * m.rows
    blocks_per_sm = max(
        1,
        min(
            m.num_blocks,
            m.num_warps // ev.warps_per_block,
            m.rf_depth // rows_per_block,
            m.shared_words // stride if stride else m.num_blocks,
        ),
    )
    sm_blocks = math.ceil(ev.blocks / m.num_sms)  # blocks the busiest SM runs
    waves = math.ceil(sm_blocks / blocks_per_sm)
    active_blocks = min(blocks_per_sm, sm_blocks)
    n = active_blocks * ev.warps_per_block  # warps per SM in a (full) wave
    share = sm_blocks / ev.blocks  # this SM's share of the launch's events
    total_warps = ev.blocks * ev.warps_per_block
    extra_passes = max(0, ev.shared_passes - ev.shared * m.rows)
    comp_all = (p.alu * ev.alu + p.shared * ev.shared + p.pass_ * extra_passes
                + p.branch * ev.branch + ev.pops + p.stacked * ev.stacked + 1.0 * (ev.sync + ev.exit)
                + p.load * ev.loads + p.store * ev.stores)  # fmt: skip
    # Ye's PWP (Ye 2009 (seed 003), Equations 3-5): a warp-instruction holds its warp for its EX cycles c plus the
    # pipeline's other stages d = alu1 - alu (micro "alu1" vs "alu"); PWP_full = (c + d) / c warps hide
    # that; with fewer warps, N, every warp-instruction costs (c + d) / N instead of c.
    c_avg = comp_all / max(1, ev.warp_instrs)
    pwp_full = (c_avg + p.alu1 - p.alu) / c_avg
    pwp = min(pwp_full, n)
    comp_all *= pwp_full / pwp
    comp_w = comp_all / total_warps  # Comp_cycles of one warp
    mem_insts = (ev.loads + ev.stores) / total_warps
    txn_per_access = ev.transactions / max(1, ev.loads + ev.stores)
    departure = max(p.txn * txn_per_access, 1e-9)
    mem_l = max(0.0, p.gmem_lat - p.load) + p.txn * max(0.0, txn_per_access - 1)
    # a warp waits in MEM for its access to complete, loads and stores alike (docs/sm.md); a store's own
    # exposed latency from micro "gstore1" (the loads' mem_l from "gmem1")
    mem_l_store = max(0.0, p.store_lat - p.store) + p.txn * max(0.0, txn_per_access - 1)
    mem_cycles = (mem_l * ev.loads + mem_l_store * ev.stores) / total_warps
    port_wave = p.txn * ev.transactions / total_warps * n
    if mem_insts == 0 or mem_cycles == 0:
        case, wave, mwp, cwp = "compute only", comp_w * n, 0.0, float(n)
    else:
        mwp = min(mem_l / departure, n)
        cwp = min((mem_cycles + comp_w) / comp_w, n)
        comp_p = comp_w / mem_insts
        if mwp == n and cwp == n:
            case, wave = "1: few warps", mem_cycles + comp_w + comp_p * (mwp - 1)
        elif cwp >= mwp:
            case, wave = "2: memory bound", mem_cycles * n / mwp + comp_p * (mwp - 1)
        else:
            case, wave = "3: compute bound", mem_l + comp_w * n
    wave = max(wave, comp_w * n, port_wave)
    # the last wave may be partial: scale the waves by the warps they hold
    full = (sm_blocks * ev.warps_per_block) / n
    body = wave * full if waves > 1 else wave
    # the critical warp's own chain: each of its warp-instructions takes c + d cycles (nothing of it
    # overlaps within a warp), each of its loads Mem_L more: no schedule of the others shortens that
    chain = ev.crit_instrs * (c_avg + p.alu1 - p.alu) + ev.crit_loads * mem_l
    # the GPU's one memory port (docs/gpu.md: the arbiter puts every SM's requests on it): all SMs'
    # transactions pass it at c_txn each
    gpu_port = p.txn * ev.transactions
    body = max(body, chain, gpu_port)
    # barrier: after a release every warp of the block refills the pipeline (micro "bar": 8 BARs and the
    # refill of one release); hidden by other blocks' warps when several blocks are resident
    release = max(0.0, p.bar - 8 * 1.0)
    barrier = ev.releases * share * release / active_blocks
    # launch (micro "empty"): a block's initialisation writes one thread's index per cycle while it
    # clears its register rows and shared lines (docs/sm.md): max(threads, rows, lines) cycles plus a
    # fixed part (micro "empty": launch_block minus its 32 threads). The first block's is exposed; the
    # loader fills the next blocks while resident blocks run, so the rest is exposed only where it
    # exceeds the body; with a single usable slot (blocks_per_sm = 1) every initialisation is exposed.
    items = max(ev.threads_per_block, rows_per_block, stride // m.lanes)
    per_block = max(0.0, p.launch_block - 32 * p.launch_thread) + p.launch_thread * items
    first = p.launch_fixed + p.launch_thread * (items - 32)
    rest = (sm_blocks - 1) * per_block
    # a block is initialised into a free slot only: with one slot nothing runs meanwhile
    launch = first + (rest if blocks_per_sm == 1 else max(0.0, rest - body - barrier))
    return Prediction(
        body + barrier + launch, case, comp_all * share, mem_l, mwp, cwp, n, waves, launch, barrier
    )


# ------------------------------------------------------------------------------------------------
# Event counts from the golden model
# ------------------------------------------------------------------------------------------------
def count_events(cfg, image) -> Events:
    """Run ``image`` on the golden model and count the model's events (its Counters plus the loads /
    stores split and the instructions under a non-empty stack, read from the same steps)."""
    return count_all(cfg, image)[0]


def _operand(w, ins, field):
    """What a lane's ALU input carries for one operand of ``ins`` (docs/sm.md: a and b are the immediate
    or the register read, c the register read): every thread's value, or None (the port is not used)."""
    if isinstance(field, int):
        return w.regs[field].copy()
    return ins.immv if field == "imm" else None


def count_all(cfg, image, order: list[list[int]] | None = None) -> tuple[Events, dict]:
    """:func:`count_events` and the golden model's Counters.as_dict() of the same run. ``order``: the
    RTL's retire order ([[sm, block, warp], ...], ppa/toggles.py), in which the model then steps (as the
    lockstep checker does) so that the switching activity (ppa/activity.py) follows the RTL's
    interleaving; without it the model runs its own round-robin."""
    from ppa.activity import Activity
    from ppa.aluactivity import AluInputs
    from spec.model import Model

    class Counting(Model):
        stacked = loads = stores = 0
        per_warp: dict = {}
        activity = Activity(cfg.warp_size, cfg.num_lanes)
        alu_in = AluInputs(cfg.warp_size, cfg.num_lanes)

        def step(self, bid: int, wid: int):
            w = self.warp(bid, wid)
            ins = self.code[w.pc] if w.pc < len(self.code) else None
            under = bool(w.stack)
            # the ALU inputs a, b, c (operands before the step); SREG's field names no register
            reads = ins is not None and ins.op is not None and ins.op.fmt.name != "SREG"
            ops = [_operand(w, ins, r) for r in (ins.a, ins.b, ins.c)] if reads else ()
            legal = ins is not None and ins.op is not None
            ports = [x.copy() for x in AluInputs.ports(ins, w.regs)] if legal else None
            rec = super().step(bid, wid)
            if ins is not None:
                mine = self.per_warp.setdefault((bid, wid), [0, 0])
                mine[0] += 1
                mine[1] += ins.unit == "global" and ins.kind == "load"
                if ins.unit == "global":
                    if ins.kind == "load":
                        self.loads += 1
                    else:
                        self.stores += 1
                if under and ins.unit != "branch":
                    self.stacked += 1
                # switching activity (for the energy model, ppa/activity.py)
                full = None
                if ins.kind == "alu" and ins.fn is not None and ops:  # every thread's result (activity.py)
                    full = ins.fn(*ops)
                self.activity.observe(rec.word, rec.mask, rec.values, rec.mem, ops, full)
                if ports is not None:
                    self.alu_in.observe(ins, *ports)
            return rec

    mdl = Counting(cfg, image)
    if order is None:
        c = mdl.run().counters.as_dict()
    else:
        for sm, bid, wid in order:
            if bid not in mdl.blocks:
                mdl.start_block(bid, sm=sm)
            mdl.step(bid, wid)
        c = mdl.counters.as_dict()
    crit = max(mdl.per_warp.values())
    c.update(mdl.activity.counts)
    c.update(mdl.alu_in.counts)
    ev = Events(
        alu=c["warp_alu"] + c["warp_sreg"] + c["warp_const"],
        shared=c["warp_shared"],
        shared_passes=c["shared_passes"],
        branch=c["warp_branch"],
        sync=c["warp_sync"],
        exit=c["warp_exit"],
        loads=mdl.loads,
        stores=mdl.stores,
        transactions=c["global_transactions"],
        pops=c["stack_pops"],
        stacked=mdl.stacked,
        releases=c["barrier_releases"],
        blocks=image.num_blocks,
        warps_per_block=image.warps_per_block(cfg.warp_size),
        threads_per_block=image.threads_per_block,
        crit_instrs=crit[0],
        crit_loads=crit[1],
        regs=image.regs,
        shared_words=image.shared_words,
    )
    return ev, c


def _events_cached(cfg, kernel: str, size: int, seed: int) -> Events:
    return counts_cached(cfg, kernel, size, seed)[0]


def counts_cached(cfg, kernel: str, size: int, seed: int) -> tuple[Events, dict]:
    """:func:`count_all` of a benchmark case, cached in build/ppa/perf/events/ (by machine, case, the
    kernel's sources and this file)."""
    from kernels.suite import prepare
    from ppa.rtlcycles import config_name

    key = hashlib.sha1(
        json.dumps([cfg.as_dict(), kernel, size, seed]).encode()
        + (ROOT / "kernels" / kernel / "kernel.s").read_bytes()
        + (ROOT / "kernels" / kernel / "gen.py").read_bytes()
        + Path(__file__).read_bytes()
        + (ROOT / "ppa" / "activity.py").read_bytes()
    ).hexdigest()[:12]
    path = CACHE / "events" / f"{config_name(cfg)}-{kernel}-{size}-{key}.json"
    d = json.loads(path.read_text()) if path.exists() else {}
    if "events" in d:  # (a file of another layout is recomputed)
        return Events(**d["events"]), d["counters"]
    case = prepare(kernel, size, seed, cfg)
    ev, counters = count_all(cfg, case.image)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"events": asdict(ev), "counters": counters}))
    return ev, counters


def compare(lanes: list[int], warps: list[int]) -> list[dict]:
    """Predicted vs RTL cycles for every cached RTL configuration of ppa.rtlcycles."""
    from ppa import micro, rtlcycles

    rows = []
    for w in warps:
        for n in lanes:
            cfg = rtlcycles.machine(n, w)
            path = rtlcycles.cache_path(cfg)
            if not path.exists():
                continue
            params = Params.from_micro(micro.measure(n)["params"])
            mach = Machine(
                lanes=n,
                num_warps=cfg.num_warps,
                num_blocks=cfg.num_blocks,
                num_sms=cfg.num_sms,
                params=params,
                rf_depth=cfg.rf_depth,
                shared_words=cfg.shared_words,
            )
            for r in rtlcycles.collect(cfg):
                ev = _events_cached(cfg, r["kernel"], r["size"], r["seed"])
                pr = predict(ev, mach)
                rows.append(
                    {
                        "config": rtlcycles.config_name(cfg),
                        "lanes": n,
                        "warps": w,
                        "kernel": r["kernel"],
                        "size": r["size"],
                        "rtl": r["cycles"],
                        "predicted": round(pr.cycles),
                        "error": pr.cycles / r["cycles"] - 1,
                        "case": pr.case,
                        "n": pr.n,
                        "waves": pr.waves,
                        "mwp": round(pr.mwp, 2),
                        "cwp": round(pr.cwp, 2),
                    }
                )
    return rows


def geomean_abs(errors: list[float]) -> float:
    """Geometric mean of |error| (errors as fractions; an exact 0 counts as 1e-4 so the mean exists)."""
    return math.exp(sum(math.log(max(abs(e), 1e-4)) for e in errors) / len(errors))


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanes", type=cli.int_list(1, 64), default=[4, 8, 16, 32])
    ap.add_argument("--warps", type=cli.int_list(1, 64), default=[8, 16])
    args = ap.parse_args(argv)
    rows = compare(args.lanes, args.warps)
    for r in rows:
        print(
            f"{r['config']:<14} {r['kernel']:<11} {r['size']:>5} rtl {r['rtl']:>8} model {r['predicted']:>8} "
            f"{r['error']:+7.1%}  {r['case']} N={r['n']} waves={r['waves']} MWP={r['mwp']} CWP={r['cwp']}"
        )
    errs = [r["error"] for r in rows]
    print(
        f"{len(rows)} cases: geomean |error| {geomean_abs(errs):.1%}, mean |error| "
        f"{sum(map(abs, errs)) / len(errs):.1%}, worst {max(errs, key=abs):+.1%}"
    )
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "compare.json").write_text(json.dumps(rows, indent=1))
    (CACHE / "report.md").write_text(report_md(rows))
    print(f"report: {CACHE / 'report.md'}")
    return 0


def report_md(rows: list[dict]) -> str:
    """A kernel x configuration table of RTL cycles and model error, with the summary numbers."""
    configs = list(dict.fromkeys(r["config"] for r in rows))
    cases = list(dict.fromkeys((r["kernel"], r["size"]) for r in rows))
    by = {(r["config"], r["kernel"], r["size"]): r for r in rows}
    lines = ["| kernel/size | " + " | ".join(configs) + " |", "|---|" + "---:|" * len(configs)]
    for k, n in cases:
        cells = []
        for c in configs:
            r = by.get((c, k, n))
            cells.append("" if r is None else f"{r['rtl']:,} ({r['error']:+.0%})")
        lines.append(f"| {k}/{n} | " + " | ".join(cells) + " |")
    errs = [r["error"] for r in rows]
    per_cfg = {c: geomean_abs([r["error"] for r in rows if r["config"] == c]) for c in configs}
    lines += [
        "",
        "| | " + " | ".join(configs) + " |",
        "|---|" + "---:|" * len(configs),
        "| geomean abs(error) | " + " | ".join(f"{v:.1%}" for v in per_cfg.values()) + " |",
        "",
        f"{len(rows)} cases: geomean abs(error) {geomean_abs(errs):.1%}, mean abs(error) "
        f"{sum(map(abs, errs)) / len(errs):.1%}, worst {max(errs, key=abs):+.1%}; "
        f"{sum(abs(e) <= 0.10 for e in errs)} of {len(errs)} within 10 %.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    cli.run(main)
