`include "simt_fault.vh"
`include "simt_retire.vh"
// Test-only wrapper of the AXI top (docs/gpu.md "AXI option", docs/verification.md "AXI system
// test"): simt_gpu_axi with its AXI ports at the top for cocotbext-axi (AxiRam on m_axi_*,
// AxiLiteMaster on s_axil_*), and the same trace as simt_gpu_tb (simt_tb_trace): dispatches, shared
// writes and retires from the observation ports, memory requests and responses from the native port
// inside the AXI top (hierarchical references to u_dut's wires), so the project's scoreboards check
// every transaction the AXI bridge carried. `cycle` counts edges since reset, as simt_tb_mem's does.
// The memory's backpressure is Verilog too (simt_tb_axi_pace between the GPU and the AxiRam, knobs
// pace_* set by tb/agents/axi_mem_agent.py once per launch; pace_stalls counts the cycles held off).
// A launch image is written by the HDL image driver (simt_tb_loader, AXI4-Lite writes to IMAGE), which
// holds the AXI-Lite write channels while it loads, or by cocotbext-axi (SIMT_HOST_LOAD=registers).
module simt_gpu_axi_tb #(
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
    parameter integer MAX_OUT      = 16,
    parameter integer AXIL_ADDR_W  = 10,
    // longest launch image of the HDL image driver (words): every global word as DATA, the instruction
    // and constant memories, and 1024 words of headers (~490 DATA records); at least 64 K words
    // (stencil3d at size 256 on the bench machine is 65,624 words: 1 << 16 refused it)
    parameter integer IMAGE_MAX    = (GLOBAL_WORDS + IMEM_WORDS + CONST_WORDS + 1024 > (1 << 16))
                                     ? GLOBAL_WORDS + IMEM_WORDS + CONST_WORDS + 1024 : (1 << 16),
    // derived; not meant to be overridden
    parameter integer WID_W   = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,
    parameter integer ID_W    = $clog2(NUM_SMS + 1) + WID_W + $clog2(WARP_SIZE),
    parameter integer DEPTH_W = $clog2(STACK_DEPTH + 1),
    parameter integer SH_AW   = $clog2(SHARED_WORDS)
) (
    input  wire                   clk,
    input  wire                   rst,
    input  wire [AXIL_ADDR_W-1:0] s_axil_awaddr,
    input  wire [2:0]             s_axil_awprot,
    input  wire                   s_axil_awvalid,
    output reg                    s_axil_awready,
    input  wire [31:0]            s_axil_wdata,
    input  wire [3:0]             s_axil_wstrb,
    input  wire                   s_axil_wvalid,
    output reg                    s_axil_wready,
    output reg  [1:0]             s_axil_bresp,
    output reg                    s_axil_bvalid,
    input  wire                   s_axil_bready,
    input  wire [AXIL_ADDR_W-1:0] s_axil_araddr,
    input  wire [2:0]             s_axil_arprot,
    input  wire                   s_axil_arvalid,
    output reg                    s_axil_arready,
    output reg  [31:0]            s_axil_rdata,
    output reg  [1:0]             s_axil_rresp,
    output reg                    s_axil_rvalid,
    input  wire                   s_axil_rready,
    output wire                   irq,
    output reg  [ID_W-1:0]        m_axi_awid,
    output reg  [31:0]            m_axi_awaddr,
    output reg  [7:0]             m_axi_awlen,
    output reg  [2:0]             m_axi_awsize,
    output reg  [1:0]             m_axi_awburst,
    output reg                    m_axi_awlock,
    output reg  [3:0]             m_axi_awcache,
    output reg  [2:0]             m_axi_awprot,
    output reg                    m_axi_awvalid,
    input  wire                   m_axi_awready,
    output reg  [31:0]            m_axi_wdata,
    output reg  [3:0]             m_axi_wstrb,
    output reg                    m_axi_wlast,
    output reg                    m_axi_wvalid,
    input  wire                   m_axi_wready,
    input  wire [ID_W-1:0]        m_axi_bid,
    input  wire [1:0]             m_axi_bresp,
    input  wire                   m_axi_bvalid,
    output reg                    m_axi_bready,
    output reg  [ID_W-1:0]        m_axi_arid,
    output reg  [31:0]            m_axi_araddr,
    output reg  [7:0]             m_axi_arlen,
    output reg  [2:0]             m_axi_arsize,
    output reg  [1:0]             m_axi_arburst,
    output reg                    m_axi_arlock,
    output reg  [3:0]             m_axi_arcache,
    output reg  [2:0]             m_axi_arprot,
    output reg                    m_axi_arvalid,
    input  wire                   m_axi_arready,
    input  wire [ID_W-1:0]        m_axi_rid,
    input  wire [31:0]            m_axi_rdata,
    input  wire [1:0]             m_axi_rresp,
    input  wire                   m_axi_rlast,
    input  wire                   m_axi_rvalid,
    output reg                    m_axi_rready,
    output wire [1:0]             axi_error,
    input  wire                   trace_sync,
    output wire [31:0]            trace_batch,
    input  wire [8:0]             pace_req_pct,   // AW/W/AR may move in a cycle, /256 (256: always)
    input  wire [8:0]             pace_rsp_pct,   // B/R may move in a cycle, /256
    input  wire [63:0]            pace_seed,      // loaded while rst is high
    output wire [31:0]            pace_stalls,    // cycles a channel with VALID was held off
    // HDL image driver (simt_tb_loader): go/words in, done out; load_max its capacity in words
    input  wire                   load_go,
    input  wire [31:0]            load_words,
    output wire                   load_done,
    output wire [31:0]            load_max
);
    wire [NUM_SMS-1:0]                rt_valid;
    wire [NUM_SMS*`SIMT_RT_W-1:0]        rt_rec;  // one record per SM (rtl/include/simt_retire.vh)
    wire [NUM_SMS*NUM_BANKS-1:0]      sh_obs_we;
    wire [NUM_SMS*NUM_BANKS*SH_AW-1:0] sh_obs_addr;
    wire [NUM_SMS*NUM_BANKS*32-1:0]   sh_obs_data;
    wire [NUM_SMS-1:0]                sh_obs_clr;
    wire [NUM_SMS*5-1:0]              sh_obs_warp;
    wire [NUM_SMS-1:0]                dispatch_valid;
    wire [31:0]                       dispatch_block;


    // The AXI outputs as cocotbext-axi sees them: copies taken at the falling edge, so at a rising
    // edge its models read the values the GPU had just before that edge on either simulator. A
    // coroutine woken by RisingEdge reads the values after the edge's updates on the cycle-based
    // simulator, and cocotbext-axi samples valid/ready there: without the copy it took a burst's
    // first beat twice.
    wire                    dut_s_axil_awready;
    wire                    dut_s_axil_wready;
    wire [1:0]              dut_s_axil_bresp;
    wire                    dut_s_axil_bvalid;
    wire                    dut_s_axil_arready;
    wire [31:0]             dut_s_axil_rdata;
    wire [1:0]              dut_s_axil_rresp;
    wire                    dut_s_axil_rvalid;
    wire [ID_W-1:0]         dut_m_axi_awid;
    wire [31:0]             dut_m_axi_awaddr;
    wire [7:0]              dut_m_axi_awlen;
    wire [2:0]              dut_m_axi_awsize;
    wire [1:0]              dut_m_axi_awburst;
    wire                    dut_m_axi_awlock;
    wire [3:0]              dut_m_axi_awcache;
    wire [2:0]              dut_m_axi_awprot;
    wire                    dut_m_axi_awvalid;
    wire [31:0]             dut_m_axi_wdata;
    wire [3:0]              dut_m_axi_wstrb;
    wire                    dut_m_axi_wlast;
    wire                    dut_m_axi_wvalid;
    wire                    dut_m_axi_bready;
    wire [ID_W-1:0]         dut_m_axi_arid;
    wire [31:0]             dut_m_axi_araddr;
    wire [7:0]              dut_m_axi_arlen;
    wire [2:0]              dut_m_axi_arsize;
    wire [1:0]              dut_m_axi_arburst;
    wire                    dut_m_axi_arlock;
    wire [3:0]              dut_m_axi_arcache;
    wire [2:0]              dut_m_axi_arprot;
    wire                    dut_m_axi_arvalid;
    wire                    dut_m_axi_rready;
    wire go_aw, go_w, go_ar, go_b, go_r;
    simt_tb_axi_pace u_pace (
        .clk(clk), .rst(rst), .req_pct(pace_req_pct), .rsp_pct(pace_rsp_pct), .seed(pace_seed),
        .aw_valid(dut_m_axi_awvalid), .w_valid(dut_m_axi_wvalid), .ar_valid(dut_m_axi_arvalid),
        .b_valid(m_axi_bvalid), .b_ready(dut_m_axi_bready), .r_valid(m_axi_rvalid), .r_ready(dut_m_axi_rready),
        .go_aw(go_aw), .go_w(go_w), .go_ar(go_ar), .go_b(go_b), .go_r(go_r), .stalls(pace_stalls)
    );

    // the image driver's AXI-Lite write side (simt_tb_loader below); ld_busy: it owns the channels
    wire                   ld_busy, ld_aw_valid, ld_w_valid, ld_b_ready, unused_ld_valid;
    // While the image driver owns the AXI-Lite write channels (ld_busy) its handshakes are hidden
    // from the ports: cocotbext-axi's B sink, whose bready stays high, would otherwise take the
    // driver's B responses as its own and answer the host's next writes (START) with them before
    // the GPU has taken those writes (tb/agents/axi_host.py checks that no B response is left over).
    // Planted fault 21 (rtl/include/simt_fault.vh) shows them.
    wire                   ld_hide;
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    assign ld_hide = ld_busy && simt_fault != `SIMT_FAULT_LOAD_SHOWS_B;
`else
    assign ld_hide = ld_busy;
`endif
    always @(negedge clk) begin
        s_axil_awready <= dut_s_axil_awready && !ld_hide;
        s_axil_wready <= dut_s_axil_wready && !ld_hide;
        s_axil_bresp <= dut_s_axil_bresp;
        s_axil_bvalid <= dut_s_axil_bvalid && !ld_hide;
        s_axil_arready <= dut_s_axil_arready;
        s_axil_rdata <= dut_s_axil_rdata;
        s_axil_rresp <= dut_s_axil_rresp;
        s_axil_rvalid <= dut_s_axil_rvalid;
        m_axi_awid <= dut_m_axi_awid;
        m_axi_awaddr <= dut_m_axi_awaddr;
        m_axi_awlen <= dut_m_axi_awlen;
        m_axi_awsize <= dut_m_axi_awsize;
        m_axi_awburst <= dut_m_axi_awburst;
        m_axi_awlock <= dut_m_axi_awlock;
        m_axi_awcache <= dut_m_axi_awcache;
        m_axi_awprot <= dut_m_axi_awprot;
        m_axi_awvalid <= dut_m_axi_awvalid && go_aw;
        m_axi_wdata <= dut_m_axi_wdata;
        m_axi_wstrb <= dut_m_axi_wstrb;
        m_axi_wlast <= dut_m_axi_wlast;
        m_axi_wvalid <= dut_m_axi_wvalid && go_w;
        m_axi_bready <= dut_m_axi_bready && go_b;
        m_axi_arid <= dut_m_axi_arid;
        m_axi_araddr <= dut_m_axi_araddr;
        m_axi_arlen <= dut_m_axi_arlen;
        m_axi_arsize <= dut_m_axi_arsize;
        m_axi_arburst <= dut_m_axi_arburst;
        m_axi_arlock <= dut_m_axi_arlock;
        m_axi_arcache <= dut_m_axi_arcache;
        m_axi_arprot <= dut_m_axi_arprot;
        m_axi_arvalid <= dut_m_axi_arvalid && go_ar;
        m_axi_rready <= dut_m_axi_rready && go_r;
    end

    // the AXI-Lite write channels: the image driver's while it loads, else the wrapper's ports
    wire [AXIL_ADDR_W-1:0] ld_addr;
    wire [31:0]            ld_wdata;
    wire [AXIL_ADDR_W-1:0] gpu_awaddr  = ld_busy ? ld_addr : s_axil_awaddr;
    wire [2:0]             gpu_awprot  = ld_busy ? 3'd0 : s_axil_awprot;
    wire                   gpu_awvalid = ld_busy ? ld_aw_valid : s_axil_awvalid;
    wire [31:0]            gpu_wdata   = ld_busy ? ld_wdata : s_axil_wdata;
    wire [3:0]             gpu_wstrb   = ld_busy ? 4'hF : s_axil_wstrb;
    wire                   gpu_wvalid  = ld_busy ? ld_w_valid : s_axil_wvalid;
    wire                   gpu_bready  = ld_busy ? ld_b_ready : s_axil_bready;

    simt_tb_loader #(
        .MAX_WORDS(IMAGE_MAX), .AXI_LITE(1), .ADDR_W(AXIL_ADDR_W), .IMAGE_ADDR(16)  // IMAGE, register 4: byte 4 * 4
    ) u_loader (
        .clk(clk), .rst(rst), .go(load_go), .words(load_words), .busy(ld_busy), .done(load_done),
        .max_words(load_max), .m_valid(unused_ld_valid), .m_ready(1'b0),
        .aw_valid(ld_aw_valid), .aw_ready(dut_s_axil_awready), .w_valid(ld_w_valid), .w_ready(dut_s_axil_wready),
        .b_valid(dut_s_axil_bvalid), .b_resp(dut_s_axil_bresp), .b_ready(ld_b_ready),
        .m_addr(ld_addr), .m_wdata(ld_wdata)
    );

    simt_gpu_axi #(
        .NUM_SMS(NUM_SMS), .WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS),
        .NUM_BLOCKS(NUM_BLOCKS), .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS), .NUM_BANKS(NUM_BANKS),
        .CONST_WORDS(CONST_WORDS), .IMEM_WORDS(IMEM_WORDS), .STACK_DEPTH(STACK_DEPTH),
        .SEG_WORDS(SEG_WORDS), .GLOBAL_WORDS(GLOBAL_WORDS), .POST_STORES(POST_STORES), .MAX_OUT(MAX_OUT), .AXIL_ADDR_W(AXIL_ADDR_W)
    ) u_dut (
        .clk(clk), .s_axil_awaddr(gpu_awaddr), .s_axil_awprot(gpu_awprot),
        .s_axil_awvalid(gpu_awvalid), .s_axil_awready(dut_s_axil_awready),
        .s_axil_wdata(gpu_wdata), .s_axil_wstrb(gpu_wstrb), .s_axil_wvalid(gpu_wvalid),
        .s_axil_wready(dut_s_axil_wready), .s_axil_bresp(dut_s_axil_bresp), .s_axil_bvalid(dut_s_axil_bvalid),
        .s_axil_bready(gpu_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arprot(s_axil_arprot),
        .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(dut_s_axil_arready),
        .s_axil_rdata(dut_s_axil_rdata), .s_axil_rresp(dut_s_axil_rresp), .s_axil_rvalid(dut_s_axil_rvalid),
        .s_axil_rready(s_axil_rready), .irq(irq), .m_axi_awid(dut_m_axi_awid),
        .m_axi_awaddr(dut_m_axi_awaddr), .m_axi_awlen(dut_m_axi_awlen), .m_axi_awsize(dut_m_axi_awsize),
        .m_axi_awburst(dut_m_axi_awburst), .m_axi_awlock(dut_m_axi_awlock), .m_axi_awcache(dut_m_axi_awcache),
        .m_axi_awprot(dut_m_axi_awprot), .m_axi_awvalid(dut_m_axi_awvalid), .m_axi_awready(m_axi_awready && go_aw),
        .m_axi_wdata(dut_m_axi_wdata), .m_axi_wstrb(dut_m_axi_wstrb), .m_axi_wlast(dut_m_axi_wlast),
        .m_axi_wvalid(dut_m_axi_wvalid), .m_axi_wready(m_axi_wready && go_w), .m_axi_bid(m_axi_bid),
        .m_axi_bresp(m_axi_bresp), .m_axi_bvalid(m_axi_bvalid && go_b), .m_axi_bready(dut_m_axi_bready),
        .m_axi_arid(dut_m_axi_arid), .m_axi_araddr(dut_m_axi_araddr), .m_axi_arlen(dut_m_axi_arlen),
        .m_axi_arsize(dut_m_axi_arsize), .m_axi_arburst(dut_m_axi_arburst), .m_axi_arlock(dut_m_axi_arlock),
        .m_axi_arcache(dut_m_axi_arcache), .m_axi_arprot(dut_m_axi_arprot), .m_axi_arvalid(dut_m_axi_arvalid),
        .m_axi_arready(m_axi_arready && go_ar), .m_axi_rid(m_axi_rid), .m_axi_rdata(m_axi_rdata),
        .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast), .m_axi_rvalid(m_axi_rvalid && go_r),
        .m_axi_rready(dut_m_axi_rready), .axi_error(axi_error), .rst(rst), .rt_valid(rt_valid),
        .rt_rec(rt_rec), .sh_obs_we(sh_obs_we),
        .sh_obs_addr(sh_obs_addr), .sh_obs_data(sh_obs_data), .sh_obs_clr(sh_obs_clr),
        .sh_obs_warp(sh_obs_warp), .dispatch_valid(dispatch_valid), .dispatch_block(dispatch_block)
    );

    // the native memory port inside the AXI top, and what simt_tb_mem would report about it
    reg  [31:0] cycle;
    reg         held_q;
    always @(posedge clk) begin
        cycle  <= rst ? 32'd0 : cycle + 32'd1;
        held_q <= rst ? 1'b0 : u_dut.mreq_valid && !u_dut.mreq_ready;
    end
    wire [SEG_WORDS*32-1:0] req_data = u_dut.mreq_write ? u_dut.mreq_wdata : {SEG_WORDS*32{1'b0}};

    simt_tb_trace #(
        .NUM_SMS(NUM_SMS), .WARP_SIZE(WARP_SIZE), .NUM_BANKS(NUM_BANKS), .SH_AW(SH_AW),
        .SEG_WORDS(SEG_WORDS), .XTAG_W(ID_W), .DEPTH_W(DEPTH_W)
    ) u_trace (
        .clk(clk), .rst(rst), .sync(trace_sync), .irq(irq), .batch(trace_batch),
        .mreq_valid(u_dut.mreq_valid), .mreq_ready(u_dut.mreq_ready), .mreq_addr(u_dut.mreq_addr),
        .mreq_write(u_dut.mreq_write), .mreq_mask(u_dut.mreq_mask), .mreq_tag(u_dut.mreq_tag),
        .req_data(req_data), .req_held(held_q),
        .mrsp_valid(u_dut.mrsp_valid), .mrsp_ready(u_dut.mrsp_ready), .mrsp_tag(u_dut.mrsp_tag),
        .mrsp_rdata(u_dut.mrsp_rdata), .cycle(cycle), .proto_err(8'd0),
        .dispatch_valid(dispatch_valid), .dispatch_block(dispatch_block),
        .sh_obs_we(sh_obs_we), .sh_obs_addr(sh_obs_addr), .sh_obs_data(sh_obs_data), .sh_obs_clr(sh_obs_clr),
        .sh_obs_warp(sh_obs_warp),
        .rt_valid(rt_valid), .rt_rec(rt_rec)
    );
endmodule
