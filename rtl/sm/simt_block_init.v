`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
// Block initialisation of one SM (docs/sm.md "Block dispatch"): one block at a time, clear its
// register rows and shared lines, write its threads' tid.x/y/z, empty its warps' stacks and set up its
// barrier, then start its warps (the warp table makes them READY).
//
// Register rows are cleared in the cycles the pipeline does not write (clr_rf_go), shared lines when
// the LSU takes them (sh_clr_go); the stacks take one warp per cycle and the tid table one thread.
module simt_block_init #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE,    // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES,     // machine parameter (checked in simt_sm)
    parameter integer NUM_BANKS = `SIMT_DEFAULT_NUM_BANKS,     // machine parameter (checked in simt_sm)
    parameter integer RF_AW     = 10,    // register row address width
    parameter integer SH_AW     = 11,    // shared word address width
    parameter integer SHL_W     = 8,     // shared line index width
    parameter integer WID_W     = 4,     // warp slot index width
    parameter integer BID_W     = 2,     // block slot index width
    parameter integer WCNT_W    = 5      // $clog2(NUM_WARPS + 1)
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
    output wire               tid_we,
    output wire [31:0]        tid_waddr,      // thread slot (out-of-range writes are dropped)
    output wire [47:0]        tid_wdata       // {tid.z, tid.y, tid.x}
);
    // Row and line arithmetic truncates to the address width on purpose (see simt_sm.v).
    /* verilator lint_off WIDTHEXPAND */
    /* verilator lint_off WIDTHTRUNC */
    localparam integer ROWS = WARP_SIZE / NUM_LANES;
    reg [RF_AW:0]    rf_cnt, rf_end;
    reg [SHL_W:0]    sh_cnt, sh_end;
    reg [10:0]       th_cnt;
    reg [15:0]       x, y, z;
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
    assign start       = busy && !clr_rf_req && !clr_sh_req && !clr_ds_req && bar_done && th_cnt == cfg_threads;
    assign first_warp  = slot * cfg_wpb;
    assign tid_we      = !rst && busy && th_cnt != cfg_threads;
    assign tid_waddr   = first_warp * WARP_SIZE + th_cnt;
    assign tid_wdata   = {z, y, x};

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
            th_cnt   <= 11'd0;
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
            if (th_cnt != cfg_threads) begin
                th_cnt <= th_cnt + 1'b1;
                if (x + 1'b1 == cfg_block[15:0]) begin
                    x <= 16'd0;
                    if (y + 1'b1 == cfg_block[31:16]) begin
                        y <= 16'd0;
                        z <= z + 1'b1;
                    end else begin
                        y <= y + 1'b1;
                    end
                end else begin
                    x <= x + 1'b1;
                end
            end
            if (start) busy <= 1'b0;
        end
    end
endmodule
