`include "simt_retire.vh"
// Test-only wrapper of the GPU (docs/verification.md "Harness core"): simt_gpu with its global memory
// in HDL (simt_tb_mem) and every observation written to a trace file (simt_tb_trace), so the Python
// harness only drives the host interface and the memory knobs, and reads the trace in batches. A launch
// image is written to IMAGE by the HDL image driver (simt_tb_loader: one Python callback per launch),
// which holds the GPU's host port while it loads, or by Python through the host_* ports
// (SIMT_HOST_LOAD=registers). The raw Verilog-only bench (simt_gpu_raw.v) instantiates the same wrapper
// without a trace and with the image driver idle.
module simt_gpu_tb #(
    parameter integer NUM_SMS      = 2,
    parameter integer WARP_SIZE    = 32,
    parameter integer NUM_LANES    = 8,
    parameter integer NUM_WARPS    = 16,
    parameter integer NUM_BLOCKS   = 4,
    parameter integer RF_DEPTH     = 512,
    parameter integer SHARED_WORDS = 1024,
    parameter integer NUM_BANKS    = 8,
    parameter integer CONST_WORDS  = 256,
    parameter integer IMEM_WORDS   = 1024,
    parameter integer STACK_DEPTH  = 16,
    parameter integer SEG_WORDS    = 8,
    parameter integer GLOBAL_WORDS = 8192,
    parameter integer POST_STORES  = 0,       // simt_gpu's (posted stores, docs/gpu.md)
    parameter integer MEM_PEND     = 64,      // responses in flight in the HDL memory
    // longest launch image of the HDL image driver (words): every global word as DATA, the instruction
    // and constant memories, and 1024 words of headers (~490 DATA records); at least 64 K words
    // (stencil3d at size 256 on the bench machine is 65,624 words: 1 << 16 refused it)
    parameter integer IMAGE_MAX    = (GLOBAL_WORDS + IMEM_WORDS + CONST_WORDS + 1024 > (1 << 16))
                                     ? GLOBAL_WORDS + IMEM_WORDS + CONST_WORDS + 1024 : (1 << 16),
    // derived; not meant to be overridden
    parameter integer WID_W   = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,
    parameter integer XTAG_W  = $clog2(NUM_SMS + 1) + WID_W + $clog2(WARP_SIZE)
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        host_valid,
    output wire        host_ready,
    input  wire        host_write,
    input  wire [7:0]  host_addr,
    input  wire [31:0] host_wdata,
    output wire        host_rvalid,
    output wire [31:0] host_rdata,
    output wire        irq,
    // HDL memory knobs (simt_tb_mem), held steady during a launch
    input  wire [8:0]  mem_ready_pct,
    input  wire [15:0] mem_lat_min,
    input  wire [15:0] mem_lat_max,
    input  wire        mem_ooo,
    input  wire [8:0]  mem_rsp_pct,
    input  wire [63:0] mem_seed,
    input  wire        mem_clear,
    output wire [8:0]  mem_pending,  // responses the memory owes (the harness aborts while some are)
    // trace
    input  wire        trace_sync,
    output wire [31:0] trace_batch,
    // HDL image driver (simt_tb_loader): go/words in, done out; load_max its capacity in words
    input  wire        load_go,
    input  wire [31:0] load_words,
    output wire        load_done,
    output wire [31:0] load_max
);
    localparam integer DEPTH_W = $clog2(STACK_DEPTH + 1);
    localparam integer SH_AW   = $clog2(SHARED_WORDS);

    wire                          mreq_valid, mreq_ready, mreq_write, mrsp_valid, mrsp_ready;
    wire [31:0]                   mreq_addr;
    wire [SEG_WORDS-1:0]          mreq_mask;
    wire [SEG_WORDS*32-1:0]       mreq_wdata, mrsp_rdata, req_data;
    wire [XTAG_W-1:0]             mreq_tag, mrsp_tag;
    wire [31:0]                   cycle;
    wire                          req_held;
    wire [7:0]                    proto_err;

    wire [NUM_SMS-1:0]                       rt_valid;
    wire [NUM_SMS*`SIMT_RT_W-1:0]        rt_rec;  // one record per SM (rtl/include/simt_retire.vh)
    wire [NUM_SMS*NUM_BANKS-1:0]             sh_obs_we;
    wire [NUM_SMS*NUM_BANKS*SH_AW-1:0]       sh_obs_addr;
    wire [NUM_SMS*NUM_BANKS*32-1:0]          sh_obs_data;
    wire [NUM_SMS-1:0]                       sh_obs_clr;
    wire [NUM_SMS*5-1:0]                     sh_obs_warp;
    wire [NUM_SMS-1:0]                       dispatch_valid;
    wire [31:0]                              dispatch_block;

    // the host port: the image driver's while it loads, else the wrapper's ports
    wire        ld_busy, ld_valid;
    wire [7:0]  ld_addr;
    wire [31:0] ld_wdata;
    wire        gpu_host_valid = ld_busy ? ld_valid : host_valid;
    wire        gpu_host_write = ld_busy ? 1'b1 : host_write;
    wire [7:0]  gpu_host_addr  = ld_busy ? ld_addr : host_addr;
    wire [31:0] gpu_host_wdata = ld_busy ? ld_wdata : host_wdata;
    wire        unused_aw_valid, unused_w_valid, unused_b_ready;

    simt_tb_loader #(.MAX_WORDS(IMAGE_MAX), .AXI_LITE(0), .ADDR_W(8), .IMAGE_ADDR(8'h04)) u_loader (
        .clk(clk), .rst(rst), .go(load_go), .words(load_words), .busy(ld_busy), .done(load_done),
        .max_words(load_max), .m_valid(ld_valid), .m_ready(host_ready),
        .aw_valid(unused_aw_valid), .aw_ready(1'b0), .w_valid(unused_w_valid), .w_ready(1'b0),
        .b_valid(1'b0), .b_resp(2'b00), .b_ready(unused_b_ready), .m_addr(ld_addr), .m_wdata(ld_wdata)
    );

    simt_gpu #(
        .NUM_SMS(NUM_SMS), .WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS),
        .NUM_BLOCKS(NUM_BLOCKS), .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS), .NUM_BANKS(NUM_BANKS),
        .CONST_WORDS(CONST_WORDS), .IMEM_WORDS(IMEM_WORDS), .STACK_DEPTH(STACK_DEPTH),
        .SEG_WORDS(SEG_WORDS), .GLOBAL_WORDS(GLOBAL_WORDS), .POST_STORES(POST_STORES)
    ) u_gpu (
        .clk(clk), .rst(rst),
        .host_valid(gpu_host_valid), .host_ready(host_ready), .host_write(gpu_host_write),
        .host_addr(gpu_host_addr), .host_wdata(gpu_host_wdata), .host_rvalid(host_rvalid), .host_rdata(host_rdata), .irq(irq),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .rt_valid(rt_valid), .rt_rec(rt_rec),
        .sh_obs_we(sh_obs_we), .sh_obs_addr(sh_obs_addr), .sh_obs_data(sh_obs_data), .sh_obs_clr(sh_obs_clr),
        .sh_obs_warp(sh_obs_warp), .dispatch_valid(dispatch_valid), .dispatch_block(dispatch_block)
    );

    simt_tb_mem #(.SEG_WORDS(SEG_WORDS), .XTAG_W(XTAG_W), .GLOBAL_WORDS(GLOBAL_WORDS), .PEND(MEM_PEND)) u_mem (
        .clk(clk), .rst(rst),
        .ready_pct(mem_ready_pct), .lat_min(mem_lat_min), .lat_max(mem_lat_max), .ooo(mem_ooo),
        .rsp_pct(mem_rsp_pct), .seed(mem_seed), .clear(mem_clear),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .cycle(cycle), .req_data(req_data), .req_held(req_held), .proto_err(proto_err),
        .pending(mem_pending)
    );

    simt_tb_trace #(
        .NUM_SMS(NUM_SMS), .WARP_SIZE(WARP_SIZE), .NUM_BANKS(NUM_BANKS), .SH_AW(SH_AW),
        .SEG_WORDS(SEG_WORDS), .XTAG_W(XTAG_W), .DEPTH_W(DEPTH_W)
    ) u_trace (
        .clk(clk), .rst(rst), .sync(trace_sync), .irq(irq), .batch(trace_batch),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_tag(mreq_tag), .req_data(req_data), .req_held(req_held),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .cycle(cycle), .proto_err(proto_err),
        .dispatch_valid(dispatch_valid), .dispatch_block(dispatch_block),
        .sh_obs_we(sh_obs_we), .sh_obs_addr(sh_obs_addr), .sh_obs_data(sh_obs_data), .sh_obs_clr(sh_obs_clr),
        .sh_obs_warp(sh_obs_warp),
        .rt_valid(rt_valid), .rt_rec(rt_rec)
    );
endmodule
