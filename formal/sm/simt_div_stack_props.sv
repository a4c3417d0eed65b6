// Properties of simt_div_stack (docs/isa.md 4, docs/sm.md): `make formal` (bounded, see jobs.py).
//
// Contract (the SM and tb/tests/unit/test_div_stack.py): reset first; `start` only while idle; clr names
// neither the warp of an update in progress nor the one starting in the same cycle; exited covers the
// lanes that are not live (live = ~exited on the lanes the test drives) after the instruction, as
// simt_commit computes it: an EXIT's own lanes are in it, no other instruction's; the warp's mask is
// not empty (the warp table's guarantee); an exited thread stays exited and never runs again until its
// warp slot is cleared; every live thread is active or waits in a stack entry (the SIMT invariant).
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
//   proof assumes of CM, so no retire record has an empty mask.
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
    simt_div_stack #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .STACK_DEPTH(STACK_DEPTH), .PC_W(PC_W)) dut (
        .clk(clk), .rst(rst), .clr(clr), .clr_warp(clr_warp), .start(start), .warp(warp), .op(op), .pc(pc),
        .npc(npc), .target(target), .mask(mask), .taken(taken), .exited(exited), .live(~exited),
        .idle(idle), .done(done), .next_pc(next_pc), .next_mask(next_mask), .warp_done(warp_done),
        .divergent(divergent), .pushes(pushes), .pops(pops), .merged(merged), .depth(depth), .error(error),
        .err_kind(err_kind), .top_after_pc(top_pc), .top_after_mask(top_mask), .top_after_kind(top_kind)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    reg [WARP_SIZE-1:0] s_union;  // the threads waiting on the starting warp's stack (below)
    wire [WARP_SIZE-1:0] lost = ~exited & ~(mask | s_union);  // live, yet neither active nor waiting
    wire [WARP_SIZE-1:0] mask_exited = mask & exited;
    // each warp's exited threads after its last instruction (known: one started since the slot's clear)
    reg [WARP_SIZE-1:0] was_exited [0:NUM_WARPS-1];
    reg [NUM_WARPS-1:0] known;
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
            // the SIMT invariant: a thread that has not exited is active or waits in a stack entry
            if (start) assume (lost == 0);
            // a thread that exited stays exited, and never runs again, until its warp slot is cleared
            if (start && known[warp]) assume ((was_exited[warp] & ~exited) == 0 && (was_exited[warp] & mask) == 0);
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
    integer e;
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
            end
            if (clr) s_dep[clr_warp] <= 0;
        end
    end

    always @* begin
        if (!init && done) begin
            assert (busy);
            assert (depth <= D && depth == w_dep);
            assert (pops <= d0 + pushes);
            if (error) begin
                assert (!pushes && pops == 0 && !merged);
                assert (next_pc == i_pc && next_mask == i_mask && depth == d0);
            end else begin
                if (pushes) assert (d0 < D && (i_op == OP_SSY || (i_op == OP_BRANCH && divergent)));
                if (merged) assert (d0 != 0 && !s_sync[i_warp][d0 - 1] && s_pc[i_warp][d0 - 1] == i_pc + 1'b1);
                if (pops != 0) assert (next_pc == last_pc && next_mask == last_mask);
                // the paths of a divergent branch split its mask
                if (i_op == OP_BRANCH && divergent && pops == 0) begin
                    assert ((next_mask & (i_mask & ~i_taken)) == 0 || (next_mask & (i_mask & i_taken)) == 0);
                    assert ((next_mask | (pushes || merged ? i_mask & ~i_taken : 0)) == i_mask ||
                            next_mask == (i_mask & i_taken) || next_mask == (i_mask & ~i_taken));
                end
                if (pops != 0 && popped_sync) assert (next_pc == last_pc);
                // a warp that is not done goes on with some thread (simt_warp_table_props assumes it)
                if (!warp_done) assert (next_mask != 0);
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
endmodule
