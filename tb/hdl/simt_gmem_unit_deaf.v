// Test-only: simt_gmem_unit with its access port cut (acc_ready held low, acc_valid never reaches the
// unit) -- "one inverted term" on acc_ready. A DUT that never answers the access handshake, for
// tb/tests/unit/test_gmem_unit.py `never_ready`: the bench's driver must end with a report naming
// acc_ready (tb/agents/handshake.py), not wait forever.
module simt_gmem_unit_deaf #(
    parameter integer WARP_SIZE = 32,
    parameter integer NUM_WARPS = 16,
    parameter integer SEG_WORDS = 8,
    parameter integer TAG_W = (NUM_WARPS > 1 ? $clog2(NUM_WARPS) : 1) + $clog2(WARP_SIZE)
) (
    input  wire                                          clk,
    input  wire                                          rst,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                                          acc_valid,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                                          acc_ready,
    input  wire [(NUM_WARPS > 1 ? $clog2(NUM_WARPS) : 1)-1:0] acc_warp,
    input  wire [WARP_SIZE-1:0]                          acc_mask,
    input  wire [WARP_SIZE*32-1:0]                       acc_addr,
    input  wire                                          acc_store,
    input  wire [WARP_SIZE*32-1:0]                       acc_wdata,
    output wire                                          mreq_valid,
    input  wire                                          mreq_ready,
    output wire [31:0]                                   mreq_addr,
    output wire                                          mreq_write,
    output wire [SEG_WORDS-1:0]                          mreq_mask,
    output wire [SEG_WORDS*32-1:0]                       mreq_wdata,
    output wire [TAG_W-1:0]                              mreq_tag,
    input  wire                                          mrsp_valid,
    output wire                                          mrsp_ready,
    input  wire [TAG_W-1:0]                              mrsp_tag,
    input  wire [SEG_WORDS*32-1:0]                       mrsp_rdata,
    output wire                                          cpl_valid,
    input  wire                                          cpl_ready,
    output wire [(NUM_WARPS > 1 ? $clog2(NUM_WARPS) : 1)-1:0] cpl_warp,
    output wire                                          cpl_store,
    output wire [$clog2(WARP_SIZE):0]                    cpl_txns,
    output wire [WARP_SIZE*32-1:0]                       cpl_rdata
);
    /* verilator lint_off UNUSEDSIGNAL */
    wire inner_ready;
    wire unused_acks_out;  // (no access ever enters, so no store is ever posted)
    /* verilator lint_on UNUSEDSIGNAL */
    assign acc_ready = 1'b0;
    simt_gmem_unit #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .SEG_WORDS(SEG_WORDS), .TAG_W(TAG_W)) u_unit (
        .clk(clk), .rst(rst),
        .acc_valid(1'b0), .acc_ready(inner_ready), .acc_warp(acc_warp), .acc_mask(acc_mask),
        .acc_addr(acc_addr), .acc_store(acc_store), .acc_wdata(acc_wdata),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .cpl_valid(cpl_valid), .cpl_ready(cpl_ready), .cpl_warp(cpl_warp), .cpl_store(cpl_store),
        .cpl_txns(cpl_txns), .cpl_rdata(cpl_rdata), .acks_out(unused_acks_out)
    );
endmodule
