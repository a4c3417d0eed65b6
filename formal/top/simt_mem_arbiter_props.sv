// Properties of simt_mem_arbiter (docs/gpu.md "Global memory port"): proved by k-induction in `make formal`.
//
// Contract (docs/sm.md "SM memory port", tb/tests/unit/test_mem_arbiter.py): reset first; an SM holds
// s_mreq_valid and its payload until s_mreq_ready; x_mreq_ready, the responses and s_mrsp_ready are free;
// `restart` (the pointer back to its reset value) comes only in a cycle no SM requests, as in simt_gpu
// (it pulses at a launch's start, when the loader's stores are answered and no SM has requested yet).
// The wrapper keeps the requests granted but not yet sent (at most two: output + skid register) as a queue.
// Properties:
//   at most one SM is told ready per cycle, and only one that requests;
//   no request lost, duplicated or reordered: x_mreq_* is always the oldest granted request, with its
//   payload and the tag {sm, tag}; x_mreq_valid exactly when one is waiting; a request waiting on x is
//   held with a stable payload until x_mreq_ready (valid/ready);
//   fairness: an SM that keeps requesting is granted within NUM_SMS grants;
//   responses go to the SM the tag names, with its tag and data, and x_mrsp_ready is that SM's ready
//   (a tag naming no SM is taken and dropped).
module simt_mem_arbiter_props #(
    parameter integer NUM_SMS   = 3,
    parameter integer SEG_WORDS = 1,
    parameter integer TAG_W     = 2
) (
    input wire                            clk,
    input wire                            rst,
    input wire                            restart,
    input wire [NUM_SMS-1:0]              s_mreq_valid,
    input wire [NUM_SMS*32-1:0]           s_mreq_addr,
    input wire [NUM_SMS-1:0]              s_mreq_write,
    input wire [NUM_SMS*SEG_WORDS-1:0]    s_mreq_mask,
    input wire [NUM_SMS*SEG_WORDS*32-1:0] s_mreq_wdata,
    input wire [NUM_SMS*TAG_W-1:0]        s_mreq_tag,
    input wire [NUM_SMS-1:0]              s_mrsp_ready,
    input wire                            x_mreq_ready,
    input wire                            x_mrsp_valid,
    input wire [(NUM_SMS > 1 ? $clog2(NUM_SMS) : 1)+TAG_W-1:0] x_mrsp_tag,
    input wire [SEG_WORDS*32-1:0]         x_mrsp_rdata
);
    localparam integer SM_W   = NUM_SMS > 1 ? $clog2(NUM_SMS) : 1;
    localparam integer XT     = SM_W + TAG_W;
    localparam integer DATA_W = SEG_WORDS * 32;
    localparam integer PAY_W  = 32 + 1 + SEG_WORDS + DATA_W + XT;
    localparam integer N      = NUM_SMS;

    wire [NUM_SMS-1:0]        s_mreq_ready, s_mrsp_valid;
    wire [NUM_SMS*TAG_W-1:0]  s_mrsp_tag;
    wire [NUM_SMS*DATA_W-1:0] s_mrsp_rdata;
    wire                      x_mreq_valid, x_mreq_write, x_mrsp_ready;
    wire [31:0]               x_mreq_addr;
    wire [SEG_WORDS-1:0]      x_mreq_mask;
    wire [DATA_W-1:0]         x_mreq_wdata;
    wire [XT-1:0]             x_mreq_tag;
    simt_mem_arbiter #(.NUM_SMS(NUM_SMS), .SEG_WORDS(SEG_WORDS), .TAG_W(TAG_W)) dut (
        .clk(clk), .rst(rst), .restart(restart),
        .s_mreq_valid(s_mreq_valid), .s_mreq_ready(s_mreq_ready), .s_mreq_addr(s_mreq_addr),
        .s_mreq_write(s_mreq_write), .s_mreq_mask(s_mreq_mask), .s_mreq_wdata(s_mreq_wdata),
        .s_mreq_tag(s_mreq_tag), .s_mrsp_valid(s_mrsp_valid), .s_mrsp_ready(s_mrsp_ready),
        .s_mrsp_tag(s_mrsp_tag), .s_mrsp_rdata(s_mrsp_rdata),
        .x_mreq_valid(x_mreq_valid), .x_mreq_ready(x_mreq_ready), .x_mreq_addr(x_mreq_addr),
        .x_mreq_write(x_mreq_write), .x_mreq_mask(x_mreq_mask), .x_mreq_wdata(x_mreq_wdata),
        .x_mreq_tag(x_mreq_tag), .x_mrsp_valid(x_mrsp_valid), .x_mrsp_ready(x_mrsp_ready),
        .x_mrsp_tag(x_mrsp_tag), .x_mrsp_rdata(x_mrsp_rdata)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);
    always @* if (restart) assume (s_mreq_valid == 0);

    // ---- contract: a request is held, unchanged, until it is taken
    reg [NUM_SMS-1:0]         h_valid;
    reg [NUM_SMS*32-1:0]      h_addr;
    reg [NUM_SMS-1:0]         h_write;
    reg [NUM_SMS*SEG_WORDS-1:0] h_mask;
    reg [NUM_SMS*DATA_W-1:0]  h_wdata;
    reg [NUM_SMS*TAG_W-1:0]   h_tag;
    always @(posedge clk) begin
        h_valid <= rst ? 0 : s_mreq_valid & ~s_mreq_ready;
        h_addr <= s_mreq_addr; h_write <= s_mreq_write; h_mask <= s_mreq_mask;
        h_wdata <= s_mreq_wdata; h_tag <= s_mreq_tag;
    end
    genvar g;
    generate
        for (g = 0; g < NUM_SMS; g = g + 1) begin : g_hold
            always @* if (!init && h_valid[g]) begin
                assume (s_mreq_valid[g]);
                assume (s_mreq_addr[g*32 +: 32] == h_addr[g*32 +: 32] && s_mreq_write[g] == h_write[g]);
                assume (s_mreq_mask[g*SEG_WORDS +: SEG_WORDS] == h_mask[g*SEG_WORDS +: SEG_WORDS]);
                assume (s_mreq_wdata[g*DATA_W +: DATA_W] == h_wdata[g*DATA_W +: DATA_W]);
                assume (s_mreq_tag[g*TAG_W +: TAG_W] == h_tag[g*TAG_W +: TAG_W]);
            end
        end
    endgenerate

    // ---- the granted requests not yet sent, oldest first
    reg [1:0]       qn;
    reg [PAY_W-1:0] q0, q1;
    reg [SM_W-1:0]  gi;   // SM granted this cycle (valid when |s_mreq_ready)
    integer k;
    always @* begin
        gi = 0;
        for (k = 0; k < N; k = k + 1) if (s_mreq_ready[k]) gi = k;
    end
    wire [PAY_W-1:0] in_pay = {s_mreq_addr[gi*32 +: 32], s_mreq_write[gi],
                               s_mreq_mask[gi*SEG_WORDS +: SEG_WORDS], s_mreq_wdata[gi*DATA_W +: DATA_W],
                               gi, s_mreq_tag[gi*TAG_W +: TAG_W]};
    wire grant = |s_mreq_ready;
    wire x_fire = x_mreq_valid && x_mreq_ready;
    always @(posedge clk) begin
        if (rst) qn <= 0;
        else begin
            case ({grant, x_fire})
                2'b10: begin if (qn == 0) q0 <= in_pay; else q1 <= in_pay; qn <= qn + 1'b1; end
                2'b01: begin q0 <= q1; qn <= qn - 1'b1; end
                2'b11: begin if (qn == 1) q0 <= in_pay; else begin q0 <= q1; q1 <= in_pay; end end
                default: ;
            endcase
        end
    end
    wire [PAY_W-1:0] x_pay = {x_mreq_addr, x_mreq_write, x_mreq_mask, x_mreq_wdata, x_mreq_tag};

    // ---- fairness: grants of other SMs while a watched SM keeps requesting
    (* anyconst *) reg [SM_W-1:0] ws;
    always @* assume (ws < N);
    reg [SM_W:0] waited;
    always @(posedge clk) begin
        if (rst || restart) waited <= 0;  // restart comes with no request: ws is not waiting
        else if (grant) waited <= (s_mreq_ready[ws] || !s_mreq_valid[ws]) ? 0 : waited + 1'b1;
    end
    // cyclic distance from the SM after `last` to b
    function automatic integer dist(input integer last, input integer b);
        integer a;
        begin
            a = (last + 1 >= N) ? 0 : last + 1;
            dist = (b >= a) ? b - a : b + N - a;
        end
    endfunction

    // peek: p_out_valid = dut.out_valid_q
    // peek: p_skid_valid = dut.skid_valid_q
    // peek: p_out_pay = dut.out_pay_q
    // peek: p_skid_pay = dut.skid_pay_q
    // peek: p_last = dut.last_q
    (* keep *) wire p_out_valid, p_skid_valid;
    (* keep *) wire [PAY_W-1:0] p_out_pay, p_skid_pay;
    (* keep *) wire [SM_W-1:0] p_last;

    wire [SM_W-1:0] rsp_sm = x_mrsp_tag[XT-1 -: SM_W];
    always @* begin
        if (!init) begin
            assert ($onehot0(s_mreq_ready));
            assert ((s_mreq_ready & ~s_mreq_valid) == 0);
            assert (qn <= 2);
            assert (x_mreq_valid == (qn != 0));
            if (qn != 0) assert (x_pay == q0);
`ifdef INVARIANTS
            // the unit's buffer is the queue, the pointer bounds the wait (induction invariants)
            assert (p_out_valid == (qn != 0) && p_skid_valid == (qn == 2));
            if (qn != 0) assert (p_out_pay == q0);
            if (qn == 2) assert (p_skid_pay == q1);
            assert (p_last < N);
            assert (waited + dist(p_last, ws) <= N - 1);
`endif
            assert (waited <= N - 1);
            // responses
            for (k = 0; k < N; k = k + 1) begin
                assert (s_mrsp_valid[k] == (x_mrsp_valid && rsp_sm == k));
                assert (s_mrsp_tag[k*TAG_W +: TAG_W] == x_mrsp_tag[TAG_W-1:0]);
                assert (s_mrsp_rdata[k*DATA_W +: DATA_W] == x_mrsp_rdata);
            end
            assert (x_mrsp_ready == ((rsp_sm < N) ? s_mrsp_ready[rsp_sm] : 1'b1));
        end
    end
endmodule
