`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
`include "simt_fault.vh"
// Warp table and block slots of one SM (docs/sm.md "Pipeline"): the only writer of warp state.
//
// Per warp slot: state, pc, active mask, valid and exited threads, stack depth, block slot, index in
// the block, and the debug view's last retired pc. Per block slot: resident, id, ctaid, finished warps.
// The stages report events (a grant, a global hand-off, a retire with the warp's next state) and read
// the table through one read port each (F, DEC, EX, CM, debug); every write happens here, in one
// clocked block, in the order a later event of the same cycle wins.
module simt_warp_table #(
    parameter integer WARP_SIZE  = `SIMT_DEFAULT_WARP_SIZE,  // machine parameter (checked in simt_sm)
    parameter integer NUM_WARPS  = `SIMT_DEFAULT_NUM_WARPS,  // machine parameter (checked in simt_sm)
    parameter integer NUM_BLOCKS = `SIMT_DEFAULT_NUM_BLOCKS,   // machine parameter (checked in simt_sm)
    parameter integer PCX_W      = 17,  // pc width (simt_sm)
    parameter integer DEPTH_W    = 5,   // $clog2(STACK_DEPTH + 1)
    parameter integer AHEAD      = 0,   // issue ahead: instructions a warp may have in flight past its
                                        // committed pc (0: none, the warp is BUSY until CM; 1..7)
    parameter integer IDLE_MIN   = 0,   // idle-warp rule (below): 0 off; 1..32 idle warps
    parameter integer AHEAD_SSY  = 0,   // issue ahead also in a divergence region (below): 0 off, 1 on
    parameter integer WID_W      = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,   // derived; not meant to be overridden
    parameter integer BID_W      = (NUM_BLOCKS > 1) ? $clog2(NUM_BLOCKS) : 1,   // derived; not meant to be overridden
    parameter integer WCNT_W     = $clog2(NUM_WARPS + 1),   // derived; not meant to be overridden
    parameter integer BCNT_W     = $clog2(NUM_BLOCKS + 1)    // derived; not meant to be overridden
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire [10:0]           cfg_threads,   // threads per block
    input  wire [WCNT_W-1:0]     cfg_wpb,       // warps per block
    input  wire [BCNT_W-1:0]     cfg_slots,     // block slots the launch may use
    // block dispatch: the lowest free usable slot takes the block
    input  wire                  dispatch,
    input  wire [31:0]           blk_id,
    input  wire [47:0]           blk_ctaid,
    output reg                   free_found,
    output reg  [BID_W-1:0]      free_slot,
    output wire                  any_block,     // some block slot is resident
    output reg                   blk_done,      // one-cycle pulse: the block of blk_done_id finished
    output reg  [31:0]           blk_done_id,
    // block start (initialisation finished): warps start..start+cfg_wpb-1 become READY at pc 0
    input  wire                  start,
    input  wire [BID_W-1:0]      start_slot,
    input  wire [WID_W-1:0]      start_warp,
    input  wire [NUM_BLOCKS-1:0] bar_release,   // the block's waiting warps become READY
    // F: a warp was granted (it enters the pipeline: BUSY)
    input  wire                  grant,
    input  wire [WID_W-1:0]      grant_warp,
    // DEC: the instruction of warp d_warp continues at pc + 1 without the stack; the warp is READY
    // again while it is in flight (issue ahead, docs/sm.md "Issue ahead")
    input  wire                  rel,
    // CM: a global access was handed off (MEM), or an instruction retired with the warp's next state
    input  wire                  cm_issued,
    input  wire                  cm_retire,
    input  wire [WID_W-1:0]      cm_warp,
    input  wire [PCX_W-1:0]      nx_pc,
    input  wire [WARP_SIZE-1:0]  nx_mask,
    input  wire [WARP_SIZE-1:0]  nx_exited,
    input  wire [DEPTH_W-1:0]    nx_depth,
    input  wire                  nx_done,       // the warp finished
    input  wire                  nx_bar,        // the warp arrived at a barrier
    // status
    output wire [NUM_WARPS-1:0]  ready,         // READY warps the scheduler may grant (idle-warp rule)
    output reg  [5:0]            n_bar_waiting, // warps waiting at a barrier
    // read port F (fetch)
    input  wire [WID_W-1:0]      f_warp,
    output wire [PCX_W-1:0]      f_pc,
    // read port DEC; d_pc and x_pc are the warp's committed pc (with issue ahead DEC's and EX's
    // instructions may be younger: simt_issue and simt_execute carry their own pc)
    input  wire [WID_W-1:0]      d_warp,
    output wire [PCX_W-1:0]      d_pc,
    output wire                  d_can_rel,     // d_warp may have one more ahead and its stack is empty
                                                // (AHEAD_SSY = 1: or DEC's pc + 1 is not its rpc)
    input  wire [PCX_W-1:0]      d_npc,         // DEC's instruction's pc + 1
    input  wire                  d_sync,        // d_warp's stack has a SYNC (simt_div_stack read port)
    input  wire [PCX_W-1:0]      d_rpc,         // the innermost SYNC's rpc
    input  wire                  d_keep,        // DEC's instruction is a shared store: never released
                                                // in a region (below)
    // read port EX
    input  wire [WID_W-1:0]      x_warp,
    output wire [PCX_W-1:0]      x_pc,
    output wire [WARP_SIZE-1:0]  x_mask,
    output wire [BID_W-1:0]      x_slot,
    output wire [4:0]            x_wib,
    output wire [31:0]           x_block,
    output wire [47:0]           x_ctaid,
    // read port CM (cm_warp)
    output wire [PCX_W-1:0]      c_pc,
    output wire [WARP_SIZE-1:0]  c_mask,
    output wire [WARP_SIZE-1:0]  c_valid,
    output wire [WARP_SIZE-1:0]  c_exited,
    output wire [DEPTH_W-1:0]    c_depth,
    output wire [BID_W-1:0]      c_slot,
    output wire [4:0]            c_wib,
    output wire [31:0]           c_block,
    // read port of the debug view
    input  wire [WID_W-1:0]      g_warp,
    output wire [2:0]            g_state,
    output wire [31:0]           g_block,
    output wire [4:0]            g_wib,
    output wire [PCX_W-1:0]      g_pc,
    output wire                  g_retired,     // retired an instruction since its block started
    output wire [PCX_W-1:0]      g_last_pc      // pc of that instruction
);
    // Warp indices mix integer loop variables with narrow fields on purpose (see simt_sm.v).
    /* verilator lint_off WIDTHEXPAND */
    /* verilator lint_off WIDTHTRUNC */
    localparam [2:0] WS_EMPTY = 3'd0, WS_READY = 3'd1, WS_BUSY = 3'd2, WS_MEM = 3'd3, WS_BAR = 3'd4,
                     WS_DONE = 3'd5;
    reg [2:0]           w_state  [0:NUM_WARPS-1];
    reg [PCX_W-1:0]     w_pc     [0:NUM_WARPS-1];
    reg [WARP_SIZE-1:0] w_mask   [0:NUM_WARPS-1];
    reg [WARP_SIZE-1:0] w_valid  [0:NUM_WARPS-1];
    reg [WARP_SIZE-1:0] w_exited [0:NUM_WARPS-1];
    reg [DEPTH_W-1:0]   w_depth  [0:NUM_WARPS-1];
    reg [BID_W-1:0]     w_slot   [0:NUM_WARPS-1];  // block slot of the warp
    reg [4:0]           w_wib    [0:NUM_WARPS-1];  // warp index within its block
    reg [PCX_W-1:0]     w_last   [0:NUM_WARPS-1];  // last retired pc (debug view)
    // Not reset: a slot is read only while resident, and its block's start clears its flag.
    reg [NUM_WARPS-1:0] w_rtd;
    // Issue ahead: instructions of the warp released from DEC and not yet retired. They are all older
    // than anything else of the warp in flight and continue at pc + 1, so the warp's next fetch is at
    // w_pc + w_ahead, and a retire while w_ahead != 0 is theirs (it moves the pc, not the state).
    reg [2:0]           w_ahead  [0:NUM_WARPS-1];  // reset only: 0 at a block's start (proved, formal/)

    reg                 b_valid  [0:NUM_BLOCKS-1];
    reg [31:0]          b_id     [0:NUM_BLOCKS-1];
    reg [47:0]          b_ctaid  [0:NUM_BLOCKS-1];
    reg [WCNT_W-1:0]    b_ndone  [0:NUM_BLOCKS-1];  // warps of the block that finished

    // Valid-thread mask of warp k of a block of cfg_threads threads.
    function automatic [WARP_SIZE-1:0] valid_of(input integer wk);
        integer n;
        begin
            n = cfg_threads - wk * WARP_SIZE;
            if (n >= WARP_SIZE) valid_of = {WARP_SIZE{1'b1}};
            else if (n <= 0) valid_of = {WARP_SIZE{1'b0}};
            else valid_of = ({WARP_SIZE{1'b1}} >> (WARP_SIZE - n));
        end
    endfunction

    // ---- the one writer of the table ---------------------------------------------------------------
    wire [BID_W-1:0] cm_slot = w_slot[cm_warp];
    wire             cm_ahead = w_ahead[cm_warp] != 3'd0;  // CM's instruction was released from DEC
    integer i;
    always @(posedge clk) begin
        blk_done <= 1'b0;
        if (rst) begin
            for (i = 0; i < NUM_WARPS; i = i + 1) begin
                w_state[i] <= WS_EMPTY;
                w_depth[i] <= {DEPTH_W{1'b0}};
                w_ahead[i] <= 3'd0;
            end
            for (i = 0; i < NUM_BLOCKS; i = i + 1) begin
                b_valid[i] <= 1'b0;
                b_ndone[i] <= {WCNT_W{1'b0}};
            end
        end else begin
            if (dispatch) begin
                b_valid[free_slot] <= 1'b1;
                b_id[free_slot]    <= blk_id;
                b_ctaid[free_slot] <= blk_ctaid;
                b_ndone[free_slot] <= {WCNT_W{1'b0}};
            end
            if (start) begin
                for (i = 0; i < NUM_WARPS; i = i + 1)
                    if (i >= start_warp && i < start_warp + cfg_wpb) begin
                        w_state[i]  <= WS_READY;
                        w_pc[i]     <= {PCX_W{1'b0}};
                        w_valid[i]  <= valid_of(i - start_warp);
                        w_mask[i]   <= valid_of(i - start_warp);
                        w_exited[i] <= ~valid_of(i - start_warp);
                        w_depth[i]  <= {DEPTH_W{1'b0}};
                        w_slot[i]   <= start_slot;
                        w_wib[i]    <= i - start_warp;
                    end
            end
            for (i = 0; i < NUM_WARPS; i = i + 1)
                if (w_state[i] == WS_BAR && bar_release[w_slot[i]]) w_state[i] <= WS_READY;
            if (grant) w_state[grant_warp] <= WS_BUSY;
            if (rel) w_state[d_warp] <= WS_READY;
            // A retire of a released instruction (cm_ahead) and a release may meet on one warp.
            for (i = 0; i < NUM_WARPS; i = i + 1)
                w_ahead[i] <= w_ahead[i] + {2'd0, rel && d_warp == i}
                                         - {2'd0, cm_retire && cm_ahead && cm_warp == i};
            if (cm_issued) w_state[cm_warp] <= WS_MEM;
            if (cm_retire) begin
                w_pc[cm_warp]     <= nx_pc;
                w_mask[cm_warp]   <= nx_mask;
                w_exited[cm_warp] <= nx_exited;
                w_depth[cm_warp]  <= nx_depth;
                if (cm_ahead) begin
                    // a released instruction: the warp's state belongs to its younger ones
                end else if (nx_done) begin
                    w_state[cm_warp] <= WS_DONE;
                    if (b_ndone[cm_slot] + 1'b1 == cfg_wpb) begin
                        // The block finished: report it and free its slot and warps.
                        blk_done    <= 1'b1;
                        blk_done_id <= b_id[cm_slot];
                        b_valid[cm_slot] <= 1'b0;
                        for (i = 0; i < NUM_WARPS; i = i + 1)
                            if (w_slot[i] == cm_slot && w_state[i] != WS_EMPTY) w_state[i] <= WS_EMPTY;
                    end else begin
                        b_ndone[cm_slot] <= b_ndone[cm_slot] + 1'b1;
                    end
                end else if (nx_bar) begin
                    w_state[cm_warp] <= WS_BAR;
                end else begin
                    w_state[cm_warp] <= WS_READY;
                end
            end
        end
    end

    // The debug view's record of the last retired instruction (not reset, see w_rtd).
    always @(posedge clk) begin
        for (i = 0; i < NUM_WARPS; i = i + 1)
            if (start && i >= start_warp && i < start_warp + cfg_wpb) w_rtd[i] <= 1'b0;
        if (cm_retire) begin
            w_rtd[cm_warp]  <= 1'b1;
            w_last[cm_warp] <= c_pc;
        end
    end

    // ---- status ------------------------------------------------------------------------------------
    // Idle-warp rule (docs/sm.md "Issue ahead"): while IDLE_MIN or more READY warps have nothing in
    // flight (idle: w_ahead = 0; a READY warp is not BUSY, so nothing else of it is in the pipeline), a
    // READY warp with released instructions in flight (ahead) is not offered to the scheduler. Issuing
    // ahead fills the pipeline when few warps are ready; when enough others are ready it only reorders
    // the warps, and a warp running ahead of the others delays them (their global loads start later and
    // their latency is hidden less) for no gain, so the idle ones go first. simt_sm's default IDLE_MIN
    // = 1 (one idle warp ready holds back every warp running ahead); 0: no rule (every READY warp is
    // offered, the second round of issue 32).
    // Test-only fault 23 (SIMT_FAULTS builds): the rule is off.
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    wire f_no_idle = simt_fault == `SIMT_FAULT_NO_IDLE_FIRST;
`else
    wire f_no_idle = 1'b0;
`endif
    wire [NUM_WARPS-1:0] rdy_all, w_idle, w_run;  // READY; READY with nothing in flight; instructions ahead
    genvar gw;
    generate
        for (gw = 0; gw < NUM_WARPS; gw = gw + 1) begin : rdy
            assign rdy_all[gw] = w_state[gw] == WS_READY;
            assign w_idle[gw]  = rdy_all[gw] && w_ahead[gw] == 3'd0;
            assign w_run[gw]   = w_ahead[gw] != 3'd0;
        end
    endgenerate
    reg [WCNT_W-1:0] n_idle;  // READY warps with nothing in flight
    integer q;
    always @(*) begin
        n_idle = {WCNT_W{1'b0}};
        for (q = 0; q < NUM_WARPS; q = q + 1) n_idle = n_idle + {{(WCNT_W-1){1'b0}}, w_idle[q]};
    end
    wire idle_first = IDLE_MIN > 0 && n_idle >= IDLE_MIN && !f_no_idle;
    assign ready = rdy_all & ~(w_run & {NUM_WARPS{idle_first}});
    integer k;
    always @(*) begin
        n_bar_waiting = 6'd0;
        for (k = 0; k < NUM_WARPS; k = k + 1)
            n_bar_waiting = n_bar_waiting + {5'd0, w_state[k] == WS_BAR};
    end
    reg b_valid_any;
    always @(*) begin
        b_valid_any = 1'b0;
        for (k = 0; k < NUM_BLOCKS; k = k + 1) b_valid_any = b_valid_any | b_valid[k];
    end
    assign any_block = b_valid_any;
    always @(*) begin
        free_found = 1'b0;
        free_slot  = {BID_W{1'b0}};
        for (k = NUM_BLOCKS - 1; k >= 0; k = k - 1)
            if (!b_valid[k] && k < cfg_slots) begin
                free_found = 1'b1;
                free_slot  = k[BID_W-1:0];
            end
    end

    // ---- read ports --------------------------------------------------------------------------------
    assign f_pc     = w_pc[f_warp] + {{(PCX_W-3){1'b0}}, w_ahead[f_warp]};
    assign d_pc     = w_pc[d_warp];
    // Issue ahead in a region (AHEAD_SSY = 1, docs/sm.md "Issue ahead"): with a non-empty stack an
    // instruction after which the warp continues at pc + 1 changes the stack only when pc + 1 is the
    // innermost SYNC's rpc (docs/isa.md 4.2 rule 3: the pop). Anything older of the warp still in flight
    // was released too and pops nothing, and a warp's SSY or branch keeps it BUSY until CM has written
    // the stack, so the stack DEC reads is the one CM will step. A shared store in a region is not
    // released: the store after it (bitonic's swap pairs) would wait in DEC for its retire (simt_scoreboard)
    // and block DEC for the other warps (bitonic at 32 lanes 2,684 cycles against 2,674 without the
    // feature; 2,672 with this exception). Test-only fault 28 (SIMT_FAULTS builds): the rpc compare is
    // left out (an instruction that reaches the rpc is released too).
`ifdef SIMT_FAULTS
    wire f_rpc_blind = simt_fault == `SIMT_FAULT_AHEAD_AT_RPC;
`else
    wire f_rpc_blind = 1'b0;
`endif
    wire d_pops = d_sync && d_npc == d_rpc && !f_rpc_blind;
    assign d_can_rel = AHEAD > 0 && w_ahead[d_warp] < AHEAD &&
                       (w_depth[d_warp] == {DEPTH_W{1'b0}} || (AHEAD_SSY > 0 && !d_pops && !d_keep));
    assign x_pc     = w_pc[x_warp];
    assign x_mask   = w_mask[x_warp];
    assign x_slot   = w_slot[x_warp];
    assign x_wib    = w_wib[x_warp];
    assign x_block  = b_id[x_slot];
    assign x_ctaid  = b_ctaid[x_slot];
    assign c_pc     = w_pc[cm_warp];
    assign c_mask   = w_mask[cm_warp];
    assign c_valid  = w_valid[cm_warp];
    assign c_exited = w_exited[cm_warp];
    assign c_depth  = w_depth[cm_warp];
    assign c_slot   = cm_slot;
    assign c_wib    = w_wib[cm_warp];
    assign c_block  = b_id[cm_slot];
    assign g_state   = w_state[g_warp];
    assign g_block   = b_id[w_slot[g_warp]];
    assign g_wib     = w_wib[g_warp];
    assign g_pc      = w_pc[g_warp];
    assign g_retired = w_rtd[g_warp];
    assign g_last_pc = w_last[g_warp];
endmodule
