`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
`include "simt_isa.vh"
`include "simt_decoded.vh"
`include "simt_retire.vh"
// Commit: stage CM of the SM pipeline (docs/sm.md "Pipeline").
//
// The barrier-divergence check, the divergence-stack update when needed (rules 1-4 of docs/isa.md 4;
// 1 + pops cycles in simt_div_stack), then the warp's next state to the warp table, the block's
// barrier arrival or finish, the performance counters and the retire port -- or, for a global access,
// the hand-off to simt_gmem_unit (the warp then waits in state MEM). Errors of EX (launch and address
// checks) and of CM (barrier, stack) are raised here; the first one stops every stage until reset.
module simt_commit #(
    parameter integer WARP_SIZE   = `SIMT_DEFAULT_WARP_SIZE,   // machine parameter (checked in simt_sm)
    parameter integer NUM_WARPS   = `SIMT_DEFAULT_NUM_WARPS,   // machine parameter (checked in simt_sm)
    parameter integer NUM_BLOCKS  = `SIMT_DEFAULT_NUM_BLOCKS,    // machine parameter (checked in simt_sm)
    parameter integer STACK_DEPTH = `SIMT_DEFAULT_STACK_DEPTH,   // machine parameter (checked in simt_sm)
    parameter integer PCX_W       = 17,   // pc width
    parameter integer DEPTH_W     = $clog2(STACK_DEPTH + 1),    // derived; not meant to be overridden
    parameter integer WID_W       = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,    // derived; not meant to be overridden
    parameter integer BID_W       = (NUM_BLOCKS > 1) ? $clog2(NUM_BLOCKS) : 1     // derived; not meant to be overridden
) (
    input  wire                        clk,
    input  wire                        rst,
    input  wire [5:0]                  cfg_regs,
    // EX's instruction (simt_execute), taken when ex_to_cm
    input  wire                        ex_to_cm,
    input  wire [WID_W-1:0]            ex_warp,
    input  wire                        ex_memwb,
    input  wire [31:0]                 ex_instr,
    input  wire [5:0]                  ex_txns,
    input  wire [6:0]                  ex_passes,
    input  wire [WARP_SIZE*32-1:0]     vals,
    input  wire [WARP_SIZE-1:0]        taken,
    output wire                        cm_ok,        // CM is empty or completes without an error
    output reg                         cm_valid,
    // EX's error report, and the faulting warp's table entry
    input  wire                        ex_raise,
    input  wire [3:0]                  ex_err_kind,
    input  wire [5:0]                  ex_err_lane,
    input  wire [PCX_W-1:0]            x_pc,
    input  wire [4:0]                  x_wib,
    input  wire [31:0]                 x_block,
    // warp table: the entry of the warp in CM, and what it becomes
    output reg  [WID_W-1:0]            cm_warp,
    input  wire [PCX_W-1:0]            c_pc,
    input  wire [WARP_SIZE-1:0]        c_mask,
    input  wire [WARP_SIZE-1:0]        c_valid,
    input  wire [WARP_SIZE-1:0]        c_exited,
    input  wire [DEPTH_W-1:0]          c_depth,
    input  wire [BID_W-1:0]            c_slot,
    input  wire [4:0]                  c_wib,
    input  wire [31:0]                 c_block,
    output wire                        cm_issued,    // a global access was handed off
    output wire                        cm_retire,    // the instruction retires this cycle
    output wire [PCX_W-1:0]            nx_pc,
    output wire [WARP_SIZE-1:0]        nx_mask,
    output wire [WARP_SIZE-1:0]        nx_exited,
    output wire [DEPTH_W-1:0]          nx_depth,
    output wire                        nx_done,
    output wire                        nx_bar,
    // global hand-off (simt_gmem_unit)
    output wire                        acc_valid,
    input  wire                        acc_ready,
    output wire                        acc_store,
    // block initialisation empties the stacks of the block's warps
    input  wire                        clr_ds_req,
    input  wire [WID_W-1:0]            clr_ds_warp,
    // DEC's warp: the innermost SYNC of its stack (issue ahead in a region, simt_warp_table)
    input  wire [WID_W-1:0]            d_warp,
    output wire                        d_sync,
    output wire [PCX_W-1:0]            d_rpc,
    // barriers (simt_barrier): arrivals and finishes, registered
    output reg                         bar_arrive,
    output reg                         bar_exit,
    output reg  [BID_W-1:0]            bar_slot,
    input  wire [NUM_BLOCKS-1:0]       bar_release,
    input  wire [5:0]                  bar_waiting,
    // performance counters
    input  wire                        perf_clear,
    input  wire                        perf_run,
    input  wire                        front_idle,   // F, DEC and EX hold nothing this cycle
    input  wire [4:0]                  perf_sel,
    output wire [63:0]                 perf_value,
    // retire port: one record per retired warp-instruction (fields: spec/retire_record.py)
    output reg                         rt_valid,
    output reg  [`SIMT_RT_W-1:0]       rt_rec,
    // error status (sticky until reset)
    output reg                         err_valid,
    output reg  [3:0]                  err_kind,
    output reg  [31:0]                 err_block,
    output reg  [4:0]                  err_warp,
    output reg  [PCX_W-1:0]            err_pc,
    output reg  [5:0]                  err_lane
);
    wire halt = err_valid;  // an error stops every stage until reset
    reg         cm_first;   // first cycle in CM (the stack update starts)
    reg         cm_memwb;
    reg  [31:0] cm_instr;
    reg  [5:0]  cm_txns;
    reg  [6:0]  cm_passes;
    wire [`SIMT_DEC_W-1:0] cd;  // CM's instruction, decoded
    simt_decode u_cm_decode (.instr(cm_instr), .regs(cfg_regs), .dec(cd));

    // ---- global hand-off ---------------------------------------------------------------------------
    wire cm_global = cm_valid && !cm_memwb && `SIMT_DEC_CLS(cd) == `SIMT_CLS_GLOBAL;
    assign acc_valid = cm_global && !halt;
    assign acc_store = `SIMT_DEC_IS_STORE(cd);

    // ---- divergence stacks ---------------------------------------------------------------------------
    wire                 ds_idle, ds_done, ds_warp_done, ds_divergent, ds_pushes, ds_merged, ds_error;
    wire [PCX_W-1:0]     ds_next_pc, ds_top_pc;
    wire [WARP_SIZE-1:0] ds_next_mask, ds_top_mask;
    wire                 ds_top_kind;
    wire [DEPTH_W-1:0]   ds_pops, ds_depth;
    wire                 q_done, q_warp_done, q_divergent, q_pushes, q_merged, q_error, q_top_kind;
    wire [PCX_W-1:0]     q_next_pc, q_top_pc;
    wire [WARP_SIZE-1:0] q_next_mask, q_top_mask;
    wire [DEPTH_W-1:0]   q_depth;
    wire [3:0]           q_err_kind;
    wire [3:0]           ds_err_kind;
    reg  [1:0]           ds_op;
    wire                 cm_branch = !cm_memwb && (`SIMT_DEC_IS_BEQ(cd) || `SIMT_DEC_IS_BNE(cd));
    wire                 cm_exit   = !cm_memwb && `SIMT_DEC_IS_EXIT(cd);
    assign               nx_exited = c_exited | (cm_exit ? c_mask : {WARP_SIZE{1'b0}});
    wire [WARP_SIZE-1:0] live_after = c_valid & ~nx_exited;
    wire [PCX_W-1:0]     seq_pc     = (!cm_memwb && `SIMT_DEC_IS_BRA(cd)) ? {1'b0, `SIMT_DEC_TARGET(cd)}
                                                                        : c_pc + 1'b1;
    always @(*) begin
        if (cm_memwb) ds_op = 2'd0;
        else if (`SIMT_DEC_IS_SSY(cd)) ds_op = 2'd1;
        else if (cm_branch) ds_op = 2'd2;
        else if (cm_exit) ds_op = 2'd3;
        else ds_op = 2'd0;
    end
    // A plain instruction of a warp with an empty stack needs no stack update: pc <- seq_pc.
    wire cm_ds     = ds_op != 2'd0 || c_depth != {DEPTH_W{1'b0}};
    wire cm_bar    = !cm_memwb && `SIMT_DEC_IS_BAR(cd);
    wire bar_bad   = cm_bar && c_mask != (c_valid & ~c_exited);
    wire cm_plain  = cm_valid && !cm_global && !halt;             // an instruction that retires
    wire ds_start  = cm_plain && cm_first && !bar_bad && cm_ds;
    wire ds_finish = cm_plain && !cm_first && ds_done;
    simt_div_stack #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .STACK_DEPTH(STACK_DEPTH),
                     .PC_W(PCX_W)) u_stack (
        .clk(clk), .rst(rst), .clr(clr_ds_req), .clr_warp(clr_ds_warp),
        .start(ds_start), .warp(cm_warp), .op(ds_op), .pc(c_pc), .npc(seq_pc),
        .target({1'b0, `SIMT_DEC_TARGET(cd)}), .mask(c_mask), .taken(taken), .exited(nx_exited),
        .live(live_after), .idle(ds_idle), .done(ds_done), .next_pc(ds_next_pc),
        .next_mask(ds_next_mask), .warp_done(ds_warp_done), .divergent(ds_divergent),
        .pushes(ds_pushes), .pops(ds_pops), .merged(ds_merged), .depth(ds_depth), .error(ds_error),
        .err_kind(ds_err_kind), .top_after_pc(ds_top_pc), .top_after_mask(ds_top_mask),
        .top_after_kind(ds_top_kind), .q_done(q_done), .q_next_pc(q_next_pc), .q_next_mask(q_next_mask),
        .q_warp_done(q_warp_done), .q_divergent(q_divergent), .q_pushes(q_pushes), .q_merged(q_merged),
        .q_depth(q_depth), .q_error(q_error), .q_err_kind(q_err_kind), .q_top_pc(q_top_pc),
        .q_top_mask(q_top_mask), .q_top_kind(q_top_kind), .rd_warp(d_warp), .rd_sync(d_sync), .rd_rpc(d_rpc)
    );
    // The stack unit's results: in the start cycle when no pop follows (quick), else with `done`.
    wire                 ds_quick  = ds_start && q_done;
    wire                 r_error   = ds_quick ? q_error : ds_error;
    wire [3:0]           r_kind    = ds_quick ? q_err_kind : ds_err_kind;
    wire [PCX_W-1:0]     r_next_pc = ds_quick ? q_next_pc : ds_next_pc;
    wire [WARP_SIZE-1:0] r_next_mask = ds_quick ? q_next_mask : ds_next_mask;
    wire                 r_wdone   = ds_quick ? q_warp_done : ds_warp_done;
    wire                 r_div     = ds_quick ? q_divergent : ds_divergent;
    wire                 r_pushes  = ds_quick ? q_pushes : ds_pushes;
    wire [DEPTH_W-1:0]   r_pops    = ds_quick ? {DEPTH_W{1'b0}} : ds_pops;
    wire                 r_merged  = ds_quick ? q_merged : ds_merged;
    wire [DEPTH_W-1:0]   r_depth   = ds_quick ? q_depth : ds_depth;
    wire [PCX_W-1:0]     r_top_pc  = ds_quick ? q_top_pc : ds_top_pc;
    wire [WARP_SIZE-1:0] r_top_mask = ds_quick ? q_top_mask : ds_top_mask;
    wire                 r_top_kind = ds_quick ? q_top_kind : ds_top_kind;
    wire                 ds_end    = ds_quick || ds_finish;  // the stack unit's results are final

    // ---- completion --------------------------------------------------------------------------------
    // Retire in the first cycle when the stack is not involved or no pop follows its step (quick),
    // else in the cycle the stack unit answers; a global access completes when the memory unit takes it.
    assign cm_retire = (cm_plain && cm_first && !bar_bad && !cm_ds) || (ds_end && !r_error);
    wire   cm_raise  = (cm_plain && cm_first && bar_bad) || (ds_end && r_error);
    assign cm_issued = acc_valid && acc_ready;
    wire   cm_done   = cm_retire || cm_raise || cm_issued;
    // EX may act when CM is empty or completes without an error this cycle (the buffers are then
    // free and an older instruction's error is never overtaken).
    assign cm_ok     = !cm_valid || (cm_done && !cm_raise);

    // The warp's state after the instruction: from the stack unit, or sequential with the stack
    // empty (and staying empty).
    assign nx_pc    = cm_ds ? r_next_pc : seq_pc;
    assign nx_mask  = cm_ds ? r_next_mask : c_mask;
    assign nx_done  = cm_ds && r_wdone;
    assign nx_depth = cm_ds ? r_depth : c_depth;
    assign nx_bar   = cm_bar;
    wire [PCX_W-1:0]     nx_top_pc   = cm_ds ? r_top_pc : {PCX_W{1'b0}};
    wire [WARP_SIZE-1:0] nx_top_mask = cm_ds ? r_top_mask : {WARP_SIZE{1'b0}};
    wire                 nx_top_kind = cm_ds && r_top_kind;

    // ---- the stage register, errors, barrier events and the retire port ------------------------------
    task automatic raise(input [3:0] kind, input [31:0] block, input [4:0] wib, input [PCX_W-1:0] pc,
                         input [5:0] lane);
        begin
            err_valid <= 1'b1;
            err_kind  <= kind;
            err_block <= block;
            err_warp  <= wib;
            err_pc    <= pc;
            err_lane  <= lane;
        end
    endtask

    always @(posedge clk) begin
        rt_valid   <= 1'b0;
        bar_arrive <= 1'b0;
        bar_exit   <= 1'b0;
        if (rst) begin
            err_valid <= 1'b0;
            err_kind  <= 4'd0;
            cm_valid  <= 1'b0;
            // Datapath registers reach the retire port: reset them so it never shows X.
            cm_warp   <= {WID_W{1'b0}};
            cm_memwb  <= 1'b0;
            cm_txns   <= 6'd0;
            cm_passes <= 7'd0;
        end else begin
            if (ex_raise) raise(ex_err_kind, x_block, x_wib, x_pc, ex_err_lane);
            if (ex_to_cm) begin
                cm_valid  <= 1'b1;
                cm_first  <= 1'b1;
                cm_warp   <= ex_warp;
                cm_memwb  <= ex_memwb;
                cm_instr  <= ex_instr;
                cm_txns   <= ex_txns;
                cm_passes <= ex_passes;
            end else if (cm_done) begin
                cm_valid <= 1'b0;
            end else if (cm_valid && !halt) begin
                cm_first <= 1'b0;
            end
            if (cm_raise)
                raise(bar_bad && cm_first ? `SIMT_ERR_BARRIER_DIVERGENCE : r_kind, c_block, c_wib, c_pc,
                      6'h3f);
            if (cm_retire) begin
                bar_slot   <= c_slot;
                bar_exit   <= nx_done;
                bar_arrive <= cm_bar && !nx_done;
                rt_valid   <= 1'b1;
                // Arguments in the order of the record table (spec/retire_record.py), each of its width.
                rt_rec     <= `SIMT_RT_PACK(c_block, c_wib, c_pc, cm_instr, c_mask, `SIMT_DEC_WR(cd),
                                            `SIMT_DEC_RD(cd), vals, nx_pc, nx_mask,
                                            cm_ds && r_pushes, cm_ds ? r_pops : {DEPTH_W{1'b0}},
                                            cm_ds && r_merged, nx_depth, cm_passes, cm_txns, cm_bar && !nx_done,
                                            nx_done, 4'(c_slot), nx_top_pc, nx_top_mask, nx_top_kind);
            end
        end
    end

    // ---- performance counters (SIMT_PERF_*) ----------------------------------------------------------
    wire ds_counted = ds_end && !r_error;
    simt_perf #(.WARP_SIZE(WARP_SIZE), .DEPTH_W(DEPTH_W), .NUM_BLOCKS(NUM_BLOCKS)) u_perf (
        .clk(clk), .rst(rst || perf_clear), .run(perf_run),
        .idle_cycle(front_idle && !cm_valid),
        .retire(cm_retire), .cls(`SIMT_DEC_CLS(cd)), .mask(c_mask),
        .divergent(ds_counted && r_div),
        .pushes(ds_counted ? r_pushes : 1'b0),
        .pops(ds_counted ? r_pops : {DEPTH_W{1'b0}}),
        .depth(r_pushes && !r_merged ? c_depth + 1'b1 : r_depth),
        .depth_valid(ds_counted),
        .shared_access(cm_retire && `SIMT_DEC_CLS(cd) == `SIMT_CLS_SHARED), .passes(cm_passes),
        .global_access(cm_retire && `SIMT_DEC_CLS(cd) == `SIMT_CLS_GLOBAL), .txns(cm_txns),
        .bar_arrive(cm_retire && cm_bar && !nx_done), .bar_release(bar_release),
        .bar_waiting(bar_waiting),
        .sel(perf_sel), .value(perf_value)
    );

    // Decoder fields and status CM does not use; Verilator's default unused-regexp exempts "unused".
    wire unused_ok = &{1'b0, cd, ds_idle};
endmodule
