`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
// Block initialisation of one SM (docs/sm.md "Block dispatch"): one block at a time, clear its
// register rows and shared lines, write its threads' tid.x/y/z, empty its warps' stacks and set up its
// barrier, then start its warps (the warp table makes them READY).
//
// Register rows are cleared in the cycles the pipeline does not write (clr_rf_go), shared lines when
// the LSU takes them (sh_clr_go); the stacks take one warp per cycle and the tid table TIDS threads
// per cycle (thread t+1's {z, y, x} is thread t's incremented with carries, a chain of TIDS
// incrementers: no divider). With TIDS = 4 the tids of a block take no longer than its register
// clears whenever regs * ROWS >= WARP_SIZE / 4 (8 registers at 32 lanes), so they leave the block
// start's critical path (one thread per cycle, they were the longest part at 16 and 32 lanes).
module simt_block_init #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE,    // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES,     // machine parameter (checked in simt_sm)
    parameter integer NUM_BANKS = `SIMT_DEFAULT_NUM_BANKS,     // machine parameter (checked in simt_sm)
    parameter integer RF_AW     = 10,    // register row address width
    parameter integer SH_AW     = 11,    // shared word address width
    parameter integer SHL_W     = 8,     // shared line index width
    parameter integer WID_W     = 4,     // warp slot index width
    parameter integer BID_W     = 2,     // block slot index width
    parameter integer WCNT_W    = 5,     // $clog2(NUM_WARPS + 1)
    parameter integer TIDS      = 4      // thread ids written per cycle, 1..8 (checked below)
) (
    input  wire               clk,
    input  wire               rst,
    input  wire [31:0]        cfg_block,      // {y, x} of the block's {z, y, x}
    input  wire [10:0]        cfg_threads,
    input  wire [5:0]         cfg_regs,
    input  wire [WCNT_W-1:0]  cfg_wpb,
    input  wire [SH_AW:0]     cfg_sh_stride,
    // dispatch: a block arrives while a slot is free
    input  wire               blk_valid,
    output wire               blk_ready,
    input  wire               free_found,
    input  wire [BID_W-1:0]   free_slot,
    output reg                busy,
    // the block's warps start (one cycle), in slot `slot`, first warp slot `first_warp`
    output wire               start,
    output reg  [BID_W-1:0]   slot,
    output wire [WID_W-1:0]   first_warp,
    // clears
    output wire               clr_rf_req,
    output wire [RF_AW-1:0]   clr_rf_addr,
    input  wire               clr_rf_go,      // the register row is written this cycle
    output wire               clr_sh_req,
    output wire [SHL_W-1:0]   clr_sh_line,
    input  wire               sh_clr_go,      // the shared line is cleared this cycle
    output wire               clr_ds_req,
    output wire [WID_W-1:0]   clr_ds_warp,
    output wire               bar_init,
    // thread-id table write
    output wire [TIDS-1:0]    tid_we,         // thread k of this cycle's group is written
    output wire [31:0]        tid_waddr,      // thread slot of thread 0 of the group (thread k: + k)
    output wire [TIDS*48-1:0] tid_wdata       // thread k's {tid.z, tid.y, tid.x} at [k*48 +: 48]
);
    // Row and line arithmetic truncates to the address width on purpose (see simt_sm.v).
    /* verilator lint_off WIDTHEXPAND */
    /* verilator lint_off WIDTHTRUNC */
    localparam integer ROWS = WARP_SIZE / NUM_LANES;
    generate
        if (TIDS < 1 || TIDS > 8) begin : g_bad_tids
            `SIMT_AT_ELAB $fatal(1, "simt_block_init: illegal parameter TIDS=%0d (legal: 1..8 thread ids per cycle)", TIDS);
        end
    endgenerate
    reg [RF_AW:0]    rf_cnt, rf_end;
    reg [SHL_W:0]    sh_cnt, sh_end;
    reg [11:0]       th_cnt;          // threads written so far (steps of TIDS; may pass cfg_threads)
    reg [15:0]       x, y, z;         // thread th_cnt's tid
    reg [WCNT_W-1:0] ds_cnt;
    reg              bar_done;

    assign blk_ready   = !busy && free_found && !rst;
    assign clr_rf_req  = busy && rf_cnt != rf_end;
    assign clr_rf_addr = rf_cnt[RF_AW-1:0];
    assign clr_sh_req  = busy && sh_cnt != sh_end;
    assign clr_sh_line = sh_cnt[SHL_W-1:0];
    assign clr_ds_req  = busy && ds_cnt != cfg_wpb;
    assign clr_ds_warp = slot * cfg_wpb + ds_cnt;
    assign bar_init    = busy && !bar_done;
    wire   th_left     = th_cnt < {1'b0, cfg_threads};
    assign start       = busy && !clr_rf_req && !clr_sh_req && !clr_ds_req && bar_done && !th_left;
    assign first_warp  = slot * cfg_wpb;
    assign tid_waddr   = first_warp * WARP_SIZE + th_cnt;

    // The group's tids: thread k+1's is thread k's plus one, carried into y and z at the block's edges.
    reg [15:0] gx [0:TIDS];
    reg [15:0] gy [0:TIDS];
    reg [15:0] gz [0:TIDS];
    integer k;
    always @(*) begin
        gx[0] = x;
        gy[0] = y;
        gz[0] = z;
        for (k = 0; k < TIDS; k = k + 1) begin
            gx[k+1] = gx[k] + 1'b1;
            gy[k+1] = gy[k];
            gz[k+1] = gz[k];
            if (gx[k] + 1'b1 == cfg_block[15:0]) begin
                gx[k+1] = 16'd0;
                if (gy[k] + 1'b1 == cfg_block[31:16]) begin
                    gy[k+1] = 16'd0;
                    gz[k+1] = gz[k] + 1'b1;
                end else begin
                    gy[k+1] = gy[k] + 1'b1;
                end
            end
        end
    end
    genvar gk;
    generate
        for (gk = 0; gk < TIDS; gk = gk + 1) begin : g_tid
            assign tid_we[gk] = !rst && busy && th_cnt + gk < {1'b0, cfg_threads};
            assign tid_wdata[gk*48 +: 48] = {gz[gk], gy[gk], gx[gk]};
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
        end else if (blk_valid && blk_ready) begin
            busy     <= 1'b1;
            slot     <= free_slot;
            rf_cnt   <= free_slot * cfg_wpb * cfg_regs * ROWS;
            rf_end   <= (free_slot + 1'b1) * cfg_wpb * cfg_regs * ROWS;
            sh_cnt   <= (free_slot * cfg_sh_stride) / NUM_BANKS;
            sh_end   <= ((free_slot + 1'b1) * cfg_sh_stride) / NUM_BANKS;
            th_cnt   <= 12'd0;
            x        <= 16'd0;
            y        <= 16'd0;
            z        <= 16'd0;
            ds_cnt   <= {WCNT_W{1'b0}};
            bar_done <= 1'b0;
        end else if (busy) begin
            if (clr_rf_go) rf_cnt <= rf_cnt + 1'b1;
            if (sh_clr_go) sh_cnt <= sh_cnt + 1'b1;
            if (clr_ds_req) ds_cnt <= ds_cnt + 1'b1;
            bar_done <= 1'b1;
            if (th_left) begin
                th_cnt <= th_cnt + TIDS;
                x      <= gx[TIDS];
                y      <= gy[TIDS];
                z      <= gz[TIDS];
            end
            if (start) busy <= 1'b0;
        end
    end
endmodule
