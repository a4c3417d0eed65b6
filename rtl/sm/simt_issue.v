`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
`include "simt_isa.vh"
`include "simt_decoded.vh"
`include "simt_fault.vh"
// Issue: stages F and DEC of the SM pipeline (docs/sm.md "Pipeline").
//
// F  the round-robin scheduler grants a READY warp, or a completed global access re-enters (first:
//    its warp has waited longest; one at a time, its load data held in mw_data until EX has written
//    them); the instruction is read from imem (the SM's registered read port: dec_instr).
// DEC decodes, applies the launch checks of docs/isa.md 7 (pc range, illegal word, register >= regs,
//    %param >= supplied) and presents one row's register read addresses per cycle: an instruction that
//    reads operands or writes a register sends ROWS tokens to EX, the others one.
// The register file's read data are registered, so the address presented now is for the token in EX
// next cycle: DEC's when EX advances, EX's own row again when it holds.
// Test-only faults 5 and 6 (SIMT_FAULTS builds, docs/sm.md "Test-only fault hooks").
module simt_issue #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE,   // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES,    // machine parameter (checked in simt_sm)
    parameter integer NUM_WARPS = `SIMT_DEFAULT_NUM_WARPS,   // machine parameter (checked in simt_sm)
    parameter integer PC_W      = 9,    // imem address width
    parameter integer PCX_W     = 17,   // pc width
    parameter integer RF_AW     = 10,   // register row address width
    parameter integer WID_W     = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,    // derived; not meant to be overridden
    parameter integer ROW_W     = (WARP_SIZE / NUM_LANES > 1) ? $clog2(WARP_SIZE / NUM_LANES) : 1
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    halt,          // an error stops every stage until reset
    input  wire                    launch_load,   // the next launch's image is being loaded (imem written)
    input  wire [5:0]              cfg_regs,
    input  wire [4:0]              cfg_nparams,
    input  wire [PC_W:0]           cfg_ninstr,
    // warp table
    input  wire [NUM_WARPS-1:0]    ready,
    output wire                    grant,         // a warp enters the pipeline (BUSY)
    output wire [WID_W-1:0]        f_warp,        // ... this one; its pc is f_pc
    input  wire [PCX_W-1:0]        f_pc,
    output reg  [PCX_W-1:0]        dec_pc,        // pc of DEC's instruction (f_pc at its grant)
    // issue ahead (docs/sm.md "Issue ahead"): DEC's instruction continues at pc + 1 without the stack,
    // so its warp may be READY again while it is in flight (rel); the scoreboard holds DEC's token
    input  wire                    d_can_rel,     // dec_warp may run ahead: no pop can follow (simt_warp_table)
    output wire                    rel,
    input  wire                    sb_hold,       // DEC's token must not enter EX (simt_scoreboard)
    output wire                    dec_sh_store,  // DEC's instruction is a shared store (for the scoreboard)
    // instruction memory: read at imem_raddr when imem_re, the word is DEC's instruction next cycle
    output wire                    imem_re,
    output wire [PC_W-1:0]         imem_raddr,
    input  wire [31:0]             dec_instr,
    // completed global accesses (simt_gmem_unit)
    input  wire                    cpl_valid,
    output wire                    cpl_take,
    input  wire [WID_W-1:0]        cpl_warp,
    input  wire [$clog2(WARP_SIZE):0] cpl_txns,
    input  wire [WARP_SIZE*32-1:0] cpl_rdata,
    // register read addresses (the register file's ports)
    output wire [RF_AW-1:0]        raddr_a,
    output wire [RF_AW-1:0]        raddr_b,
    output wire [RF_AW-1:0]        raddr_c,
    // EX: takes DEC's token when it advances; its own row's addresses when it holds
    input  wire                    ex_adv,
    input  wire [RF_AW-1:0]        ex_raddr_a,
    input  wire [RF_AW-1:0]        ex_raddr_b,
    input  wire [RF_AW-1:0]        ex_raddr_c,
    input  wire                    mw_release,    // EX wrote the completed access's last row
    output wire                    ex_take,       // DEC's token enters EX this cycle
    output reg                     dec_valid,
    output reg  [WID_W-1:0]        dec_warp,
    output reg                     dec_memwb,     // a completed global access writing its loads and retiring
    output reg  [ROW_W-1:0]        dec_row,       // row whose register read is presented this cycle
    output wire                    dec_last,      // the instruction's last token
    output reg                     dec_flt,       // a launch-check fault: EX only reports it
    output reg  [3:0]              dec_flt_kind,
    output reg  [5:0]              dec_txns,
    output reg  [WARP_SIZE*32-1:0] mw_data,       // completed global loads, until EX has written them
    output wire                    f_idle,        // neither DEC nor F holds anything this cycle
    // fault hooks only: pipeline occupancy (fault 5) and the retire port (fault 6)
    input  wire                    later_busy,    // EX or CM holds an instruction
    input  wire                    retired        // rt_valid
);
    // Row-address arithmetic truncates to the address width on purpose (see simt_sm.v).
    /* verilator lint_off WIDTHEXPAND */
    /* verilator lint_off WIDTHTRUNC */
    localparam integer ROWS = WARP_SIZE / NUM_LANES;
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif

    // ---- DEC: decode and launch checks ---------------------------------------------------------------
    wire [`SIMT_DEC_W-1:0] dd;  // DEC's instruction, decoded
    simt_decode u_dec_decode (.instr(dec_instr), .regs(cfg_regs), .dec(dd));
    // Instructions that read operands or write a register send one token per row through EX;
    // the others (SSY, BRA, BAR, EXIT), a faulting instruction and a completed store send one.
    wire dd_rows = `SIMT_DEC_CLS(dd) == `SIMT_CLS_ALU || `SIMT_DEC_IS_LDS(dd) ||
                   `SIMT_DEC_CLS(dd) == `SIMT_CLS_SHARED || `SIMT_DEC_CLS(dd) == `SIMT_CLS_CONST ||
                   `SIMT_DEC_CLS(dd) == `SIMT_CLS_GLOBAL || `SIMT_DEC_IS_BEQ(dd) || `SIMT_DEC_IS_BNE(dd);
    always @(*) begin
        dec_flt      = !dec_memwb;
        dec_flt_kind = `SIMT_ERR_PC_OUT_OF_RANGE;
        if (dec_memwb) dec_flt = 1'b0;
        else if (dec_pc >= cfg_ninstr) dec_flt_kind = `SIMT_ERR_PC_OUT_OF_RANGE;
        else if (`SIMT_DEC_ILLEGAL(dd)) dec_flt_kind = `SIMT_ERR_ILLEGAL_INSTRUCTION;
        else if (`SIMT_DEC_BAD_REG(dd)) dec_flt_kind = `SIMT_ERR_BAD_REGISTER;
        else if (`SIMT_DEC_IS_LDS(dd) && `SIMT_DEC_SREG(dd) >= `SIMT_SREG_PARAM_BASE + cfg_nparams)
            dec_flt_kind = `SIMT_ERR_BAD_PARAM;
        else dec_flt = 1'b0;
    end
    wire dec_multi = !dec_flt && (dec_memwb ? `SIMT_DEC_IS_LOAD(dd) : dd_rows);
    assign dec_last = !dec_multi || dec_row == ROWS - 1;

    // ---- DEC: register read addresses (row of register r of row k of warp slot s: s*regs*ROWS + r*ROWS + k)
    wire [RF_AW-1:0] dec_wbase = dec_warp * cfg_regs * ROWS;
    assign raddr_a = ex_adv ? dec_wbase + `SIMT_DEC_RA(dd) * ROWS + dec_row : ex_raddr_a;
    assign raddr_b = ex_adv ? dec_wbase + `SIMT_DEC_RB(dd) * ROWS + dec_row : ex_raddr_b;
    assign raddr_c = ex_adv ? dec_wbase + `SIMT_DEC_RC(dd) * ROWS + dec_row : ex_raddr_c;

    // ---- F: scheduler and fetch ------------------------------------------------------------------------
    reg              mw_busy;   // a completed access is in DEC or EX (one at a time through mw_data)
    wire             sched_valid;
    wire [WID_W-1:0] sched_grant;
    assign ex_take = dec_valid && ex_adv && !halt && !sb_hold;
    // Released in DEC's first cycle: an instruction after which the warp continues at pc + 1 and the
    // stack has nothing to do (d_can_rel: the stack is empty, or with AHEAD_SSY pc + 1 is not the rpc of
    // its innermost SYNC and it is no shared store), that cannot fault in CM, with no launch fault
    // (reported from EX). Global accesses are not: their warp waits in MEM.
    reg  dec_first;
    wire dec_seq = dec_memwb || `SIMT_DEC_CLS(dd) == `SIMT_CLS_ALU || `SIMT_DEC_CLS(dd) == `SIMT_CLS_SREG ||
                   `SIMT_DEC_CLS(dd) == `SIMT_CLS_SHARED || `SIMT_DEC_CLS(dd) == `SIMT_CLS_CONST;
    assign dec_sh_store = !dec_memwb && `SIMT_DEC_IS_STORE(dd) && `SIMT_DEC_CLS(dd) == `SIMT_CLS_SHARED;
    assign rel = dec_valid && dec_first && dec_seq && !dec_flt && d_can_rel && !halt;
    wire dec_free  = !dec_valid || (ex_take && dec_last);
