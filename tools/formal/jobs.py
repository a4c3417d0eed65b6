"""The formal jobs of `make formal`: one SymbiYosys task per unit and property set (docs/verification.md
"Formal").

Each unit has a property wrapper in formal/<rtl folder>/<unit>_props.sv: a module that instantiates the
unit with small but non-trivial parameters, ASSUMES the unit's input contract (the same contract its unit
bench in tb/tests/unit drives) and ASSERTS the properties. A `prove` job is an unbounded proof by
k-induction (smtbmc + yices); `bmc` is a bounded check to `depth` cycles; `cover` asks for a trace.

Every property set has at least one planted fault: a `fault` job runs the same wrapper on a copy of the
unit with one small change (a Mutant: `old` -> `new`, the text must occur exactly once in the file) and
must END IN A COUNTEREXAMPLE, kept as formal/cex/<job>.vcd. The RTL is never edited for this.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Mutant:
    file: str  # repository-relative RTL file
    old: str  # text replaced (must occur exactly once)
    new: str
    why: str  # what the fault breaks, in words


@dataclass(frozen=True)
class Job:
    name: str
    unit: str  # the RTL module under proof
    props: str  # the property wrapper (repository-relative)
    top: str  # the wrapper module
    sources: tuple[str, ...]  # RTL files (repository-relative), unit first
    what: str  # the properties, in words (the summary table)
    mode: str = "prove"  # prove | bmc | cover
    depth: int = 8  # k of the induction / the bound
    engine: str = "smtbmc yices"
    params: dict[str, int] = field(default_factory=dict)  # shown in the table; set in the wrapper
    defines: tuple[str, ...] = ()
    mutant: Mutant | None = None
    expect: str = "pass"  # pass | fail (a planted fault must fail)
    # memory_map: the unit's small memories become flip-flops (bit-level for the solver, and the words can
    # be named in `// peek:` lines as dut.<mem>[<i>])
    map_memories: bool = False

    @property
    def engine_name(self) -> str:
        return {"prove": "k-induction", "bmc": "BMC", "cover": "cover"}[self.mode] + f" ({self.engine})"


def _unit(
    unit: str,
    folder: str,
    what: str,
    *,
    params: dict[str, int],
    depth: int,
    faults: list[Mutant],
    extra_sources: tuple[str, ...] = (),
    mode: str = "prove",
    name: str | None = None,
    props: str | None = None,
    top: str | None = None,
    map_memories: bool = False,
) -> list[Job]:
    """A unit's proof job and one fault job per planted mutant (same wrapper, same depth)."""
    base = name or unit.removeprefix("simt_")
    props = props or f"formal/{folder}/{unit}_props.sv"
    top = top or f"{unit}_props"
    sources = (f"rtl/{folder}/{unit}.v", *extra_sources)
    # INVARIANTS: the wrapper's induction invariants (the unit's registers equal the wrapper's model);
    # left out of the fault runs, so a planted fault is caught by a property, not by an invariant.
    proof = Job(
        base,
        unit,
        props,
        top,
        sources,
        what,
        mode=mode,
        depth=depth,
        params=params,
        defines=("INVARIANTS",),
        map_memories=map_memories,
    )
    jobs = [proof]
    for i, m in enumerate(faults, 1):
        jobs.append(
            Job(
                f"{base}_fault{i}",
                unit,
                props,
                top,
                sources,
                f"planted fault: {m.why}",
                mode="bmc",
                depth=depth if mode == "bmc" else max(depth, 8),
                params=params,
                mutant=m,
                expect="fail",
                map_memories=map_memories,
            )
        )
    return jobs


# the whole SM's bounded check: cycles from reset (a block starts and its first instructions retire)
SM_DEPTH = 14


# planted in both whole-SM jobs (sm_pipeline, sm_ahead): the flush on error is one property of both
NO_HALT = Mutant(
    "rtl/sm/simt_sm.v",
    "wire halt = err_valid;",
    "wire halt = 1'b0;",
    "an error does not stop F and EX (the pipeline is not flushed: grants and writes go on)",
)


