// simt_div_stack -- the divergence stacks of every warp slot and the rules of docs/isa.md section 4.
//
// One warp-instruction at a time: the caller passes the warp's pc and active mask with `start` and
// takes the new pc and mask back with `done`. The unit keeps no per-warp pc or mask except inside
// stack entries. Interface: docs/sm.md, section simt_div_stack.
//
// Timing: the start cycle applies rule 1 (SSY), rule 2 (branch) or rule 4's EXIT step and decides
// whether a reconvergence pop (rule 3) follows. Each pop takes one more cycle, so `done` is a
// registered pulse 1 + (number of pops) cycles after `start`. `idle` is high again in the cycle of
// `done`, so the next `start` may come in that same cycle.
//
// Errors (STACK_OVERFLOW, DIVERGENT_WITHOUT_SSY) leave the stack, pc and mask unchanged (as the golden
// model does) and are reported with the `done` pulse one cycle after `start`.
//
// Quick completion: when no pop follows the start step (every SSY, every branch that does not reach
// an rpc, every plain instruction of a warp with a non-empty stack that does not reconverge), the
// step's results are final in the start cycle. `q_done` says so, combinationally with `start`, and
// the q_* outputs carry those results then (the top entry as it will be after the step's edge), so a
// caller may complete in the start cycle; the registered outputs repeat them with `done` as usual.
//
// top_after_*: the top entry of the stack of the warp last started, read straight from the storage.
// The storage writes of an update share the edge that raises `done`, so in the cycle of `done` (and
// until the next `start`) it is the top after the instruction: its pushes, merge and pops applied.
// Entries are encoded as the golden model's [kind, pc, mask] (docs/isa.md 4.1): SYNC(rpc, mask at
// the SSY) or DIV(pc + 1 of the branch, not-taken mask, OR-ed by merges); the pc and mask of a DIV
// are stored unmasked, the exited threads are only removed when it is popped. All 0 when empty.
//
// Test-only fault 2 (SIMT_FAULTS builds, docs/sm.md): the first pop triggered by reaching the rpc
// with threads still active is not done.

