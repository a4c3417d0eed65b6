// Test-only global memory behind the GPU's external memory port (docs/verification.md "HDL memory").
// Not part of the design: it replaces the harness's Python responder so that no Python runs on a
// cycle where nothing is observed. Same contract as tb/agents/gmem_responder.py:
//   * a request takes effect when it is accepted: a store writes its masked words, a load reads its
//     segment (unmasked words read 0); the response only reports it, LAT_MIN..LAT_MAX cycles later;
//   * knobs (inputs, held steady during a launch): probability of mreq_ready per cycle, latency
//     range (uniform), in-order or out-of-order (by ready cycle) responses, probability that a ready
//     response is presented in a cycle (bubbles); a presented response is held until taken;
//   * reset drops every response in flight (stores already took effect).
// Probabilities are in 256ths (0..256, 256 = always). All randomness comes from one xorshift64
// generator seeded by `seed`, so a run repeats exactly from the harness's seed.
// Protocol errors of the GPU (a request changing while held off, an unaligned or out-of-range
// address, X on a valid out of reset) raise `proto_err` with a code for the trace writer.
module simt_tb_mem #(
    parameter integer SEG_WORDS    = 8,        // words per segment: power of two 1..32
    parameter integer XTAG_W       = 8,        // tag width
    parameter integer GLOBAL_WORDS = 8192,     // memory words: power of two
    parameter integer PEND         = 64        // responses in flight at most: 1..256 (then backpressure)
) (
    input  wire                      clk,
    input  wire                      rst,
    // knobs
    input  wire [8:0]                ready_pct,  // mreq_ready probability, /256
    input  wire [15:0]               lat_min,    // >= 1
    input  wire [15:0]               lat_max,    // >= lat_min
    input  wire                      ooo,        // responses by ready cycle (1) or request order (0)
    input  wire [8:0]                rsp_pct,    // presentation probability of a ready response, /256
    input  wire [63:0]               seed,       // loaded while rst is high (0 is replaced by 1)
    input  wire                      clear,      // zero the whole memory at this edge
    // the GPU's memory port
    input  wire                      mreq_valid,
    output wire                      mreq_ready,
    input  wire [31:0]               mreq_addr,
    input  wire                      mreq_write,
    input  wire [SEG_WORDS-1:0]      mreq_mask,
    input  wire [SEG_WORDS*32-1:0]   mreq_wdata,
    input  wire [XTAG_W-1:0]         mreq_tag,
    output reg                       mrsp_valid,
    input  wire                      mrsp_ready,
    output reg  [XTAG_W-1:0]         mrsp_tag,
    output reg  [SEG_WORDS*32-1:0]   mrsp_rdata,
    // what happened, for the trace writer
    output reg  [31:0]               cycle,      // edges since reset
    output reg  [SEG_WORDS*32-1:0]   req_data,   // a load's data as read at acceptance (store: wdata)
    output wire                      req_held,   // the request being accepted was held off before
    output reg  [7:0]                proto_err,  // 0 none, 1 X on mreq_valid, 2 changed while held, 3 bad address
    output wire [8:0]                pending     // responses owed
);
    localparam integer PI_W = (PEND > 1) ? $clog2(PEND) : 1;
    localparam integer AW   = $clog2(GLOBAL_WORDS);

    generate
        if (PEND < 1 || PEND > 256) begin : bad_pend
            initial $fatal(1, "simt_tb_mem: illegal parameter PEND=%0d (1..256)", PEND);
        end
    endgenerate

    reg [31:0] mem [0:GLOBAL_WORDS-1];

    // ---- random source ---------------------------------------------------------------------------
    reg  [63:0] rng;
    wire [63:0] rng_a = rng ^ (rng << 13);
    wire [63:0] rng_b = rng_a ^ (rng_a >> 7);
    wire [63:0] rng_n = rng_b ^ (rng_b << 17);
    always @(posedge clk) rng <= rst ? ((seed == 64'd0) ? 64'd1 : seed) : rng_n;

    // ---- responses in flight ---------------------------------------------------------------------
    reg                    p_v     [0:PEND-1];
    reg [XTAG_W-1:0]       p_tag   [0:PEND-1];
    reg [SEG_WORDS*32-1:0] p_data  [0:PEND-1];
    reg [31:0]             p_ready [0:PEND-1];  // first cycle it may be presented
    reg [31:0]             p_seq   [0:PEND-1];  // acceptance order
    reg [31:0]             seq;
    reg [PI_W:0]           count;               // entries in use
    reg [PI_W-1:0]         shown;               // entry being presented (while mrsp_valid)
    reg                    ready_q;
    wire [15:0]            lat_span  = lat_max - lat_min + 16'd1;
    wire [31:0]            lat       = {16'd0, lat_min} + (rng[63:32] % {16'd0, lat_span});
    wire [31:0]            new_ready = cycle + lat;

    assign mreq_ready = ready_q && (count < PEND[PI_W:0]);
    assign pending    = 9'(count);
    wire accept = mreq_valid && mreq_ready;
    wire taken  = mrsp_valid && mrsp_ready;

    // Entries are allocated lowest-free first, so every entry in use lies below `hwm`: the searches
    // below stop there. They run only at an edge that needs them (a request accepted, a response to
    // choose), never as combinational logic re-evaluated on every change: on Icarus a 64-entry scan
    // per cycle cost more than the GPU.
    reg [PI_W:0] hwm;
    integer i;

    // A free entry for the request accepted at this edge (one exists: mreq_ready needs count < PEND).
    function automatic [PI_W-1:0] lowest_free(input integer limit);
        integer k;
        reg     found;
        begin
            lowest_free = limit[PI_W-1:0];
            found = 1'b0;
            k = 0;
            while (k < limit && !found) begin
                if (!p_v[k]) begin
                    lowest_free = k[PI_W-1:0];
                    found = 1'b1;
                end
                k = k + 1;
            end
        end
    endfunction

    // The next response to present, from the entries left after this edge (`gone`, taken now,
    // excluded) and the request accepted now (entry `fresh`; its latency may be 1: presented in the
    // very next cycle, as the Python responder does): out of order, the earliest ready cycle (ties:
    // oldest); in order, the oldest, once it is ready. Returns {found, is the new one, entry}.
    function automatic [PI_W+1:0] pick(input integer limit, input have_gone, input [PI_W-1:0] gone,
                                       input have_new, input [PI_W-1:0] fresh);
        integer k;
        reg            ok, is_new;
        reg [PI_W-1:0] at;
        reg [31:0]     key, sq;
        begin
            ok = 1'b0; is_new = 1'b0; at = {PI_W{1'b0}}; key = 32'd0; sq = 32'd0;
            for (k = 0; k < limit; k = k + 1)
                if (p_v[k] && !(have_gone && gone == k[PI_W-1:0]))
                    if (!ok || (ooo ? (p_ready[k] < key || (p_ready[k] == key && p_seq[k] < sq)) : p_seq[k] < sq)) begin
                        ok = 1'b1; at = k[PI_W-1:0]; key = p_ready[k]; sq = p_seq[k];
                    end
            // the request accepted now is the youngest: it wins only on an earlier ready cycle, or alone
            if (have_new && (!ok || (ooo && new_ready < key))) begin
                ok = 1'b1; is_new = 1'b1; at = fresh; key = new_ready;
            end
            pick = {ok && key <= cycle + 32'd1, is_new, at};  // ready in the next cycle?
        end
    endfunction

    // ---- the memory array and acceptance ---------------------------------------------------------
    wire [AW-1:0] base = mreq_addr[AW-1:0];
    genvar w;
    generate
        for (w = 0; w < SEG_WORDS; w = w + 1) begin : rd
            // A wire reads the array (an always block reading it would wake on every word of it); the
            // slice is written from an always block, so Icarus does not rebuild req_data bit by bit.
            wire [31:0] word = mem[base + w];
            always @(*) req_data[w*32 +: 32] = mreq_write ? mreq_wdata[w*32 +: 32]
                                        : (mreq_mask[w] ? word : 32'd0);
        end
    endgenerate

    // A request seen valid and not accepted must stay the same until it is.
    reg                  held_q;
    reg [31:0]           held_addr;
    reg [SEG_WORDS-1:0]  held_mask;
    reg [XTAG_W-1:0]     held_tag;
    reg                  held_write;
    reg [SEG_WORDS*32-1:0] held_wdata;
    wire bad_addr = (mreq_addr % SEG_WORDS) != 0 || mreq_addr > GLOBAL_WORDS - SEG_WORDS;

    always @(posedge clk) begin
        if (clear)
            for (i = 0; i < GLOBAL_WORDS; i = i + 1) mem[i] <= 32'd0;
        else if (accept && mreq_write && !bad_addr)
            for (i = 0; i < SEG_WORDS; i = i + 1)
                if (mreq_mask[i]) mem[base + i[AW-1:0]] <= mreq_wdata[i*32 +: 32];
    end

    // A testbench process: the chosen entries are worked out in place at the edge (blocking).
    /* verilator lint_off BLKSEQ */
    reg [PI_W-1:0] free_i;
    reg [PI_W+1:0] sel;
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < PEND; i = i + 1) p_v[i] <= 1'b0;
            count      <= {(PI_W + 1){1'b0}};
            hwm        <= {(PI_W + 1){1'b0}};
            seq        <= 32'd0;
            cycle      <= 32'd0;
            ready_q    <= 1'b0;
            mrsp_valid <= 1'b0;
            shown      <= {PI_W{1'b0}};
            held_q     <= 1'b0;
            proto_err  <= 8'd0;
        end else begin
            cycle   <= cycle + 32'd1;
            ready_q <= {1'b0, rng[7:0]} < ready_pct;
            if (taken) p_v[shown] <= 1'b0;
            free_i = accept ? lowest_free({{(31 - PI_W){1'b0}}, hwm}) : {PI_W{1'b0}};
            if (accept) begin
                p_v[free_i]     <= 1'b1;
                p_tag[free_i]   <= mreq_tag;
                p_data[free_i]  <= mreq_write ? {SEG_WORDS*32{1'b0}} : req_data;
                p_ready[free_i] <= new_ready;
                p_seq[free_i]   <= seq;
                seq             <= seq + 32'd1;
            end
            count <= count + {{PI_W{1'b0}}, accept} - {{PI_W{1'b0}}, taken};
            if (count + {{PI_W{1'b0}}, accept} == {{PI_W{1'b0}}, taken}) hwm <= {(PI_W + 1){1'b0}};  // now empty
            else if (accept && {1'b0, free_i} >= hwm) hwm <= {1'b0, free_i} + 1'b1;
            if (!mrsp_valid || taken) begin
                // choose the next response
                sel = (count != 0 || accept) ? pick({{(31 - PI_W){1'b0}}, hwm}, taken, shown, accept, free_i) : {(PI_W + 2){1'b0}};
                if (sel[PI_W+1] && {1'b0, rng[15:8]} < rsp_pct) begin
                    mrsp_valid <= 1'b1;
                    shown      <= sel[PI_W-1:0];
                    mrsp_tag   <= sel[PI_W] ? mreq_tag : p_tag[sel[PI_W-1:0]];
                    mrsp_rdata <= sel[PI_W] ? (mreq_write ? {SEG_WORDS*32{1'b0}} : req_data) : p_data[sel[PI_W-1:0]];
                end else begin
                    mrsp_valid <= 1'b0;
                end
            end
            // protocol checks (sticky: the first error is reported)
            held_q     <= mreq_valid === 1'b1 && !mreq_ready;
            held_addr  <= mreq_addr;
            held_mask  <= mreq_mask;
            held_tag   <= mreq_tag;
            held_write <= mreq_write;
            held_wdata <= mreq_wdata;
            if (proto_err == 8'd0) begin
                if (mreq_valid !== 1'b0 && mreq_valid !== 1'b1) proto_err <= 8'd1;
                else if (mreq_valid && held_q && {held_addr, held_mask, held_tag, held_write, held_wdata} !=
                                                 {mreq_addr, mreq_mask, mreq_tag, mreq_write, mreq_wdata}) proto_err <= 8'd2;
                else if (accept && bad_addr) proto_err <= 8'd3;
            end
        end
    end
    /* verilator lint_on BLKSEQ */
    assign req_held = held_q;
endmodule
