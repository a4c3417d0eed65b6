// simt_mem_arbiter — shares one external global-memory port among NUM_SMS SM memory ports
// (docs/gpu.md "Global memory port"; protocol of docs/sm.md "SM memory port" on every side).
//
// Ports: s_* are the SM side, packed by SM index (SM i: s_mreq_valid[i], s_mreq_addr[i*32 +: 32],
// s_mreq_mask[i*SEG_WORDS +: SEG_WORDS], s_mreq_wdata[i*SEG_WORDS*32 +: SEG_WORDS*32],
// s_mreq_tag[i*TAG_W +: TAG_W], and the same for s_mrsp_*); x_* is the external port, whose tag is
// {sm index (SM_W = max(1, clog2(NUM_SMS)) bits), sm tag (TAG_W bits)}.
//
// Requests. Every cycle a round-robin arbiter picks, among the SMs with s_mreq_valid high, the first
// one after the last granted SM (SM 0 first after reset and after a `restart` pulse), so with every SM requesting each is granted
// exactly once per NUM_SMS grants and no SM can starve another. The granted request goes into a
// two-entry skid buffer (output register + skid register) that drives x_mreq_*: every x_* request
// output is a flop and s_mreq_ready is a function of flops and s_mreq_valid only, so there is no
// combinational path from x_mreq_ready to the SMs (the SM's acc_ready already depends on its
// mreq_ready; a wide NUM_SMS-way payload mux in series with that would make a long top-level path).
// s_mreq_ready does depend combinationally on every s_mreq_valid (the pick), as valid/ready allows: a
// requester must not make its valid depend on its ready (the SM's mreq_valid is a flop). Cost:
// one cycle of latency; throughput stays one request per cycle. A request waiting on the external port
// stays in the output register unchanged (valid/ready rule on the external side), and an SM is only
// told ready when its request is taken, so its own held request is never dropped or duplicated.
// Requests leave on x_* in the order they were granted.
//
// `restart` (pulse) puts the round-robin pointer back to its reset value and touches nothing else (a
// request in the skid buffer stays; a request not yet granted is only picked in another order, which
// valid/ready allows). simt_gpu pulses it when a launch starts, so a launch's grant order, and with it
// its cycle count, does not depend on where the launch before left the pointer (docs/gpu.md "Global
// memory port").
//
// Responses. Combinational routing: x_mrsp_tag's top SM_W bits select the SM; s_mrsp_valid is high
// for that SM only, s_mrsp_tag/s_mrsp_rdata are the external tag's low TAG_W bits and the data,
// broadcast to every SM (only the valid one looks), and x_mrsp_ready is that SM's s_mrsp_ready.
// With one external response channel and no buffering, a response for an SM that holds
// s_mrsp_ready low also holds back the responses behind it for other SMs (head-of-line blocking;
// documented choice: the SM's gmem unit keeps mrsp_ready at 1, so this never costs anything there).
// It cannot deadlock: the response path does not depend on the request path here (requests never
// wait for responses inside the arbiter), so as long as every SM eventually accepts its responses
// (docs/sm.md) the head response drains and the channel moves on.
// A response whose SM field is >= NUM_SMS (possible only when NUM_SMS is 1 or not a power of
// two, and only if the memory invents a tag) is taken (x_mrsp_ready = 1) and dropped, so a broken memory
// cannot hang the port; no SM sees it.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
module simt_mem_arbiter #(
    parameter integer NUM_SMS   = 2,  // SM-side ports: 1..32 (simt_gpu: NUM_SMS SMs + the loader)
    parameter integer SEG_WORDS = `SIMT_DEFAULT_SEG_WORDS, // words per memory segment
    parameter integer TAG_W     = 6   // SM-side tag width: 1..16
) (
    input  wire                                        clk,
    input  wire                                        rst,
    input  wire                                        restart,  // pulse: pointer to its reset value
    // SM side: requests
    input  wire [NUM_SMS-1:0]                          s_mreq_valid,
    output wire [NUM_SMS-1:0]                          s_mreq_ready,
    input  wire [NUM_SMS*32-1:0]                       s_mreq_addr,
    input  wire [NUM_SMS-1:0]                          s_mreq_write,
    input  wire [NUM_SMS*SEG_WORDS-1:0]                s_mreq_mask,
    input  wire [NUM_SMS*SEG_WORDS*32-1:0]             s_mreq_wdata,
    input  wire [NUM_SMS*TAG_W-1:0]                    s_mreq_tag,
    // SM side: responses
    output wire [NUM_SMS-1:0]                          s_mrsp_valid,
    input  wire [NUM_SMS-1:0]                          s_mrsp_ready,
    output reg  [NUM_SMS*TAG_W-1:0]                    s_mrsp_tag,
    output reg  [NUM_SMS*SEG_WORDS*32-1:0]             s_mrsp_rdata,
    // external port: requests
    output wire                                        x_mreq_valid,
    input  wire                                        x_mreq_ready,
    output wire [31:0]                                 x_mreq_addr,
    output wire                                        x_mreq_write,
    output wire [SEG_WORDS-1:0]                        x_mreq_mask,
    output wire [SEG_WORDS*32-1:0]                     x_mreq_wdata,
    output wire [(NUM_SMS > 1 ? $clog2(NUM_SMS) : 1)+TAG_W-1:0] x_mreq_tag,
    // external port: responses
    input  wire                                        x_mrsp_valid,
    output wire                                        x_mrsp_ready,
    input  wire [(NUM_SMS > 1 ? $clog2(NUM_SMS) : 1)+TAG_W-1:0] x_mrsp_tag,
    input  wire [SEG_WORDS*32-1:0]                     x_mrsp_rdata
);
    localparam integer SM_W    = NUM_SMS > 1 ? $clog2(NUM_SMS) : 1;
    localparam integer X_TAG_W = SM_W + TAG_W;
    localparam integer DATA_W  = SEG_WORDS * 32;
    // request payload as stored in the skid buffer: {addr, write, mask, wdata, x tag}
    localparam integer PAY_W   = 32 + 1 + SEG_WORDS + DATA_W + X_TAG_W;

    // Parameter checks: stop both simulators at time 0 with a readable message.
    generate
        if (NUM_SMS < 1 || NUM_SMS > 32) begin : g_bad_num_sms
            `SIMT_AT_ELAB $fatal(1, "simt_mem_arbiter: illegal parameter NUM_SMS=%0d (must be in 1..32)", NUM_SMS);
        end
        `SIMT_CHECK_SEG_WORDS("simt_mem_arbiter", SEG_WORDS)
        if (TAG_W < 1 || TAG_W > 16) begin : g_bad_tag_w
            `SIMT_AT_ELAB $fatal(1, "simt_mem_arbiter: illegal parameter TAG_W=%0d (must be in 1..16)", TAG_W);
        end
    endgenerate

    // ---------------------------------------------------------------- round-robin pick
    reg  [SM_W-1:0] last_q;  // last granted SM: the search starts right after it
    reg  [SM_W-1:0] pick;
    reg             any_req;
    integer         k;
    integer         idx;
    // Walk from the farthest SM (last_q itself) down to the nearest (last_q + 1) so the nearest
    // requesting SM is assigned last and wins.
    always @(*) begin
        pick    = last_q;
        any_req = 1'b0;
        for (k = NUM_SMS; k >= 1; k = k - 1) begin
            idx = {{(32-SM_W){1'b0}}, last_q} + k;
            if (idx >= NUM_SMS) idx = idx - NUM_SMS;
            if (s_mreq_valid[idx]) begin
                pick    = idx[SM_W-1:0];
                any_req = 1'b1;
            end
        end
    end

    // ---------------------------------------------------------------- skid buffer
    reg             out_valid_q;   // drives x_mreq_valid
    reg [PAY_W-1:0] out_pay_q;
    reg             skid_valid_q;  // a granted request that arrived while the output was stalled
    reg [PAY_W-1:0] skid_pay_q;

    wire in_ready = !skid_valid_q;          // a flop: x_mreq_ready never reaches s_mreq_ready
    wire in_fire  = any_req && in_ready;
    wire out_free = !out_valid_q || x_mreq_ready;  // the output register may load at this edge

    wire [PAY_W-1:0] in_pay = {s_mreq_addr[pick*32 +: 32], s_mreq_write[pick],
                               s_mreq_mask[pick*SEG_WORDS +: SEG_WORDS], s_mreq_wdata[pick*DATA_W +: DATA_W],
                               pick, s_mreq_tag[pick*TAG_W +: TAG_W]};

    genvar g;
    generate
        for (g = 0; g < NUM_SMS; g = g + 1) begin : g_req_ready
            localparam [SM_W-1:0] SM = g;
            assign s_mreq_ready[g] = in_fire && pick == SM;
        end
    endgenerate

`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    // Fault 25: the pointer survives from the previous launch (restart is ignored).
    wire restart_ok = restart && simt_fault != `SIMT_FAULT_ARB_HISTORY;
`else
    wire restart_ok = restart;
`endif
    always @(posedge clk) begin
        if (rst || restart_ok) last_q <= NUM_SMS[SM_W-1:0] - 1'b1;  // SM 0 is first after reset
        else if (in_fire) last_q <= pick;
    end

    always @(posedge clk) begin
        if (rst) begin
            out_valid_q  <= 1'b0;
            skid_valid_q <= 1'b0;
        end else begin
            if (out_free) out_valid_q <= skid_valid_q || in_fire;
            skid_valid_q <= !out_free && (skid_valid_q || in_fire);  // in_fire implies !skid_valid_q
        end
    end

    // Payload registers need no reset: they are only looked at while their valid is high.
    always @(posedge clk) begin
        if (out_free && (skid_valid_q || in_fire)) out_pay_q <= skid_valid_q ? skid_pay_q : in_pay;
        if (!out_free && in_fire) skid_pay_q <= in_pay;
    end

    assign x_mreq_valid = out_valid_q;
    assign {x_mreq_addr, x_mreq_write, x_mreq_mask, x_mreq_wdata, x_mreq_tag} = out_pay_q;

    // ---------------------------------------------------------------- response routing
    wire [SM_W-1:0] rsp_sm = x_mrsp_tag[X_TAG_W-1 -: SM_W];
    wire            rsp_known;  // the SM field names an existing SM
    generate
        if (NUM_SMS == (1 << SM_W)) begin : g_rsp_all_known
            assign rsp_known = 1'b1;
        end else begin : g_rsp_range
            localparam [SM_W:0] NUM_SMS_W = NUM_SMS[SM_W:0];  // one spare bit: NUM_SMS=1 needs 1 < 2**SM_W
            assign rsp_known = {1'b0, rsp_sm} < NUM_SMS_W;
        end
        for (g = 0; g < NUM_SMS; g = g + 1) begin : g_rsp
            localparam [SM_W-1:0] SM = g;
            assign s_mrsp_valid[g]                    = x_mrsp_valid && rsp_sm == SM;
            always @(*) s_mrsp_tag[g*TAG_W +: TAG_W]     = x_mrsp_tag[TAG_W-1:0];
            always @(*) s_mrsp_rdata[g*DATA_W +: DATA_W] = x_mrsp_rdata;
        end
    endgenerate
    assign x_mrsp_ready = rsp_known ? s_mrsp_ready[rsp_sm] : 1'b1;
endmodule
