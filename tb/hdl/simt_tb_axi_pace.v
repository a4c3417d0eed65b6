`include "simt_fault.vh"
// Test-only AXI backpressure for the AXI test wrapper (tb/hdl/simt_gpu_axi_tb.v): it sits between the
// GPU's AXI master and cocotbext-axi's AxiRam and lets each of the five channels move in a cycle with a
// probability, so the slave model runs with no Python pause generator (no Python per cycle).
//   * request channels (AW, W, AR): in a cycle without `go_*` the slave model sees VALID low and the
//     GPU READY low (an AXI slave may hold READY low at will; the model never sees the beat, so the
//     handshake is the same on both sides);
//   * response channels (B, R): without `go_*` the GPU sees VALID low and the slave model READY low; a
//     response once shown to the GPU stays shown until taken (AXI: VALID never drops before the
//     handshake), so `go_*` is forced high then.
// Knobs (inputs, held steady during a launch; set by tb/agents/axi_mem_agent.py once per launch):
// `req_pct` and `rsp_pct` are the probabilities, in 256ths (256 = always, no pacing), that a request
// and a response channel may move in a cycle. All randomness comes from one xorshift64 generator
// loaded from `seed` while `rst` is high, so a run repeats exactly from the harness's seed.
// `stalls` counts the cycles in which some channel had VALID and was held off by the pacing (never
// reset: the harness reads it at the end of a run and checks backpressure happened).
// Test-only fault 19 (+SIMT_FAULT=19 in a SIMT_FAULTS build): the pacing never holds a channel off.
module simt_tb_axi_pace (
    input  wire        clk,
    input  wire        rst,
    input  wire [8:0]  req_pct,    // AW, W and AR may move in a cycle, /256
    input  wire [8:0]  rsp_pct,    // B and R may move in a cycle, /256
    input  wire [63:0] seed,       // loaded while rst is high (0 is replaced by 1)
    input  wire        aw_valid,   // the GPU's AWVALID
    input  wire        w_valid,    // the GPU's WVALID
    input  wire        ar_valid,   // the GPU's ARVALID
    input  wire        b_valid,    // the slave model's BVALID
    input  wire        b_ready,    // the GPU's BREADY
    input  wire        r_valid,    // the slave model's RVALID
    input  wire        r_ready,    // the GPU's RREADY
    output wire        go_aw,
    output wire        go_w,
    output wire        go_ar,
    output wire        go_b,
    output wire        go_r,
    output reg  [31:0] stalls
);
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif
    reg  [63:0] rng;
    wire [63:0] rng_a = rng ^ (rng << 13);
    wire [63:0] rng_b = rng_a ^ (rng_a >> 7);
    wire [63:0] rng_n = rng_b ^ (rng_b << 17);
    always @(posedge clk) rng <= rst ? ((seed == 64'd0) ? 64'd1 : seed) : rng_n;

    // this cycle's draws, one byte per channel
    wire [4:0] draw;
    assign draw[0] = {1'b0, rng[7:0]} < req_pct;
    assign draw[1] = {1'b0, rng[15:8]} < req_pct;
    assign draw[2] = {1'b0, rng[23:16]} < req_pct;
    assign draw[3] = {1'b0, rng[31:24]} < rsp_pct;
    assign draw[4] = {1'b0, rng[39:32]} < rsp_pct;
    wire never_stall;
`ifdef SIMT_FAULTS
    assign never_stall = simt_fault == `SIMT_FAULT_PACE_NEVER_STALLS;
`else
    assign never_stall = 1'b0;
`endif

    reg b_shown, r_shown;  // a response shown to the GPU and not taken: it stays shown
    assign go_aw = draw[0] | never_stall;
    assign go_w  = draw[1] | never_stall;
    assign go_ar = draw[2] | never_stall;
    assign go_b  = draw[3] | never_stall | b_shown;
    assign go_r  = draw[4] | never_stall | r_shown;

    wire held = (aw_valid && !go_aw) || (w_valid && !go_w) || (ar_valid && !go_ar)
             || (b_valid && !go_b) || (r_valid && !go_r);
    initial stalls = 32'd0;
    always @(posedge clk) begin
        b_shown <= !rst && b_valid && go_b && !b_ready;
        r_shown <= !rst && r_valid && go_r && !r_ready;
        if (!rst && held) stalls <= stalls + 32'd1;
    end
endmodule
