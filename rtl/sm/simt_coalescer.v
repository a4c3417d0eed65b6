// simt_coalescer — splits one global warp access into segment transactions (docs/isa.md 6.3).
//
// An access (mask, WARP_SIZE word addresses, store flag, WARP_SIZE data words) is taken on the
// in_valid/in_ready handshake and held in registers. Every cycle the unit presents one transaction:
// the segment of the lowest lane not yet served, every pending lane in that segment (`out_lanes`),
// the segment's word mask and, for stores, per masked word the data of the HIGHEST lane writing it
// (the same rule as spec.model.coalesce). When the consumer takes it (out_valid & out_ready)
// those lanes are retired; the transaction that retires the last pending lanes carries `out_last`.
// Transactions are therefore emitted in the order of their lowest lane, numbered by `out_index`.
//
// Empty access (mask == 0): it is accepted and answered by ONE marker beat with out_empty = 1,
// out_last = 1, out_index = 0, out_wmask = 0, out_lanes = 0 — a completion carrying no transaction.
// Consumers must not issue that beat to memory (simt_gmem_unit completes the access with 0
// transactions). So an empty access can never hang the unit.
//
// A new access is accepted in the cycle the previous access's last beat leaves (in_ready depends
// combinationally on out_ready), so back-to-back accesses run at one transaction per cycle.
// Loads output out_wdata = 0.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
module simt_coalescer #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE, // threads per warp
    parameter integer SEG_WORDS = `SIMT_DEFAULT_SEG_WORDS // words per memory segment
) (
    input  wire                           clk,
    input  wire                           rst,
    // access in
    input  wire                           in_valid,
    output wire                           in_ready,
    input  wire [WARP_SIZE-1:0]           in_mask,
    input  wire [WARP_SIZE*32-1:0]        in_addr,   // lane i: word address [i*32 +: 32]
    input  wire                           in_store,
    input  wire [WARP_SIZE*32-1:0]        in_wdata,  // lane i: store data [i*32 +: 32]
    // transactions out
    output wire                           out_valid,
    input  wire                           out_ready,
    output reg  [31:0]                    out_base,  // segment base word address (SEG_WORDS aligned)
    output reg  [SEG_WORDS-1:0]           out_wmask, // bit i: word out_base + i is accessed
    output reg  [SEG_WORDS*32-1:0]        out_wdata, // word i: store data of word out_base + i
    output wire                           out_store,
    output wire                           out_last,  // final beat of the access
    output wire [$clog2(WARP_SIZE)-1:0]   out_index, // transaction number within the access
    output reg  [WARP_SIZE-1:0]           out_lanes, // lanes served by this transaction
    output wire                           out_empty  // marker beat of an empty access (no transaction)
);
    localparam integer IDX_W = $clog2(WARP_SIZE);
    localparam [31:0] OFF_MASK = SEG_WORDS - 1;  // word-in-segment bits of an address

    // Parameter checks: stop both simulators at time 0 with a readable message.
    generate
        `SIMT_CHECK_WARP_SIZE("simt_coalescer", WARP_SIZE)
        `SIMT_CHECK_SEG_WORDS("simt_coalescer", SEG_WORDS)
    endgenerate

    reg                      busy_q;   // an access (or its empty marker) is being emitted
    reg  [WARP_SIZE-1:0]     pend_q;   // active lanes not yet covered by an emitted transaction
    reg                      store_q;
    reg  [IDX_W-1:0]         idx_q;
    reg  [WARP_SIZE*32-1:0]  addr_q;
    reg  [WARP_SIZE*32-1:0]  data_q;

    // The lowest pending lane (one-hot) decides the segment of this cycle's transaction.
    wire [WARP_SIZE-1:0] first = pend_q & (~pend_q + {{(WARP_SIZE-1){1'b0}}, 1'b1});

    integer l, w;

    always @* begin : base_of_first_lane
        out_base = 32'd0;
        for (l = 0; l < WARP_SIZE; l = l + 1)
            if (first[l]) out_base = addr_q[l*32 +: 32] & ~OFF_MASK;
    end

    always @* begin : lanes_in_segment
        for (l = 0; l < WARP_SIZE; l = l + 1)
            out_lanes[l] = pend_q[l] && (addr_q[l*32 +: 32] & ~OFF_MASK) == out_base;
    end

    // Word mask and store data; lanes are visited in increasing order so the highest lane wins.
    always @* begin : words_of_segment
        out_wmask = {SEG_WORDS{1'b0}};
        out_wdata = {SEG_WORDS*32{1'b0}};
        for (w = 0; w < SEG_WORDS; w = w + 1)
            for (l = 0; l < WARP_SIZE; l = l + 1)
                if (out_lanes[l] && (addr_q[l*32 +: 32] & OFF_MASK) == w) begin
                    out_wmask[w] = 1'b1;
                    if (store_q) out_wdata[w*32 +: 32] = data_q[l*32 +: 32];
                end
    end

    assign out_valid = busy_q;
    assign out_store = store_q;
    assign out_index = idx_q;
    assign out_empty = pend_q == {WARP_SIZE{1'b0}};
    assign out_last  = (pend_q & ~out_lanes) == {WARP_SIZE{1'b0}};

    wire out_fire = busy_q && out_ready;
    assign in_ready = !busy_q || (out_ready && out_last);
    wire in_fire = in_valid && in_ready;

    always @(posedge clk) begin
        if (rst) busy_q <= 1'b0;
        else if (in_fire) busy_q <= 1'b1;
        else if (out_fire && out_last) busy_q <= 1'b0;
    end

    always @(posedge clk) begin
        if (rst) begin
            pend_q  <= {WARP_SIZE{1'b0}};
            idx_q   <= {IDX_W{1'b0}};
            store_q <= 1'b0;
        end else if (in_fire) begin
            pend_q  <= in_mask;
            idx_q   <= {IDX_W{1'b0}};
            store_q <= in_store;
        end else if (out_fire) begin
            pend_q  <= pend_q & ~out_lanes;
            idx_q   <= idx_q + {{(IDX_W-1){1'b0}}, 1'b1};
        end
    end

    // The payload needs no reset: it is only looked at while busy_q is set.
    always @(posedge clk) begin
        if (in_fire) begin
            addr_q <= in_addr;
            data_q <= in_wdata;
        end
    end
endmodule
