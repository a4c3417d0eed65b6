// Properties of simt_axi_mem_bridge (docs/gpu.md "AXI option"): `make formal`.
//
// Contract: reset first. Native side (simt_gpu): a request is held with its payload until mreq_ready;
// mrsp_ready free. AXI slave (AXI4, read-interleave depth 1, what tb/tests/system/test_axi.py's slave
// does): AWREADY/WREADY/ARREADY free; a B answers an in-flight write and an R burst an in-flight read,
// in issue order per ID (the AXI ordering rule); an R burst is SEG_WORDS beats, RLAST on the last, with
// one RID, and bursts do not interleave; responses OKAY. The wrapper keeps the in-flight transactions
// per (ID, kind) in issue order.
// Properties:
//   AXI handshake rules of the master: AWVALID / WVALID / ARVALID, once high, stay high until the
//   handshake, with AW / W / AR payload stable; bursts are INCR of SEG_WORDS 4-byte beats, W carries
//   exactly SEG_WORDS beats with WLAST on the last and WSTRB from the word mask; BREADY only with BVALID;
//   every native request becomes one AXI transaction with its address (AXI_BASE + 4 * word), ID = tag,
//   and kind; AW/W only for stores, AR only for loads; at most one request in the bridge (mreq_ready);
//   same-segment ordering (docs/gpu.md): a transaction is never issued while an in-flight one touches the
//   same segment and either of the two is a store; never more than MAX_OUT in flight;
//   responses: a B becomes the native response with its ID as tag; a finished R burst becomes the native
//   response with its RID and the beats as the segment's words; error stays 0 for a slave that keeps the
//   contract.
module simt_axi_mem_bridge_props #(
    parameter integer SEG_WORDS = 2,
    parameter integer ID_W      = 1,
    parameter integer MAX_OUT   = 2
) (
    input wire                    clk,
    input wire                    rst,
    input wire                    mreq_valid,
    input wire [31:0]             mreq_addr,
    input wire                    mreq_write,
    input wire [SEG_WORDS-1:0]    mreq_mask,
    input wire [SEG_WORDS*32-1:0] mreq_wdata,
    input wire [ID_W-1:0]         mreq_tag,
    input wire                    mrsp_ready,
    input wire                    m_axi_awready,
    input wire                    m_axi_wready,
    input wire [ID_W-1:0]         m_axi_bid,
    input wire                    m_axi_bvalid,
    input wire                    m_axi_arready,
    input wire [ID_W-1:0]         m_axi_rid,
    input wire [31:0]             m_axi_rdata,
    input wire                    m_axi_rlast,
    input wire                    m_axi_rvalid
);
    localparam integer NID = 1 << ID_W;
    localparam integer BEAT_W = (SEG_WORDS > 1) ? $clog2(SEG_WORDS) : 1;

    wire                    mreq_ready, mrsp_valid;
    wire [ID_W-1:0]         mrsp_tag, awid, arid;
    wire [SEG_WORDS*32-1:0] mrsp_rdata;
    wire [31:0]             awaddr, wdata, araddr;
    wire [7:0]              awlen, arlen;
    wire [2:0]              awsize, arsize, awprot, arprot;
    wire [1:0]              awburst, arburst, error;
    wire                    awlock, arlock, awvalid, wlast, wvalid, bready, arvalid, rready;
    wire [3:0]              awcache, arcache, wstrb;
    simt_axi_mem_bridge #(.SEG_WORDS(SEG_WORDS), .ID_W(ID_W), .MAX_OUT(MAX_OUT), .AXI_BASE(32'h0)) dut (
        .clk(clk), .rst(rst), .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr),
        .mreq_write(mreq_write), .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .m_axi_awid(awid), .m_axi_awaddr(awaddr), .m_axi_awlen(awlen), .m_axi_awsize(awsize),
        .m_axi_awburst(awburst), .m_axi_awlock(awlock), .m_axi_awcache(awcache), .m_axi_awprot(awprot),
        .m_axi_awvalid(awvalid), .m_axi_awready(m_axi_awready), .m_axi_wdata(wdata), .m_axi_wstrb(wstrb),
        .m_axi_wlast(wlast), .m_axi_wvalid(wvalid), .m_axi_wready(m_axi_wready), .m_axi_bid(m_axi_bid),
        .m_axi_bresp(2'b00), .m_axi_bvalid(m_axi_bvalid), .m_axi_bready(bready), .m_axi_arid(arid),
        .m_axi_araddr(araddr), .m_axi_arlen(arlen), .m_axi_arsize(arsize), .m_axi_arburst(arburst),
        .m_axi_arlock(arlock), .m_axi_arcache(arcache), .m_axi_arprot(arprot), .m_axi_arvalid(arvalid),
        .m_axi_arready(m_axi_arready), .m_axi_rid(m_axi_rid), .m_axi_rdata(m_axi_rdata),
        .m_axi_rresp(2'b00), .m_axi_rlast(m_axi_rlast), .m_axi_rvalid(m_axi_rvalid),
        .m_axi_rready(rready), .error(error)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    wire aw_fire = awvalid && m_axi_awready, w_fire = wvalid && m_axi_wready, ar_fire = arvalid && m_axi_arready;
    wire b_fire = m_axi_bvalid && bready, r_fire = m_axi_rvalid && rready;

    // ---- native request held until taken
    reg        h_req;
    reg [31:0] h_addr;
    reg        h_write;
    reg [SEG_WORDS-1:0] h_mask;
    reg [SEG_WORDS*32-1:0] h_wdata;
    reg [ID_W-1:0] h_tag;
    always @(posedge clk) begin
        h_req <= !rst && mreq_valid && !mreq_ready;
        h_addr <= mreq_addr; h_write <= mreq_write; h_mask <= mreq_mask; h_wdata <= mreq_wdata; h_tag <= mreq_tag;
    end
    always @* if (!init && h_req) assume (mreq_valid && mreq_addr == h_addr && mreq_write == h_write &&
                                          mreq_mask == h_mask && mreq_wdata == h_wdata && mreq_tag == h_tag);
    // word addresses of global memory fit 30 bits (GLOBAL_WORDS <= 2**30)
    always @* assume (mreq_addr[31:30] == 2'b00);

    // ---- the request inside the bridge (accepted, not yet fully issued on AXI)
    reg        c_valid, c_write, c_presented, c_aw, c_w_done;
    reg [31:0] c_addr;
    reg [SEG_WORDS-1:0] c_mask;
    reg [SEG_WORDS*32-1:0] c_wdata;
    reg [ID_W-1:0] c_tag;
    reg [BEAT_W-1:0] c_beat;
    wire c_axi_done = c_write ? (c_aw || aw_fire) && (c_w_done || (w_fire && wlast)) : ar_fire;
    wire present = (awvalid || wvalid || arvalid) && !c_presented;   // the transaction is issued now
    always @(posedge clk) begin
        if (rst) begin
            c_valid <= 1'b0; c_presented <= 1'b0; c_aw <= 1'b0; c_w_done <= 1'b0; c_beat <= 0;
        end else begin
            if (mreq_valid && mreq_ready) begin
                c_valid <= 1'b1; c_addr <= mreq_addr; c_write <= mreq_write; c_mask <= mreq_mask;
                c_wdata <= mreq_wdata; c_tag <= mreq_tag;
            end
            if (present) c_presented <= 1'b1;
            if (aw_fire) c_aw <= 1'b1;
            if (w_fire) begin c_beat <= c_beat + 1'b1; if (wlast) c_w_done <= 1'b1; end
            if (c_valid && c_presented | present && c_axi_done) begin
                c_valid <= 1'b0; c_presented <= 1'b0; c_aw <= 1'b0; c_w_done <= 1'b0; c_beat <= 0;
            end
        end
    end

    // ---- in flight, per (ID, kind) in issue order: at most MAX_OUT (= 2) entries each
    reg [1:0]  fw_n [0:NID-1];
    reg [1:0]  fr_n [0:NID-1];
    reg [31:0] fw_a0 [0:NID-1], fw_a1 [0:NID-1], fr_a0 [0:NID-1], fr_a1 [0:NID-1];
    integer i;
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < NID; i = i + 1) begin fw_n[i] <= 0; fr_n[i] <= 0; end
        end else begin
            for (i = 0; i < NID; i = i + 1) begin
                // retire at B / at the end of an R burst (the oldest of that ID), enter at issue
                if (b_fire && m_axi_bid == i) begin fw_a0[i] <= fw_a1[i]; end
                if (r_fire && m_axi_rlast && m_axi_rid == i) begin fr_a0[i] <= fr_a1[i]; end
                if (present && c_write && c_tag == i) begin
                    if (fw_n[i] - (b_fire && m_axi_bid == i) == 0) fw_a0[i] <= c_addr; else fw_a1[i] <= c_addr;
                end
                if (present && !c_write && c_tag == i) begin
                    if (fr_n[i] - (r_fire && m_axi_rlast && m_axi_rid == i) == 0) fr_a0[i] <= c_addr;
                    else fr_a1[i] <= c_addr;
                end
                fw_n[i] <= fw_n[i] + (present && c_write && c_tag == i) - (b_fire && m_axi_bid == i);
                fr_n[i] <= fr_n[i] + (present && !c_write && c_tag == i) - (r_fire && m_axi_rlast && m_axi_rid == i);
            end
        end
    end
    reg [3:0] n_flight;
    always @* begin
        n_flight = 0;
        for (i = 0; i < NID; i = i + 1) n_flight = n_flight + fw_n[i] + fr_n[i];
    end

    // ---- slave contract
    reg              in_burst;
    reg [ID_W-1:0]   burst_id;
    reg [BEAT_W-1:0] rbeat;
    always @(posedge clk) begin
        if (rst) begin in_burst <= 1'b0; rbeat <= 0; end
        else if (r_fire) begin
            in_burst <= !m_axi_rlast; burst_id <= m_axi_rid; rbeat <= m_axi_rlast ? 0 : rbeat + 1'b1;
        end
    end
    always @* begin
        if (!init) begin
            if (m_axi_bvalid) assume (fw_n[m_axi_bid] != 0);
            if (m_axi_rvalid) begin
                assume (fr_n[m_axi_rid] != 0);
                if (in_burst) assume (m_axi_rid == burst_id);
                assume (m_axi_rlast == (rbeat == SEG_WORDS - 1));
            end
        end
    end
    // AXI: a slave's VALID stays until READY, with a stable payload
    reg hb, hr;
    reg [ID_W-1:0] hb_id, hr_id;
    reg [31:0] hr_data;
    reg hr_last;
    always @(posedge clk) begin
        hb <= !rst && m_axi_bvalid && !bready; hb_id <= m_axi_bid;
        hr <= !rst && m_axi_rvalid && !rready; hr_id <= m_axi_rid; hr_data <= m_axi_rdata; hr_last <= m_axi_rlast;
    end
    always @* if (!init && hb) assume (m_axi_bvalid && m_axi_bid == hb_id);
    always @* if (!init && hr) assume (m_axi_rvalid && m_axi_rid == hr_id && m_axi_rdata == hr_data && m_axi_rlast == hr_last);

    // ---- master handshake rules: valid held, payload stable
    reg haw, hw, har;
    reg [ID_W-1:0] haw_id, har_id;
    reg [31:0] haw_addr, hw_data, har_addr;
    reg [3:0] hw_strb;
    reg hw_last;
    always @(posedge clk) begin
        haw <= !rst && awvalid && !m_axi_awready; haw_id <= awid; haw_addr <= awaddr;
        hw <= !rst && wvalid && !m_axi_wready; hw_data <= wdata; hw_strb <= wstrb; hw_last <= wlast;
        har <= !rst && arvalid && !m_axi_arready; har_id <= arid; har_addr <= araddr;
    end

    // ---- the read burst being gathered and the native response
    reg [SEG_WORDS*32-1:0] g_data;
    reg [ID_W-1:0]         g_id;
    reg                    g_full;
    always @(posedge clk) begin
        if (rst) g_full <= 1'b0;
        else begin
            if (g_full && mrsp_ready) g_full <= 1'b0;
            if (r_fire) begin
                g_data[rbeat*32 +: 32] <= m_axi_rdata; g_id <= m_axi_rid;
                if (m_axi_rlast) g_full <= 1'b1;
            end
        end
    end

    integer k;
    always @* begin
        if (!init) begin
            if (haw) assert (awvalid && awid == haw_id && awaddr == haw_addr);
            if (hw)  assert (wvalid && wdata == hw_data && wstrb == hw_strb && wlast == hw_last);
            if (har) assert (arvalid && arid == har_id && araddr == har_addr);
            assert (awlen == SEG_WORDS - 1 && arlen == SEG_WORDS - 1 && awsize == 3'd2 && arsize == 3'd2);
            assert (awburst == 2'b01 && arburst == 2'b01);
            if (m_axi_bvalid == 1'b0) assert (!bready);
            assert (mreq_ready == !c_valid);
            // a transaction on AXI is the request in the bridge
            if (awvalid || wvalid || arvalid) assert (c_valid);
            if (awvalid) assert (c_write && awid == c_tag && awaddr == {c_addr[29:0], 2'b00} && !c_aw);
            if (wvalid) begin
                assert (c_write && !c_w_done);
                assert (wdata == c_wdata[c_beat*32 +: 32] && wstrb == {4{c_mask[c_beat]}});
                assert (wlast == (c_beat == SEG_WORDS - 1));
            end
            if (arvalid) assert (!c_write && arid == c_tag && araddr == {c_addr[29:0], 2'b00});
            // same-segment ordering: nothing in flight touches the segment issued now if either is a store
            if (present) begin
                for (k = 0; k < NID; k = k + 1) begin
                    if (fw_n[k] >= 1) assert (fw_a0[k] != c_addr);
                    if (fw_n[k] >= 2) assert (fw_a1[k] != c_addr);
                    if (c_write && fr_n[k] >= 1) assert (fr_a0[k] != c_addr);
                    if (c_write && fr_n[k] >= 2) assert (fr_a1[k] != c_addr);
                end
            end
            assert (n_flight <= MAX_OUT);
            // native responses
            if (g_full) assert (mrsp_valid && mrsp_tag == g_id && mrsp_rdata == g_data);
            else if (m_axi_bvalid) assert (mrsp_valid && mrsp_tag == m_axi_bid);
            else assert (!mrsp_valid);
            if (b_fire) assert (mrsp_ready && !g_full);
            assert (error == 2'b00);
        end
    end

`ifdef INVARIANTS
    // ---- induction invariants (proof job only): the bridge's request register, in-flight table and
    // read gathering equal the wrapper's records. The table gains an entry at the issuing edge, the
    // wrapper's record one cycle later (when the transaction shows on AXI: `present`).
    // peek (proof): p_qv = dut.q_valid
    // peek (proof): p_qw = dut.q_write
    // peek (proof): p_qi = dut.q_issued
    // peek (proof): p_awd = dut.aw_done
    // peek (proof): p_wd = dut.w_done
    // peek (proof): p_wb = dut.w_beat
    // peek (proof): p_qa = dut.q_addr
    // peek (proof): p_qm = dut.q_mask
    // peek (proof): p_qd = dut.q_wdata
    // peek (proof): p_qt = dut.q_tag
    // peek (proof): p_tv = dut.t_valid
    // peek (proof): p_tw = dut.t_write
    // peek (proof): p_ta[31:0] = dut.t_addr[0]
    // peek (proof): p_ta[63:32] = dut.t_addr[1]
    // peek (proof): p_ti[0:0] = dut.t_id[0]
    // peek (proof): p_ti[1:1] = dut.t_id[1]
    // peek (proof): p_tg[1:0] = dut.t_age[0]
    // peek (proof): p_tg[3:2] = dut.t_age[1]
    // peek (proof): p_rf = dut.r_full
    // peek (proof): p_rd = dut.r_data
    // peek (proof): p_ri = dut.r_id
    // peek (proof): p_rb = dut.r_beat
    // peek (proof): p_ib = dut.in_burst
    (* keep *) wire                    p_qv, p_qw, p_qi, p_awd, p_wd, p_rf, p_ib;
    (* keep *) wire [BEAT_W-1:0]       p_wb, p_rb;
    (* keep *) wire [31:0]             p_qa;
    (* keep *) wire [SEG_WORDS-1:0]    p_qm;
    (* keep *) wire [SEG_WORDS*32-1:0] p_qd, p_rd;
    (* keep *) wire [ID_W-1:0]         p_qt, p_ri;
    (* keep *) wire [MAX_OUT-1:0]      p_tv, p_tw;
    (* keep *) wire [32*MAX_OUT-1:0]   p_ta;
    (* keep *) wire [ID_W*MAX_OUT-1:0] p_ti;
    (* keep *) wire [2*MAX_OUT-1:0]    p_tg;
    wire pending = p_qi && !c_presented;  // issued at the last edge, on AXI from this cycle
    integer s, s2, g, gk;
    reg [2:0] n_exp, n_dut;
    reg [1:0] n_rec;
    always @* begin
        if (!init) begin
            assert (p_qv == c_valid);
            if (c_valid) begin
                assert (p_qw == c_write && p_qa == c_addr && p_qm == c_mask && p_qd == c_wdata && p_qt == c_tag);
                assert (p_awd == c_aw && p_wd == c_w_done && p_wb == c_beat && !(c_aw && c_w_done));
                if (c_presented || c_aw || c_w_done) assert (p_qi && c_presented);
                if (!c_write) assert (c_beat == 0 && !c_aw && !c_w_done);
                if (c_w_done) assert (c_beat == 0);
            end else begin
                assert (!p_qi && !c_presented && !c_aw && !c_w_done && c_beat == 0 && p_wb == 0 && !p_awd && !p_wd);
            end
            // the in-flight table: per (kind, ID) the wrapper's entries (and the one pending), ages
            // 0 = oldest .. n-1, each age once, its address the record's
            for (g = 0; g < 2 * NID; g = g + 1) begin
                gk = g / NID;  // 1 = writes
                n_rec = gk ? fw_n[g % NID] : fr_n[g % NID];
                n_exp = n_rec + (pending && c_write == gk && c_tag == g % NID);
                n_dut = 0;
                for (s = 0; s < MAX_OUT; s = s + 1)
                    if (p_tv[s] && p_tw[s] == gk && p_ti[s*ID_W +: ID_W] == g % NID) begin
                        n_dut = n_dut + 1;
                        assert (p_tg[2*s +: 2] < n_exp);
                        if (p_tg[2*s +: 2] < n_rec)
                            assert (p_ta[32*s +: 32] == ((p_tg[2*s +: 2] == 0) ? (gk ? fw_a0[g % NID] : fr_a0[g % NID])
                                                                               : (gk ? fw_a1[g % NID] : fr_a1[g % NID])));
                        else assert (p_ta[32*s +: 32] == c_addr);
                        for (s2 = 0; s2 < MAX_OUT; s2 = s2 + 1)
                            if (s2 != s && p_tv[s2] && p_tw[s2] == gk && p_ti[s2*ID_W +: ID_W] == g % NID)
                                assert (p_tg[2*s +: 2] != p_tg[2*s2 +: 2]);
                    end
                assert (n_dut == n_exp);
            end
            // the read burst being gathered
            assert (p_rf == g_full && p_rb == rbeat && p_ib == in_burst);
            if (g_full || in_burst) assert (p_ri == g_id);
            for (s = 0; s < SEG_WORDS; s = s + 1)
                if (g_full || (in_burst && s < rbeat)) assert (p_rd[32*s +: 32] == g_data[32*s +: 32]);
            assert (in_burst == (rbeat != 0));
            if (in_burst) assert (burst_id == g_id && fr_n[g_id] != 0);
            if (g_full) assert (!in_burst);
        end
    end
`endif
endmodule
