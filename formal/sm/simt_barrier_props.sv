// Properties of simt_barrier (docs/sm.md, docs/isa.md 5): proved by k-induction in `make formal`.
//
// Contract (tb/tests/unit/test_barrier.py and the SM): reset first; init gives a slot 1..NUM_WARPS warps;
// arrive and exit name a slot whose block still has a running warp (one that has neither arrived at the
// current barrier nor exited), two events on one slot in one cycle need two running warps, and events on
// a slot never come in the cycle of its init. Slot numbers >= NUM_BLOCKS are legal and must be ignored.
// The wrapper keeps the block's warps as counts (running = warps - arrived - exited, the isa.md 5 view).
// Properties, per slot:
//   release exactly when every non-exited warp of the block has arrived and at least one is waiting:
//   released[s] in the cycle after the events that made running == 0 with arrived > 0, never otherwise;
//   the release puts the arrived warps back to running (the next barrier starts from zero);
//   an out-of-range slot number changes nothing.
module simt_barrier_props #(
    parameter integer NUM_BLOCKS = 3,
    parameter integer NUM_WARPS  = 3
) (
    input wire                  clk,
    input wire                  rst,
    input wire                  init,
    input wire [1:0]            init_slot,
    input wire [1:0]            init_warps,
    input wire                  arrive,
    input wire [1:0]            arrive_slot,
    input wire                  exit,
    input wire [1:0]            exit_slot
);
    // Widths: slot numbers are 2 bits with NUM_BLOCKS = 3 (slot 3 is out of range), init_warps 2 bits.
    localparam integer CW = $clog2(NUM_WARPS + 1);

    wire [NUM_BLOCKS-1:0] released;
    simt_barrier #(.NUM_BLOCKS(NUM_BLOCKS), .NUM_WARPS(NUM_WARPS)) dut (
        .clk(clk), .rst(rst), .init(init), .init_slot(init_slot), .init_warps(init_warps),
        .arrive(arrive), .arrive_slot(arrive_slot), .exit(exit), .exit_slot(exit_slot), .released(released)
    );

    reg init_q = 1'b1;
    always @(posedge clk) init_q <= 1'b0;
    always @* if (init_q) assume (rst);

    // the unit's per-slot counters (NUM_BLOCKS = 3, CW = 2)
    // peek: p_warps[1:0] = dut.g_slot[0].warps
    // peek: p_warps[3:2] = dut.g_slot[1].warps
    // peek: p_warps[5:4] = dut.g_slot[2].warps
    // peek: p_arrived[1:0] = dut.g_slot[0].arrived
    // peek: p_arrived[3:2] = dut.g_slot[1].arrived
    // peek: p_arrived[5:4] = dut.g_slot[2].arrived
    // peek: p_finished[1:0] = dut.g_slot[0].finished
    // peek: p_finished[3:2] = dut.g_slot[1].finished
    // peek: p_finished[5:4] = dut.g_slot[2].finished
    (* keep *) wire [NUM_BLOCKS*CW-1:0] p_warps, p_arrived, p_finished;
    // The release output itself is a register of the unit (released = rel_q), so it is compared directly.

    genvar s;
    generate
        for (s = 0; s < NUM_BLOCKS; s = s + 1) begin : g_s
            reg [CW-1:0] warps, arrived, exited;
            reg          rel;
            wire hi = init && init_slot == s;
            wire ha = arrive && arrive_slot == s;
            wire he = exit && exit_slot == s;
            wire [CW:0] running = warps - arrived - exited;

            // contract
            always @* begin
                if (!init_q && !rst) begin
                    if (hi) assume (init_warps >= 1 && init_warps <= NUM_WARPS);
                    if (hi) assume (!ha && !he);
                    if (!hi) assume ({1'b0, running} >= ha + he);
                end
            end

            wire [CW:0] arr_n = arrived + ha;
            wire [CW:0] ext_n = exited + he;
            wire        all_in = (arr_n + ext_n == warps) && arr_n != 0;
            always @(posedge clk) begin
                if (rst) begin
                    warps <= 0; arrived <= 0; exited <= 0; rel <= 1'b0;
                end else if (hi) begin
                    warps <= init_warps; arrived <= 0; exited <= 0; rel <= 1'b0;
                end else begin
                    arrived <= all_in ? 0 : arr_n;
                    exited  <= ext_n;
                    rel     <= all_in;
                end
            end

            always @* begin
                if (!init_q) begin
                    assert (released[s] == rel);
                    // the unit's counters are the block's counts (the induction invariant)
`ifdef INVARIANTS
                    assert (p_warps[s*CW +: CW] == warps);
                    assert (p_arrived[s*CW +: CW] == arrived);
                    assert (p_finished[s*CW +: CW] == exited);
                    assert ({1'b0, arrived} + {1'b0, exited} <= {1'b0, warps});
`endif
                end
            end
        end
    endgenerate
endmodule