def all_jobs() -> list[Job]:
    jobs: list[Job] = []
    jobs += _unit(
        "simt_warp_sched",
        "sm",
        "grant only a ready warp, grant_valid = any ready, grant in range, a warp ready at every take is "
        "granted within NUM_WARPS takes",
        params={"NUM_WARPS": 5},
        depth=4,
        faults=[
            Mutant(
                "rtl/sm/simt_warp_sched.v",
                "start <= (grant == LAST[W-1:0]) ? {W{1'b0}} : grant + 1'b1;",
                "start <= (grant == LAST[W-1:0]) ? {W{1'b0}} : grant;",
                "the pointer stays on the taken warp (starves the others)",
            ),
        ],
    )
    jobs += _unit(
        "simt_issue",
        "sm",
        "the scheduler's pointer is cleared on launch_load (imem written) as on reset: from a reset or a "
        "launch_load until the scheduler's next take, the warp offered is the lowest ready warp",
        params={"NUM_WARPS": 3},
        depth=2,
        name="issue_sched",
        extra_sources=("rtl/sm/simt_warp_sched.v", "rtl/sm/simt_decode.v"),
        faults=[
            Mutant(
                "rtl/sm/simt_issue.v",
                "assign sched_clear = launch_load;",
                "assign sched_clear = 1'b0;",
                "the pointer survives from the previous launch (test-only fault 24): a launch starts its "
                "search where the last one left it",
            ),
        ],
    )
    jobs.append(
        Job(
            "issue_sched_cover",
            "simt_issue",
            "formal/sm/simt_issue_props.sv",
            "simt_issue_props",
            ("rtl/sm/simt_issue.v", "rtl/sm/simt_warp_sched.v", "rtl/sm/simt_decode.v"),
            "witness: a launch_load after takes moved the pointer, then a take with warps 0 and 2 ready",
            mode="cover",
            depth=8,
            params={"NUM_WARPS": 3},
            defines=("COVER",),
        )
    )
    jobs += _unit(
        "simt_barrier",
        "sm",
        "release exactly when every non-exited warp of the block has arrived (and one waits), one-cycle "
        "pulse, arrivals cleared by the release, out-of-range slots ignored",
        params={"NUM_BLOCKS": 3, "NUM_WARPS": 3},
        depth=3,
        faults=[
            Mutant(
                "rtl/sm/simt_barrier.v",
                "wire complete = (total_n == {2'b00, warps}) && (arrived_n != 0);",
                "wire complete = (total_n == {2'b00, warps});",
                "a block whose last warps exit with nobody waiting releases",
            ),
        ],
    )
    jobs += _unit(
        "simt_coalescer",
        "sm",
        "each active lane served exactly once, lanes of one transaction in its segment and no segment twice "
        "(transactions <= lanes), word mask = words touched, highest lane's store data, out_last / out_index "
        "exact, empty access = one marker beat, offered transaction stable until taken",
        params={"WARP_SIZE": 4, "SEG_WORDS": 2},
        depth=3,
        faults=[
            Mutant(
                "rtl/sm/simt_coalescer.v",
                "pend_q  <= pend_q & ~out_lanes;",
                "pend_q  <= pend_q & ~first;",
                "only the lowest lane is retired per transaction (lanes served twice)",
            ),
            Mutant(
                "rtl/sm/simt_coalescer.v",
                "if (store_q) out_wdata[w*32 +: 32] = data_q[l*32 +: 32];",
                "if (store_q && out_wdata[w*32 +: 32] == 32'd0) out_wdata[w*32 +: 32] = data_q[l*32 +: 32];",
                "a word several lanes store to keeps the first (lowest) lane's non-zero data",
            ),
        ],
    )
    jobs += _unit(
        "simt_mem_arbiter",
        "top",
        "one SM ready at a time and only a requesting one, no request lost / duplicated / reordered (x_* = "
        "oldest granted request, payload and tag {sm, tag}), x request held until taken, a requesting SM "
        "granted within NUM_SMS grants, responses routed by tag",
        params={"NUM_SMS": 3, "SEG_WORDS": 1, "TAG_W": 2},
        depth=3,
        faults=[
            Mutant(
                "rtl/top/simt_mem_arbiter.v",
                "skid_valid_q <= !out_free && (skid_valid_q || in_fire);",
                "skid_valid_q <= !out_free && in_fire;",
                "a request waiting in the skid register is dropped when the output stalls again",
            ),
            Mutant(
                "rtl/top/simt_mem_arbiter.v",
                "else if (in_fire) last_q <= pick;",
                "else if (in_fire && pick != 0) last_q <= pick;",
                "the round-robin pointer does not move past SM 0 (SM 0 can starve the others)",
            ),
        ],
    )
    jobs += _unit(
        "simt_block_sched",
        "top",
        "one block per cycle to a ready SM while blocks remain, k-th dispatch = block k with its ctaid (none "
        "lost or duplicated), done only when all dispatched and done and then at once, a ready SM served "
        "within NUM_SMS dispatches",
        params={"NUM_SMS": 3},
        depth=3,
        faults=[
            Mutant(
                "rtl/top/simt_block_sched.v",
                "if (cx != cfg_grid[15:0] - 16'd1) begin",
                "if (cx != cfg_grid[15:0]) begin",
                "the x counter runs one past the grid's x size (wrong ctaid)",
            ),
            Mutant(
                "rtl/top/simt_block_sched.v",
                "else if (run)             blocks_done <= blocks_done + {27'd0, ndone_now};",
                "else if (run)             blocks_done <= blocks_done + {27'd0, |blk_done};",
                "two blocks finishing in one cycle count once (the launch never ends)",
            ),
        ],
    )
    swb_what = (
        "value buffer: every SWB write is the oldest landed, unwritten load row (each written exactly once, "
        "with its address, mask row and the data it landed with: never overwritten while held), at most one "
        "row pending (EX_FIRST = 1) / none (EX_FIRST = 0), written whenever the port is the SWB's; to CM "
        "in order only with every row landed and written (none lost), warp / instruction / passes, vals = "
        "landed data; port exclusivity: the SWB writes only when EX does not want the port or hold_swb, "
        "hold_swb exact for the EX_FIRST order; can_alloc / waiting counts; nothing written after an error"
    )
    swb_cover = (
        "witnesses: hold_swb with EX wanting the port, rows landing behind the entry CM holds, a load entry "
        "moving to CM as its last row lands, CM reading a load's values; EX_FIRST = 1: a row pending while "
        "EX writes, written later from the buffer, an entry moving as its pending row is written"
    )
    for ex_first, swb_name, swb_faults in (
        (
            1,
            "shared_wb",
            [
                Mutant(
                    "rtl/sm/simt_shared_wb.v",
                    "wire f_first = 1'b0;",
                    "wire f_first = 1'b1;",
                    "a landed row is written in a cycle EX's row has the write port (test-only fault 22: "
                    "the port priority broken, both write)",
                ),
                Mutant(
                    "rtl/sm/simt_shared_wb.v",
                    "(!wr_pend || land_ld)",
                    "land_ld",
                    "a pending row that does not get the port is dropped (a landed row lost)",
                ),
                Mutant(
                    "rtl/sm/simt_shared_wb.v",
                    "(land_ld && !wr_land);",
                    "land_ld;",
                    "a row written in its landing cycle also stays pending (written twice)",
                ),
                Mutant(
                    "rtl/sm/simt_shared_wb.v",
                    "e_vals[(land * WARP_SIZE + land_row * NUM_LANES) * 32 +: NUM_LANES * 32] <= rsp_data;",
                    "e_vals[((pend ? pend_e : land) * WARP_SIZE + (pend ? pend_row : land_row) * NUM_LANES)"
                    " * 32 +: NUM_LANES * 32] <= rsp_data;",
                    "a row landing while one is pending is stored over the pending row's buffer (a held "
                    "row overwritten)",
                ),
            ],
        ),
        (
            0,
            "shared_wb_ex0",
            [
                Mutant(
                    "rtl/sm/simt_shared_wb.v",
                    "assign hold_swb = EX_FIRST != 0 ? pend && land_ld : land_ld;",
                    "assign hold_swb = EX_FIRST != 0 ? pend && land_ld : 1'b0;",
                    "with EX_FIRST = 0 EX's row is not told to wait for a landing row (the landing row "
                    "becomes pending instead of taking the port)",
                ),
            ],
        ),
    ):
        swb_params = {"WARP_SIZE": 2, "NUM_LANES": 1, "EX_FIRST": ex_first}
        jobs += _unit(
            "simt_shared_wb",
            "sm",
            swb_what + f" (EX_FIRST = {ex_first})",
            params=swb_params,
            depth=3,
            name=swb_name,
            map_memories=True,
            faults=swb_faults,
        )
        jobs.append(
            Job(
                f"{swb_name}_cover",
                "simt_shared_wb",
                "formal/sm/simt_shared_wb_props.sv",
                "simt_shared_wb_props",
                ("rtl/sm/simt_shared_wb.v",),
                swb_cover if ex_first else swb_cover.split("; EX_FIRST = 1")[0],
                mode="cover",
                depth=12,
                params=swb_params,
                defines=("COVER",),
                map_memories=True,
            )
        )
    lsu_params = {"NUM_LANES": 4, "NUM_BANKS": 2, "SHARED_WORDS": 64}
    jobs += _unit(
        "simt_shared_lsu",
        "sm",
        "each active lane served exactly once, at most one distinct word per bank per pass (broadcast), "
        "waits only on a conflict, store writes = highest lane's data per bank, clears only while idle, "
        "passes exact and <= active lanes, rsp_valid after the last pass",
        params=lsu_params,
        depth=3,
        faults=[
            Mutant(
                "rtl/sm/simt_shared_lsu.v",
                "if (served[wl]) bank_wd[lane_bank[wl*BWS +: BWS]*32 +: 32] = r_wdata[wl*32 +: 32];",
                "if (served[wl] && bank_wd[lane_bank[wl*BWS +: BWS]*32 +: 32] == 32'd0) "
                "bank_wd[lane_bank[wl*BWS +: BWS]*32 +: 32] = r_wdata[wl*32 +: 32];",
                "several lanes storing one word: the lowest lane's non-zero data wins",
            ),
            Mutant(
                "rtl/sm/simt_shared_lsu.v",
                "assign clr_ready = ~busy;",
                "assign clr_ready = 1'b1;",
                "a line clear is taken while a row is in progress",
            ),
        ],
    )
    jobs.append(
        Job(
            "shared_lsu_data",
            "simt_shared_lsu",
            "formal/sm/simt_shared_lsu_props.sv",
            "simt_shared_lsu_props",
            ("rtl/sm/simt_shared_lsu.v",),
            "a load returns in every active lane the word last stored or cleared at its address, 0 elsewhere",
            mode="bmc",
            depth=6,
            params=lsu_params,
            defines=("DATA",),
        )
    )
    jobs += _unit(
        "simt_alu",
        "sm",
        "every operation but MUL/MAD/MULHU equals docs/isa.md 3.1 for all 32-bit operands (wrapping add/sub, "
        "signed/unsigned compares and min/max, shifts by >= 32, logic, MV)",
        params={},
        depth=1,
        faults=[
            Mutant(
                "rtl/sm/simt_alu.v",
                "wire [31:0] sra  = $signed(a) >>> (big ? 5'd31 : b[4:0]);",
                "wire [31:0] sra  = $signed(a) >>> b[4:0];",
                "an arithmetic shift by 32 or more uses only the low 5 bits of the amount",
            ),
        ],
    )
    jobs += _unit(
        "simt_decode",
        "sm",
        "equal to the decoder generated from spec/isa.py (formal/sm/simt_decode_ref.v) for every word and "
        "register count: illegal, class, ALU op, operand ports, immediate, rd, BAD_REGISTER, flags, target",
        params={},
        depth=1,
        extra_sources=("formal/sm/simt_decode_ref.v",),
        faults=[
            Mutant(
                "rtl/sm/simt_decode.v",
                "default: imm = {{21{imm11[10]}}, imm11};",
                "default: imm = {21'd0, imm11};",
                "a store's 11-bit offset is zero-extended (negative offsets wrong)",
            ),
            Mutant(
                "rtl/sm/simt_decode.v",
                "F_LOAD, F_SREG: wr = 1'b1;",
                "F_LOAD, F_SREG, F_BRANCH: wr = 1'b1;",
                "branches write rd",
            ),
        ],
    )
    jobs += _unit(
        "simt_axi_mem_bridge",
        "top",
        "AXI handshake rules (AW/W/AR valid held until ready, payload stable), INCR bursts of SEG_WORDS "
        "beats with WLAST/WSTRB exact, request -> one transaction (address, ID, kind), same-segment "
        "ordering (no issue while an in-flight transaction of the segment conflicts), <= MAX_OUT in "
        "flight, B/R -> native responses with tag and data, no error for a legal slave",
        params={"SEG_WORDS": 2, "ID_W": 1, "MAX_OUT": 2},
        depth=3,
        map_memories=True,
        faults=[
            Mutant(
                "rtl/top/simt_axi_mem_bridge.v",
                "assign m_axi_awvalid = q_issued && q_write && !aw_done;",
                "assign m_axi_awvalid = q_issued && q_write && !aw_done && !w_fire;",
                "AWVALID drops in a cycle a W beat is taken (valid not held until ready)",
            ),
            Mutant(
                "rtl/top/simt_axi_mem_bridge.v",
                "if (t_valid[i] && t_addr[i] == q_addr && (t_write[i] || q_write)) hazard = 1'b1;",
                "if (t_valid[i] && t_addr[i] == q_addr && t_write[i] && q_write) hazard = 1'b1;",
                "a load may pass an in-flight store of its segment (and a store an in-flight load)",
            ),
        ],
    )
    jobs += _unit(
        "simt_div_stack",
        "sm",
        "depth bounds, pops return what was pushed (SYNC: SSY's target and mask; DIV: pc+1 and the "
        "not-taken lanes, OR-ed by merges), resume mask = popped mask minus exited lanes, a divergent "
        "branch splits its mask into the two paths (one waits at the rpc or in a pushed / merged DIV), no "
        "thread is lost (a live thread is active or waits in an entry, in every cycle), errors change "
        "nothing, top_after = the stack's top, a warp that is not done goes on with a thread; quick "
        "completion: q_done exactly when done follows the start with no pop, and the q_* results (top entry "
        "included) are what done then reports",
        params={"WARP_SIZE": 4, "NUM_WARPS": 2, "STACK_DEPTH": 2, "PC_W": 4},
        depth=4,
        map_memories=True,
        faults=[
            Mutant(
                "rtl/sm/simt_div_stack.v",
                "if (!busy && start && a_merge) st_mask[top_idx] <= top_mask | n_set;",
                "if (!busy && start && a_merge) st_mask[top_idx] <= n_set;",
                "a merge replaces the waiting DIV's mask instead of OR-ing into it (lanes lost)",
            ),
            Mutant(
                "rtl/sm/simt_div_stack.v",
                "wire [WARP_SIZE-1:0] p_mask = top_mask & ~r_exited;",
                "wire [WARP_SIZE-1:0] p_mask = top_mask;",
                "a pop restores exited lanes",
            ),
            Mutant(
                "rtl/sm/simt_div_stack.v",
                "wire                 p_more = (p_dep != 0) && (p_mask == 0 || (s_found && top_pc == s_rpc));",
                "wire                 p_more = (p_dep != 0) && (s_found && top_pc == s_rpc);",
                "pops stop at an entry whose threads have all exited (the warp goes on with no thread)",
            ),
            Mutant(
                "rtl/sm/simt_div_stack.v",
                "assign q_done      = !busy && start && !s_pop;",
                "assign q_done      = !busy && start;",
                "a step that reconverges (pops follow) is reported as a quick completion: CM would retire "
                "it with the pre-pop pc and mask",
            ),
            Mutant(
                "rtl/sm/simt_div_stack.v",
                "a_push = 1'b1;                // taken path first, not-taken waits in a DIV",
                "a_push = 1'b0;                // taken path first, not-taken waits in a DIV",
                "a divergent branch runs its taken path without pushing the not-taken lanes (they are lost)",
            ),
        ],
    )
    jobs += _unit(
        "simt_gmem_unit",
        "sm",
        "memory-port valid/ready, no tag reused while outstanding (nothing duplicated), each access completes "
        "once after all its transactions are answered with their count, acc_ready low for a busy warp, every "
        "response reaches its warp and lane (watched lane: one transaction carries it, its word returned)",
        params={"WARP_SIZE": 4, "NUM_WARPS": 2, "SEG_WORDS": 2},
        depth=3,
        extra_sources=("rtl/sm/simt_coalescer.v",),
        faults=[
            Mutant(
                "rtl/sm/simt_gmem_unit.v",
                "if (rsp_lanes[k]) data_q[k*32 +: 32] <= rsp_words[k*32 +: 32];",
                "if (rsp_lanes[k] && k != 0) data_q[k*32 +: 32] <= rsp_words[k*32 +: 32];",
                "lane 0's load data is never written (a response does not reach its lane)",
            ),
            Mutant(
                "rtl/sm/simt_gmem_unit.v",
                "assign done[g]       = busy_q && issued_q && out_q == {CNT_W{1'b0}} && fin;",
                "assign done[g]       = busy_q && out_q == {CNT_W{1'b0}} && fin;",
                "an access completes before all its transactions were issued",
            ),
        ],
    )
    jobs += _unit(
        "simt_warp_table",
        "sm",
        "the SM's only writer of warp state: a warp is never issued twice while in flight (READY exactly "
        "for a started warp not in the pipeline, on memory, at a barrier or done), a barrier warp waits "
        "for its block's release, blk_done exactly once per block after its last warp with its id (slot "
        "and warps freed), lowest free usable slot, every read port returns the last write, a running warp's "
        "mask is never empty; issue ahead: at most AHEAD released instructions per warp (d_can_rel exact), "
        "F's pc = committed pc + released instructions, a released instruction's retire moves the pc, not "
        "the warp's state; idle-warp rule (IDLE_MIN): while IDLE_MIN or more READY warps have nothing in "
        "flight, a READY warp with released instructions in flight is not offered, else every READY warp is",
        params={
            "WARP_SIZE": 2,
            "NUM_WARPS": 3,
            "NUM_BLOCKS": 2,
            "PCX_W": 3,
            "DEPTH_W": 2,
            "AHEAD": 2,
            "IDLE_MIN": 1,
        },
        depth=3,
        map_memories=True,
        faults=[
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "if (grant) w_state[grant_warp] <= WS_BUSY;",
                "if (grant && !cm_issued) w_state[grant_warp] <= WS_BUSY;",
                "a grant in the cycle another warp's global access is handed off is lost (the warp stays "
                "READY in flight and is issued twice)",
            ),
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "if (w_slot[i] == cm_slot && w_state[i] != WS_EMPTY) w_state[i] <= WS_EMPTY;",
                "if (w_slot[i] == cm_slot) w_state[i] <= WS_EMPTY;",
                "a finishing block also empties a warp starting in that cycle whose stale slot number "
                "matches (the new block loses a warp)",
            ),
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "if (w_state[i] == WS_BAR && bar_release[w_slot[i]]) w_state[i] <= WS_READY;",
                "if (w_state[i] != WS_EMPTY && bar_release[w_slot[i]]) w_state[i] <= WS_READY;",
                "a barrier release makes every warp of the block READY, also one in flight",
            ),
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "blk_done_id <= b_id[cm_slot];",
                "blk_done_id <= b_id[0];",
                "a finished block is reported with slot 0's block id",
            ),
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "w_mask[i]   <= valid_of(i - start_warp);",
                "w_mask[i]   <= valid_of(i - start_warp + 1);",
                "a block's warps start with the next warp's valid threads (its last warp with an empty mask)",
            ),
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "w_ahead[d_warp] < AHEAD &&",
                "w_ahead[d_warp] <= AHEAD &&",
                "a warp may be released with AHEAD instructions already ahead (one more in flight than "
                "ISSUE_AHEAD allows)",
            ),
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "wire             cm_ahead = w_ahead[cm_warp] != 3'd0;",
                "wire             cm_ahead = 1'b0;",
                "the retire of a released instruction also sets the warp's state (a warp re-granted in the "
                "meantime becomes READY while in the pipeline: issued twice)",
            ),
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "wire f_no_idle = 1'b0;",
                "wire f_no_idle = 1'b1;",
                "the idle-warp rule is off (test-only fault 23): a READY warp running ahead is offered while "
                "an idle warp is READY",
            ),
        ],
    )
    wt_params = jobs[-1].params
    # the idle-warp rule with a threshold that needs the count: two idle READY warps hold the third back
    jobs += _unit(
        "simt_warp_table",
        "sm",
        "as warp_table, with IDLE_MIN = 2 (the rule counts the idle READY warps)",
        params={**wt_params, "IDLE_MIN": 2},
        depth=3,
        name="warp_table_idle2",
        map_memories=True,
        faults=[
            Mutant(
                "rtl/sm/simt_warp_table.v",
                "wire idle_first = IDLE_MIN > 0 && n_idle >= IDLE_MIN && !f_no_idle;",
                "wire idle_first = IDLE_MIN > 0 && n_idle != 0 && !f_no_idle;",
                "the rule holds warps back with a single idle READY warp although IDLE_MIN = 2",
            ),
        ],
    )
    jobs.append(
        Job(
            "warp_table_cover",
            "simt_warp_table",
            "formal/sm/simt_warp_table_props.sv",
            "simt_warp_table_props",
            ("rtl/sm/simt_warp_table.v",),
            "witnesses for the idle-warp rule's antecedents: a READY warp running ahead held back (an idle "
            "one offered), one offered (none idle), a warp running ahead granted again",
            mode="cover",
            depth=8,
            params=wt_params,
            defines=("COVER",),
            map_memories=True,
        )
    )
    jobs += _unit(
        "simt_axil_host",
        "top",
        "AXI4-Lite slave rules (B/R valid held until ready, response stable; AW with W, ready only for "
        "valid; one access at a time), each access answered once, host port valid held with payload "
        "stable, whole-word write -> one host write of awaddr[9:2], partial strobe -> SLVERR and no host "
        "write, read -> host read and its data on R, reads and writes alternate (a waiting read passes "
        "after one write)",
        params={"ADDR_W": 12},
        depth=3,
        faults=[
            Mutant(
                "rtl/top/simt_axil_host.v",
                "if (s_axil_bready) begin",
                "if (1'b1) begin",
                "BVALID drops without BREADY (the response can be lost)",
            ),
            Mutant(
                "rtl/top/simt_axil_host.v",
                "if (s_axil_wstrb == 4'b1111) begin",
                "if (s_axil_wstrb != 4'b0000) begin",
                "a partial-strobe write reaches the host as a whole-word write",
            ),
            Mutant(
                "rtl/top/simt_axil_host.v",
                "s_axil_awvalid && s_axil_wvalid && (!s_axil_arvalid || last_read);",
                "s_axil_awvalid && s_axil_wvalid;",
                "writes always win over a waiting read (a read can starve)",
            ),
        ],
    )
    jobs += _unit(
        "simt_loader",
        "top",
        "against spec/image_rules.py check_words (reference checker in the wrapper, constants generated "
        "from the spec): error exactly at the first word check_words rejects (a magic word outside a "
        "payload starts a new image), with its ERR_RULE, ERR_KIND and IMG_WORDS index; IMG_WORDS = next "
        "word's index while an image is taken; loaded only after a legal END; no word refused but a DATA "
        "word waiting for the store register; cfg_* = the image's (grid, block, blocks, threads, warps per "
        "block, regs, shared and its bank-rounded stride, params, instruction and constant counts); "
        "INSTR / CONST word k written to address k; at loaded, cfg_slots = SmLaunch.of's block slots",
        params={
            "WARP_SIZE": 8,
            "NUM_LANES": 4,
            "NUM_WARPS": 3,
            "NUM_BLOCKS": 2,
            "RF_DEPTH": 32,
            "SHARED_WORDS": 64,
            "NUM_BANKS": 2,
            "CONST_WORDS": 16,
            "IMEM_WORDS": 16,
            "SEG_WORDS": 2,
            "GLOBAL_WORDS": 1024,
        },
        depth=3,
        extra_sources=(
            "rtl/top/simt_image_check.v",
            "rtl/top/simt_loader_store.v",
            "formal/top/simt_image_rules_ref.vh",
        ),
        faults=[
            Mutant(
                "rtl/top/simt_image_check.v",
                "REC_GRID, REC_BLOCK:  bad = hdr_cnt != 24'd3;",
                "REC_GRID, REC_BLOCK:  bad = hdr_cnt > 24'd3;",
                "a GRID or BLOCK record of fewer than 3 words is accepted (no LENGTH error)",
            ),
            Mutant(
                "rtl/top/simt_image_check.v",
                "bad      = dim_bad || (pidx == 24'd2 && nblk_hi != 16'd0);",
                "bad      = dim_bad || (pidx == 24'd2 && nblk_hi > 16'd1);",
                "a grid of 2^32 to 2^33-1 blocks is accepted (no BLOCKS error: the flat block index wraps)",
            ),
            Mutant(
                "rtl/top/simt_loader.v",
                "if (state != S_ERROR) img_words <= img_words + 32'd1;",
                "img_words <= img_words + 32'd1;",
                "words ignored after an error still count (IMG_WORDS no longer names the offending word)",
            ),
            Mutant(
                "rtl/top/simt_loader.v",
                "wire        restart  = fire && is_magic && !in_payload;",
                "wire        restart  = fire && is_magic;",
                "a payload word equal to the magic value restarts the loader (it must be an ordinary word)",
            ),
        ],
    )
    loader = jobs[-5]
    # the slot search's fault: its trace needs a whole image (the shortest reaching `loaded` is 19 words),
    # so a 24-cycle BMC of the slot assertion alone (SLOTS_ONLY: with every assertion the solver stalls)
    jobs.append(
        Job(
            "loader_fault5",
            loader.unit,
            loader.props,
            loader.top,
            loader.sources,
            "planted fault: the slot search ignores the register file (cfg_slots counts blocks whose "
            "registers do not fit); BMC of the slot assertion alone",
            mode="bmc",
            depth=24,
            params=loader.params,
            defines=("SLOTS_ONLY",),
            mutant=Mutant(
                "rtl/top/simt_loader.v",
                "sl_fit = cfg_slots < BLK_LIM && sl_w_n <= WARP_LIM && sl_r_n <= RF_LIM &&",
                "sl_fit = cfg_slots < BLK_LIM && sl_w_n <= WARP_LIM &&",
                "the slot search ignores the register file",
            ),
            expect="fail",
        )
    )
    sm_sources = tuple(
        f"rtl/sm/{m}.v"
        for m in (
            "simt_warp_table", "simt_block_init", "simt_issue", "simt_execute", "simt_commit", "simt_warp_sched",
            "simt_decode", "simt_alu", "simt_regfile", "simt_shared_lsu", "simt_gmem_unit", "simt_coalescer",
            "simt_div_stack", "simt_barrier", "simt_perf", "simt_shared_wb", "simt_scoreboard", "simt_tid_table",
        )
    )  # fmt: skip
    jobs += _unit(
        "simt_sm",
        "sm",
        "pipeline, on the stage modules' interface: the stages keep the warp table's contract (grant only a "
        "READY warp or one back from memory, never a warp in flight; hand-off / retire only a warp in "
        "flight), a warp is never in two stages and each warp in flight is in one of DEC, EX, SWB (shared "
        "writeback), CM; the SWB's entries: one per warp, to CM in issue order, its counts agree; only CM "
        "retires (retire port = CM's retire one cycle later), registers written only by the SWB or EX, never "
        "both in a cycle (SWB_EX_FIRST = 1: EX's row first), EX raises an error only with no shared instruction "
        "waiting, debug view states, nothing granted, retired, moved to CM or written after an error, all "
        "stages (the SWB too) empty after reset; any program in imem",
        params={
            "WARP_SIZE": 4,
            "NUM_LANES": 4,
            "NUM_WARPS": 2,
            "NUM_BLOCKS": 2,
            "STACK_DEPTH": 2,
            "IMEM_WORDS": 16,
        },
        depth=SM_DEPTH,
        mode="bmc",
        name="sm_pipeline",
        extra_sources=sm_sources,
        map_memories=True,
        faults=[
            NO_HALT,
            Mutant(
                "rtl/sm/simt_sm.v",
                ".cm_issued(cm_issued), .cm_retire(cm_retire), .cm_warp(cm_warp),",
                ".cm_issued(1'b0), .cm_retire(cm_retire), .cm_warp(cm_warp),",
                "a global access handed off by CM is not reported to the warp table (the warp stays BUSY "
                "instead of waiting on memory)",
            ),
            Mutant(
                "rtl/sm/simt_execute.v",
                "end else if (swb_we_any) begin",
                "end else if (swb_we_any && !ex_valid) begin",
                "the shared writeback loses the register-file write port whenever EX holds an instruction "
                "(a landed row it writes is not written)",
            ),
            Mutant(
                "rtl/sm/simt_shared_wb.v",
                "n_alloc  <= {(NW+1){1'b0}};",
                "n_alloc  <= n_alloc;",
                "a reset does not empty the shared writeback (entries from before the reset still wait)",
            ),
        ],
    )
    sm_params = jobs[-1].params
    jobs.append(
        Job(
            "sm_pipeline_cover",
            "simt_sm",
            "formal/sm/simt_sm_props.sv",
            "simt_sm_props",
            ("rtl/sm/simt_sm.v", *sm_sources),
            "witnesses that the bound reaches what sm_pipeline checks: a retire, two retires, a global "
            "hand-off and the warp's return, an error, both warps in the pipeline at once, a shared "
            "instruction waiting in the SWB while EX works on the other warp",
            mode="cover",
            depth=SM_DEPTH,
            params=sm_params,
            defines=("COVER",),
            map_memories=True,
        )
    )
    # the same pipeline with issue ahead (ISSUE_AHEAD = 2, simt_sm's default): a warp may be in several
    # stages at once, so the wrapper counts its released instructions instead
    ahead_params = {**sm_params, "ISSUE_AHEAD": 2}
    jobs += _unit(
        "simt_sm",
        "sm",
        "pipeline with issue ahead: as sm_pipeline, but a warp's released instructions (DEC's rel) may be "
        "in flight with its next one: DEC releases only a warp in flight with fewer than ISSUE_AHEAD "
        "ahead, CM hands off only a warp with none ahead, per warp the stages holding it = its unreleased "
        "instruction + its released ones (until an error), the SWB one entry per warp in issue order, only "
        "CM retires, register-write priority, precise errors, flush on error and reset; any program in imem",
        params=ahead_params,
        depth=SM_DEPTH,
        mode="bmc",
        name="sm_ahead",
        extra_sources=sm_sources,
        map_memories=True,
        faults=[
            NO_HALT,
            Mutant(
                "rtl/sm/simt_issue.v",
                "assign rel = dec_valid && dec_first && dec_seq && !dec_flt && d_can_rel && !halt;",
                "assign rel = dec_valid && dec_seq && !dec_flt && d_can_rel && !halt;",
                "DEC releases its instruction in every cycle it holds it, not only the first (one "
                "instruction counted ahead more than once)",
            ),
        ],
    )
    jobs.append(
        Job(
            "sm_ahead_cover",
            "simt_sm",
            "formal/sm/simt_sm_props.sv",
            "simt_sm_props",
            ("rtl/sm/simt_sm.v", *sm_sources),
            "witnesses that the bound reaches what sm_ahead checks: sm_pipeline_cover's events and a "
            "release, a warp in two stages at once, the retire of a released instruction",
            mode="cover",
            depth=SM_DEPTH,
            params=ahead_params,
            defines=("COVER",),
            map_memories=True,
        )
    )
    return jobs


