// Properties of simt_coalescer (docs/isa.md 6.3): proved by k-induction in `make formal`.
//
// Contract (simt_gmem_unit and tb/tests/unit/test_coalescer.py): reset first; any access on in_* in any
// cycle (it is captured only on in_valid & in_ready), out_ready free. The wrapper captures the access at
// acceptance and keeps the lanes served so far.
// Properties of every transaction (out_valid):
//   it serves only pending active lanes (each active lane exactly once), at least one unless the access
//   is empty, and among them the lowest pending lane (transactions in order of their lowest lane);
//   all its lanes lie in the segment out_base, and no pending lane left for later does (one transaction
//   per distinct segment: transactions <= active lanes); out_wmask is exactly the words its lanes touch,
//   a store word carries the data of the HIGHEST lane writing it, a load carries no data;
//   out_last exactly when no active lane is left after it; out_index counts the access's transactions;
//   the empty access is one marker beat (out_empty, out_last, index 0, no lanes, no words);
//   valid/ready: a transaction not taken is offered again unchanged; in_ready = idle or last beat taken.
module simt_coalescer_props #(
    parameter integer WARP_SIZE = 4,
    parameter integer SEG_WORDS = 2
) (
    input wire                    clk,
    input wire                    rst,
    input wire                    in_valid,
    input wire [WARP_SIZE-1:0]    in_mask,
    input wire [WARP_SIZE*32-1:0] in_addr,
    input wire                    in_store,
    input wire [WARP_SIZE*32-1:0] in_wdata,
    input wire                    out_ready
);
    localparam integer IDX_W = $clog2(WARP_SIZE);
    localparam [31:0] OFF = SEG_WORDS - 1;

    wire                   in_ready, out_valid, out_store, out_last, out_empty;
    wire [31:0]            out_base;
    wire [SEG_WORDS-1:0]   out_wmask;
    wire [SEG_WORDS*32-1:0] out_wdata;
    wire [IDX_W-1:0]       out_index;
    wire [WARP_SIZE-1:0]   out_lanes;
    simt_coalescer #(.WARP_SIZE(WARP_SIZE), .SEG_WORDS(SEG_WORDS)) dut (
        .clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(in_ready), .in_mask(in_mask),
        .in_addr(in_addr), .in_store(in_store), .in_wdata(in_wdata), .out_valid(out_valid),
        .out_ready(out_ready), .out_base(out_base), .out_wmask(out_wmask), .out_wdata(out_wdata),
        .out_store(out_store), .out_last(out_last), .out_index(out_index), .out_lanes(out_lanes),
        .out_empty(out_empty)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // ---- the access as accepted, and the lanes served so far
    reg                    busy;
    reg [WARP_SIZE-1:0]    c_mask, served;
    reg [WARP_SIZE*32-1:0] c_addr, c_data;
    reg                    c_store;
    reg [IDX_W:0]          beats;
    wire in_fire  = in_valid && in_ready;
    wire out_fire = out_valid && out_ready;
    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0; served <= 0; beats <= 0; c_mask <= 0; c_store <= 1'b0;
        end else if (in_fire) begin
            busy <= 1'b1; served <= 0; beats <= 0;
            c_mask <= in_mask; c_addr <= in_addr; c_data <= in_wdata; c_store <= in_store;
        end else if (out_fire) begin
            served <= served | out_lanes;
            beats <= beats + 1'b1;
            if (out_last) busy <= 1'b0;
        end
    end
    wire [WARP_SIZE-1:0] pend = c_mask & ~served;

    // ---- the unit's registers are the access's state (induction invariant)
    // peek: p_busy = dut.busy_q
    // peek: p_pend = dut.pend_q
    // peek: p_store = dut.store_q
    // peek: p_idx = dut.idx_q
    // peek: p_addr = dut.addr_q
    // peek: p_data = dut.data_q
    (* keep *) wire p_busy, p_store;
    (* keep *) wire [WARP_SIZE-1:0] p_pend;
    (* keep *) wire [IDX_W-1:0] p_idx;
    (* keep *) wire [WARP_SIZE*32-1:0] p_addr, p_data;

    function automatic [31:0] seg(input [31:0] a);
        seg = a & ~OFF;
    endfunction

    integer l, w;
    reg [SEG_WORDS-1:0]    exp_wmask;
    reg [SEG_WORDS*32-1:0] exp_wdata;
    reg [WARP_SIZE-1:0]    lowest;
    always @* begin
        exp_wmask = 0;
        exp_wdata = 0;
        for (l = 0; l < WARP_SIZE; l = l + 1)
            if (out_lanes[l]) begin
                exp_wmask[c_addr[l*32 +: 32] & OFF] = 1'b1;
                if (c_store) exp_wdata[(c_addr[l*32 +: 32] & OFF)*32 +: 32] = c_data[l*32 +: 32];
            end
        lowest = pend & (~pend + 1'b1);
    end

    always @* begin
        if (!init) begin
`ifdef INVARIANTS
            assert (p_busy == busy);
            if (busy) begin
                assert (p_pend == pend);
                assert (p_store == c_store && p_addr == c_addr);
                if (c_store) assert (p_data == c_data);
                assert (p_idx == beats[IDX_W-1:0]);
                assert ((served & ~c_mask) == 0);
                assert (beats <= $countones(served));
            end
`endif
            assert (in_ready == (!busy || (out_ready && out_last)));
            assert (out_valid == busy);
            if (busy) begin
                // every transaction serves at least one lane: transactions <= active lanes
                assert (beats < WARP_SIZE);
                assert ((out_lanes & ~pend) == 0);
                assert (out_store == c_store);
                assert (out_base == seg(out_base));
                if (c_mask == 0) begin
                    assert (out_empty && out_last && out_index == 0 && out_wmask == 0 && out_lanes == 0);
                end else begin
                    assert (!out_empty);
                    assert (pend != 0);
                    assert ((out_lanes & lowest) == lowest);
                end
                for (l = 0; l < WARP_SIZE; l = l + 1) begin
                    if (out_lanes[l]) assert (seg(c_addr[l*32 +: 32]) == out_base);
                    if (pend[l] && !out_lanes[l]) assert (seg(c_addr[l*32 +: 32]) != out_base);
                end
                assert (out_wmask == exp_wmask);
                assert (out_wdata == exp_wdata);
                assert (out_last == ((pend & ~out_lanes) == 0));
                assert (out_index == beats[IDX_W-1:0]);
                // the access's lanes are all covered when its last transaction leaves
                if (out_last) assert ((served | out_lanes) == c_mask);
            end
        end
    end

    // valid/ready on the transaction side: an offered transaction stays unchanged until taken
    // (explicit registers rather than $past: the previous cycle's offer)
    reg                    h_hold;
    reg [31:0]             h_base;
    reg [WARP_SIZE-1:0]    h_lanes;
    reg [SEG_WORDS-1:0]    h_wmask;
    reg [SEG_WORDS*32-1:0] h_wdata;
    reg                    h_last;
    reg [IDX_W-1:0]        h_index;
    always @(posedge clk) begin
        h_hold  <= !init && !rst && out_valid && !out_ready;
        h_base  <= out_base;
        h_lanes <= out_lanes;
        h_wmask <= out_wmask;
        h_wdata <= out_wdata;
        h_last  <= out_last;
        h_index <= out_index;
    end
    always @* begin
        if (!init && h_hold) begin
            assert (out_valid);
            assert (out_base == h_base && out_lanes == h_lanes && out_wmask == h_wmask);
            assert (out_wdata == h_wdata && out_last == h_last && out_index == h_index);
        end
    end
endmodule
