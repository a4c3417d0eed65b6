// Properties of simt_warp_sched (docs/sm.md): proved by k-induction in `make formal` (tools/formal/jobs.py).
//
// Contract (what the SM and tb/tests/unit/test_warp_sched.py drive): any ready vector in any cycle, take
// in any cycle (a take without grant_valid must change nothing), reset first.
// Properties:
//   grant_valid is exactly "some warp ready", and the grant names a ready warp in 0..NUM_WARPS-1
//   (one index: one grant at a time);
//   round robin: no ready warp lies between the search start and the grant (cyclically);
//   fairness: a warp w (any warp: $anyconst) that is ready at every take is granted within NUM_WARPS
//   takes, i.e. at most NUM_WARPS-1 takes of other warps in a row while it waits.
// The induction invariant ties the wait counter to the pointer: waited + distance(start, w) < NUM_WARPS.
module simt_warp_sched_props #(
    parameter integer NUM_WARPS = 5
) (
    input wire                 clk,
    input wire                 rst,
    input wire [NUM_WARPS-1:0] ready,
    input wire                 take
);
    localparam integer W = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1;
    localparam integer N = NUM_WARPS;

    wire         grant_valid;
    wire [W-1:0] grant;
    simt_warp_sched #(.NUM_WARPS(NUM_WARPS)) dut (
        .clk(clk), .rst(rst), .ready(ready), .take(take), .grant_valid(grant_valid), .grant(grant)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // the watched warp
    (* anyconst *) reg [W-1:0] w;
    always @* assume (w < N);

    // takes of other warps in a row while w was ready
    reg [W:0] waited;
    always @(posedge clk) begin
        if (rst) waited <= 0;
        else if (take && grant_valid) waited <= (grant == w || !ready[w]) ? 0 : waited + 1'b1;
    end

    // peek: start = dut.start
    (* keep *) wire [W-1:0] start;
    // cyclic distance from a to b (both < N)
    function automatic integer dist(input integer a, input integer b);
        dist = (b >= a) ? b - a : b + N - a;
    endfunction

    integer k;
    always @* begin
        if (!init) begin
`ifdef INVARIANTS
            assert (start < N);
            assert (waited + dist(start, w) <= N - 1);
`endif
            assert (grant_valid == |ready);
            if (grant_valid) begin
                assert (grant < N);
                assert (ready[grant]);
                for (k = 0; k < N; k = k + 1)
                    if (ready[k]) assert (dist(start, k) >= dist(start, grant));
            end
            assert (waited <= N - 1);
        end
    end
endmodule
