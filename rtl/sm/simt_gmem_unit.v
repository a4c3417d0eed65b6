// simt_gmem_unit — global-memory path with latency hiding (docs/sm.md, docs/isa.md 6.3/6.4).
//
// Accepts one warp access at a time (acc_*), coalesces it (simt_coalescer) and issues its
// transactions on the SM memory port (mreq_*), tagged {warp slot, transaction index}. While they are
// outstanding the unit accepts accesses of OTHER warps: every warp slot has its own bookkeeping, so
// responses (mrsp_*) of any warp may come back in any order after any delay. When every transaction
// of an access has been answered the access is reported on the completion port (cpl_*).
//
// Per warp slot the unit keeps: the access's lane mask, each lane's word offset in its segment and
// the index of the transaction serving the lane (recorded when the coalescer emits it), an
// outstanding-transaction counter and a WARP_SIZE x 32 load-data buffer. A load response with tag
// {w, k} writes its words into the lanes of warp w served by transaction k; a store's response is
// only an acknowledgement. Because every warp owns its buffer, a response never has to wait for
// anything: mrsp_ready is constantly 1, and a completion that the consumer does not take
// (cpl_ready low) just stays pending in its warp slot while responses of other warps keep landing.
//
// Choices beyond docs/sm.md (reported to the lead):
//  - warp field of the tag: WID_W = max(1, clog2(NUM_WARPS)) bits (a 1-bit field that is always 0
//    when NUM_WARPS = 1), index field clog2(WARP_SIZE) bits; TAG_W must equal WID_W + clog2(WARP_SIZE).
//  - completion also reports cpl_txns (transactions of the access, for the retire port's rt_txns).
//  - cpl_rdata lanes outside the access mask read 0; for stores cpl_rdata is all 0.
//  - acc_ready is low while the offered warp slot still has an access in flight (the SM never offers
//    one, but it must not corrupt the slot's bookkeeping if it did).
//  - an access with an empty mask completes with cpl_txns = 0 and issues nothing.
//  - mreq_* are registered (one output stage): a transaction reaches the port one cycle after the
//    coalescer forms it; the port still carries one transaction per cycle.
//  - completions of several finished warps are delivered round-robin by warp slot.
//  - acc_ready depends combinationally on mreq_ready (through the coalescer's in_ready), so a new
//    access can enter in the cycle the previous one's last transaction leaves.
//
// Posted stores (POST_STORES = 1; default 0, which is the behaviour above). The memory port promises
// that a request takes effect when it is accepted (docs/gpu.md "Ordering"), so a store need not wait
// for its acknowledgements: its completion is offered once its last transaction has left the output
// stage (accepted on the port). Its acknowledgements still arrive later, while the warp's next access
// may already be in flight, so tags must stay unique without "one access per warp": the transaction
// index is then a per-slot running counter (mod WARP_SIZE) instead of the number within the access, a
// per-index flag says which outstanding indices are stores (their responses are acknowledgements,
// never load data), and the coalescer waits when the slot's next index is still outstanding.
// acks_out says some store transaction has entered the output stage and is not yet acknowledged: the
// GPU does not end a launch while any SM's is high (docs/gpu.md "Launch lifecycle"); it is 0 when
// POST_STORES = 0, where a store with an outstanding acknowledgement has not completed.
// Test-only faults (SIMT_FAULTS builds, docs/sm.md): 4, the first store transaction is never
// presented on the port, yet counts as issued and answered; 26 (POST_STORES = 1), a store completes
// while its last transaction still waits in the output stage.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
module simt_gmem_unit #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE, // threads per warp
    parameter integer NUM_WARPS = `SIMT_DEFAULT_NUM_WARPS, // resident warp slots
    parameter integer SEG_WORDS = `SIMT_DEFAULT_SEG_WORDS, // words per memory segment
    parameter integer POST_STORES = `SIMT_DEFAULT_POST_STORES, // 1: a store completes when its transactions are accepted (above)
    // tag width: must be max(1, clog2(NUM_WARPS)) + clog2(WARP_SIZE)
    parameter integer TAG_W = (NUM_WARPS > 1 ? $clog2(NUM_WARPS) : 1) + $clog2(WARP_SIZE)
) (
    input  wire                                          clk,
    input  wire                                          rst,
    // access from the back end
    input  wire                                          acc_valid,
    output wire                                          acc_ready,
    input  wire [(NUM_WARPS > 1 ? $clog2(NUM_WARPS) : 1)-1:0] acc_warp,
    input  wire [WARP_SIZE-1:0]                          acc_mask,
    input  wire [WARP_SIZE*32-1:0]                       acc_addr,
    input  wire                                          acc_store,
    input  wire [WARP_SIZE*32-1:0]                       acc_wdata,
    // SM memory port: requests
    output reg                                           mreq_valid,
    input  wire                                          mreq_ready,
    output reg  [31:0]                                   mreq_addr,
    output reg                                           mreq_write,
    output reg  [SEG_WORDS-1:0]                          mreq_mask,
    output reg  [SEG_WORDS*32-1:0]                       mreq_wdata,
    output reg  [TAG_W-1:0]                              mreq_tag,
    // SM memory port: responses
    input  wire                                          mrsp_valid,
    output wire                                          mrsp_ready,
    input  wire [TAG_W-1:0]                              mrsp_tag,
    input  wire [SEG_WORDS*32-1:0]                       mrsp_rdata,
    // completion to the back end
    output wire                                          cpl_valid,
    input  wire                                          cpl_ready,
    output wire [(NUM_WARPS > 1 ? $clog2(NUM_WARPS) : 1)-1:0] cpl_warp,
    output wire                                          cpl_store,
    output wire [$clog2(WARP_SIZE):0]                    cpl_txns,
    output reg  [WARP_SIZE*32-1:0]                       cpl_rdata,
    // POST_STORES: a completed store's acknowledgement is still outstanding (any warp slot)
    output wire                                          acks_out
);
    localparam integer WID_W = NUM_WARPS > 1 ? $clog2(NUM_WARPS) : 1;
    localparam integer IDX_W = $clog2(WARP_SIZE);
    localparam integer OFF_W = SEG_WORDS > 1 ? $clog2(SEG_WORDS) : 1;  // stored word offset
    localparam integer CNT_W = IDX_W + 1;                                // 0..WARP_SIZE

    // Parameter checks: stop both simulators at time 0 with a readable message.
    generate
        `SIMT_CHECK_WARP_SIZE("simt_gmem_unit", WARP_SIZE)
        `SIMT_CHECK_NUM_WARPS("simt_gmem_unit", NUM_WARPS)
        `SIMT_CHECK_SEG_WORDS("simt_gmem_unit", SEG_WORDS)
        `SIMT_CHECK_POST_STORES("simt_gmem_unit", POST_STORES)
        if (TAG_W != WID_W + IDX_W) begin : g_bad_tag_w
            `SIMT_AT_ELAB $fatal(1, "simt_gmem_unit: illegal parameter TAG_W=%0d (must be %0d: %0d warp-slot bits + %0d index bits)",
                           TAG_W, WID_W + IDX_W, WID_W, IDX_W);
        end
    endgenerate

    // ---------------------------------------------------------------- coalescer
    wire                  co_in_ready;
    wire                  co_valid;
    wire                  co_ready;
    wire [31:0]           co_base;
    wire [SEG_WORDS-1:0]  co_wmask;
    wire [SEG_WORDS*32-1:0] co_wdata;
    wire                  co_store;
    wire                  co_last;
    wire [IDX_W-1:0]      co_index;
    wire [WARP_SIZE-1:0]  co_lanes;
    wire                  co_empty;

    wire [NUM_WARPS-1:0]  busy;          // slot has an access that has not completed yet
    wire                  acc_slot_free = !busy[acc_warp];
    assign acc_ready = co_in_ready && acc_slot_free;
    wire acc_fire = acc_valid && acc_ready;

    simt_coalescer #(.WARP_SIZE(WARP_SIZE), .SEG_WORDS(SEG_WORDS)) u_coalescer (
        .clk(clk), .rst(rst),
        .in_valid(acc_valid && acc_slot_free), .in_ready(co_in_ready),
        .in_mask(acc_mask), .in_addr(acc_addr), .in_store(acc_store), .in_wdata(acc_wdata),
        .out_valid(co_valid), .out_ready(co_ready),
        .out_base(co_base), .out_wmask(co_wmask), .out_wdata(co_wdata), .out_store(co_store),
        .out_last(co_last), .out_index(co_index), .out_lanes(co_lanes), .out_empty(co_empty)
    );

    // Warp whose access the coalescer holds (it accepts exactly when we do).
    reg [WID_W-1:0] cur_warp_q;
    always @(posedge clk) begin
        if (rst) cur_warp_q <= {WID_W{1'b0}};
        else if (acc_fire) cur_warp_q <= acc_warp;
    end

    // ---------------------------------------------------------------- request output stage
    // One register stage between the coalescer and the port; an empty-access marker bypasses it.
    wire stage_free = !mreq_valid || mreq_ready;
    wire [NUM_WARPS-1:0] idx_busy;   // POST_STORES: the slot's next tag index is still outstanding
    wire [IDX_W-1:0]     slot_nidx [0:NUM_WARPS-1];  // POST_STORES: the slot's next tag index
    wire [IDX_W-1:0]     tag_idx = POST_STORES != 0 ? slot_nidx[cur_warp_q] : co_index;
    assign co_ready = co_empty || (stage_free && !idx_busy[cur_warp_q]);
    wire beat_fire = co_valid && co_ready;            // any coalescer beat taken (marker included)
    wire issue     = beat_fire && !co_empty;          // a real transaction enters the stage
`ifdef SIMT_FAULTS
    // Fault 4: the first store transaction of the run (once per simulation, none in reset) is lost
    // between the coalescer and the port. It still counts in txns_q and is never waited for, so the
    // access completes as if it had been sent and acknowledged; memory never sees its words.
    `SIMT_FAULT_PLUSARG
    reg  f_lost;
    reg  f_reset_seen;  // armed only after a reset has been seen and out of reset: under Verilator's
    initial begin       // random initial state rst and the coalescer may read anything at the first edges
        f_lost       = 1'b0;
        f_reset_seen = 1'b0;
    end
    wire f_lose = simt_fault == `SIMT_FAULT_LOST_TXN && !f_lost && issue && co_store && f_reset_seen && !rst;
    always @(posedge clk) begin
        if (rst) f_reset_seen <= 1'b1;
        if (f_lose) f_lost <= 1'b1;
    end
    wire sent = issue && !f_lose;
`else
    wire sent = issue;                                // the transaction reaches the port
`endif

    always @(posedge clk) begin
        if (rst) mreq_valid <= 1'b0;
        else if (stage_free) mreq_valid <= sent;
    end

    always @(posedge clk) begin
        if (issue) begin
            mreq_addr  <= co_base;
            mreq_write <= co_store;
            mreq_mask  <= co_wmask;
            mreq_wdata <= co_wdata;
            mreq_tag   <= TAG_W'({cur_warp_q, tag_idx});  // cast: TAG_W is checked above
        end
    end

    // ---------------------------------------------------------------- responses
    assign mrsp_ready = 1'b1;  // every response has a reserved place: its warp's buffer
    wire             rsp_fire = mrsp_valid;
    wire [WID_W-1:0] rsp_warp = mrsp_tag[TAG_W-1 -: WID_W];
    wire [IDX_W-1:0] rsp_idx  = mrsp_tag[IDX_W-1:0];

    // Per-slot state, flattened for the shared read muxes below.
    wire [WARP_SIZE-1:0]         slot_mask  [0:NUM_WARPS-1];
    wire [WARP_SIZE*OFF_W-1:0]   slot_off   [0:NUM_WARPS-1];
    wire [WARP_SIZE*IDX_W-1:0]   slot_txn   [0:NUM_WARPS-1];
    wire [WARP_SIZE*32-1:0]      slot_data  [0:NUM_WARPS-1];
    wire [CNT_W-1:0]             slot_txns  [0:NUM_WARPS-1];
    wire [NUM_WARPS-1:0]         slot_store;
    wire [NUM_WARPS-1:0]         done;       // every transaction issued and answered
    wire [NUM_WARPS-1:0]         slot_acks;  // POST_STORES: a store transaction of the slot is unanswered

    // Which lanes of the responding warp this response serves, and the word each of them gets.
    wire [WARP_SIZE-1:0]         rsp_row_mask = slot_mask[rsp_warp];
    wire [WARP_SIZE*OFF_W-1:0]   rsp_row_off  = slot_off[rsp_warp];
    wire [WARP_SIZE*IDX_W-1:0]   rsp_row_txn  = slot_txn[rsp_warp];
    reg  [WARP_SIZE-1:0]         rsp_lanes;
    wire [NUM_WARPS-1:0]         slot_rsp_st;  // the response's index is an outstanding store's
    wire                         rsp_is_st = slot_rsp_st[rsp_warp];
    reg  [WARP_SIZE*32-1:0]      rsp_words;
    integer l, w;

    always @* begin : response_scatter
        for (l = 0; l < WARP_SIZE; l = l + 1) begin
            rsp_lanes[l] = rsp_row_mask[l] && rsp_row_txn[l*IDX_W +: IDX_W] == rsp_idx && !rsp_is_st;
            rsp_words[l*32 +: 32] = 32'd0;
            for (w = 0; w < SEG_WORDS; w = w + 1)
                if ({{(32-OFF_W){1'b0}}, rsp_row_off[l*OFF_W +: OFF_W]} == w)
                    rsp_words[l*32 +: 32] = mrsp_rdata[w*32 +: 32];
        end
    end

    // ---------------------------------------------------------------- completion
    // Round-robin among finished slots: the first at or after the slot after the last one delivered.
    reg [WID_W-1:0] rr_q;
    reg [WID_W-1:0] cpl_sel;
    reg             cpl_any;
    integer i;

    always @* begin : completion_pick
        reg found_hi;
        reg [WID_W-1:0] hi;
        found_hi = 1'b0;
        hi = {WID_W{1'b0}};
        cpl_any = 1'b0;
        cpl_sel = {WID_W{1'b0}};
        for (i = NUM_WARPS - 1; i >= 0; i = i - 1) begin
            if (done[i]) begin
                cpl_any = 1'b1;
                cpl_sel = i[WID_W-1:0];  // ends as the lowest finished slot
                if (i > {{(32-WID_W){1'b0}}, rr_q}) begin
                    found_hi = 1'b1;
                    hi = i[WID_W-1:0];   // ends as the lowest finished slot above rr_q
                end
            end
        end
        if (found_hi) cpl_sel = hi;
    end

    assign cpl_valid = cpl_any;
    assign cpl_warp  = cpl_sel;
    assign cpl_store = slot_store[cpl_sel];
    assign cpl_txns  = slot_txns[cpl_sel];
    wire cpl_fire = cpl_valid && cpl_ready;

    wire [WARP_SIZE-1:0]    cpl_row_mask = slot_mask[cpl_sel];
    wire [WARP_SIZE*32-1:0] cpl_row_data = slot_data[cpl_sel];
    genvar gl;
    generate
        for (gl = 0; gl < WARP_SIZE; gl = gl + 1) begin : g_cpl_lane
            // (wires read the slot arrays; the lane's slice is written from an always block, so Icarus
            // does not rebuild the WARP_SIZE*32-bit cpl_rdata bit by bit once per lane)
            wire        lane_on = cpl_row_mask[gl] && !cpl_store;
            wire [31:0] word    = cpl_row_data[gl*32 +: 32];
            always @(*) cpl_rdata[gl*32 +: 32] = lane_on ? word : 32'd0;
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) rr_q <= WID_W'(NUM_WARPS - 1);  // so slot 0 is first after reset
        else if (cpl_fire) rr_q <= cpl_sel;
    end

    // ---------------------------------------------------------------- per warp slot
    genvar g;
    generate
        for (g = 0; g < NUM_WARPS; g = g + 1) begin : g_slot
            localparam [WID_W-1:0] SLOT = g;
            wire mine_acc = acc_fire && acc_warp == SLOT;
            wire mine_beat = beat_fire && cur_warp_q == SLOT;
            wire mine_sent = sent && cur_warp_q == SLOT;  // a transaction of this slot is issued
            wire mine_rsp = rsp_fire && rsp_warp == SLOT;
            wire mine_cpl = cpl_fire && cpl_sel == SLOT;

            reg             busy_q;
            reg             issued_q;   // the coalescer has emitted the access's last beat
            reg             store_q;
            reg [CNT_W-1:0] out_q;      // transactions issued but not answered
            reg [CNT_W-1:0] txns_q;     // transactions issued for this access
            reg [WARP_SIZE-1:0]       mask_q;
            reg [WARP_SIZE*OFF_W-1:0] off_q;
            reg [WARP_SIZE*IDX_W-1:0] txn_q;
            reg [WARP_SIZE*32-1:0]    data_q;
            wire            cnt_sent;   // an issued transaction this access waits for
            wire            cnt_rsp;    // a response of this access (not a posted store's)
            wire            fin;        // the access may complete once issued

            always @(posedge clk) begin
                if (rst) busy_q <= 1'b0;
                else if (mine_acc) busy_q <= 1'b1;
                else if (mine_cpl) busy_q <= 1'b0;
            end

            always @(posedge clk) begin
                if (rst) issued_q <= 1'b0;
                else if (mine_acc) issued_q <= 1'b0;
                else if (mine_beat && co_last) issued_q <= 1'b1;
            end

            // Counters: an issue and a response of the same slot may coincide.
            always @(posedge clk) begin
                if (rst) out_q <= {CNT_W{1'b0}};
                else out_q <= out_q + {{(CNT_W-1){1'b0}}, cnt_sent}
                                    - {{(CNT_W-1){1'b0}}, cnt_rsp};
            end

            always @(posedge clk) begin
                if (rst) txns_q <= {CNT_W{1'b0}};
                else if (mine_acc) txns_q <= {CNT_W{1'b0}};
                else if (mine_beat && !co_empty) txns_q <= txns_q + {{(CNT_W-1){1'b0}}, 1'b1};
            end

            // Access description, captured at acceptance (the coalescer keeps its own copy).
            always @(posedge clk) begin : capture
                integer k;
                if (mine_acc) begin
                    store_q <= acc_store;
                    mask_q  <= acc_mask;
                    for (k = 0; k < WARP_SIZE; k = k + 1)
                        off_q[k*OFF_W +: OFF_W] <= acc_addr[k*32 +: OFF_W] & OFF_W'(SEG_WORDS - 1);
                end
            end

            // Which transaction serves each lane: recorded as the coalescer emits it.
            always @(posedge clk) begin : record_txn
                integer k;
                if (mine_beat && !co_empty)
                    for (k = 0; k < WARP_SIZE; k = k + 1)
                        if (co_lanes[k]) txn_q[k*IDX_W +: IDX_W] <= tag_idx;
            end

            // Load data lands lane by lane; stores are only acknowledged.
            always @(posedge clk) begin : scatter
                integer k;
                if (mine_rsp && !store_q)
                    for (k = 0; k < WARP_SIZE; k = k + 1)
                        if (rsp_lanes[k]) data_q[k*32 +: 32] <= rsp_words[k*32 +: 32];
            end

            if (POST_STORES != 0) begin : g_post
                reg [IDX_W-1:0]     nidx_q;  // next tag index of the slot (running, mod WARP_SIZE)
                reg [WARP_SIZE-1:0] pend_q;  // tag indices issued and not answered
                reg [WARP_SIZE-1:0] pst_q;   // ... whose transaction is a store
                always @(posedge clk) begin
                    if (rst) begin
                        nidx_q <= {IDX_W{1'b0}};
                        pend_q <= {WARP_SIZE{1'b0}};
                        pst_q  <= {WARP_SIZE{1'b0}};
                    end else begin
                        if (mine_sent) begin
                            nidx_q         <= nidx_q + 1'b1;
                            pend_q[nidx_q] <= 1'b1;
                            pst_q[nidx_q]  <= co_store;
                        end
                        if (mine_rsp) pend_q[rsp_idx] <= 1'b0;
                    end
                end
                // The output stage holds a transaction of this slot that the port has not taken yet.
                wire in_stage = mreq_valid && mreq_tag[TAG_W-1 -: WID_W] == SLOT;
`ifdef SIMT_FAULTS
                // Fault 26: a store completes although its last transaction still waits in the stage.
                wire f_early = simt_fault == `SIMT_FAULT_POSTED_EARLY;
`else
                wire f_early = 1'b0;
`endif
                assign slot_nidx[g]   = nidx_q;
                assign idx_busy[g]    = pend_q[nidx_q];
                assign slot_rsp_st[g] = pst_q[rsp_idx];
                assign slot_acks[g]   = |(pend_q & pst_q);  // (pst_q keeps stale bits; pend_q gates them)
                assign cnt_sent       = mine_sent && !co_store;
                assign cnt_rsp        = mine_rsp && !pst_q[rsp_idx];
                assign fin            = !store_q || !in_stage || f_early;
            end else begin : g_wait
                assign slot_nidx[g]   = {IDX_W{1'b0}};
                assign idx_busy[g]    = 1'b0;
                assign slot_rsp_st[g] = 1'b0;
                assign slot_acks[g]   = 1'b0;
                assign cnt_sent       = mine_sent;
                assign cnt_rsp        = mine_rsp;
                assign fin            = 1'b1;
            end

            assign busy[g]       = busy_q;
            // (POST_STORES: a store's out_q counts nothing, so it is done once issued and out of the stage.)
            assign done[g]       = busy_q && issued_q && out_q == {CNT_W{1'b0}} && fin;
            assign slot_store[g] = store_q;
            assign slot_mask[g]  = mask_q;
            assign slot_off[g]   = off_q;
            assign slot_txn[g]   = txn_q;
            assign slot_data[g]  = data_q;
            assign slot_txns[g]  = txns_q;
        end
    endgenerate
    assign acks_out = |slot_acks;
endmodule
