// simt_shared_lsu — banked shared memory with bank-conflict replay (docs/sm.md, docs/isa.md 3.3, 6.1).
//
// NUM_BANKS synchronous single-port RAMs of SHARED_WORDS/NUM_BANKS words. Physical word p lives in
// bank p % NUM_BANKS at line p / NUM_BANKS (the low log2(NUM_BANKS) address bits pick the bank).
//
// Ports (AW = log2(SHARED_WORDS), LW = AW - log2(NUM_BANKS), PW = log2(NUM_LANES + 1)):
//   req_valid/req_ready    row request handshake (transfers on a rising edge with both high)
//   lane_mask[NUM_LANES]   active lanes of the row
//   addr[NUM_LANES*AW]     physical word address of lane i in bits [i*AW +: AW]
//   store                  1 = store row (ST), 0 = load row (LD)
//   wdata[NUM_LANES*32]    store data, lane i in bits [i*32 +: 32]
//   rsp_valid              one-cycle pulse: the row is complete
//   rdata[NUM_LANES*32]    load data, valid with rsp_valid; 0 in inactive lanes and for store rows
//   passes[PW]             passes this row took (docs/isa.md 6.1), 0 for a row with no active lane
//   clr/clr_ready          zero line clr_line of every bank (transfers when both high; clr_ready is
//   clr_line[LW]           high exactly when no row is in progress)
//   obs_we[NUM_BANKS]      bank b is written at the next rising edge (combinational, harness only)
//   obs_addr[NUM_BANKS*AW] physical word address of that write (line*NUM_BANKS + b), bank b in [b*AW +: AW]
//   obs_data[NUM_BANKS*32] the data written
//   obs_clr                the writes of this cycle are a line clear (clr), not a store row's pass
//
// Timing: a row accepted at rising edge t does its passes in the cycles after edges t, t+1, ...
// (one pass per cycle) and answers in the cycle after its last pass: rsp_valid is high in the cycle
// after edge t + max(passes,1) (a row with no active lane spends one cycle without touching the
// banks). req_ready depends only on the unit's state, never on req_valid: it is high when idle and
// in the last cycle of a row, so a request held on the port while a row is in progress is accepted
// at the row's last edge and back-to-back rows take max(passes,1) cycles each. clr_ready is high
// only when idle; a clear and a row accepted at the same edge: the clear is written at that edge,
// before the row's first pass.
// Shared memory is not reset: the SM clears a block's lines before the block starts (docs/isa.md 6.1).
// Test-only fault 3 (SIMT_FAULTS builds, docs/sm.md): store rows write bank (b+1) mod NUM_BANKS.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
module simt_shared_lsu #(
    parameter integer NUM_LANES    = `SIMT_DEFAULT_NUM_LANES, // lanes per row
    parameter integer NUM_BANKS    = `SIMT_DEFAULT_NUM_BANKS, // shared-memory banks
    parameter integer SHARED_WORDS = `SIMT_DEFAULT_SHARED_WORDS // shared-memory words
) (
    input  wire                                            clk,
    input  wire                                            rst,
    // row request
    input  wire                                            req_valid,
    output wire                                            req_ready,
    input  wire [NUM_LANES-1:0]                            lane_mask,
    input  wire [NUM_LANES*$clog2(SHARED_WORDS)-1:0]       addr,
    input  wire                                            store,
    input  wire [NUM_LANES*32-1:0]                         wdata,
    // row response
    output reg                                             rsp_valid,
    output reg  [NUM_LANES*32-1:0]                         rdata,
    output reg  [$clog2(NUM_LANES+1)-1:0]                  passes,
    // line clear
    input  wire                                            clr,
    output wire                                            clr_ready,
    input  wire [$clog2(SHARED_WORDS)-$clog2(NUM_BANKS)-1:0] clr_line,
    // observation of every bank write
    output wire [NUM_BANKS-1:0]                            obs_we,
    output reg  [NUM_BANKS*$clog2(SHARED_WORDS)-1:0]       obs_addr,
    output reg  [NUM_BANKS*32-1:0]                         obs_data,
    output wire                                            obs_clr
);
    localparam integer AW    = $clog2(SHARED_WORDS);
    localparam integer BW    = $clog2(NUM_BANKS);      // bank-index bits (0 with one bank)
    localparam integer BWS   = (BW > 0) ? BW : 1;      // storage width of a bank index
    localparam integer LW    = AW - BW;                 // line-index bits
    localparam integer DEPTH = SHARED_WORDS / NUM_BANKS;
    localparam integer PW    = $clog2(NUM_LANES + 1);

    // Parameter checks: stop both simulators at time 0 with a readable message.
    generate
        `SIMT_CHECK_NUM_LANES("simt_shared_lsu", NUM_LANES)
        `SIMT_CHECK_NUM_BANKS("simt_shared_lsu", NUM_BANKS)
        `SIMT_CHECK_SHARED_WORDS("simt_shared_lsu", SHARED_WORDS)
    endgenerate

    // ---------------------------------------------------------------- row being served
    reg                     busy;      // a row is held in the r_* registers
    reg                     r_store;
    reg [NUM_LANES-1:0]     r_mask;    // the row's active lanes (for the response)
    reg [NUM_LANES-1:0]     r_pend;    // active lanes not served yet
    reg [NUM_LANES*AW-1:0]  r_addr;
    reg [NUM_LANES*32-1:0]  r_wdata;
    reg [PW-1:0]            r_passes;  // passes already done for this row

    reg  [NUM_LANES-1:0]    served;    // lanes served by this cycle's pass
    wire                    pass_now  = busy & (|r_pend);
    // Last cycle of the row: this pass serves every pending lane (or the row had no active lane).
    wire                    finishing = busy & (served == r_pend);
    wire                    req_go    = req_valid & req_ready;
    wire                    clr_go    = clr & clr_ready;

    assign req_ready = ~busy | finishing;
    assign clr_ready = ~busy;          // a clear never competes with a pass for a bank port

    always @(posedge clk) begin
        if (rst)            busy <= 1'b0;
        else if (req_go)    busy <= 1'b1;
        else if (finishing) busy <= 1'b0;
    end

    always @(posedge clk) begin
        if (rst) begin
            r_pend <= {NUM_LANES{1'b0}};
        end else if (req_go) begin
            r_pend   <= lane_mask;
            r_passes <= {PW{1'b0}};
        end else if (pass_now) begin
            r_pend   <= r_pend & ~served;
            r_passes <= r_passes + 1'b1;
        end
    end

    // The request fields only change when a new row is accepted.
    always @(posedge clk) begin
        if (req_go) begin
            r_store <= store;
            r_mask  <= lane_mask;
            r_addr  <= addr;
            r_wdata <= wdata;
        end
    end

    // ---------------------------------------------------------------- pass selection
    // Each block below computes a whole vector in one loop over the lanes (rather than one block per
    // bank or lane), so an event-driven simulator evaluates it once per change of its inputs.
    // Lane x's line is r_addr[x*AW + BW +: LW]; its bank is lane_bank[x*BWS +: BWS].
    localparam integer BMASK = NUM_BANKS - 1;   // masks the bank index to 0 when there is one bank
    reg [NUM_LANES*BWS-1:0] lane_bank;  // bank of each lane
    reg [NUM_BANKS-1:0]     bank_hit;   // bank has a pending lane: it is accessed this pass
    reg [NUM_BANKS*LW-1:0]  bank_line;  // line selected in each bank
    reg [NUM_BANKS*32-1:0]  bank_wd;    // store data for each bank
    integer bl, sl, vl, wl;

    always @* begin
        for (bl = 0; bl < NUM_LANES; bl = bl + 1)
            lane_bank[bl*BWS +: BWS] = r_addr[bl*AW +: BWS] & BMASK[BWS-1:0];
    end

    always @* begin
        bank_hit  = {NUM_BANKS{1'b0}};
        bank_line = {(NUM_BANKS*LW){1'b0}};
        // Downwards, so the lowest pending lane of each bank is the one that stays selected.
        for (sl = NUM_LANES - 1; sl >= 0; sl = sl - 1) begin
            if (r_pend[sl]) begin
                bank_hit[lane_bank[sl*BWS +: BWS]]              = 1'b1;
                bank_line[lane_bank[sl*BWS +: BWS]*LW +: LW]    = r_addr[sl*AW + BW +: LW];
            end
        end
    end

    // A pending lane is served when its line is the one selected for its bank (broadcast).
    always @* begin
        for (vl = 0; vl < NUM_LANES; vl = vl + 1)
            served[vl] = r_pend[vl] &&
                         (r_addr[vl*AW + BW +: LW] == bank_line[lane_bank[vl*BWS +: BWS]*LW +: LW]);
    end

    // Upwards, so the highest served lane of each bank is the one whose data stays (isa 3.3).
    always @* begin
        bank_wd = {(NUM_BANKS*32){1'b0}};
        for (wl = 0; wl < NUM_LANES; wl = wl + 1)
            if (served[wl]) bank_wd[lane_bank[wl*BWS +: BWS]*32 +: 32] = r_wdata[wl*32 +: 32];
    end

    // ---------------------------------------------------------------- banks
    genvar gi, gb;
    reg  [NUM_BANKS*32-1:0] bank_dout;
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    // Fault 3 only moves store passes: loads still read the bank their address names.
    wire f_wrong_bank = simt_fault == `SIMT_FAULT_WRONG_BANK && r_store;
`endif

    generate
        for (gb = 0; gb < NUM_BANKS; gb = gb + 1) begin : g_bank
            localparam integer BI = gb;
            reg  [31:0]   mem [0:DEPTH-1];
            reg  [31:0]   dout;
`ifdef SIMT_FAULTS
            // Fault 3: this bank performs the pass meant for the bank below it, so the data of bank b
            // lands in bank (b+1) mod NUM_BANKS at the same line (no effect with one bank).
            localparam integer SRC = (gb + NUM_BANKS - 1) % NUM_BANKS;
            wire          hit  = f_wrong_bank ? bank_hit[SRC] : bank_hit[gb];
            wire [LW-1:0] sel  = f_wrong_bank ? bank_line[SRC*LW +: LW] : bank_line[gb*LW +: LW];
            wire [31:0]   wd   = f_wrong_bank ? bank_wd[SRC*32 +: 32] : bank_wd[gb*32 +: 32];
`else
            wire          hit  = bank_hit[gb];
            wire [LW-1:0] sel  = bank_line[gb*LW +: LW];
            wire [31:0]   wd   = bank_wd[gb*32 +: 32];
`endif
            wire          we   = clr_go | (pass_now & r_store & hit);
            wire          re   = pass_now & ~r_store & hit;
            wire [LW-1:0] line = clr_go ? clr_line : sel;
            wire [31:0]   d    = clr_go ? 32'd0 : wd;

            always @(posedge clk) begin
                if (we) mem[line] <= d;
            end
            always @(posedge clk) begin
                if (re) dout <= mem[line];
            end

            always @(*) bank_dout[gb*32 +: 32] = dout;
            assign obs_we[gb]             = we;
            always @(*) obs_data[gb*32 +: 32]  = d;
            if (BW == 0) begin : g_obs1
                always @(*) obs_addr[gb*AW +: AW] = line;
            end else begin : g_obsn
                always @(*) obs_addr[gb*AW +: AW] = {line, BI[BWS-1:0]};
            end
        end
    endgenerate
    // A clear and a pass never share a cycle (clr_ready is low while a row is in progress).
    assign obs_clr = clr_go;

    // ---------------------------------------------------------------- load data collection
    // A pass's read data leaves the RAMs one cycle later; cap_* remember which lanes it belongs to
    // (a copy, because the next row may already be in r_* by then).
    reg [NUM_LANES-1:0]     cap;        // lanes served by the previous cycle's load pass
    reg [NUM_LANES*BWS-1:0] cap_bank;   // bank of each of those lanes
    reg [NUM_LANES-1:0]     rsp_lanes;  // lanes whose rdata is returned (load rows' active lanes)
    reg [NUM_LANES*32-1:0]  res;        // collected read data of earlier passes

    always @(posedge clk) begin
        if (rst) cap <= {NUM_LANES{1'b0}};
        else     cap <= (pass_now & ~r_store) ? served : {NUM_LANES{1'b0}};
    end

    always @(posedge clk) begin
        cap_bank <= lane_bank;
    end

    always @(posedge clk) begin
        if (rst) rsp_valid <= 1'b0;
        else     rsp_valid <= finishing;
    end

    always @(posedge clk) begin
        if (finishing) begin
            passes    <= r_passes + {{(PW - 1){1'b0}}, pass_now};
            rsp_lanes <= r_store ? {NUM_LANES{1'b0}} : r_mask;
        end
    end

    generate
        for (gi = 0; gi < NUM_LANES; gi = gi + 1) begin : g_collect
            wire [31:0] rd = bank_dout[cap_bank[gi*BWS +: BWS]*32 +: 32];

            always @(posedge clk) begin
                if (cap[gi]) res[gi*32 +: 32] <= rd;
            end

            // The last pass's data is still on its way in the response cycle: take it directly.
            always @(*) rdata[gi*32 +: 32] = ~rsp_lanes[gi] ? 32'd0 : cap[gi] ? rd : res[gi*32 +: 32];
        end
    endgenerate

endmodule
