// Properties of simt_div_stack (docs/isa.md 4, docs/sm.md): `make formal` (k-induction, see jobs.py).
//
// Contract (the SM and tb/tests/unit/test_div_stack.py): reset first; `start` only while idle; clr names
// neither the warp of an update in progress nor the one starting in the same cycle; exited covers the
// lanes that are not live (live = ~exited on the lanes the test drives) after the instruction, as
// simt_commit computes it: an EXIT's own lanes are in it, no other instruction's; the warp's mask is
// not empty (the warp table's guarantee); an exited thread stays exited and never runs again until its
// warp slot is cleared; a warp's first instruction after the clear: every live thread is active; later
// ones: the warp runs with the mask the unit last reported, exited = its exited | an EXIT's mask, and a
// finished warp is not started again (simt_commit / simt_warp_table).
// The wrapper keeps its own copy of every warp's stack, updated from what the unit REPORTS at `done`
// (pushes, merged, pops, warp_done) and the instruction it was given; it checks the report against it:
//   depth bounds: the reported depth is the copy's depth (0..STACK_DEPTH); a push only below
//   STACK_DEPTH, only by SSY or a divergent branch; an error (overflow, divergence without SSY) changes
//   nothing (pc, mask, depth, no push, pop or merge);
//   pops return what was pushed: each pop takes the copy's top entry; the warp resumes at the last
//   popped entry's pc with its mask minus the exited lanes; a SYNC entry holds SSY's target and mask,
//   a DIV entry pc + 1 of its branch and the not-taken lanes (OR-ed by merges);
//   the paths' masks are the instruction's mask: a divergent branch splits the mask into the path it
//   runs and the lanes left waiting (disjoint, their union is the mask), so a reconvergence pop of the
//   SYNC restores the union of the paths (the mask at SSY minus exited lanes);
//   top_after_* equals the copy's top entry after the instruction;
//   a warp that is not done goes on with some thread (next_mask != 0): the guarantee the warp table's
//   proof assumes of CM, so no retire record has an empty mask;
//   no thread is lost: in every cycle each live thread of a started warp is active or waits in an entry;
//   rule 2: a divergent branch (it needs an SSY) lets one path wait at the rpc, or runs the taken path
//   and leaves the not-taken lanes in a pushed (or merged) DIV entry.
module simt_div_stack_props #(
    parameter integer WARP_SIZE   = 4,
    parameter integer NUM_WARPS   = 2,
    parameter integer STACK_DEPTH = 3,
    parameter integer PC_W        = 4
) (
    input wire                 clk,
    input wire                 rst,
    input wire                 clr,
    input wire                 clr_warp,
    input wire                 start,
    input wire                 warp,
    input wire [1:0]           op,
    input wire [PC_W-1:0]      pc,
    input wire [PC_W-1:0]      npc,
    input wire [PC_W-1:0]      target,
    input wire [WARP_SIZE-1:0] mask,
    input wire [WARP_SIZE-1:0] taken,
    input wire [WARP_SIZE-1:0] exited
);
    localparam integer D = STACK_DEPTH;
    localparam integer DW = $clog2(STACK_DEPTH + 1);
    localparam [1:0] OP_SSY = 2'd1, OP_BRANCH = 2'd2, OP_EXIT = 2'd3;

    wire                 idle, done, warp_done, divergent, pushes, merged, error, top_kind;
    wire [PC_W-1:0]      next_pc, top_pc;
    wire [WARP_SIZE-1:0] next_mask, top_mask;
    wire [DW-1:0]        pops, depth;
    wire [3:0]           err_kind;
    wire                 q_done, q_warp_done, q_divergent, q_pushes, q_merged, q_error, q_top_kind;
    wire [PC_W-1:0]      q_next_pc, q_top_pc;
    wire [WARP_SIZE-1:0] q_next_mask, q_top_mask;
    wire [DW-1:0]        q_depth;
    wire [3:0]           q_err_kind;
    simt_div_stack #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .STACK_DEPTH(STACK_DEPTH), .PC_W(PC_W)) dut (
        .clk(clk), .rst(rst), .clr(clr), .clr_warp(clr_warp), .start(start), .warp(warp), .op(op), .pc(pc),
        .npc(npc), .target(target), .mask(mask), .taken(taken), .exited(exited), .live(~exited),
        .idle(idle), .done(done), .next_pc(next_pc), .next_mask(next_mask), .warp_done(warp_done),
        .divergent(divergent), .pushes(pushes), .pops(pops), .merged(merged), .depth(depth), .error(error),
        .err_kind(err_kind), .top_after_pc(top_pc), .top_after_mask(top_mask), .top_after_kind(top_kind),
        .q_done(q_done), .q_next_pc(q_next_pc), .q_next_mask(q_next_mask), .q_warp_done(q_warp_done),
        .q_divergent(q_divergent), .q_pushes(q_pushes), .q_merged(q_merged), .q_depth(q_depth),
        .q_error(q_error), .q_err_kind(q_err_kind), .q_top_pc(q_top_pc), .q_top_mask(q_top_mask),
        .q_top_kind(q_top_kind)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    reg [WARP_SIZE-1:0] s_union;  // the threads waiting on the starting warp's stack (below)
    wire [WARP_SIZE-1:0] lost = ~exited & ~(mask | s_union);  // live, yet neither active nor waiting
    wire [WARP_SIZE-1:0] mask_exited = mask & exited;
    // each warp's exited threads after its last instruction (known: one started since the slot's clear),
    // the mask the unit last reported for it (the warp table keeps it as the warp's active mask: CM
    // writes next_mask, and an instruction that bypasses the unit leaves it) and whether that report
    // finished the warp
    reg [WARP_SIZE-1:0] was_exited [0:NUM_WARPS-1];
    reg [WARP_SIZE-1:0] cur        [0:NUM_WARPS-1];
    reg [NUM_WARPS-1:0] known, fin;
    integer x;
    always @(posedge clk) begin
        if (rst) known <= 0;
        else begin
            for (x = 0; x < NUM_WARPS; x = x + 1) begin
                if (start && idle && warp == x) begin
                    known[x] <= 1'b1; was_exited[x] <= exited;
                end
                if (clr && clr_warp == x) known[x] <= 1'b0;
            end
        end
    end

    // ---- the instruction in progress
    reg                 busy, i_warp;
    reg [1:0]           i_op;
    reg [PC_W-1:0]      i_pc, i_target;
    reg [WARP_SIZE-1:0] i_mask, i_taken, i_exited;
    always @(posedge clk) begin
        if (rst) busy <= 1'b0;
        else if (start && idle) begin
            busy <= 1'b1; i_warp <= warp; i_op <= op; i_pc <= pc; i_target <= target; i_mask <= mask;
            i_taken <= taken; i_exited <= exited;
        end else if (done) busy <= 1'b0;
    end
    always @* begin
        if (!init && !rst) begin
            if (start) assume (idle);
            // exited is the set after the instruction (simt_commit): an EXIT's own lanes are in it
            if (start) assume (mask_exited == ((op == OP_EXIT) ? mask : {WARP_SIZE{1'b0}}));
            if (start) assume (mask != 0);  // the warp table's guarantee: a running warp has a thread
            // a warp's first instruction after its slot's clear: the invalid lanes are the exited ones and
            // every other thread is active (the stack is empty)
            if (start && !known[warp]) assume (lost == 0);
            // a thread that exited stays exited, and never runs again, until its warp slot is cleared
            if (start && known[warp]) assume ((was_exited[warp] & ~exited) == 0 && (was_exited[warp] & mask) == 0);
            // later instructions: the warp runs with the mask the unit reported, threads exit only by
            // an EXIT of their own (simt_commit: exited = the warp's exited | an EXIT's mask), and a
            // finished warp is not started again
            if (start && known[warp]) begin
                // (the report of this cycle counts: an instruction may start as the last one is done)
                if (done && busy && i_warp == warp) assume (mask == next_mask && !(!error && warp_done));
                else assume (mask == cur[warp] && !fin[warp]);
                assume (exited == (was_exited[warp] | ((op == OP_EXIT) ? mask : {WARP_SIZE{1'b0}})));
            end
            if (clr) assume (!(busy && !done && clr_warp == i_warp) && !(start && clr_warp == warp));
        end
    end

    // ---- the wrapper's copy of the stacks: entry e of warp w, e = 0 the bottom; kind 1 = SYNC
    reg [PC_W-1:0]      s_pc   [0:NUM_WARPS-1][0:D-1];
    reg [WARP_SIZE-1:0] s_mask [0:NUM_WARPS-1][0:D-1];
    reg                 s_sync [0:NUM_WARPS-1][0:D-1];
    reg [DW-1:0]        s_dep  [0:NUM_WARPS-1];

    // the instruction's effect before pops (from the report), then its pops
    reg [PC_W-1:0]      w_pc   [0:D-1];
    reg [WARP_SIZE-1:0] w_mask [0:D-1];
    reg                 w_sync [0:D-1];
    reg [DW-1:0]        w_dep, d0;
    reg [PC_W-1:0]      last_pc;
    reg [WARP_SIZE-1:0] last_mask;
    reg                 popped_sync;
    reg                 c_found;  // the innermost SYNC of the warp's stack before the instruction, its rpc
    reg [PC_W-1:0]      c_rpc;
    integer e;
    always @* begin
        c_found = 1'b0; c_rpc = 0;
        for (e = 0; e < D; e = e + 1)
            if (e < s_dep[i_warp] && s_sync[i_warp][e]) begin
                c_found = 1'b1; c_rpc = s_pc[i_warp][e];
            end
    end
    always @* begin
        for (e = 0; e < D; e = e + 1) begin
            w_pc[e] = s_pc[i_warp][e]; w_mask[e] = s_mask[i_warp][e]; w_sync[e] = s_sync[i_warp][e];
        end
        d0 = s_dep[i_warp];
        w_dep = d0;
        if (!error && pushes && d0 < D) begin
            w_pc[d0]   = (i_op == OP_SSY) ? i_target : i_pc + 1'b1;
            w_mask[d0] = (i_op == OP_SSY) ? i_mask : i_mask & ~i_taken;
            w_sync[d0] = (i_op == OP_SSY);
            w_dep = d0 + 1'b1;
        end
        if (!error && merged && d0 != 0) w_mask[d0 - 1] = w_mask[d0 - 1] | (i_mask & ~i_taken);
        if (!error && warp_done) w_dep = 0;
        last_pc = 0; last_mask = 0; popped_sync = 1'b0;
        for (e = 0; e < D; e = e + 1)
            if (e < pops && w_dep != 0) begin
                last_pc = w_pc[w_dep - 1]; last_mask = w_mask[w_dep - 1] & ~i_exited; popped_sync = w_sync[w_dep - 1];
                w_dep = w_dep - 1'b1;
            end
    end

    // the threads waiting on the starting warp's stack
    integer q;
    always @* begin
        // (the copy as it is after this cycle's update: an instruction may start as the last one is done)
        s_union = 0;
        for (q = 0; q < D; q = q + 1)
            if (done && busy && i_warp == warp) begin
                if (q < w_dep) s_union = s_union | w_mask[q];
            end else if (q < s_dep[warp]) s_union = s_union | s_mask[warp][q];
    end

    integer w, k;
    always @(posedge clk) begin
        if (rst) begin
            for (w = 0; w < NUM_WARPS; w = w + 1) s_dep[w] <= 0;
        end else begin
            if (done && busy) begin
                for (k = 0; k < D; k = k + 1) begin
                    s_pc[i_warp][k] <= w_pc[k]; s_mask[i_warp][k] <= w_mask[k]; s_sync[i_warp][k] <= w_sync[k];
                end
                s_dep[i_warp] <= w_dep;
                cur[i_warp] <= next_mask;
                fin[i_warp] <= !error && warp_done;
            end
            if (clr) s_dep[clr_warp] <= 0;
        end
    end

    // The report's checks hold at `done`; in the proof job also in every cycle of the instruction (the
    // outputs the unit has set so far: the start step's flags, then the pops as they happen).
`ifdef INVARIANTS
    wire chk = done || busy;
`else
    wire chk = done;
`endif
    always @* begin
        if (!init && done) begin
            assert (busy);
            // a warp that is not done goes on with some thread (simt_warp_table_props assumes it)
            if (!error && !warp_done) assert (next_mask != 0);
        end
        if (!init && chk) begin
            assert (depth <= D && depth == w_dep);
            assert (pops <= d0 + pushes);
            if (error) begin
                assert (!pushes && pops == 0 && !merged);
                assert (next_pc == i_pc && next_mask == i_mask && depth == d0);
            end else begin
                if (pushes) assert (d0 < D && (i_op == OP_SSY || (i_op == OP_BRANCH && divergent)));
                if (merged) assert (d0 != 0 && !s_sync[i_warp][d0 - 1] && s_pc[i_warp][d0 - 1] == i_pc + 1'b1);
                if (pops != 0) assert (next_pc == last_pc && next_mask == last_mask);
                // docs/isa.md 4.2 rule 2: a divergent branch (it needs an SSY) lets one path wait at the
                // rpc, or runs the taken path and leaves the not-taken lanes in a DIV entry (pushed or
                // merged into the waiting one)
                if (i_op == OP_BRANCH && divergent) begin
                    assert (c_found);
                    assert (pushes || merged || i_target == c_rpc || i_pc + 1'b1 == c_rpc);
                    if ((pushes || merged) && pops == 0) assert (next_pc == i_target && next_mask == (i_mask & i_taken));
                end
                // the paths of a divergent branch split its mask
                if (i_op == OP_BRANCH && divergent && pops == 0) begin
                    assert ((next_mask & (i_mask & ~i_taken)) == 0 || (next_mask & (i_mask & i_taken)) == 0);
                    assert ((next_mask | (pushes || merged ? i_mask & ~i_taken : 0)) == i_mask ||
                            next_mask == (i_mask & i_taken) || next_mask == (i_mask & ~i_taken));
                end
                if (pops != 0 && popped_sync) assert (next_pc == last_pc);
            end
            if (w_dep != 0) begin
                assert (top_pc == w_pc[w_dep - 1] && top_mask == w_mask[w_dep - 1]);
                assert (top_kind == !w_sync[w_dep - 1]);
            end else begin
                assert (top_pc == 0 && top_mask == 0 && !top_kind);
            end
        end
        if (!init && !done && busy) assert (!idle);
    end

    // ---- no thread is lost (the SIMT invariant of docs/isa.md 4): in every warp started since its clear,
    // a thread that has not exited is active or waits in an entry of the warp's stack. For the warp of
    // the instruction in progress that is the unit's state as it stands: the entries after its pushes,
    // merge and pops so far (w_*) and next_mask (the mask after the start step, then after each pop).
    // Its proof-only companions: the nesting of the entries (a SYNC's mask holds every entry above it and
    // the active mask), a warp's state at rest, and the unit's storage and registers equal to the copy.
    // peek (proof): p_dep[1:0] = dut.st_dep[0]
    // peek (proof): p_dep[3:2] = dut.st_dep[1]
    // peek (proof): p_sync[1:0] = dut.st_sync[0]
    // peek (proof): p_sync[3:2] = dut.st_sync[1]
    // peek (proof): p_pc[3:0] = dut.st_pc[0]
    // peek (proof): p_pc[7:4] = dut.st_pc[1]
    // peek (proof): p_pc[11:8] = dut.st_pc[2]
    // peek (proof): p_pc[15:12] = dut.st_pc[3]
    // peek (proof): p_mask[3:0] = dut.st_mask[0]
    // peek (proof): p_mask[7:4] = dut.st_mask[1]
    // peek (proof): p_mask[11:8] = dut.st_mask[2]
    // peek (proof): p_mask[15:12] = dut.st_mask[3]
    // peek (proof): p_busy = dut.busy
    // peek (proof): p_rwarp = dut.r_warp
    // peek (proof): p_rexit = dut.r_exited
    (* keep *) wire [DW*NUM_WARPS-1:0]          p_dep;
    (* keep *) wire [D*NUM_WARPS-1:0]           p_sync;
    (* keep *) wire [PC_W*D*NUM_WARPS-1:0]      p_pc;
    (* keep *) wire [WARP_SIZE*D*NUM_WARPS-1:0] p_mask;
    (* keep *) wire                             p_busy, p_rwarp;
    (* keep *) wire [WARP_SIZE-1:0]             p_rexit;
    integer vw, ve, vf;
    reg                 v_bw;
    reg [DW-1:0]        v_dep;
    reg [WARP_SIZE-1:0] v_cur, v_x, v_u;
    always @* begin
        for (vw = 0; vw < NUM_WARPS; vw = vw + 1) begin
            v_bw  = busy && i_warp == vw;
            v_dep = v_bw ? w_dep : s_dep[vw];
            v_cur = v_bw ? next_mask : cur[vw];
            v_x   = v_bw ? i_exited : was_exited[vw];
            v_u   = 0;
            for (ve = 0; ve < D; ve = ve + 1)
                if (ve < v_dep) v_u = v_u | (v_bw ? w_mask[ve] : s_mask[vw][ve]);
            if (!init && (v_bw || known[vw])) assert ((~v_x & ~(v_cur | v_u)) == {WARP_SIZE{1'b0}});
`ifdef INVARIANTS
            if (!init) begin
                if (v_bw || known[vw]) begin
                    for (ve = 0; ve < D; ve = ve + 1)
                        if (ve < v_dep && (v_bw ? w_sync[ve] : s_sync[vw][ve])) begin
                            assert ((v_cur & ~(v_bw ? w_mask[ve] : s_mask[vw][ve])) == 0);
                            for (vf = 0; vf < D; vf = vf + 1)
                                if (vf > ve && vf < v_dep)
                                    assert (((v_bw ? w_mask[vf] : s_mask[vw][vf]) &
                                             ~(v_bw ? w_mask[ve] : s_mask[vw][ve])) == 0);
                        end
                end else begin
                    assert (s_dep[vw] == 0);
                end
                if (known[vw] && !v_bw) begin
                    if (!fin[vw]) assert (cur[vw] != 0);
                    else assert (~was_exited[vw] == {WARP_SIZE{1'b0}} && s_dep[vw] == 0);
                end
                // the unit's storage equals the view
                assert (s_dep[vw] <= D && p_dep[DW*vw +: DW] == v_dep);
                for (ve = 0; ve < D; ve = ve + 1)
                    if (ve < v_dep) begin
                        assert (p_sync[D*vw + ve] == (v_bw ? w_sync[ve] : s_sync[vw][ve]));
                        assert (p_pc[PC_W*(D*vw + ve) +: PC_W] == (v_bw ? w_pc[ve] : s_pc[vw][ve]));
                        assert (p_mask[WARP_SIZE*(D*vw + ve) +: WARP_SIZE] == (v_bw ? w_mask[ve] : s_mask[vw][ve]));
                    end
            end
`endif
        end
`ifdef INVARIANTS
        if (!init) begin
            assert (busy == (p_busy || done));
            if (done) assert (!p_busy);
            if (busy) assert (known[i_warp] && p_rwarp == i_warp && p_rexit == i_exited);
            if (p_busy) assert (!error && !warp_done && w_dep != 0);
            if (busy && !(done && warp_done)) assert (~i_exited != {WARP_SIZE{1'b0}});
        end
`endif
    end

    // ---- quick completion: q_done in a start cycle exactly when `done` follows in the next cycle with
    // no pop, and the q_* results of that cycle are what the unit then reports (checked above), the
    // top entry included; so the SM may complete on them in the start cycle (simt_commit)
    reg                 p_start, p_q, pq_wdone, pq_div, pq_push, pq_merge, pq_err, pq_tkind;
    reg [PC_W-1:0]      pq_pc, pq_tpc;
    reg [WARP_SIZE-1:0] pq_mask, pq_tmask;
    reg [DW-1:0]        pq_dep;
    reg [3:0]           pq_kind;
    always @(posedge clk) begin
        p_start <= !rst && start && idle;
        p_q     <= !rst && start && idle && q_done;
        pq_pc <= q_next_pc; pq_mask <= q_next_mask; pq_wdone <= q_warp_done; pq_div <= q_divergent;
        pq_push <= q_pushes; pq_merge <= q_merged; pq_dep <= q_depth; pq_err <= q_error;
        pq_kind <= q_err_kind; pq_tpc <= q_top_pc; pq_tmask <= q_top_mask; pq_tkind <= q_top_kind;
    end
    always @* begin
        if (!init && !rst && q_done) assert (start);
        if (!init && !rst && p_start) assert (done == p_q);
`ifdef INVARIANTS
        if (!init && p_start) assert (busy && pops == 0 && (done != p_busy));
`endif
        if (!init && !rst && p_q) begin
            assert (pops == 0);
            assert (next_pc == pq_pc && next_mask == pq_mask && warp_done == pq_wdone && divergent == pq_div);
            assert (pushes == pq_push && merged == pq_merge && depth == pq_dep && error == pq_err);
            if (pq_err) assert (err_kind == pq_kind);
            assert (top_pc == pq_tpc && top_mask == pq_tmask && top_kind == pq_tkind);
        end
    end
endmodule
