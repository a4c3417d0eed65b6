`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
// Performance counters of one SM (docs/isa.md section 11; indices SIMT_PERF_* in simt_isa.vh).
// Event counts must equal the golden model's Counters; cycles and idle cycles depend on timing.
// The events are registered first (`ev_` registers) and counted one cycle later, so the 64-bit adders do not
// sit behind the commit stage's logic: in the 8-lane SM's static timing the path commit -> warp table ->
// divergence stack -> a counter's ripple incrementer was the critical one (docs/ppa.md "Timing"). A counter
// therefore shows an event one cycle after its port reports it; the host reads counters only after a launch
// has ended (docs/gpu.md), and `run` is delayed with the events, so cycles still counts the launch's cycles.
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

    // ---- event registers: what the ports reported in the previous cycle (cleared by rst) ----
    reg                  ev_run, ev_idle, ev_retire, ev_divergent, ev_pushes, ev_depth_valid;
    reg                  ev_shared, ev_global, ev_bar_arrive;
    reg [2:0]            ev_cls;
    reg [6:0]            ev_nthreads;  // popcount of the retire's mask (taken before the register)
    reg [DEPTH_W-1:0]    ev_pops, ev_depth;
    reg [6:0]            ev_passes;
    reg [5:0]            ev_txns, ev_bar_waiting;
    reg [4:0]            ev_released;
    always @(posedge clk) begin
        if (rst) begin
            {ev_run, ev_idle, ev_retire, ev_divergent, ev_pushes, ev_depth_valid} <= 6'd0;
            {ev_shared, ev_global, ev_bar_arrive} <= 3'd0;
            ev_cls <= 3'd0; ev_nthreads <= 7'd0; ev_pops <= {DEPTH_W{1'b0}}; ev_depth <= {DEPTH_W{1'b0}};
            ev_passes <= 7'd0; ev_txns <= 6'd0; ev_bar_waiting <= 6'd0; ev_released <= 5'd0;
        end else begin
            ev_run         <= run;
            ev_idle        <= idle_run && idle_cycle;
            ev_retire      <= retire;
            ev_cls         <= cls;
            ev_nthreads    <= popcount(mask);
            ev_divergent   <= divergent;
            ev_pushes      <= pushes;
            ev_pops        <= pops;
            ev_depth       <= depth;
            ev_depth_valid <= depth_valid;
            ev_shared      <= shared_access;
            ev_passes      <= passes;
            ev_global      <= global_access;
            ev_txns        <= txns;
            ev_bar_arrive  <= bar_arrive;
            ev_released    <= nreleased(bar_release);
            ev_bar_waiting <= bar_waiting;
        end
    end

    // ---- counters ----
    wire [63:0] nthreads = {57'd0, ev_nthreads};
    // The deepest depth is only ever written from ev_depth, so its bits above DEPTH_W stay 0 and the
    // comparison needs only the low bits (a 64-bit comparator would sit on the same path as the adders).
    wire [DEPTH_W-1:0] max_depth = cnt[`SIMT_PERF_MAX_STACK_DEPTH][DEPTH_W-1:0];
    integer j;
    always @(posedge clk) begin
        if (rst) begin
            for (j = 0; j < 32; j = j + 1) cnt[j] <= 64'd0;
        end else begin
            // Stopped when the launch ends, so a counter read later still gives the kernel's cycles.
            if (ev_run) cnt[`SIMT_PERF_CYCLES] <= cnt[`SIMT_PERF_CYCLES] + 64'd1;
            if (ev_idle) cnt[`SIMT_PERF_IDLE_CYCLES] <= cnt[`SIMT_PERF_IDLE_CYCLES] + 64'd1;
            if (ev_retire) begin
                cnt[`SIMT_PERF_WARP_INSTRS]   <= cnt[`SIMT_PERF_WARP_INSTRS] + 64'd1;
                cnt[`SIMT_PERF_THREAD_INSTRS] <= cnt[`SIMT_PERF_THREAD_INSTRS] + nthreads;
                cnt[`SIMT_PERF_WARP_ALU + {2'd0, ev_cls}]   <= cnt[`SIMT_PERF_WARP_ALU + {2'd0, ev_cls}] + 64'd1;
                cnt[`SIMT_PERF_THREAD_ALU + {2'd0, ev_cls}] <= cnt[`SIMT_PERF_THREAD_ALU + {2'd0, ev_cls}] + nthreads;
            end
            if (ev_divergent) cnt[`SIMT_PERF_DIVERGENT_BRANCHES] <= cnt[`SIMT_PERF_DIVERGENT_BRANCHES] + 64'd1;
            cnt[`SIMT_PERF_STACK_PUSHES] <= cnt[`SIMT_PERF_STACK_PUSHES] + {63'd0, ev_pushes};
            cnt[`SIMT_PERF_STACK_POPS]   <= cnt[`SIMT_PERF_STACK_POPS] + {{(64 - DEPTH_W){1'b0}}, ev_pops};
            if (ev_depth_valid && ev_depth > max_depth)
                cnt[`SIMT_PERF_MAX_STACK_DEPTH] <= {{(64 - DEPTH_W){1'b0}}, ev_depth};
            if (ev_shared) begin
                cnt[`SIMT_PERF_SHARED_ACCESSES] <= cnt[`SIMT_PERF_SHARED_ACCESSES] + 64'd1;
                cnt[`SIMT_PERF_SHARED_PASSES]   <= cnt[`SIMT_PERF_SHARED_PASSES] + {57'd0, ev_passes};
            end
            if (ev_global) begin
                cnt[`SIMT_PERF_GLOBAL_ACCESSES]     <= cnt[`SIMT_PERF_GLOBAL_ACCESSES] + 64'd1;
                cnt[`SIMT_PERF_GLOBAL_TRANSACTIONS] <= cnt[`SIMT_PERF_GLOBAL_TRANSACTIONS] + {58'd0, ev_txns};
            end
            if (ev_bar_arrive) cnt[`SIMT_PERF_BARRIER_ARRIVALS] <= cnt[`SIMT_PERF_BARRIER_ARRIVALS] + 64'd1;
            cnt[`SIMT_PERF_BARRIER_RELEASES] <= cnt[`SIMT_PERF_BARRIER_RELEASES] + {59'd0, ev_released};
            cnt[`SIMT_PERF_BARRIER_WAIT_CYCLES] <= cnt[`SIMT_PERF_BARRIER_WAIT_CYCLES] + {58'd0, ev_bar_waiting};
        end
    end
    assign value = cnt[sel];
endmodule
