// Properties of simt_gmem_unit (docs/sm.md "SM memory port", docs/isa.md 6.3/6.4): proved by k-induction in
// `make formal`, with the induction invariants at the end (INVARIANTS, proof job only).
//
// Contract (the SM and tb/tests/unit/test_gmem_unit.py): reset first; an access is held with its payload
// until acc_ready; mreq_ready and cpl_ready free; the memory answers each issued transaction once, with
// its tag, in any order after any delay (a response names an outstanding tag), with any data.
// Properties:
//   a transaction offered on mreq_* is held, unchanged, until mreq_ready (valid/ready);
//   nothing duplicated: a tag is never issued while a transaction with that tag is outstanding;
//   every access completes exactly once: a completion names a warp with an access in flight, only after
//   every transaction of it was issued and answered, and reports as many transactions as were issued;
//   acc_ready is low while the offered warp has an access in flight;
//   every response reaches its warp: for a watched lane of a watched warp ($anyconst), exactly one
//   transaction of a load access carries the lane's segment, and the completion returns, in that lane,
//   the word of that transaction's response at the lane's offset; inactive lanes and stores read 0.
module simt_gmem_unit_props #(
    parameter integer WARP_SIZE = 4,
    parameter integer NUM_WARPS = 2,
    parameter integer SEG_WORDS = 2
) (
    input wire                    clk,
    input wire                    rst,
    input wire                    acc_valid,
    input wire                    acc_warp,
    input wire [WARP_SIZE-1:0]    acc_mask,
    input wire [WARP_SIZE*32-1:0] acc_addr,
    input wire                    acc_store,
    input wire [WARP_SIZE*32-1:0] acc_wdata,
    input wire                    mreq_ready,
    input wire                    mrsp_valid,
    input wire [2:0]              mrsp_tag,
    input wire [SEG_WORDS*32-1:0] mrsp_rdata,
    input wire                    cpl_ready
);
    localparam integer IDX_W = $clog2(WARP_SIZE);
    localparam integer TAG_W = 1 + IDX_W;
    localparam integer NT = 1 << TAG_W;
    localparam [31:0] OFF = SEG_WORDS - 1;

    wire                    acc_ready, mreq_valid, mreq_write, mrsp_ready, cpl_valid, cpl_warp, cpl_store;
    wire [31:0]             mreq_addr;
    wire [SEG_WORDS-1:0]    mreq_mask;
    wire [SEG_WORDS*32-1:0] mreq_wdata;
    wire [TAG_W-1:0]        mreq_tag;
    wire [IDX_W:0]          cpl_txns;
    wire [WARP_SIZE*32-1:0] cpl_rdata;
    simt_gmem_unit #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .SEG_WORDS(SEG_WORDS)) dut (
        .clk(clk), .rst(rst), .acc_valid(acc_valid), .acc_ready(acc_ready), .acc_warp(acc_warp),
        .acc_mask(acc_mask), .acc_addr(acc_addr), .acc_store(acc_store), .acc_wdata(acc_wdata),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag), .mrsp_valid(mrsp_valid),
        .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata), .cpl_valid(cpl_valid),
        .cpl_ready(cpl_ready), .cpl_warp(cpl_warp), .cpl_store(cpl_store), .cpl_txns(cpl_txns),
        .cpl_rdata(cpl_rdata)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    wire acc_fire = acc_valid && acc_ready;
    wire req_fire = mreq_valid && mreq_ready;
    wire cpl_fire = cpl_valid && cpl_ready;
    wire req_w = mreq_tag[TAG_W-1];
    wire rsp_w = mrsp_tag[TAG_W-1];

    // ---- contract: access held until taken; responses name outstanding tags
    reg h_acc, h_warp, h_store;
    reg [WARP_SIZE-1:0] h_mask;
    reg [WARP_SIZE*32-1:0] h_addr, h_wdata;
    always @(posedge clk) begin
        h_acc <= !rst && acc_valid && !acc_ready;
        h_warp <= acc_warp; h_mask <= acc_mask; h_addr <= acc_addr; h_store <= acc_store; h_wdata <= acc_wdata;
    end
    reg [NT-1:0] outst;  // tags issued and not answered
    always @* begin
        if (!init && h_acc) assume (acc_valid && acc_warp == h_warp && acc_mask == h_mask &&
                                    acc_addr == h_addr && acc_store == h_store && acc_wdata == h_wdata);
        if (!init && mrsp_valid) assume (outst[mrsp_tag]);
    end
    always @(posedge clk) begin
        if (rst) outst <= 0;
        else begin
            if (mrsp_valid) outst[mrsp_tag] <= 1'b0;
            if (req_fire) outst[mreq_tag] <= 1'b1;
        end
    end

    // ---- accesses in flight and their transactions
    // issued: a vector (warp w's count at [w*(IDX_W+1) +: IDX_W+1]), not an array: plain state for the solver
    reg [NUM_WARPS-1:0]           inflight;
    reg [NUM_WARPS*(IDX_W+1)-1:0] issued;
    integer w;
    always @(posedge clk) begin
        if (rst) inflight <= 0;
        else begin
            if (cpl_fire) inflight[cpl_warp] <= 1'b0;
            if (acc_fire) begin inflight[acc_warp] <= 1'b1; issued[acc_warp*(IDX_W+1) +: IDX_W+1] <= 0; end
            if (req_fire && !(acc_fire && acc_warp == req_w))
                issued[req_w*(IDX_W+1) +: IDX_W+1] <= issued[req_w*(IDX_W+1) +: IDX_W+1] + 1'b1;
        end
    end

    // ---- valid/ready on the memory port
    reg h_req;
    reg [31:0] h_maddr;
    reg h_mwrite;
    reg [SEG_WORDS-1:0] h_mmask;
    reg [SEG_WORDS*32-1:0] h_mwdata;
    reg [TAG_W-1:0] h_mtag;
    always @(posedge clk) begin
        h_req <= !rst && mreq_valid && !mreq_ready;
        h_maddr <= mreq_addr; h_mwrite <= mreq_write; h_mmask <= mreq_mask; h_mwdata <= mreq_wdata; h_mtag <= mreq_tag;
    end

    // ---- the watched lane
    (* anyconst *) reg ws;
    (* anyconst *) reg [IDX_W-1:0] wl;
    reg         l_active, l_store, l_have_txn, l_have_data;
    reg [31:0]  l_addr, l_word;
    reg [IDX_W-1:0] l_txn;
    wire [31:0] lseg = l_addr & ~OFF;
    wire [31:0] acc_lane_addr = acc_addr[wl*32 +: 32];
    always @(posedge clk) begin
        if (rst) begin l_active <= 1'b0; l_have_txn <= 1'b0; l_have_data <= 1'b0; end
        else begin
            if (acc_fire && acc_warp == ws) begin
                l_active <= acc_mask[wl]; l_store <= acc_store; l_addr <= acc_lane_addr;
                l_have_txn <= 1'b0; l_have_data <= 1'b0;
            end
            if (req_fire && req_w == ws && l_active && mreq_addr == lseg) begin
                l_have_txn <= 1'b1; l_txn <= mreq_tag[IDX_W-1:0];
            end
            if (mrsp_valid && rsp_w == ws && l_have_txn && mrsp_tag[IDX_W-1:0] == l_txn) begin
                l_have_data <= 1'b1; l_word <= mrsp_rdata[(l_addr & OFF)*32 +: 32];
            end
        end
    end

    always @* begin
        if (!init) begin
            assert (mrsp_ready);
            if (h_req) assert (mreq_valid && mreq_addr == h_maddr && mreq_write == h_mwrite &&
                               mreq_mask == h_mmask && mreq_wdata == h_mwdata && mreq_tag == h_mtag);
            if (req_fire) assert (!outst[mreq_tag] || (mrsp_valid && mrsp_tag == mreq_tag));
            if (acc_valid && inflight[acc_warp]) assert (!acc_ready);
            if (cpl_valid) begin
                assert (inflight[cpl_warp]);
                // every transaction of the access issued and answered
                for (w = 0; w < NT; w = w + 1) if (w[TAG_W-1] == cpl_warp) assert (!outst[w]);
                assert (!(mreq_valid && req_w == cpl_warp));
                assert (cpl_txns == issued[cpl_warp*(IDX_W+1) +: IDX_W+1]);
            end
            // the watched lane's segment is carried by exactly one transaction of its access
            if (req_fire && req_w == ws && l_active && mreq_addr == lseg) assert (!l_have_txn);
            if (cpl_valid && cpl_warp == ws) begin
                if (l_active && !l_store) begin
                    assert (l_have_txn && l_have_data);
                    assert (cpl_rdata[wl*32 +: 32] == l_word);
                end else begin
                    assert (cpl_rdata[wl*32 +: 32] == 32'd0);
                end
            end
        end
    end
`ifdef INVARIANTS
    // ---- induction invariants (proof job only): the unit's per-slot bookkeeping, request stage and
    // coalescer equal the wrapper's records. Peek widths are those of the proved parameters
    // (WARP_SIZE = 4, NUM_WARPS = 2, SEG_WORDS = 2: OFF_W = 1, IDX_W = 2, CNT_W = 3).
    // peek (proof): p_busy[0:0] = dut.g_slot[0].busy_q
    // peek (proof): p_busy[1:1] = dut.g_slot[1].busy_q
    // peek (proof): p_issq[0:0] = dut.g_slot[0].issued_q
    // peek (proof): p_issq[1:1] = dut.g_slot[1].issued_q
    // peek (proof): p_stq[0:0] = dut.g_slot[0].store_q
    // peek (proof): p_stq[1:1] = dut.g_slot[1].store_q
    // peek (proof): p_out[2:0] = dut.g_slot[0].out_q
    // peek (proof): p_out[5:3] = dut.g_slot[1].out_q
    // peek (proof): p_txns[2:0] = dut.g_slot[0].txns_q
    // peek (proof): p_txns[5:3] = dut.g_slot[1].txns_q
    // peek (proof): p_mask[3:0] = dut.g_slot[0].mask_q
    // peek (proof): p_mask[7:4] = dut.g_slot[1].mask_q
    // peek (proof): p_off[3:0] = dut.g_slot[0].off_q
    // peek (proof): p_off[7:4] = dut.g_slot[1].off_q
    // peek (proof): p_txn[7:0] = dut.g_slot[0].txn_q
    // peek (proof): p_txn[15:8] = dut.g_slot[1].txn_q
    // peek (proof): p_data[127:0] = dut.g_slot[0].data_q
    // peek (proof): p_data[255:128] = dut.g_slot[1].data_q
    // peek (proof): p_cur = dut.cur_warp_q
    // peek (proof): p_cbusy = dut.u_coalescer.busy_q
    // peek (proof): p_cpend = dut.u_coalescer.pend_q
    // peek (proof): p_cstore = dut.u_coalescer.store_q
    // peek (proof): p_cidx = dut.u_coalescer.idx_q
    // peek (proof): p_caddr = dut.u_coalescer.addr_q
    localparam integer CW = IDX_W + 1;
    // the peek lines above and the offset checks below (one offset bit) are written for these parameters
    always @* assert (WARP_SIZE == 4 && NUM_WARPS == 2 && SEG_WORDS == 2);
    (* keep *) wire [NUM_WARPS-1:0]              p_busy, p_issq, p_stq;
    (* keep *) wire [NUM_WARPS*CW-1:0]           p_out, p_txns;
    (* keep *) wire [NUM_WARPS*WARP_SIZE-1:0]    p_mask, p_off;
    (* keep *) wire [NUM_WARPS*WARP_SIZE*IDX_W-1:0] p_txn;
    (* keep *) wire [NUM_WARPS*WARP_SIZE*32-1:0] p_data;
    (* keep *) wire                              p_cur, p_cbusy, p_cstore;
    (* keep *) wire [WARP_SIZE-1:0]              p_cpend;
    (* keep *) wire [IDX_W-1:0]                  p_cidx;
    (* keep *) wire [WARP_SIZE*32-1:0]           p_caddr;

    // Warp w's access is in one of three places, in order: the coalescer (co: beats left), the request
    // stage (stage: one formed transaction not yet taken by the port) and the memory (outstanding tags).
    // The unit's counters are those places: out_q = outstanding tags + stage, txns_q = issued + stage,
    // the coalescer's index = txns_q; tags of the access carry indices below `issued`, the stage's the
    // next one, so no tag is reused. The watched lane is pending in the coalescer, in the stage's
    // transaction or issued (its tag recorded in txn_q), and no later transaction carries its segment.
    // Per-warp views of the records and the peeked state, as macros (w: a genvar or ws).
`define GM_CO(w)   (p_cbusy && p_cur == (w))
`define GM_ST(w)   (mreq_valid && req_w == (w))
`define GM_ISS(w)  issued[(w)*CW +: CW]
`define GM_OUT(w)  p_out[(w)*CW +: CW]
`define GM_TXNS(w) p_txns[(w)*CW +: CW]
`define GM_O(w)    outst[(w)*WARP_SIZE +: WARP_SIZE]
`define GM_MASK(w) p_mask[(w)*WARP_SIZE +: WARP_SIZE]
    genvar gw, gk;
    generate
        for (gw = 0; gw < NUM_WARPS; gw = gw + 1) begin : g_inv
            always @* begin
                if (!init) begin
                    assert (p_busy[gw] == inflight[gw]);
                    if (!p_busy[gw]) begin
                        assert (`GM_OUT(gw) == 0);
                        assert (`GM_O(gw) == 0);
                        assert (!`GM_ST(gw));
                        assert (!`GM_CO(gw));
                    end else begin
                        assert (`GM_CO(gw) == !p_issq[gw]);
                        assert (`GM_OUT(gw) == $countones(`GM_O(gw)) + `GM_ST(gw));
                        assert (`GM_TXNS(gw) == `GM_ISS(gw) + `GM_ST(gw));
                        assert (`GM_TXNS(gw) <= $countones(`GM_MASK(gw)));
                        if (`GM_ST(gw)) begin
                            assert (mreq_tag[IDX_W-1:0] == `GM_ISS(gw) && `GM_ISS(gw) < WARP_SIZE);
                            assert (mreq_write == p_stq[gw]);
                        end
                        if (`GM_CO(gw)) begin
                            assert ((p_cpend & ~`GM_MASK(gw)) == 0);
                            assert (p_cstore == p_stq[gw]);
                            assert ({1'b0, p_cidx} == `GM_TXNS(gw));
                            assert (`GM_TXNS(gw) <= $countones(`GM_MASK(gw) & ~p_cpend));
                            if (p_cpend == 0) assert (`GM_MASK(gw) == 0);
                        end
                    end
                end
            end
            for (gk = 0; gk < WARP_SIZE; gk = gk + 1) begin : g_lane
                always @* begin
                    if (!init && p_busy[gw]) begin
                        if (outst[gw*WARP_SIZE + gk]) assert (gk < `GM_ISS(gw));
                        if (`GM_CO(gw)) assert (p_off[gw*WARP_SIZE + gk] == p_caddr[gk*32]);
                    end
                end
            end
        end
    endgenerate

    // the watched lane
`define GM_LPEND  (`GM_CO(ws) && p_cpend[wl])
`define GM_LSTAGE (`GM_ST(ws) && mreq_addr == lseg)
`define GM_LTXN   p_txn[(ws*WARP_SIZE + wl)*IDX_W +: IDX_W]
    always @* begin
        if (!init) begin
            if (!l_active) assert (!l_have_txn && !l_have_data);
            if (!l_have_txn) assert (!l_have_data);
            if (p_busy[ws]) begin
                assert (l_active == p_mask[ws*WARP_SIZE + wl]);
                assert (l_store == p_stq[ws]);
                assert (p_off[ws*WARP_SIZE + wl] == l_addr[0]);
                if (`GM_CO(ws)) assert (p_caddr[wl*32 +: 32] == l_addr);
                if (l_active) begin
                    if (`GM_LPEND) assert (!l_have_txn && !`GM_LSTAGE);
                    else if (`GM_LSTAGE) assert (!l_have_txn && `GM_LTXN == mreq_tag[IDX_W-1:0]);
                    else assert (l_have_txn);
                    if (l_have_txn) begin
                        assert (`GM_LTXN == l_txn);
                        assert ({1'b0, l_txn} < `GM_ISS(ws));
                        assert (outst[{ws, l_txn}] == !l_have_data);
                        if (l_have_data && !l_store) assert (p_data[(ws*WARP_SIZE + wl)*32 +: 32] == l_word);
                    end
                end
            end
        end
    end
    // no pending lane of the coalescer shares the watched lane's segment once that lane left it
    generate
        for (gk = 0; gk < WARP_SIZE; gk = gk + 1) begin : g_lseg
            always @*
                if (!init && p_busy[ws] && l_active && !`GM_LPEND && `GM_CO(ws) && p_cpend[gk])
                    assert ((p_caddr[gk*32 +: 32] & ~OFF) != lseg);
        end
    endgenerate
`endif
endmodule