`ifdef SIMT_FAULTS
    // Fault 5: issue waits for an empty pipeline (the one-instruction-at-a-time back end).
    wire f_serial  = simt_fault == `SIMT_FAULT_SERIAL_ISSUE && (dec_valid || later_busy);
    wire f_open    = !halt && dec_free && !f_serial;
`else
    wire f_open    = !halt && dec_free;
`endif
    assign cpl_take   = f_open && cpl_valid && !mw_busy;
    wire take_sched   = f_open && !cpl_take && sched_valid;
    assign grant      = cpl_take || take_sched;
    assign f_warp     = cpl_take ? cpl_warp : sched_grant;
    // The pc is range-checked in DEC; imem is indexed by its low bits only.
    assign imem_raddr = f_pc[PC_W-1:0];
    assign imem_re    = grant;
    assign f_idle     = !dec_valid && !grant;
    // The scheduler's pointer starts every launch at warp 0, as after reset: loading a launch's image
    // clears it, so a launch's cycles do not depend on the launches before it (docs/sm.md).
    wire sched_clear;
`ifdef SIMT_FAULTS
    // Fault 24: the pointer survives from the previous launch.
    assign sched_clear = launch_load && simt_fault != `SIMT_FAULT_SCHED_HISTORY;
`else
    assign sched_clear = launch_load;
`endif
    simt_warp_sched #(.NUM_WARPS(NUM_WARPS)) u_sched (
        .clk(clk), .rst(rst || sched_clear), .ready(ready), .take(take_sched), .grant_valid(sched_valid),
        .grant(sched_grant)
    );

