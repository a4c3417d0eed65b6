`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
// Launch-image rule check (docs/isa.md 8.1, 8.3; docs/gpu.md ERR_RULE): decides, for the word the
// loader is being offered, whether it makes the image illegal and which rule it breaks. Purely
// combinational and separate from simt_loader so the rules read as one table beside
// spec/image_rules.py check_words, which walks a stream the same way; the loader keeps the state
// (state, rec, pidx, the running products) and acts on `bad` in the same cycle as before the split.
module simt_image_check #(
    parameter integer WARP_SIZE    = `SIMT_DEFAULT_WARP_SIZE,    // threads per warp
    parameter integer NUM_WARPS    = `SIMT_DEFAULT_NUM_WARPS,    // warp slots per SM
    parameter integer RF_DEPTH     = `SIMT_DEFAULT_RF_DEPTH,     // register rows per lane partition
    parameter integer SHARED_WORDS = `SIMT_DEFAULT_SHARED_WORDS, // shared words per SM
    parameter integer CONST_WORDS  = `SIMT_DEFAULT_CONST_WORDS,  // constant memory words
    parameter integer IMEM_WORDS   = `SIMT_DEFAULT_IMEM_WORDS,   // instruction memory words
    parameter integer GLOBAL_WORDS = `SIMT_DEFAULT_GLOBAL_WORDS  // global memory words
) (
    input  wire [3:0]  state,      // loader state (simt_loader_fsm.vh S_*)
    input  wire [2:0]  rec,        // record expected next (REC_*)
    input  wire [23:0] pidx,       // index of the payload word within its record
    input  wire [31:0] img_word,   // the word offered
    input  wire [21:0] thr_now,    // threads per block if this word is block.z (saturated)
    input  wire [15:0] nblk_hi,    // bits 47..32 of the grid's block count if this word is grid.z
    input  wire [15:0] rows_now,   // register rows of one block if this word is REGS
    input  wire [32:0] data_end,   // one past the last word of the DATA record if this is its base
    input  wire [32:0] d_prev_end, // one past the previous DATA record's last word (0 before the first)
    output reg         bad,        // the word makes the image illegal
    output reg  [7:0]  bad_rule,   // the rule it breaks (SIMT_RULE_*), 0 when none
    output wire [7:0]  bad_code    // docs/gpu.md launch error code that follows from the rule
);
    generate
        `SIMT_CHECK_WARP_SIZE("simt_image_check", WARP_SIZE)
        `SIMT_CHECK_NUM_WARPS("simt_image_check", NUM_WARPS)
        `SIMT_CHECK_RF_DEPTH("simt_image_check", RF_DEPTH)
        `SIMT_CHECK_SHARED_WORDS("simt_image_check", SHARED_WORDS)
        `SIMT_CHECK_CONST_WORDS("simt_image_check", CONST_WORDS)
        `SIMT_CHECK_IMEM_WORDS("simt_image_check", IMEM_WORDS)
        `SIMT_CHECK_GLOBAL_WORDS("simt_image_check", GLOBAL_WORDS)
    endgenerate
    `include "simt_loader_fsm.vh"

    localparam integer MAX_THREADS = NUM_WARPS * WARP_SIZE;  // a block of more threads cannot fit
    localparam [7:0]   E_IMAGE = 8'h10, E_FIT = 8'h11, E_SIZE = 8'h12;  // docs/gpu.md launch errors
    // Limits as sized constants, so every comparison below is between equal widths.
    localparam [23:0]  IMEM_LIM   = IMEM_WORDS[23:0];
    localparam [23:0]  CONST_LIM  = CONST_WORDS[23:0];
    localparam [21:0]  THR_LIM    = MAX_THREADS[21:0];
    localparam [15:0]  RF_LIM     = RF_DEPTH[15:0];
    localparam [32:0]  GLOBAL_END = {1'b0, GLOBAL_WORDS[31:0]};

    wire [7:0]  hdr_tag = img_word[31:24];
    wire [23:0] hdr_cnt = img_word[23:0];
    wire        dim_bad = img_word == 32'd0 || img_word > 32'd65535;

    reg [7:0] exp_tag;   // tag of the record expected next
    always @(*) begin
        case (rec)
            REC_GRID:   exp_tag = `SIMT_TAG_GRID;
            REC_BLOCK:  exp_tag = `SIMT_TAG_BLOCK;
            REC_REGS:   exp_tag = `SIMT_TAG_REGS;
            REC_SHARED: exp_tag = `SIMT_TAG_SHARED;
            REC_PARAM:  exp_tag = `SIMT_TAG_PARAM;
            REC_INSTR:  exp_tag = `SIMT_TAG_INSTR;
            REC_CONST:  exp_tag = `SIMT_TAG_CONST;
            default:    exp_tag = `SIMT_TAG_DATA;
        endcase
    end
    // The rule a word breaks (docs/gpu.md ERR_RULE; spec/image_rules.py check_words walks a
    // stream the same way); the launch error code follows from the rule.
    wire      known_tag = (hdr_tag >= `SIMT_TAG_GRID && hdr_tag <= `SIMT_TAG_DATA) || hdr_tag == `SIMT_TAG_END;
    wire [7:0] tag_rule = known_tag ? `SIMT_RULE_ORDER : `SIMT_RULE_TAG;
    always @(*) begin
        bad      = 1'b0;
        bad_rule = 8'd0;
        case (state)
            // A word that is not a magic word where an image must start, or after END.
            S_IDLE: begin
                bad      = 1'b1;
                bad_rule = `SIMT_RULE_MAGIC;
            end
            S_FLUSH, S_LOADED: begin
                bad      = 1'b1;
                bad_rule = `SIMT_RULE_AFTER_END;
            end
            S_VERSION: begin
                bad      = img_word != `SIMT_IMAGE_VERSION;
                bad_rule = `SIMT_RULE_VERSION;
            end
            S_HEADER: begin
                bad_rule = `SIMT_RULE_LENGTH;
                if (rec == REC_TAIL) begin
                    if (hdr_tag == `SIMT_TAG_DATA)     bad = hdr_cnt == 24'd0;  // no base address
                    else if (hdr_tag == `SIMT_TAG_END) bad = hdr_cnt != 24'd0;
                    else begin
                        bad      = 1'b1;
                        bad_rule = tag_rule;
                    end
                end else if (hdr_tag != exp_tag) begin
                    bad      = 1'b1;  // unknown tag, missing, repeated or out-of-order record
                    bad_rule = tag_rule;
                end else begin
                    case (rec)
                        REC_GRID, REC_BLOCK:  bad = hdr_cnt != 24'd3;
                        REC_REGS, REC_SHARED: bad = hdr_cnt != 24'd1;
                        REC_PARAM:            bad = hdr_cnt > 24'd16;
                        REC_INSTR: begin
                            bad      = hdr_cnt == 24'd0 || hdr_cnt > IMEM_LIM;
                            bad_rule = (hdr_cnt == 24'd0) ? `SIMT_RULE_LENGTH : `SIMT_RULE_SIZE_INSTR;
                        end
                        default: begin  // REC_CONST
                            bad      = hdr_cnt > CONST_LIM;
                            bad_rule = `SIMT_RULE_SIZE_CONST;
                        end
                    endcase
                end
            end
            S_PAYLOAD: begin
                case (rec)
                    REC_GRID: begin
                        // More than 2^32-1 blocks cannot be numbered by a 32-bit block index.
                        bad      = dim_bad || (pidx == 24'd2 && nblk_hi != 16'd0);
                        bad_rule = dim_bad ? `SIMT_RULE_DIM : `SIMT_RULE_BLOCKS;
                    end
                    REC_BLOCK: begin
                        bad      = dim_bad || (pidx == 24'd2 && thr_now > THR_LIM);
                        bad_rule = dim_bad ? `SIMT_RULE_DIM : `SIMT_RULE_FIT_WARPS;
                    end
                    REC_REGS: begin
                        bad      = img_word == 32'd0 || img_word > 32'd32 || rows_now > RF_LIM;
                        bad_rule = (img_word == 32'd0 || img_word > 32'd32) ? `SIMT_RULE_REGS
                                                                            : `SIMT_RULE_FIT_REGS;
                    end
                    REC_SHARED: begin
                        bad      = img_word > SHARED_WORDS;
                        bad_rule = `SIMT_RULE_FIT_SHARED;
                    end
                    default: ;  // PARAM, INSTR, CONST: any word
                endcase
            end
            S_DBASE: begin
                // Inside global memory, and at or after the end of the previous DATA record.
                bad      = data_end > GLOBAL_END || {1'b0, img_word} < d_prev_end;
                bad_rule = (data_end > GLOBAL_END) ? `SIMT_RULE_DATA_RANGE : `SIMT_RULE_DATA_ORDER;
            end
            default: ;  // S_DPAY: any word; S_ERROR: words are ignored
        endcase
    end
    assign bad_code = (bad_rule >= `SIMT_RULE_SIZE_INSTR) ? E_SIZE :
                      (bad_rule >= `SIMT_RULE_FIT_WARPS)  ? E_FIT  : E_IMAGE;
endmodule
