// simt_regfile — the SM's register file, one partition per integer lane (docs/sm.md).
//
// Every lane owns RF_DEPTH rows of 32 bits; all lanes of a row are addressed together, so a row of
// NUM_LANES threads reads or writes one register in one cycle. Register r of row k of the warp in slot
// s lives at row base(s) + r*ROWS + k with base(s) = s*regs*ROWS (ROWS = WARP_SIZE/NUM_LANES): the
// address is formed by the back end; this unit only stores rows.
//
// Three read ports (operands A, B, C) and one write port. Reads are registered (synchronous RAM): the
// data of raddr_x appears on rdata_x the cycle after the address. A read of the row written in the same
// cycle returns the OLD value (read-before-write), which is what a block RAM in read-first mode does and
// what the pipeline needs: a warp is never in the pipeline twice, so no forwarding is wanted.
//
// There is no reset: the rows hold registers whose launch values are written by the SM before use,
// and a resettable array would not map onto RAM. Until written, a row reads as X on a 4-state simulator.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
module simt_regfile #(
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES, // lanes = partitions
    parameter integer RF_DEPTH     = `SIMT_DEFAULT_RF_DEPTH // rows per lane partition
) (
    input  wire                      clk,
    input  wire [$clog2(RF_DEPTH)-1:0]  raddr_a,
    input  wire [$clog2(RF_DEPTH)-1:0]  raddr_b,
    input  wire [$clog2(RF_DEPTH)-1:0]  raddr_c,
    output wire [NUM_LANES*32-1:0]   rdata_a,
    output wire [NUM_LANES*32-1:0]   rdata_b,
    output wire [NUM_LANES*32-1:0]   rdata_c,
    input  wire [NUM_LANES-1:0]      we,
    input  wire [$clog2(RF_DEPTH)-1:0]  waddr,
    input  wire [NUM_LANES*32-1:0]   wdata
);

    // ---- parameter checks: stop both simulators at time 0 with a readable message ----------------
    generate
        `SIMT_CHECK_NUM_LANES("simt_regfile", NUM_LANES)
        `SIMT_CHECK_RF_DEPTH("simt_regfile", RF_DEPTH)
    endgenerate

    // ---- one RAM per lane ----------------------------------------------------------------------
    // The read registers of all lanes are one vector per port, each lane's block writing its own slice:
    // per-lane registers joined by `assign rdata_x[lane*32 +: 32] = q` would make Icarus rebuild (and
    // re-resolve bit by bit) the whole NUM_LANES*32-bit net once per lane per cycle.
    reg [NUM_LANES*32-1:0] q_a, q_b, q_c;
    assign rdata_a = q_a;
    assign rdata_b = q_b;
    assign rdata_c = q_c;

    genvar lane;
    generate
        for (lane = 0; lane < NUM_LANES; lane = lane + 1) begin : g_lane
            reg [31:0] mem [0:RF_DEPTH-1];

            // Write port: only the enabled lanes of the row change (inactive threads keep their value).
            always @(posedge clk) begin
                if (we[lane]) mem[waddr] <= wdata[lane*32 +: 32];
            end

            // Read ports: non-blocking reads sample the array before this edge's write lands, so a
            // same-row read returns the old value.
            always @(posedge clk) begin
                q_a[lane*32 +: 32] <= mem[raddr_a];
                q_b[lane*32 +: 32] <= mem[raddr_b];
                q_c[lane*32 +: 32] <= mem[raddr_c];
            end
        end
    endgenerate

endmodule
