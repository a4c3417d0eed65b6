`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_retire.vh"
// simt_gpu_axi — the GPU top with standard interfaces (docs/gpu.md "AXI option"): simt_gpu, its
// global memory as an AXI4 master (simt_axi_mem_bridge: one INCR burst of SEG_WORDS 32-bit beats per
// segment transaction, the transaction's tag as the AXI ID, so responses may come back in any order)
// and its host registers as an AXI4-Lite slave (simt_axil_host: register n at byte offset 4 * n).
// The rt_*, sh_obs_* and dispatch_* outputs are simt_gpu's observation ports, passed through for the
// verification harness: a system leaves them open and synthesis removes the logic behind them.
module simt_gpu_axi #(
    parameter integer NUM_SMS      = `SIMT_DEFAULT_NUM_SMS,      // simt_gpu's parameters (docs/gpu.md), same meaning
    parameter integer WARP_SIZE    = `SIMT_DEFAULT_WARP_SIZE,
    parameter integer NUM_LANES    = `SIMT_DEFAULT_NUM_LANES,
    parameter integer NUM_WARPS    = `SIMT_DEFAULT_NUM_WARPS,
    parameter integer NUM_BLOCKS   = `SIMT_DEFAULT_NUM_BLOCKS,
    parameter integer RF_DEPTH     = `SIMT_DEFAULT_RF_DEPTH,
    parameter integer SHARED_WORDS = `SIMT_DEFAULT_SHARED_WORDS,
    parameter integer NUM_BANKS    = `SIMT_DEFAULT_NUM_BANKS,
    parameter integer CONST_WORDS  = `SIMT_DEFAULT_CONST_WORDS,
    parameter integer IMEM_WORDS   = `SIMT_DEFAULT_IMEM_WORDS,
    parameter integer STACK_DEPTH  = `SIMT_DEFAULT_STACK_DEPTH,
    parameter integer SEG_WORDS    = `SIMT_DEFAULT_SEG_WORDS,
    parameter integer GLOBAL_WORDS = `SIMT_DEFAULT_GLOBAL_WORDS,
    parameter integer POST_STORES  = `SIMT_DEFAULT_POST_STORES,
    parameter integer MAX_OUT      = 16,            // AXI transactions in flight: 1..64
    parameter [31:0]  AXI_BASE     = 32'h0000_0000, // byte address of global word 0 on the AXI master
    parameter integer AXIL_ADDR_W  = 10,            // AXI4-Lite address width: 10..32
    // derived widths; not meant to be overridden
    parameter integer WID_W   = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,
    parameter integer ID_W    = $clog2(NUM_SMS + 1) + WID_W + $clog2(WARP_SIZE), // AXI ID = memory tag
    parameter integer DEPTH_W = $clog2(STACK_DEPTH + 1),
    parameter integer SH_AW   = $clog2(SHARED_WORDS)
) (
    input  wire                   clk,
    input  wire                   rst,        // synchronous, active high (the AXI slaves share it)
    // host registers: AXI4-Lite slave
    input  wire [AXIL_ADDR_W-1:0] s_axil_awaddr,
    input  wire [2:0]             s_axil_awprot,
    input  wire                   s_axil_awvalid,
    output wire                   s_axil_awready,
    input  wire [31:0]            s_axil_wdata,
    input  wire [3:0]             s_axil_wstrb,
    input  wire                   s_axil_wvalid,
    output wire                   s_axil_wready,
    output wire [1:0]             s_axil_bresp,
    output wire                   s_axil_bvalid,
    input  wire                   s_axil_bready,
    input  wire [AXIL_ADDR_W-1:0] s_axil_araddr,
    input  wire [2:0]             s_axil_arprot,
    input  wire                   s_axil_arvalid,
    output wire                   s_axil_arready,
    output wire [31:0]            s_axil_rdata,
    output wire [1:0]             s_axil_rresp,
    output wire                   s_axil_rvalid,
    input  wire                   s_axil_rready,
    // launch-ended interrupt (simt_gpu's irq)
    output wire                   irq,
    // global memory: AXI4 master
    output wire [ID_W-1:0]        m_axi_awid,
    output wire [31:0]            m_axi_awaddr,
    output wire [7:0]             m_axi_awlen,
    output wire [2:0]             m_axi_awsize,
    output wire [1:0]             m_axi_awburst,
    output wire                   m_axi_awlock,
    output wire [3:0]             m_axi_awcache,
    output wire [2:0]             m_axi_awprot,
    output wire                   m_axi_awvalid,
    input  wire                   m_axi_awready,
    output wire [31:0]            m_axi_wdata,
    output wire [3:0]             m_axi_wstrb,
    output wire                   m_axi_wlast,
    output wire                   m_axi_wvalid,
    input  wire                   m_axi_wready,
    input  wire [ID_W-1:0]        m_axi_bid,
    input  wire [1:0]             m_axi_bresp,
    input  wire                   m_axi_bvalid,
    output wire                   m_axi_bready,
    output wire [ID_W-1:0]        m_axi_arid,
    output wire [31:0]            m_axi_araddr,
    output wire [7:0]             m_axi_arlen,
    output wire [2:0]             m_axi_arsize,
    output wire [1:0]             m_axi_arburst,
    output wire                   m_axi_arlock,
    output wire [3:0]             m_axi_arcache,
    output wire [2:0]             m_axi_arprot,
    output wire                   m_axi_arvalid,
    input  wire                   m_axi_arready,
    input  wire [ID_W-1:0]        m_axi_rid,
    input  wire [31:0]            m_axi_rdata,
    input  wire [1:0]             m_axi_rresp,
    input  wire                   m_axi_rlast,
    input  wire                   m_axi_rvalid,
    output wire                   m_axi_rready,
    // sticky until reset: bit 0 an error response (SLVERR/DECERR), bit 1 a slave protocol violation
    output wire [1:0]             axi_error,
    // observation: retire port of every SM (docs/sm.md "Retire port"), SM s in slice s
    output wire [NUM_SMS-1:0]                rt_valid,
    output wire [NUM_SMS*`SIMT_RT_W-1:0]     rt_rec,         // one record per SM (rtl/include/simt_retire.vh)
    // observation: every shared-memory bank write of every SM (docs/sm.md simt_shared_lsu);
    // SM s, bank b in slice s*NUM_BANKS + b
    output wire [NUM_SMS*NUM_BANKS-1:0]      sh_obs_we,
    output wire [NUM_SMS*NUM_BANKS*SH_AW-1:0] sh_obs_addr,
    output wire [NUM_SMS*NUM_BANKS*32-1:0]   sh_obs_data,
    output wire [NUM_SMS-1:0]                sh_obs_clr,
    output wire [NUM_SMS*5-1:0]              sh_obs_warp,
    // observation: block dispatch (which SM got which block)
    output wire [NUM_SMS-1:0]                dispatch_valid,
    output wire [31:0]                       dispatch_block
);
    wire                    host_valid, host_ready, host_write, host_rvalid;
    wire [7:0]              host_addr;
    wire [31:0]             host_wdata, host_rdata;
    wire                    mreq_valid, mreq_ready, mreq_write, mrsp_valid, mrsp_ready;
    wire [31:0]             mreq_addr;
    wire [SEG_WORDS-1:0]    mreq_mask;
    wire [SEG_WORDS*32-1:0] mreq_wdata, mrsp_rdata;
    wire [ID_W-1:0]         mreq_tag, mrsp_tag;

    simt_gpu #(
        .NUM_SMS(NUM_SMS), .WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS),
        .NUM_BLOCKS(NUM_BLOCKS), .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS), .NUM_BANKS(NUM_BANKS),
        .CONST_WORDS(CONST_WORDS), .IMEM_WORDS(IMEM_WORDS), .STACK_DEPTH(STACK_DEPTH),
        .SEG_WORDS(SEG_WORDS), .GLOBAL_WORDS(GLOBAL_WORDS), .POST_STORES(POST_STORES)
    ) u_gpu (
        .clk(clk), .rst(rst),
        .host_valid(host_valid), .host_ready(host_ready), .host_write(host_write), .host_addr(host_addr),
        .host_wdata(host_wdata), .host_rvalid(host_rvalid), .host_rdata(host_rdata), .irq(irq),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .rt_valid(rt_valid), .rt_rec(rt_rec),
        .sh_obs_we(sh_obs_we), .sh_obs_addr(sh_obs_addr), .sh_obs_data(sh_obs_data),
        .sh_obs_clr(sh_obs_clr), .sh_obs_warp(sh_obs_warp), .dispatch_valid(dispatch_valid),
        .dispatch_block(dispatch_block)
    );

    simt_axil_host #(.ADDR_W(AXIL_ADDR_W)) u_host (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot), .s_axil_awvalid(s_axil_awvalid),
        .s_axil_awready(s_axil_awready), .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
        .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp),
        .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr),
        .s_axil_arprot(s_axil_arprot), .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
        .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp), .s_axil_rvalid(s_axil_rvalid),
        .s_axil_rready(s_axil_rready),
        .host_valid(host_valid), .host_ready(host_ready), .host_write(host_write), .host_addr(host_addr),
        .host_wdata(host_wdata), .host_rvalid(host_rvalid), .host_rdata(host_rdata)
    );

    simt_axi_mem_bridge #(.SEG_WORDS(SEG_WORDS), .ID_W(ID_W), .MAX_OUT(MAX_OUT), .AXI_BASE(AXI_BASE)) u_mem (
        .clk(clk), .rst(rst),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .m_axi_awid(m_axi_awid), .m_axi_awaddr(m_axi_awaddr), .m_axi_awlen(m_axi_awlen),
        .m_axi_awsize(m_axi_awsize), .m_axi_awburst(m_axi_awburst), .m_axi_awlock(m_axi_awlock),
        .m_axi_awcache(m_axi_awcache), .m_axi_awprot(m_axi_awprot), .m_axi_awvalid(m_axi_awvalid),
        .m_axi_awready(m_axi_awready), .m_axi_wdata(m_axi_wdata), .m_axi_wstrb(m_axi_wstrb),
        .m_axi_wlast(m_axi_wlast), .m_axi_wvalid(m_axi_wvalid), .m_axi_wready(m_axi_wready),
        .m_axi_bid(m_axi_bid), .m_axi_bresp(m_axi_bresp), .m_axi_bvalid(m_axi_bvalid),
        .m_axi_bready(m_axi_bready), .m_axi_arid(m_axi_arid), .m_axi_araddr(m_axi_araddr),
        .m_axi_arlen(m_axi_arlen), .m_axi_arsize(m_axi_arsize), .m_axi_arburst(m_axi_arburst),
        .m_axi_arlock(m_axi_arlock), .m_axi_arcache(m_axi_arcache), .m_axi_arprot(m_axi_arprot),
        .m_axi_arvalid(m_axi_arvalid), .m_axi_arready(m_axi_arready), .m_axi_rid(m_axi_rid),
        .m_axi_rdata(m_axi_rdata), .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast),
        .m_axi_rvalid(m_axi_rvalid), .m_axi_rready(m_axi_rready), .error(axi_error)
    );
endmodule
