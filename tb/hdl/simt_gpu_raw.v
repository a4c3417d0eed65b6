`include "simt_isa.vh"
// The raw bench: the GPU's test wrapper (simt_gpu_tb: the GPU and its HDL memory) driven by Verilog
// alone, with no Python and no trace. It is the physical limit the Python harness is measured
// against (tools/bench/check_overhead.py): same RTL, same memory, same launch, same cycle count.
//
// Plusargs: +IMAGE=<file> the launch image, one hex word per line (LaunchImage.to_words());
// +WORDS=<n> its length; memory knobs +LAT_MIN=n +LAT_MAX=n (default 20 20) +READY_PCT=n +RSP_PCT=n
// (/256, default 256) +OOO=0|1 +SEED=n. Prints one line: "raw: status=<hex> cycles=<launch cycles,
// performance counter `cycles`> warp_instrs=<n> sim_cycles=<clock cycles simulated>".
module simt_gpu_raw #(
    parameter integer NUM_SMS      = 1,
    parameter integer WARP_SIZE    = 32,
    parameter integer NUM_LANES    = 8,
    parameter integer NUM_WARPS    = 8,
    parameter integer NUM_BLOCKS   = 4,
    parameter integer RF_DEPTH     = 512,
    parameter integer SHARED_WORDS = 512,
    parameter integer NUM_BANKS    = 8,
    parameter integer CONST_WORDS  = 64,
    parameter integer IMEM_WORDS   = 256,
    parameter integer STACK_DEPTH  = 8,
    parameter integer SEG_WORDS    = 8,
    parameter integer GLOBAL_WORDS = 8192,
    parameter integer POST_STORES  = 0,       // simt_gpu's (posted stores, docs/gpu.md)
    parameter integer MAX_WORDS    = 1 << 20   // longest image
);
    localparam [7:0] R_CTRL = 8'h02, R_STATUS = 8'h03, R_IMAGE = 8'h04, R_PERF_SEL = 8'h10,
                     R_PERF_LO = 8'h11, R_PERF_HI = 8'h12;

    reg         clk, rst, host_valid, host_write, ooo;
    reg  [7:0]  host_addr;
    reg  [31:0] host_wdata;
    wire        host_ready, host_rvalid, irq;
    wire [31:0] host_rdata, unused_trace_batch, unused_load_max;
    wire        unused_load_done;
    wire [8:0]  unused_mem_pending;
    reg  [8:0]  ready_pct, rsp_pct;
    reg  [15:0] lat_min, lat_max;
    reg  [63:0] seed;

    initial clk = 1'b0;
    always #5 clk = ~clk;

    simt_gpu_tb #(
        .NUM_SMS(NUM_SMS), .WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS),
        .NUM_BLOCKS(NUM_BLOCKS), .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS), .NUM_BANKS(NUM_BANKS),
        .CONST_WORDS(CONST_WORDS), .IMEM_WORDS(IMEM_WORDS), .STACK_DEPTH(STACK_DEPTH),
        .SEG_WORDS(SEG_WORDS), .GLOBAL_WORDS(GLOBAL_WORDS), .POST_STORES(POST_STORES)
    ) u_tb (
        .clk(clk), .rst(rst), .host_valid(host_valid), .host_ready(host_ready), .host_write(host_write),
        .host_addr(host_addr), .host_wdata(host_wdata), .host_rvalid(host_rvalid), .host_rdata(host_rdata),
        .irq(irq), .mem_ready_pct(ready_pct), .mem_lat_min(lat_min), .mem_lat_max(lat_max),
        .mem_ooo(ooo), .mem_rsp_pct(rsp_pct), .mem_seed(seed), .mem_clear(1'b0),
        .mem_pending(unused_mem_pending), .trace_sync(1'b0), .trace_batch(unused_trace_batch),
        .load_go(1'b0), .load_words(32'd0), .load_done(unused_load_done), .load_max(unused_load_max)
    );

    reg [31:0] image [0:MAX_WORDS-1];
    reg [31:0] rdata;
    reg [63:0] cycles, instrs, sim_cycles;
    reg [8*1024-1:0] path;
    integer words, i, n;

    always @(posedge clk) sim_cycles <= rst ? 64'd0 : sim_cycles + 64'd1;

    task automatic host_write_reg(input [7:0] addr, input [31:0] data);
        begin
            @(negedge clk);
            host_valid = 1'b1; host_write = 1'b1; host_addr = addr; host_wdata = data;
            @(posedge clk);
            while (!host_ready) @(posedge clk);
            @(negedge clk);
            host_valid = 1'b0; host_write = 1'b0;
        end
    endtask

    task automatic host_read_reg(input [7:0] addr, output [31:0] data);
        begin
            @(negedge clk);
            host_valid = 1'b1; host_write = 1'b0; host_addr = addr;
            @(posedge clk);
            while (!host_ready) @(posedge clk);
            @(negedge clk);
            host_valid = 1'b0;
            while (!host_rvalid) @(negedge clk);
            data = host_rdata;
        end
    endtask

    task automatic perf(input [4:0] counter, output [63:0] value);
        reg [31:0] lo, hi;
        begin
            host_write_reg(R_PERF_SEL, {19'd0, 8'hFF, counter});
            host_read_reg(R_PERF_LO, lo);
            host_read_reg(R_PERF_HI, hi);
            value = {hi, lo};
        end
    endtask

    initial begin
        rst = 1'b1; host_valid = 1'b0; host_write = 1'b0; host_addr = 8'd0; host_wdata = 32'd0;
        ready_pct = 9'd256; rsp_pct = 9'd256; lat_min = 16'd20; lat_max = 16'd20; ooo = 1'b0; seed = 64'd1;
        if (!$value$plusargs("IMAGE=%s", path)) $fatal(1, "simt_gpu_raw: +IMAGE=<file> (one hex word per line) is required");
        if (!$value$plusargs("WORDS=%d", words)) $fatal(1, "simt_gpu_raw: +WORDS=<image length> is required");
        if (words < 1 || words > MAX_WORDS) $fatal(1, "simt_gpu_raw: +WORDS=%0d outside 1..%0d", words, MAX_WORDS);
        if ($value$plusargs("LAT_MIN=%d", n)) lat_min = n[15:0];
        if ($value$plusargs("LAT_MAX=%d", n)) lat_max = n[15:0];
        if ($value$plusargs("READY_PCT=%d", n)) ready_pct = n[8:0];
        if ($value$plusargs("RSP_PCT=%d", n)) rsp_pct = n[8:0];
        if ($value$plusargs("OOO=%d", n)) ooo = n[0];
        if ($value$plusargs("SEED=%d", n)) seed = {32'd0, n};
        $readmemh(path, image, 0, words - 1);
        repeat (3) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        repeat (2) @(posedge clk);
        for (i = 0; i < words; i = i + 1) host_write_reg(R_IMAGE, image[i]);
        host_write_reg(R_CTRL, 32'd1);
        @(posedge irq);
        host_read_reg(R_STATUS, rdata);
        perf(`SIMT_PERF_CYCLES, cycles);
        perf(`SIMT_PERF_WARP_INSTRS, instrs);
        $display("raw: status=%0h cycles=%0d warp_instrs=%0d sim_cycles=%0d", rdata, cycles, instrs, sim_cycles);
        $finish;
    end
endmodule