`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"

module simt_div_stack #(
    parameter integer WARP_SIZE   = `SIMT_DEFAULT_WARP_SIZE,   // lanes per warp
    parameter integer NUM_WARPS   = `SIMT_DEFAULT_NUM_WARPS,   // warp slots
    parameter integer STACK_DEPTH = `SIMT_DEFAULT_STACK_DEPTH, // entries per warp stack
    parameter integer PC_W        = 16,  // pc width in bits: 4..32
    // derived widths (port sizes), checked below: never override them
    parameter integer WID_W       = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,
    parameter integer DEPTH_W     = (STACK_DEPTH > 1) ? $clog2(STACK_DEPTH + 1) : 2
) (
    input  wire                 clk,
    input  wire                 rst,
    // empty the stack of a warp slot (on allocation); must not name the warp of an update in progress
    // or starting in the same cycle
    input  wire                 clr,
    input  wire [WID_W-1:0]     clr_warp,
    // one warp-instruction (accepted only when idle)
    input  wire                 start,
    input  wire [WID_W-1:0]     warp,
    input  wire [1:0]           op,       // 0 NEXT, 1 SSY, 2 BRANCH, 3 EXIT
    input  wire [PC_W-1:0]      pc,       // pc of the instruction
    input  wire [PC_W-1:0]      npc,      // NEXT only: pc+1 or a BRA target (SSY/BRANCH use pc+1)
    input  wire [PC_W-1:0]      target,   // SSY / branch target
    input  wire [WARP_SIZE-1:0] mask,     // active mask of the instruction
    input  wire [WARP_SIZE-1:0] taken,    // BRANCH: lanes that take it
    input  wire [WARP_SIZE-1:0] exited,   // exited mask after this instruction (incl. invalid lanes)
    input  wire [WARP_SIZE-1:0] live,     // valid & ~exited after this instruction
    output wire                 idle,
    output reg                  done,
    output reg  [PC_W-1:0]      next_pc,
    output reg  [WARP_SIZE-1:0] next_mask,
    output reg                  warp_done,
    output reg                  divergent,
    output reg                  pushes,   // 0 or 1: an instruction pushes at most one entry
    output reg  [DEPTH_W-1:0]   pops,
    output reg                  merged,   // 0 or 1
    output reg  [DEPTH_W-1:0]   depth,    // this warp's stack depth after the instruction
    output reg                  error,
    output reg  [3:0]           err_kind,
    // top entry of the last started warp's stack (see above); kind 1 = DIV, 0 = SYNC
    output wire [PC_W-1:0]      top_after_pc,
    output wire [WARP_SIZE-1:0] top_after_mask,
    output wire                 top_after_kind,
    // quick completion (see above): valid in the start cycle when q_done
    output wire                 q_done,
    output wire [PC_W-1:0]      q_next_pc,
    output wire [WARP_SIZE-1:0] q_next_mask,
    output wire                 q_warp_done,
    output wire                 q_divergent,
    output wire                 q_pushes,
    output wire                 q_merged,
    output wire [DEPTH_W-1:0]   q_depth,
    output wire                 q_error,
    output wire [3:0]           q_err_kind,
    output wire [PC_W-1:0]      q_top_pc,
    output wire [WARP_SIZE-1:0] q_top_mask,
    output wire                 q_top_kind,
    // innermost SYNC of warp rd_warp's whole stack, read straight from the storage (issue ahead in a
    // region, simt_warp_table: DEC's instruction is released only when its pc + 1 is not this rpc)
    input  wire [WID_W-1:0]     rd_warp,
    output reg                  rd_sync,
    output wire [PC_W-1:0]      rd_rpc
);

    // ---- parameter checks (stop both simulators at time 0 with a readable message) ---------------
    generate
        `SIMT_CHECK_WARP_SIZE("simt_div_stack", WARP_SIZE)
        `SIMT_CHECK_NUM_WARPS("simt_div_stack", NUM_WARPS)
        `SIMT_CHECK_STACK_DEPTH("simt_div_stack", STACK_DEPTH)
        if (PC_W < 4 || PC_W > 32) begin : g_bad_pcw
            `SIMT_AT_ELAB $fatal(1, "simt_div_stack: illegal parameter PC_W=%0d (must be 4..32)", PC_W);
        end
        if (WID_W != ((NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1)) begin : g_bad_widw
            `SIMT_AT_ELAB $fatal(1, "simt_div_stack: illegal parameter WID_W=%0d (derived; do not override)", WID_W);
        end
        if (STACK_DEPTH > 1 && DEPTH_W != $clog2(STACK_DEPTH + 1)) begin : g_bad_depw
            `SIMT_AT_ELAB $fatal(1, "simt_div_stack: illegal parameter DEPTH_W=%0d (derived; do not override)", DEPTH_W);
        end
    endgenerate

    localparam [1:0] OP_NEXT = 2'd0, OP_SSY = 2'd1, OP_BRANCH = 2'd2, OP_EXIT = 2'd3;
    localparam integer ENTRIES = NUM_WARPS * STACK_DEPTH;
    localparam integer EIDX_W  = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;
    // entry index within one stack (kept >= 1 bit so an illegal STACK_DEPTH still reaches the check)
    localparam integer SIDX_W  = (STACK_DEPTH > 2) ? $clog2(STACK_DEPTH) : 1;
    localparam [DEPTH_W-1:0] FULL = STACK_DEPTH[DEPTH_W-1:0];

    // ---- storage -----------------------------------------------------------------------------------
    // Entry e of warp w lives at index w*STACK_DEPTH + e (e = 0 is the bottom). kind bit 1 = SYNC.
    reg [STACK_DEPTH-1:0] st_sync [0:NUM_WARPS-1];
    reg [PC_W-1:0]        st_pc   [0:ENTRIES-1];
    reg [WARP_SIZE-1:0]   st_mask [0:ENTRIES-1];
    reg [DEPTH_W-1:0]     st_dep  [0:NUM_WARPS-1];

    // ---- working registers of the instruction in progress ---------------------------------------
    reg                 busy;       // popping (rule 3); idle otherwise
    reg [WID_W-1:0]     r_warp;
    reg [WARP_SIZE-1:0] r_exited;

    assign idle = !busy;

    // ---- the warp being looked at: the starting one when idle, the one popping when busy ----------
    wire [WID_W-1:0]   cw   = busy ? r_warp : warp;
    wire [DEPTH_W-1:0] cdep = st_dep[cw];
    wire [EIDX_W-1:0]  base = EIDX_W'(cw) * EIDX_W'(STACK_DEPTH);
    // top entry (meaningful only when cdep > 0) and the free slot above it (when not full)
    wire [SIDX_W-1:0]     top_e    = SIDX_W'(cdep - DEPTH_W'(1));
    wire [EIDX_W-1:0]     top_idx  = base + EIDX_W'(top_e);
    wire [EIDX_W-1:0]     new_idx  = base + EIDX_W'(cdep);
    wire                  top_sync = st_sync[cw][top_e];
    wire [PC_W-1:0]       top_pc   = st_pc[top_idx];
    wire [WARP_SIZE-1:0]  top_mask = st_mask[top_idx];

    // Innermost SYNC among the entries below `bound`: the whole stack when starting, the stack
    // without its top entry while popping (the search then gives the rpc after this cycle's pop).
    wire [DEPTH_W-1:0] bound = busy ? cdep - DEPTH_W'(1) : cdep;
    reg                s_found;
    reg [SIDX_W-1:0]   s_idx;
    always @* begin
        s_found = 1'b0;
        s_idx   = {SIDX_W{1'b0}};
        for (int i = 0; i < STACK_DEPTH; i = i + 1) begin
            if (DEPTH_W'(i) < bound && st_sync[cw][i]) begin
                s_found = 1'b1;  // later (higher) entries overwrite: the topmost SYNC wins
                s_idx   = SIDX_W'(i);
            end
        end
    end
    wire [PC_W-1:0] s_rpc = st_pc[base + EIDX_W'(s_idx)];

    // The same search on a read port of its own (rd_warp), over the whole stack of that warp.
    wire [DEPTH_W-1:0] rd_dep = st_dep[rd_warp];
    reg  [SIDX_W-1:0]  rd_idx;
    always @* begin
        rd_sync = 1'b0;
        rd_idx  = {SIDX_W{1'b0}};
        for (int i = 0; i < STACK_DEPTH; i = i + 1) begin
            if (DEPTH_W'(i) < rd_dep && st_sync[rd_warp][i]) begin
                rd_sync = 1'b1;  // the topmost SYNC wins
                rd_idx  = SIDX_W'(i);
            end
        end
    end
    assign rd_rpc = st_pc[EIDX_W'(rd_warp) * EIDX_W'(STACK_DEPTH) + EIDX_W'(rd_idx)];

    // ---- start cycle: rules 1, 2 and the EXIT step of rule 4 --------------------------------------
    wire [PC_W-1:0]      pc1      = pc + PC_W'(1);
    wire [WARP_SIZE-1:0] t_set    = taken & mask;
    wire [WARP_SIZE-1:0] n_set    = mask & ~taken;
    wire                 full     = (cdep == FULL);
    // merge candidate: the top is a DIV waiting at pc+1 (a SYNC at pc+1 would be the rpc, handled first)
    wire                 top_div1 = (cdep != 0) && !top_sync && (top_pc == pc1);

    reg  [PC_W-1:0]      a_pc;      // pc and mask after the instruction, before any pop
    reg  [WARP_SIZE-1:0] a_mask;
    reg                  a_push;    // push an entry (SYNC for SSY, DIV for a branch)
    reg                  a_merge;   // OR n_set into the top DIV
    reg                  a_div;     // divergent branch
    reg                  a_wdone;   // EXIT left no live thread
    reg                  a_err;
    reg  [3:0]           a_kind;
    always @* begin
        a_pc    = pc;
        a_mask  = mask;
        a_push  = 1'b0;
        a_merge = 1'b0;
        a_div   = 1'b0;
        a_wdone = 1'b0;
        a_err   = 1'b0;
        a_kind  = 4'd0;
        case (op)
            OP_NEXT: a_pc = npc;
            OP_SSY: begin
                if (full) begin
                    a_err  = 1'b1;
                    a_kind = `SIMT_ERR_STACK_OVERFLOW;
                end else begin
                    a_push = 1'b1;
                    a_pc   = pc1;
                end
            end
            OP_BRANCH: begin
                if (target == pc1 || n_set == 0) begin
                    a_pc = target;                    // uniform: taken by all (or target is pc+1)
                end else if (t_set == 0) begin
                    a_pc = pc1;                       // uniform: taken by none
                end else begin
                    a_div = 1'b1;
                    if (!s_found) begin
                        a_err  = 1'b1;
                        a_kind = `SIMT_ERR_DIVERGENT_WITHOUT_SSY;
                    end else if (target == s_rpc) begin
                        a_pc   = pc1;                 // taken threads wait at the rpc
                        a_mask = n_set;
                    end else if (pc1 == s_rpc) begin
                        a_pc   = target;              // not-taken threads wait at the rpc
                        a_mask = t_set;
                    end else if (top_div1) begin
                        a_merge = 1'b1;               // the not-taken path joins the waiting DIV
                        a_pc    = target;
                        a_mask  = t_set;
                    end else if (full) begin
                        a_err  = 1'b1;
                        a_kind = `SIMT_ERR_STACK_OVERFLOW;
                    end else begin
                        a_push = 1'b1;                // taken path first, not-taken waits in a DIV
                        a_pc   = target;
                        a_mask = t_set;
                    end
                end
            end
            OP_EXIT: begin
                a_pc    = pc1;
                a_mask  = {WARP_SIZE{1'b0}};
                a_wdone = (live == 0);
            end
            default: ;  // all four codes are listed
        endcase
        if (a_err) begin  // an error changes nothing
            a_pc   = pc;
            a_mask = mask;
        end
    end

    // Depth after the start step and whether rule 3 pops next. An SSY's own SYNC is the innermost one.
    wire [DEPTH_W-1:0] a_dep   = a_wdone ? {DEPTH_W{1'b0}} : cdep + DEPTH_W'(a_push);
    wire               a_sync  = (op == OP_SSY) ? 1'b1 : s_found;
    wire [PC_W-1:0]    a_rpc   = (op == OP_SSY) ? target : s_rpc;
    wire               a_pop   = !a_err && (a_dep != 0) && (a_mask == 0 || (a_sync && a_pc == a_rpc));
`ifdef SIMT_FAULTS
    // Fault 2: the first pop of the run (not reset: once per simulation) that reaching the rpc with
    // threads still active would start is skipped; the warp goes on with a_pc / a_mask and the entry
    // stays on the stack. Pops that refill an empty mask are left alone (the warp would idle).
    `SIMT_FAULT_PLUSARG
    reg  f_dropped;
    reg  f_reset_seen;  // armed only after a reset has been seen and out of reset: under Verilator's
    initial begin       // random initial state rst, start and busy may read anything at the first edges
        f_dropped    = 1'b0;
        f_reset_seen = 1'b0;
    end
    wire f_drop = simt_fault == `SIMT_FAULT_DROPPED_POP && !f_dropped && a_pop && a_mask != 0
                  && f_reset_seen && !rst;
    always @(posedge clk) begin
        if (rst) f_reset_seen <= 1'b1;
        if (!busy && start && f_drop) f_dropped <= 1'b1;
    end
    wire s_pop = a_pop && !f_drop;
`else
    wire s_pop = a_pop;  // the start step is followed by pops
`endif

    // ---- quick completion: the start step's results when no pop follows -------------------------
    assign q_done      = !busy && start && !s_pop;
    assign q_next_pc   = a_pc;
    assign q_next_mask = a_mask;
    assign q_warp_done = a_wdone;
    assign q_divergent = a_div;
    assign q_pushes    = a_push;
    assign q_merged    = a_merge;
    assign q_depth     = a_err ? cdep : a_dep;
    assign q_error     = a_err;
    assign q_err_kind  = a_kind;
    // The top after the step: a pushed entry, the merged top DIV, the unchanged top, or none.
    wire q_any = q_depth != {DEPTH_W{1'b0}};
    assign q_top_pc   = !q_any ? {PC_W{1'b0}} : (!a_err && a_push) ? ((op == OP_SSY) ? target : pc1) : top_pc;
    assign q_top_mask = !q_any ? {WARP_SIZE{1'b0}} : (!a_err && a_push) ? ((op == OP_SSY) ? mask : n_set) :
                        (!a_err && a_merge) ? (top_mask | n_set) : top_mask;
    assign q_top_kind = q_any && ((!a_err && a_push) ? (op != OP_SSY) : !top_sync);

    // ---- pop cycle: rule 3 (also rule 4's pops after a partial EXIT) ------------------------------
    wire [WARP_SIZE-1:0] p_mask = top_mask & ~r_exited;
    wire [DEPTH_W-1:0]   p_dep  = cdep - DEPTH_W'(1);
    wire                 p_more = (p_dep != 0) && (p_mask == 0 || (s_found && top_pc == s_rpc));

    // ---- control and outputs ----------------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            busy      <= 1'b0;
            done      <= 1'b0;
            r_warp    <= {WID_W{1'b0}};
            r_exited  <= {WARP_SIZE{1'b0}};
            next_pc   <= {PC_W{1'b0}};
            next_mask <= {WARP_SIZE{1'b0}};
            warp_done <= 1'b0;
            divergent <= 1'b0;
            pushes    <= 1'b0;
            pops      <= {DEPTH_W{1'b0}};
            merged    <= 1'b0;
            depth     <= {DEPTH_W{1'b0}};
            error     <= 1'b0;
            err_kind  <= 4'd0;
        end else if (busy) begin
            next_pc   <= top_pc;
            next_mask <= p_mask;
            pops      <= pops + DEPTH_W'(1);
            depth     <= p_dep;
            busy      <= p_more;
            done      <= !p_more;
        end else if (start) begin
            r_warp    <= warp;
            r_exited  <= exited;
            next_pc   <= a_pc;
            next_mask <= a_mask;
            warp_done <= a_wdone;
            divergent <= a_div;
            pushes    <= a_push;
            pops      <= {DEPTH_W{1'b0}};
            merged    <= a_merge;
            depth     <= a_err ? cdep : a_dep;
            error     <= a_err;
            err_kind  <= a_kind;
            busy      <= s_pop;
            done      <= !s_pop;
        end else begin
            done      <= 1'b0;
        end
    end

    // Stack contents: a push writes SYNC(target, mask) or DIV(pc+1, not-taken) above the top; a merge
    // ORs the not-taken lanes into the top DIV's mask (its pc is already pc+1).
    always @(posedge clk) begin
        if (!busy && start && a_push) begin
            st_pc[new_idx]   <= (op == OP_SSY) ? target : pc1;
            st_mask[new_idx] <= (op == OP_SSY) ? mask : n_set;
        end
        if (!busy && start && a_merge) st_mask[top_idx] <= top_mask | n_set;
    end

    // Kind bits and depths (reset, so a fresh warp slot starts empty).
    always @(posedge clk) begin
        if (rst) begin
            for (int w = 0; w < NUM_WARPS; w = w + 1) begin
                st_sync[w] <= {STACK_DEPTH{1'b0}};
                st_dep[w]  <= {DEPTH_W{1'b0}};
            end
        end else begin
            if (busy) begin
                st_dep[cw] <= p_dep;
            end else if (start && !a_err) begin
                st_dep[cw] <= a_dep;
                if (a_push) st_sync[cw][SIDX_W'(cdep)] <= (op == OP_SSY);
            end
            if (clr) st_dep[clr_warp] <= {DEPTH_W{1'b0}};  // allocation wins over a stale update
        end
    end

    // ---- top entry after the instruction (retire port) --------------------------------------------
    // A read port of its own on r_warp, so `idle`/`start` in the cycle of `done` are unaffected.
    wire [DEPTH_W-1:0] o_dep = st_dep[r_warp];
    wire [SIDX_W-1:0]  o_e   = SIDX_W'(o_dep - DEPTH_W'(1));
    wire [EIDX_W-1:0]  o_idx = EIDX_W'(r_warp) * EIDX_W'(STACK_DEPTH) + EIDX_W'(o_e);
    wire               o_any = o_dep != {DEPTH_W{1'b0}};
    assign top_after_pc   = o_any ? st_pc[o_idx] : {PC_W{1'b0}};
    assign top_after_mask = o_any ? st_mask[o_idx] : {WARP_SIZE{1'b0}};
    assign top_after_kind = o_any && !st_sync[r_warp][o_e];

endmodule
