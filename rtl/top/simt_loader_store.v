`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
// DATA-record store path of the launch-image loader (docs/gpu.md; image format docs/isa.md 8.3):
// turns the words of DATA runs into SEG_WORDS-aligned masked store requests on a port of the SM
// memory protocol (docs/sm.md), one request per segment touched, and counts their acknowledgements.
// simt_loader decides which words are DATA words (and whether they are legal); this module only packs
// and sends them, so the loader's record sequencing and the memory protocol sit in separate files.
// Every output is the same register or expression it was inside simt_loader: no cycle changes.
module simt_loader_store #(
    parameter integer SEG_WORDS = `SIMT_DEFAULT_SEG_WORDS,  // global segment words
    parameter integer TAG_W     = 9                          // memory request tag width: 1..32
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    restart,    // a magic word starts a new image: drop the open segment
    input  wire                    in_dpay,    // the loader expects a DATA word
    input  wire                    base_acc,   // a legal DATA base address is taken (img_word)
    input  wire                    word_acc,   // a legal DATA word is taken (img_word)
    input  wire                    last_pay,   // ... and it is the last word of its record
    input  wire [31:0]             img_word,
    input  wire [32:0]             data_end,   // one past the last word of the record whose base is taken
    output reg  [32:0]             d_prev_end, // one past the previous DATA record's last word (0 before the first)
    output wire                    img_ready,  // low while a completing word waits for the request register
    output reg                     mreq_valid,
    input  wire                    mreq_ready,
    output reg  [31:0]             mreq_addr,
    output wire                    mreq_write,
    output reg  [SEG_WORDS-1:0]    mreq_mask,
    output reg  [SEG_WORDS*32-1:0] mreq_wdata,
    output wire [TAG_W-1:0]        mreq_tag,
    input  wire                    mrsp_valid,
    output wire                    mrsp_ready,
    output wire                    idle        // no request waiting and every store acknowledged
);
    generate
        `SIMT_CHECK_SEG_WORDS("simt_loader_store", SEG_WORDS)
        if (TAG_W < 1 || TAG_W > 32) begin : bad_tag
            `SIMT_AT_ELAB $fatal(1,
                "simt_loader_store: illegal parameter TAG_W=%0d (must be in 1..32)", TAG_W);
        end
    endgenerate

    localparam integer SOFF_W     = (SEG_WORDS > 1) ? $clog2(SEG_WORDS) : 1;
    localparam [31:0]  SEG_MASK   = ~(SEG_WORDS - 1);  // clears the word-in-segment bits of an address
    localparam integer SEG_LAST_I = SEG_WORDS - 1;
    localparam [SOFF_W-1:0] SEG_LAST = SEG_LAST_I[SOFF_W-1:0];

    // Words of a run are gathered in bf_* until the word at the end of its segment or the run's last
    // word; then the segment moves to the request register (mreq_*). The request register is not
    // touched by a restart: a request once valid is held until accepted (protocol), and counted.
    reg  [31:0]             d_addr;   // global address of the next DATA word
    reg  [SEG_WORDS-1:0]    bf_mask;
    reg  [SEG_WORDS*32-1:0] bf_data;
    wire [SOFF_W-1:0]       d_off     = (SEG_WORDS > 1) ? d_addr[SOFF_W-1:0] : {SOFF_W{1'b0}};
    wire                    seg_end   = d_off == SEG_LAST || last_pay;
    wire [SEG_WORDS-1:0]    ins_mask  = bf_mask | ({{(SEG_WORDS - 1){1'b0}}, 1'b1} << d_off);
    wire [SEG_WORDS*32-1:0] ins_data  = bf_data | ({{(SEG_WORDS * 32 - 32){1'b0}}, img_word} << (d_off * 32));
    // Depends on the loader state only (never on img_word or mreq_ready): a completing word waits for a free
    // request register.
    assign img_ready  = !(in_dpay && seg_end && mreq_valid);
    assign mreq_write = 1'b1;
    assign mreq_tag   = {TAG_W{1'b0}};
    assign mrsp_ready = 1'b1;

    always @(posedge clk) begin
        if (rst) begin
            mreq_valid <= 1'b0;
            mreq_addr  <= 32'd0;
            mreq_mask  <= {SEG_WORDS{1'b0}};
            mreq_wdata <= {(SEG_WORDS * 32){1'b0}};
        end else if (word_acc && seg_end) begin
            mreq_valid <= 1'b1;  // img_ready guaranteed the register was free
            mreq_addr  <= d_addr & SEG_MASK;
            mreq_mask  <= ins_mask;
            mreq_wdata <= ins_data;
        end else if (mreq_ready) begin
            mreq_valid <= 1'b0;
        end
    end

    always @(posedge clk) begin
        if (rst || restart) begin
            d_prev_end <= 33'd0;
            d_addr  <= 32'd0;
            bf_mask <= {SEG_WORDS{1'b0}};
            bf_data <= {(SEG_WORDS * 32){1'b0}};  // words outside the mask are sent as 0
        end else if (base_acc) begin
            d_prev_end <= data_end;
            d_addr  <= img_word;
        end else if (word_acc) begin
            d_addr  <= d_addr + 32'd1;
            bf_mask <= seg_end ? {SEG_WORDS{1'b0}} : ins_mask;
            bf_data <= seg_end ? {(SEG_WORDS * 32){1'b0}} : ins_data;
        end
    end

    // Stores issued and not yet acknowledged; kept across restarts, since their responses still come.
    // It never goes below 0: a response to a store issued before a reset is ignored, not counted.
    reg [31:0] outstanding;
    wire       req_fire = mreq_valid && mreq_ready;
    wire       rsp_fire = mrsp_valid;  // mrsp_ready is always high
    always @(posedge clk) begin
        if (rst)                                             outstanding <= 32'd0;
        else if (req_fire && !rsp_fire)                      outstanding <= outstanding + 32'd1;
        else if (!req_fire && rsp_fire && outstanding != 0)  outstanding <= outstanding - 32'd1;
    end
    assign idle = !mreq_valid && outstanding == 32'd0;
endmodule
