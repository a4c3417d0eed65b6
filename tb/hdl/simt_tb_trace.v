`include "simt_retire.vh"
// Test-only trace writer (docs/verification.md "Trace"): every observation the harness checks, one
// text line per event, in the order the GPU produced them, written to the file named by the plusarg
// +SIMT_TRACE=<path> (no plusarg: nothing is written, as in the raw bench). Python reads the file in
// batches: `batch` counts flushes, and the harness sleeps until it changes, so no Python runs on a
// cycle where nothing is observed. A flush happens after BATCH lines (+SIMT_TRACE_BATCH=n, default
// 4096: each flush wakes the Python side, ~0.5 ms of fixed work; +SIMT_TRACE_RETIRES=0 leaves out the R and S lines, for end-of-kernel-only checking), when the launch ends (irq rises), when a protocol error is seen, and at the edge where the
// harness toggles `sync` (it then reads everything up to that edge).
//
// Lines of one cycle, in this order (all numbers hex unless said otherwise):
//   D <cycle> <block> <sm, decimal>                           a block dispatched
//   Q <cycle> <addr> <write> <mask> <data> <tag> <held>       a request accepted (data: store data, or
//                                                             the load's data as read at acceptance)
//   P <cycle> <tag> <rdata>                                   a response taken
//   S <cycle> <sm, decimal> <clear> <warp slot> <addr>:<data> ...  one SM's shared-memory bank writes
//   R <cycle> <sm, decimal> <retire record fields>            spec/retire_record.py order
//   E <code>                                                  memory-port protocol error (simt_tb_mem)
//   Z                                                         reset rose (responses in flight dropped)
// <cycle> is the memory's cycle count since the last reset (simt_tb_mem).
module simt_tb_trace #(
    parameter integer NUM_SMS    = 2,
    parameter integer WARP_SIZE  = 32,
    parameter integer NUM_BANKS  = 8,
    parameter integer SH_AW      = 10,
    parameter integer SEG_WORDS  = 8,
    parameter integer XTAG_W     = 8,
    parameter integer DEPTH_W    = 5
) (
    input  wire                                 clk,
    input  wire                                 rst,
    input  wire                                 sync,
    input  wire                                 irq,
    output reg  [31:0]                          batch,
    // memory port and what the memory did
    input  wire                                 mreq_valid,
    input  wire                                 mreq_ready,
    input  wire [31:0]                          mreq_addr,
    input  wire                                 mreq_write,
    input  wire [SEG_WORDS-1:0]                 mreq_mask,
    input  wire [XTAG_W-1:0]                    mreq_tag,
    input  wire [SEG_WORDS*32-1:0]              req_data,
    input  wire                                 req_held,
    input  wire                                 mrsp_valid,
    input  wire                                 mrsp_ready,
    input  wire [XTAG_W-1:0]                    mrsp_tag,
    input  wire [SEG_WORDS*32-1:0]              mrsp_rdata,
    input  wire [31:0]                          cycle,
    input  wire [7:0]                           proto_err,
    // dispatch, shared writes, retires
    input  wire [NUM_SMS-1:0]                   dispatch_valid,
    input  wire [31:0]                          dispatch_block,
    input  wire [NUM_SMS*NUM_BANKS-1:0]         sh_obs_we,
    input  wire [NUM_SMS*NUM_BANKS*SH_AW-1:0]   sh_obs_addr,
    input  wire [NUM_SMS*NUM_BANKS*32-1:0]      sh_obs_data,
    input  wire [NUM_SMS-1:0]                   sh_obs_clr,
    input  wire [NUM_SMS*5-1:0]                 sh_obs_warp,
    input  wire [NUM_SMS-1:0]                   rt_valid,
    input  wire [NUM_SMS*`SIMT_RT_W-1:0]       rt_rec    // one record per SM (rtl/include/simt_retire.vh)
);
    // A testbench process, not logic: the line count and loop indices are updated in place while the
    // lines of one edge are written, so blocking assignments are what this block means.
    /* verilator lint_off BLKSEQ */
    integer fd, lines, limit, retires, s, b, d;
    reg     seen_reset, irq_q, proto_told, sync_q, rst_q;
    reg [8*1024-1:0] path;  // up to 1024 characters

    initial begin
        fd = 0;
        lines = 0;
        limit = 4096;
        batch = 32'd0;
        seen_reset = 1'b0;
        irq_q = 1'b0;
        proto_told = 1'b0;
        sync_q = 1'b0;
        rst_q = 1'b0;
        if ($value$plusargs("SIMT_TRACE=%s", path)) fd = $fopen(path, "w");
        if ($value$plusargs("SIMT_TRACE_BATCH=%d", limit)) if (limit < 1) limit = 1;
        if (!$value$plusargs("SIMT_TRACE_RETIRES=%d", retires)) retires = 1;
    end

    // Before the first reset every register holds what the simulator starts it with (X on Icarus,
    // random on Verilator): nothing is traced until then, nor while reset is high.
    always @(posedge clk) begin
        if (rst) seen_reset <= 1'b1;
        irq_q <= irq;
        sync_q <= sync;
        rst_q <= rst;
    end

    always @(posedge clk) begin
        if (fd != 0 && seen_reset && !rst) begin
            for (s = 0; s < NUM_SMS; s = s + 1)
                if (dispatch_valid[s]) begin
                    $fwrite(fd, "D %h %h %0d\n", cycle, dispatch_block, s);
                    lines = lines + 1;
                end
            if (mreq_valid && mreq_ready) begin
                $fwrite(fd, "Q %h %h %h %h %h %h %h\n", cycle, mreq_addr, mreq_write, mreq_mask, req_data,
                        mreq_tag, req_held);
                lines = lines + 1;
            end
            if (mrsp_valid && mrsp_ready) begin
                $fwrite(fd, "P %h %h %h\n", cycle, mrsp_tag, mrsp_rdata);
                lines = lines + 1;
            end
            for (s = 0; s < NUM_SMS; s = s + 1)
                if (retires != 0 && sh_obs_we[s*NUM_BANKS +: NUM_BANKS] != {NUM_BANKS{1'b0}}) begin
                    $fwrite(fd, "S %h %0d %h %h", cycle, s, sh_obs_clr[s], sh_obs_warp[s*5 +: 5]);
                    for (b = 0; b < NUM_BANKS; b = b + 1) begin
                        d = s * NUM_BANKS + b;
                        if (sh_obs_we[d])
                            $fwrite(fd, " %h:%h", sh_obs_addr[d*SH_AW +: SH_AW], sh_obs_data[d*32 +: 32]);
                    end
                    $fwrite(fd, "\n");
                    lines = lines + 1;
                end
            for (s = 0; s < NUM_SMS; s = s + 1)
                if (retires != 0 && rt_valid[s]) begin
                    $fwrite(fd, `SIMT_RT_TRACE_FMT, cycle, s, `SIMT_RT_TRACE_ARGS(rt_rec, s));
                    lines = lines + 1;
                end
            if (proto_err != 8'd0 && !proto_told) begin
                $fwrite(fd, "E %h\n", proto_err);
                proto_told = 1'b1;
                lines = limit;  // flush now: the harness stops at the first protocol error
            end
            if (lines >= limit || sync != sync_q || (irq && !irq_q)) begin
                $fflush(fd);
                lines = 0;
                batch <= batch + 32'd1;
            end
        end else if (fd != 0 && (sync != sync_q || (rst && !rst_q && seen_reset))) begin
            if (rst && !rst_q && seen_reset) $fwrite(fd, "Z\n");
            $fflush(fd);
            batch <= batch + 32'd1;
        end
    end
    /* verilator lint_on BLKSEQ */
endmodule
