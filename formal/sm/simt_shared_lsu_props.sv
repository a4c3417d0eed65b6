// Properties of simt_shared_lsu (docs/sm.md, docs/isa.md 3.3 and 6.1): `make formal`.
//
// Contract (the SM and tb/tests/unit/test_shared_lsu.py): reset first; any row on req_* in any cycle
// (taken on req_valid & req_ready), any clear on clr/clr_line (taken on clr & clr_ready).
// The wrapper captures the row at acceptance and keeps the lanes served so far (the unit's per-pass
// choice `served` is observed).
// Properties (prove job, k-induction):
//   each active lane is served exactly once: a pass serves only pending lanes, at least one (the lowest
//   pending lane), and the row ends exactly when none is left;
//   at most one distinct word per bank per pass (lanes of one bank served together share the address:
//   a broadcast), and a pending lane waits only for a bank conflict;
//   a store pass writes, in each bank its served lanes use, their word with the HIGHEST served lane's
//   data, and nothing else; a load pass and an idle cycle write nothing; a clear zeroes line clr_line of
//   every bank, only while idle;
//   passes = the passes the row took, 0 for a row with no active lane, never more than its active lanes
//   (a broadcast counts once); rsp_valid exactly in the cycle after the row's last pass;
//   req_ready = idle or last pass; clr_ready = idle.
// Data job (bounded): a load returns, in every active lane, the word last stored or cleared at its
// address (one watched address, $anyconst).
module simt_shared_lsu_props #(
    parameter integer NUM_LANES    = 4,
    parameter integer NUM_BANKS    = 2,
    parameter integer SHARED_WORDS = 64
) (
    input wire                                              clk,
    input wire                                              rst,
    input wire                                              req_valid,
    input wire [NUM_LANES-1:0]                              lane_mask,
    input wire [NUM_LANES*$clog2(SHARED_WORDS)-1:0]         addr,
    input wire                                              store,
    input wire [NUM_LANES*32-1:0]                           wdata,
    input wire                                              clr,
    input wire [$clog2(SHARED_WORDS)-$clog2(NUM_BANKS)-1:0] clr_line
);
    localparam integer AW = $clog2(SHARED_WORDS);
    localparam integer BW = $clog2(NUM_BANKS);
    localparam integer LW = AW - BW;
    localparam integer PW = $clog2(NUM_LANES + 1);
    localparam integer L  = NUM_LANES;

    wire                       req_ready, rsp_valid, clr_ready, obs_clr;
    wire [NUM_LANES*32-1:0]    rdata;
    wire [PW-1:0]              passes;
    wire [NUM_BANKS-1:0]       obs_we;
    wire [NUM_BANKS*AW-1:0]    obs_addr;
    wire [NUM_BANKS*32-1:0]    obs_data;
    simt_shared_lsu #(.NUM_LANES(NUM_LANES), .NUM_BANKS(NUM_BANKS), .SHARED_WORDS(SHARED_WORDS)) dut (
        .clk(clk), .rst(rst), .req_valid(req_valid), .req_ready(req_ready), .lane_mask(lane_mask),
        .addr(addr), .store(store), .wdata(wdata), .rsp_valid(rsp_valid), .rdata(rdata), .passes(passes),
        .clr(clr), .clr_ready(clr_ready), .clr_line(clr_line), .obs_we(obs_we), .obs_addr(obs_addr),
        .obs_data(obs_data), .obs_clr(obs_clr)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // ---- the row as accepted
    // peek: served = dut.served
    (* keep *) wire [NUM_LANES-1:0] served;
    reg                     busy, c_store;
    reg [NUM_LANES-1:0]     c_mask, done_l;
    reg [NUM_LANES*AW-1:0]  c_addr;
    reg [NUM_LANES*32-1:0]  c_wdata;
    reg [PW-1:0]            npass;
    reg                     fin_q;   // the row finished at the last edge
    reg [PW-1:0]            fin_passes;
    wire [NUM_LANES-1:0] pend = c_mask & ~done_l;
    wire pass   = busy && pend != 0;
    wire finish = busy && (served == pend);
    wire req_go = req_valid && req_ready;
    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0; fin_q <= 1'b0; c_mask <= 0; done_l <= 0; npass <= 0;
        end else begin
            fin_q <= finish;
            if (finish) fin_passes <= npass + pass;
            if (req_go) begin
                busy <= 1'b1; c_mask <= lane_mask; c_addr <= addr; c_store <= store; c_wdata <= wdata;
                done_l <= 0; npass <= 0;
            end else if (busy) begin
                done_l <= done_l | served;
                npass <= npass + pass;
                if (finish) busy <= 1'b0;
            end
        end
    end

    // each lane's address and bank (wires: Yosys functions do not read module signals)
    wire [AW-1:0] la [0:L-1];
    wire [(BW > 0 ? BW : 1)-1:0] lb [0:L-1];
    genvar gl;
    generate
        for (gl = 0; gl < L; gl = gl + 1) begin : g_lane
            assign la[gl] = c_addr[gl*AW +: AW];
            assign lb[gl] = (BW > 0) ? c_addr[gl*AW +: (BW > 0 ? BW : 1)] : 0;
        end
    endgenerate

    // expected bank writes of a store pass: per bank, the highest served lane's word and data
    reg [NUM_BANKS-1:0]    e_we;
    reg [NUM_BANKS*AW-1:0] e_addr;
    reg [NUM_BANKS*32-1:0] e_data;
    reg [NUM_LANES-1:0]    lowest;
    integer i, j, b;
    always @* begin
        e_we = 0; e_addr = 0; e_data = 0;
        for (b = 0; b < NUM_BANKS; b = b + 1)
            for (i = 0; i < L; i = i + 1)
                if (served[i] && lb[i] == b) begin
                    e_we[b] = 1'b1;
                    e_addr[b*AW +: AW] = la[i];
                    e_data[b*32 +: 32] = c_wdata[i*32 +: 32];
                end
        lowest = pend & (~pend + 1'b1);
    end

    always @* begin
        if (!init) begin
            assert (req_ready == (!busy || finish));
            assert (clr_ready == !busy);
            assert (rsp_valid == fin_q);
            if (rsp_valid) begin
                assert (passes == fin_passes);
                assert (passes <= L);
            end
            if (busy) begin
                assert ((served & ~pend) == 0);
                if (pend != 0) assert ((served & lowest) == lowest);
                for (i = 0; i < L; i = i + 1)
                    for (j = 0; j < L; j = j + 1) begin
                        // one word per bank per pass
                        if (served[i] && served[j] && lb[i] == lb[j]) assert (la[i] == la[j]);
                        // a pending lane waits only for a bank conflict
                        if (served[i] && pend[j] && !served[j] && lb[i] == lb[j]) assert (la[i] != la[j]);
                    end
                if (c_store) begin
                    assert (obs_we == e_we && !obs_clr);
                    for (b = 0; b < NUM_BANKS; b = b + 1)
                        if (e_we[b]) assert (obs_addr[b*AW +: AW] == e_addr[b*AW +: AW] &&
                                             obs_data[b*32 +: 32] == e_data[b*32 +: 32]);
                end else begin
                    assert (obs_we == 0);
                end
            end else begin
                assert (obs_we == (clr ? {NUM_BANKS{1'b1}} : {NUM_BANKS{1'b0}}) && obs_clr == clr);
                if (clr) for (b = 0; b < NUM_BANKS; b = b + 1)
                    assert (obs_addr[b*AW +: AW] == {clr_line, b[(BW > 0 ? BW : 1)-1:0]} && obs_data[b*32 +: 32] == 0);
            end
            // passes: never more than the active lanes served (a pass serves at least one)
            assert (npass <= $countones(done_l));
`ifdef INVARIANTS
            // peek: p_busy = dut.busy
            // peek: p_pend = dut.r_pend
            // peek: p_mask = dut.r_mask
            // peek: p_addr = dut.r_addr
            // peek: p_store = dut.r_store
            // peek: p_wdata = dut.r_wdata
            // peek: p_passes = dut.r_passes
            // peek: p_rsp_lanes = dut.rsp_lanes
            assert (p_busy == busy);
            assert ((done_l & ~c_mask) == 0);
            if (busy) begin
                assert (p_pend == pend && p_mask == c_mask && p_addr == c_addr && p_store == c_store);
                if (c_store) assert (p_wdata == c_wdata);
                assert (p_passes == npass);
            end
`endif
        end
    end
    (* keep *) wire p_busy, p_store;
    (* keep *) wire [NUM_LANES-1:0] p_pend, p_mask, p_rsp_lanes;
    (* keep *) wire [NUM_LANES*AW-1:0] p_addr;
    (* keep *) wire [NUM_LANES*32-1:0] p_wdata;
    (* keep *) wire [PW-1:0] p_passes;

`ifdef DATA
    // ---- a load returns the last word stored or cleared at its address (watched address wa)
    (* anyconst *) reg [AW-1:0] wa;
    reg        known;
    reg [31:0] val;
    always @(posedge clk) begin
        if (rst) known <= 1'b0;
        else for (b = 0; b < NUM_BANKS; b = b + 1)
            if (obs_we[b] && obs_addr[b*AW +: AW] == wa) begin
                known <= 1'b1; val <= obs_data[b*32 +: 32];
            end
    end
    reg              l_load;       // the row answered now is a load, with these lanes and addresses
    reg [L-1:0]      l_mask;
    reg [L*AW-1:0]   l_addr;
    always @(posedge clk) if (finish) begin l_load <= !c_store; l_mask <= c_mask; l_addr <= c_addr; end
    always @* begin
        if (!init && rsp_valid) begin
            for (i = 0; i < L; i = i + 1) begin
                if (!(l_load && l_mask[i])) assert (rdata[i*32 +: 32] == 0);
                else if (l_addr[i*AW +: AW] == wa && known) assert (rdata[i*32 +: 32] == val);
            end
        end
    end
`endif
endmodule