`ifdef SIMT_FAULTS
    reg f_retired;  // fault 6: some instruction has retired since the first reset
    reg f_reset_seen;
    initial begin
        f_retired    = 1'b0;
        f_reset_seen = 1'b0;
    end
    // Counted only after a reset has been seen and while out of reset: under Verilator's random initial
    // state rt_valid (and rst itself) may read 1 at the first edges, before the bench asserts reset, and
    // must not arm the fault before anything has really retired (seed 505048349 did).
    always @(posedge clk) begin
        if (rst) f_reset_seen <= 1'b1;
        if (retired && !rst && f_reset_seen) f_retired <= 1'b1;
    end
`endif

    // ---- F -> DEC -> EX ------------------------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            dec_valid <= 1'b0;
`ifdef SIMT_FAULTS
            // Fault 6: a reset after the first retire leaves DEC's instruction in place.
            if (simt_fault == `SIMT_FAULT_STALE_TOKEN && f_retired) dec_valid <= dec_valid;
`endif
            mw_busy  <= 1'b0;
            dec_first <= 1'b0;
            dec_warp <= {WID_W{1'b0}};  // reaches the retire port through EX and CM: never X
            dec_pc   <= {PCX_W{1'b0}};  // reaches the error report through EX: never X
        end else begin
            if (cpl_take) begin
                dec_warp  <= cpl_warp;
                dec_memwb <= 1'b1;
                dec_txns  <= cpl_txns;
                mw_data   <= cpl_rdata;
                mw_busy   <= 1'b1;
            end else if (take_sched) begin
                dec_warp  <= sched_grant;
                dec_memwb <= 1'b0;
                dec_txns  <= 6'd0;
            end
            dec_first <= grant;
            if (grant) begin
                dec_valid <= 1'b1;
                dec_row   <= {ROW_W{1'b0}};
                dec_pc    <= f_pc;
            end else if (ex_take) begin
                if (dec_last) dec_valid <= 1'b0;
                else dec_row <= dec_row + 1'b1;
            end
            if (mw_release) mw_busy <= 1'b0;
        end
    end

    // Decoder fields DEC does not need (every operand port is read anyway); Verilator's default
    // unused-regexp exempts names containing "unused".
    wire unused_ok = &{1'b0, dd, f_pc[PCX_W-1:PC_W],
`ifndef SIMT_FAULTS
                       later_busy, retired,
`endif
                       1'b0};
endmodule
