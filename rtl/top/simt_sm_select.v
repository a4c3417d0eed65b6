`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
// Per-SM selection for the GPU's host registers (docs/gpu.md): which SM's kernel error is captured,
// and which SM's performance counter and debug view a register read returns. Purely combinational:
// simt_gpu registers the results, so moving these muxes here out of simt_gpu.v changes no cycle.
// Test-only fault 14 (SIMT_FAULTS builds, docs/sm.md "Test-only fault hooks"); unit bench
// tb/tests/unit/test_sm_select.py.
module simt_sm_select #(
    parameter integer NUM_SMS = `SIMT_DEFAULT_NUM_SMS,          // streaming multiprocessors: 1..16
    // derived width; not meant to be overridden
    parameter integer SM_W    = (NUM_SMS > 1) ? $clog2(NUM_SMS) : 1
) (
    // errors: the lowest-numbered SM reporting one wins
    input  wire [NUM_SMS-1:0]    sm_err,
    output reg                   any_sm_err,
    output reg  [SM_W-1:0]       first_sm,
    // counters (PERF_SEL = {sm[7:0], counter[4:0]}): one SM's, or with sm = 0xFF every SM's combined
    input  wire [12:0]           perf_sel,
    input  wire [NUM_SMS*64-1:0] sm_perf,
    output reg  [63:0]           perf_value,
    // debug view: DBG_SEL's SM field (its warp-slot field goes straight to every SM's dbg_warp)
    input  wire [7:0]            dbg_sm,
    input  wire [NUM_SMS*3-1:0]  sm_dbg_state,
    input  wire [NUM_SMS*32-1:0] sm_dbg_block,
    input  wire [NUM_SMS*5-1:0]  sm_dbg_wib,
    input  wire [NUM_SMS*17-1:0] sm_dbg_pc,
    input  wire [NUM_SMS*17-1:0] sm_dbg_last_pc,
    input  wire [NUM_SMS-1:0]    sm_dbg_retired,
    output reg  [31:0]           dbg_warp,
    output reg  [31:0]           dbg_block,
    output reg  [31:0]           dbg_pc,
    output reg  [31:0]           dbg_last_pc
);
    generate
        `SIMT_CHECK_NUM_SMS("simt_sm_select", NUM_SMS)
    endgenerate

`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    // Fault 14: the combined maximum stack depth is summed like the other counters.
    wire max_is_max = simt_fault != `SIMT_FAULT_MAX_SUMMED;
`else
    wire max_is_max = 1'b1;
`endif

    integer i;
    // Walked from the top down so the lowest-numbered erring SM is the one left in first_sm.
    always @(*) begin
        any_sm_err = 1'b0;
        first_sm   = {SM_W{1'b0}};
        for (i = NUM_SMS - 1; i >= 0; i = i - 1)
            if (sm_err[i]) begin
                any_sm_err = 1'b1;
                first_sm   = i[SM_W-1:0];
            end
    end

    // Combined counters are the sum, except the maximum stack depth, whose combination is the maximum.
    always @(*) begin
        perf_value = 64'd0;
        for (i = 0; i < NUM_SMS; i = i + 1)
            if (perf_sel[12:5] == 8'hFF || perf_sel[12:5] == i[7:0]) begin
                if (perf_sel[4:0] == `SIMT_PERF_MAX_STACK_DEPTH && max_is_max)
                    perf_value = sm_perf[i*64 +: 64] > perf_value ? sm_perf[i*64 +: 64] : perf_value;
                else
                    perf_value = perf_value + sm_perf[i*64 +: 64];
            end
    end

    // An SM that does not exist reads as an empty slot (docs/gpu.md "Debug view").
    always @(*) begin
        dbg_warp    = 32'd0;
        dbg_block   = 32'd0;
        dbg_pc      = 32'd0;
        dbg_last_pc = 32'd0;
        for (i = 0; i < NUM_SMS; i = i + 1)
            if (dbg_sm == i[7:0]) begin
                dbg_warp    = {23'd0, sm_dbg_wib[i*5 +: 5], sm_dbg_retired[i], sm_dbg_state[i*3 +: 3]};
                dbg_block   = sm_dbg_block[i*32 +: 32];
                dbg_pc      = {15'd0, sm_dbg_pc[i*17 +: 17]};
                dbg_last_pc = {15'd0, sm_dbg_last_pc[i*17 +: 17]};
            end
    end
endmodule
