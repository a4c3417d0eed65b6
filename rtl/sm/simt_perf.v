`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
// Performance counters of one SM (docs/isa.md section 11; indices SIMT_PERF_* in simt_isa.vh).
// Event counts must equal the golden model's Counters; cycles and idle cycles depend on timing.
// Test-only fault 15 (SIMT_FAULTS builds, docs/sm.md "Test-only fault hooks"); unit bench
// tb/tests/unit/test_perf.py.
module simt_perf #(
    parameter integer WARP_SIZE  = `SIMT_DEFAULT_WARP_SIZE, // threads per warp
    parameter integer DEPTH_W    = 5,  // width of a stack depth
    parameter integer NUM_BLOCKS = `SIMT_DEFAULT_NUM_BLOCKS // block slots
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire                 run,           // a launch is running: cycles and idle cycles count
    input  wire                 idle_cycle,    // the back end had nothing to do this cycle
    input  wire                 retire,        // a warp-instruction retires this cycle
    input  wire [2:0]           cls,           // its class (SIMT_CLS_*)
    input  wire [WARP_SIZE-1:0] mask,          // its active mask
    input  wire                 divergent,     // a divergent branch was resolved
    input  wire                 pushes,        // stack pushes of the instruction (0/1)
    input  wire [DEPTH_W-1:0]   pops,          // stack pops of the instruction
    input  wire [DEPTH_W-1:0]   depth,         // deepest stack depth of the instruction
    input  wire                 depth_valid,
    input  wire                 shared_access, // retire of a shared LD/ST
    input  wire [6:0]           passes,        // its passes
    input  wire                 global_access, // retire of an LDG/STG
    input  wire [5:0]           txns,          // its transactions
    input  wire                 bar_arrive,    // a warp arrived at a barrier
    input  wire [NUM_BLOCKS-1:0] bar_release,  // barriers released this cycle (one bit per block slot)
    input  wire [5:0]           bar_waiting,   // warps waiting at a barrier this cycle
    input  wire [4:0]           sel,
    output wire [63:0]          value
);
    reg [63:0] cnt [0:31];
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    // Fault 15: idle cycles count also while no launch runs.
    wire idle_run = run || simt_fault == `SIMT_FAULT_IDLE_UNGATED;
`else
    wire idle_run = run;
`endif

    // Population counts of the active mask and of the released barriers.
    function automatic [6:0] popcount(input [WARP_SIZE-1:0] m);
        integer bit_i;
        begin
            popcount = 7'd0;
            for (bit_i = 0; bit_i < WARP_SIZE; bit_i = bit_i + 1) popcount = popcount + {6'd0, m[bit_i]};
        end
    endfunction
    function automatic [4:0] nreleased(input [NUM_BLOCKS-1:0] m);
        integer bit_i;
        begin
            nreleased = 5'd0;
            for (bit_i = 0; bit_i < NUM_BLOCKS; bit_i = bit_i + 1) nreleased = nreleased + {4'd0, m[bit_i]};
        end
    endfunction

    wire [63:0] nthreads = {57'd0, popcount(mask)};
    integer j;
    always @(posedge clk) begin
        if (rst) begin
            for (j = 0; j < 32; j = j + 1) cnt[j] <= 64'd0;
        end else begin
            // Stopped when the launch ends, so a counter read later still gives the kernel's cycles.
            if (run) cnt[`SIMT_PERF_CYCLES] <= cnt[`SIMT_PERF_CYCLES] + 64'd1;
            if (idle_run && idle_cycle) cnt[`SIMT_PERF_IDLE_CYCLES] <= cnt[`SIMT_PERF_IDLE_CYCLES] + 64'd1;
            if (retire) begin
                cnt[`SIMT_PERF_WARP_INSTRS]   <= cnt[`SIMT_PERF_WARP_INSTRS] + 64'd1;
                cnt[`SIMT_PERF_THREAD_INSTRS] <= cnt[`SIMT_PERF_THREAD_INSTRS] + nthreads;
                cnt[`SIMT_PERF_WARP_ALU + {2'd0, cls}]   <= cnt[`SIMT_PERF_WARP_ALU + {2'd0, cls}] + 64'd1;
                cnt[`SIMT_PERF_THREAD_ALU + {2'd0, cls}] <= cnt[`SIMT_PERF_THREAD_ALU + {2'd0, cls}] + nthreads;
            end
            if (divergent) cnt[`SIMT_PERF_DIVERGENT_BRANCHES] <= cnt[`SIMT_PERF_DIVERGENT_BRANCHES] + 64'd1;
            cnt[`SIMT_PERF_STACK_PUSHES] <= cnt[`SIMT_PERF_STACK_PUSHES] + {63'd0, pushes};
            cnt[`SIMT_PERF_STACK_POPS]   <= cnt[`SIMT_PERF_STACK_POPS] + {{(64 - DEPTH_W){1'b0}}, pops};
            if (depth_valid && {{(64 - DEPTH_W){1'b0}}, depth} > cnt[`SIMT_PERF_MAX_STACK_DEPTH])
                cnt[`SIMT_PERF_MAX_STACK_DEPTH] <= {{(64 - DEPTH_W){1'b0}}, depth};
            if (shared_access) begin
                cnt[`SIMT_PERF_SHARED_ACCESSES] <= cnt[`SIMT_PERF_SHARED_ACCESSES] + 64'd1;
                cnt[`SIMT_PERF_SHARED_PASSES]   <= cnt[`SIMT_PERF_SHARED_PASSES] + {57'd0, passes};
            end
            if (global_access) begin
                cnt[`SIMT_PERF_GLOBAL_ACCESSES]     <= cnt[`SIMT_PERF_GLOBAL_ACCESSES] + 64'd1;
                cnt[`SIMT_PERF_GLOBAL_TRANSACTIONS] <= cnt[`SIMT_PERF_GLOBAL_TRANSACTIONS] + {58'd0, txns};
            end
            if (bar_arrive) cnt[`SIMT_PERF_BARRIER_ARRIVALS] <= cnt[`SIMT_PERF_BARRIER_ARRIVALS] + 64'd1;
            cnt[`SIMT_PERF_BARRIER_RELEASES] <= cnt[`SIMT_PERF_BARRIER_RELEASES] + {59'd0, nreleased(bar_release)};
            cnt[`SIMT_PERF_BARRIER_WAIT_CYCLES] <= cnt[`SIMT_PERF_BARRIER_WAIT_CYCLES] + {58'd0, bar_waiting};
        end
    end
    assign value = cnt[sel];
endmodule
