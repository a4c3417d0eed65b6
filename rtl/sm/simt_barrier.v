// simt_barrier — barrier counters of the resident blocks, one per block slot (docs/sm.md, docs/isa.md §5).
//
// Per slot: warps (the block's warp count, set by init), arrived (warps waiting at the current BAR) and
// finished (warps that executed their final EXIT; they count as arrived for every later barrier).
// The slot releases when arrived + finished == warps and arrived > 0, i.e. every warp of the block has
// arrived or is done and at least one is waiting — the rule of docs/isa.md §5 (the golden model's
// Model._barrier_check). A block whose last warps just exit with nobody waiting releases nothing.
//
// Timing and simultaneous events (defined here, checked by tb/tests/unit/test_barrier.py):
//  * The events of one cycle are counted together and the release is registered: released[s] is high
//    for exactly one cycle, the cycle after the arrive/exit that completed the barrier. On that same
//    edge arrived is cleared, so an arrival in the cycle the pulse is visible counts toward the NEXT
//    barrier of the slot.
//  * arrive and exit for the same slot in the same cycle (two different warps): BOTH are counted before
//    the release test. This equals the model applying them one after the other: the first one cannot
//    release, since the other warp is still running at that point.
//  * Several slots may release in the same cycle; slots are independent (one bit each).
//  * init for a slot overrides an arrive/exit for that slot in the same cycle (the slot now belongs
//    to a new block; the old block had no running warps left).
//  * arrive/exit/init with a slot number >= NUM_BLOCKS (possible only when NUM_BLOCKS is not a power
//    of two) are ignored. init_warps must be 1..NUM_WARPS; with 0 the slot never releases.
//
// Port widths: slots are max(1, log2(NUM_BLOCKS)) bits, init_warps is log2(NUM_WARPS + 1) bits.
// The release output is called `released` because `release` is a Verilog keyword.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
module simt_barrier #(
    parameter integer NUM_BLOCKS = `SIMT_DEFAULT_NUM_BLOCKS, // resident block slots
    parameter integer NUM_WARPS  = `SIMT_DEFAULT_NUM_WARPS // largest warp count of a block
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  init,
    input  wire [((NUM_BLOCKS > 1) ? $clog2(NUM_BLOCKS) : 1)-1:0] init_slot,
    input  wire [$clog2(NUM_WARPS + 1)-1:0]                        init_warps,
    input  wire                  arrive,
    input  wire [((NUM_BLOCKS > 1) ? $clog2(NUM_BLOCKS) : 1)-1:0] arrive_slot,
    input  wire                  exit,
    input  wire [((NUM_BLOCKS > 1) ? $clog2(NUM_BLOCKS) : 1)-1:0] exit_slot,
    output wire [NUM_BLOCKS-1:0] released
);

    localparam integer SW = (NUM_BLOCKS > 1) ? $clog2(NUM_BLOCKS) : 1;
    localparam integer CW = $clog2(NUM_WARPS + 1); // counts 0..NUM_WARPS

    // ---- parameter checks ------------------------------------------------------------------------
    generate
        `SIMT_CHECK_NUM_BLOCKS("simt_barrier", NUM_BLOCKS)
        `SIMT_CHECK_NUM_WARPS("simt_barrier", NUM_WARPS)
    endgenerate

    genvar s;
    generate
        for (s = 0; s < NUM_BLOCKS; s = s + 1) begin : g_slot
            localparam [SW-1:0] SLOT = s;

            reg [CW-1:0] warps, arrived, finished;
            reg          rel_q;

            wire hit_init   = init   && init_slot   == SLOT;
            wire hit_arrive = arrive && arrive_slot == SLOT;
            wire hit_exit   = exit   && exit_slot   == SLOT;

            // Counts after this cycle's events (one extra bit: the sum may reach 2*NUM_WARPS if the
            // inputs break the protocol; it must not wrap onto warps then).
            wire [CW:0] arrived_n  = {1'b0, arrived}  + {{CW{1'b0}}, hit_arrive};
            wire [CW:0] finished_n = {1'b0, finished} + {{CW{1'b0}}, hit_exit};
            wire [CW+1:0] total_n  = {1'b0, arrived_n} + {1'b0, finished_n};
            wire complete = (total_n == {2'b00, warps}) && (arrived_n != 0);

            always @(posedge clk) begin
                if (rst) begin
                    warps <= {CW{1'b0}};
                    arrived <= {CW{1'b0}};
                    finished <= {CW{1'b0}};
                    rel_q <= 1'b0;
                end else if (hit_init) begin
                    warps <= init_warps;
                    arrived <= {CW{1'b0}};
                    finished <= {CW{1'b0}};
                    rel_q <= 1'b0;
                end else begin
                    // The release clears the arrivals; finished warps stay counted.
                    arrived <= complete ? {CW{1'b0}} : arrived_n[CW-1:0];
                    finished <= finished_n[CW-1:0];
                    rel_q <= complete;
                end
            end

            assign released[s] = rel_q;
        end
    endgenerate

endmodule
