// simt_warp_sched — round-robin choice of the next warp to issue (docs/sm.md).
//
// grant is the first warp w with ready[w] at or after the warp following the last TAKEN grant, wrapping
// around NUM_WARPS. grant_valid = |ready. The choice is combinational from ready and the pointer, so the
// pipeline sees it in the same cycle and answers with take; only a take moves the pointer (a grant that
// is not taken is offered again, or a better one if ready changed). After reset the search starts at
// warp 0.
//
// Fairness: after a warp w is taken, the pointer passes every other warp before it can return to w, so a
// warp that stays ready is granted within NUM_WARPS takes.
//
// The SM only raises ready for warps in state READY (not busy in the pipeline, not waiting at a
// barrier or on memory, not done), which is why a warp is never in the pipeline twice.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
module simt_warp_sched #(
    parameter integer NUM_WARPS = `SIMT_DEFAULT_NUM_WARPS // resident warps (any count, powers of two not required)
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [NUM_WARPS-1:0] ready,
    input  wire                 take,
    output wire                 grant_valid,
    // log2(NUM_WARPS) bits, at least 1 (with NUM_WARPS = 1 the grant is always 0).
    output reg  [((NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1)-1:0] grant
);

    localparam integer W = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1;
    localparam integer LAST = NUM_WARPS - 1;

    // ---- parameter check -------------------------------------------------------------------------
    generate
        `SIMT_CHECK_NUM_WARPS("simt_warp_sched", NUM_WARPS)
    endgenerate

    // start: the warp following the last taken one (where the search begins).
    reg [W-1:0] start;

    // at_or_after[w]: warp w is not before start, i.e. it is found before the search wraps.
    wire [NUM_WARPS-1:0] at_or_after = {NUM_WARPS{1'b1}} << start;

    // Two priority searches: among the ready warps at or after start, else (wrapped) among all ready
    // warps; the lowest index wins in each.
    wire [NUM_WARPS-1:0] ready_hi = ready & at_or_after;
    reg  [W-1:0] first_hi, first_any;
    integer i;
    always @* begin
        first_hi  = {W{1'b0}};
        first_any = {W{1'b0}};
        for (i = NUM_WARPS - 1; i >= 0; i = i - 1) begin
            if (ready_hi[i]) first_hi = i[W-1:0];
            if (ready[i])    first_any = i[W-1:0];
        end
    end

    assign grant_valid = |ready;

    always @* grant = (|ready_hi) ? first_hi : first_any;

    // Only a taken grant moves the pointer (to the warp after it, wrapping at NUM_WARPS, which need not
    // be a power of two).
    always @(posedge clk) begin
        if (rst)                       start <= {W{1'b0}};
        else if (take && grant_valid)  start <= (grant == LAST[W-1:0]) ? {W{1'b0}} : grant + 1'b1;
    end

endmodule