def by_name() -> dict[str, Job]:
    return {j.name: j for j in all_jobs()}


# the whole-SM job that judges a mutant of an SM file without a unit proof of its own
MUTANT_WHOLE_SM = ("sm_ahead",)
# SM files whose own unit job states only part of the file's behaviour (simt_issue: the scheduler's
# clear on launch_load): their mutants go to the whole-SM job too, after the unit job
MUTANT_PARTIAL = ("sm/simt_issue.v",)


def mutant_jobs(rel: str) -> list[Job]:
    """The checks that judge a `make mutants` mutant of ``rel`` (rtl-relative, e.g. ``sm/simt_alu.v``):
    the property jobs (not the planted faults, not the cover jobs) of that file's unit, or the whole-SM
    job for an SM file with no unit proof (or, MUTANT_PARTIAL, one whose unit job checks only part of
    it: both, the unit job first), run as its planted faults are, a BMC from reset without the INVARIANTS (so a counterexample breaks a
    property of the unit's ports, not an invariant on its internal registers, which an equivalent
    mutant may change) to the same depth (at least 8, as a planted fault; a combinational unit's one step
    covers every input). A mutant is killed by a counterexample."""
    out = []
    reading = [
        j for j in all_jobs() if j.expect == "pass" and j.mode != "cover" and f"rtl/{rel}" in j.sources
    ]
    # The file's own unit proof when it has one (seconds); else the whole SM in its default configuration
    # (sm_ahead, ISSUE_AHEAD = 2: minutes; sm_pipeline, ISSUE_AHEAD = 0, is left out for its cost).
    own = [j for j in reading if j.sources[0] == f"rtl/{rel}" and j.unit != "simt_sm"]
    # a part of a unit with its own proof (simt_image_check and simt_loader_store in the loader's job)
    part = [j for j in reading if j.unit != "simt_sm" and j not in own]
    whole = [j for j in reading if j.name in MUTANT_WHOLE_SM]
    for j in own + whole if rel in MUTANT_PARTIAL else own or part or whole:
        out.append(
            Job(
                j.name,
                j.unit,
                j.props,
                j.top,
                j.sources,
                j.what,
                mode="bmc",
                # a combinational unit's proof is one step (every input); others as their planted faults
                depth=j.depth if j.mode == "bmc" or j.depth == 1 else max(j.depth, 8),
                engine=j.engine,
                params=j.params,
                map_memories=j.map_memories,
            )
        )
    return out
