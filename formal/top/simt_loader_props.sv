// Properties of simt_loader (with simt_image_check and simt_loader_store) against the launch-image rules
// of spec/image_rules.py check_words (docs/isa.md 8.1, 8.3; docs/gpu.md launch errors, ERR_RULE,
// IMG_WORDS): proved by k-induction in `make formal` (tools/formal/jobs.py, job `loader`).
//
// The reference checker below is written after check_words, not after the RTL: a phase (no image,
// version, record header, payload, END seen, error), the records of RECORD_ORDER taken so far (popped
// at their header, as check_words does), the current record's tag, count and payload index, the word
// index, and the values the later rules need (grid x*y, block x*y, warps per block, the previous DATA
// record's end). Its numbers (magic, version, tags, their order, limits, rule numbers, error codes) come
// from formal/top/simt_image_rules_ref.vh, generated from spec/image_rules.py; the machine limits are
// this wrapper's parameters (the GpuConfig check_words is given). check_words judges one image; the
// loader takes a stream of them, so the reference adds the loader's documented restart (docs/gpu.md
// IMAGE: a magic word where a record header or a new image may start, i.e. anywhere but inside a
// payload, starts a new image) and the launch lifecycle (START uses a loaded image up: no image again).
//
// Contract (simt_gpu, tb/tests/unit/test_loader.py): reset first; `launched` only while `loaded`, and
// never in the cycle a word is offered (START and IMAGE are two host writes); img_word, img_valid,
// mreq_ready and mrsp_valid are free.
// Properties, for every word stream:
//   error rises exactly at the first word check_words rejects (and its restart rule), with ERR_RULE =
//   that rule's number, ERR_KIND = Rule.code and IMG_WORDS = the word's index; no error otherwise;
//   while an image is taken IMG_WORDS is the index of the next word; `loaded` only after a legal END;
//   a word is never refused except a DATA word waiting for the store request register (the loader
//   never blocks on a bad image);
//   the launch configuration is the image's: cfg_grid, cfg_block, cfg_nblocks (x*y*z), cfg_threads,
//   cfg_wpb (ceil(threads / WARP_SIZE)), cfg_regs, cfg_shared, cfg_sh_stride (rounded up to
//   NUM_BANKS), cfg_nparams, cfg_params, cfg_ninstr, cfg_nconst;
//   INSTR / CONST payload word k is written to imem / cmem address k with its value, the cycle after
//   it is taken, and nothing else is written.
module simt_loader_props #(
    parameter integer WARP_SIZE    = 8,
    parameter integer NUM_LANES    = 4,
    parameter integer NUM_WARPS    = 3,
    parameter integer NUM_BLOCKS   = 2,
    parameter integer RF_DEPTH     = 32,
    parameter integer SHARED_WORDS = 64,
    parameter integer NUM_BANKS    = 2,
    parameter integer CONST_WORDS  = 16,
    parameter integer IMEM_WORDS   = 16,
    parameter integer SEG_WORDS    = 2,
    parameter integer GLOBAL_WORDS = 1024
) (
    input wire        clk,
    input wire        rst,
    input wire        img_valid,
    input wire [31:0] img_word,
    input wire        launched,
    input wire        mreq_ready,
    input wire        mrsp_valid
);
    `include "simt_image_rules_ref.vh"
    localparam integer TAG_W  = 1;
    localparam integer PC_W   = $clog2(IMEM_WORDS);
    localparam integer C_AW   = $clog2(CONST_WORDS);
    localparam integer SH_AW  = $clog2(SHARED_WORDS);
    localparam integer WCNT_W = $clog2(NUM_WARPS + 1);
    localparam integer BCNT_W = $clog2(NUM_BLOCKS + 1);
    localparam integer WS_LOG = $clog2(WARP_SIZE);
    localparam integer ROWS   = WARP_SIZE / NUM_LANES;  // GpuConfig.warp_rows

    wire                    img_ready;
    wire                    imem_we, cmem_we;
    wire [PC_W-1:0]         imem_waddr;
    wire [C_AW-1:0]         cmem_waddr;
    wire [31:0]             imem_wdata, cmem_wdata;
    wire [47:0]             cfg_grid, cfg_block;
    wire [10:0]             cfg_threads;
    wire [5:0]              cfg_regs;
    wire [WCNT_W-1:0]       cfg_wpb;
    wire [BCNT_W-1:0]       cfg_slots;
    wire [SH_AW:0]          cfg_shared, cfg_sh_stride;
    wire [4:0]              cfg_nparams;
    wire [16*32-1:0]        cfg_params;
    wire [PC_W:0]           cfg_ninstr;
    wire [C_AW:0]           cfg_nconst;
    wire [31:0]             cfg_nblocks;
    wire                    mreq_valid, mreq_write, mrsp_ready;
    wire [31:0]             mreq_addr;
    wire [SEG_WORDS-1:0]    mreq_mask;
    wire [SEG_WORDS*32-1:0] mreq_wdata;
    wire [TAG_W-1:0]        mreq_tag;
    wire                    loaded, busy, error;
    wire [7:0]              err_code, err_rule;
    wire [31:0]             img_words;
    wire [3:0]              ld_state;
    simt_loader #(
        .WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS), .NUM_BLOCKS(NUM_BLOCKS),
        .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS), .NUM_BANKS(NUM_BANKS), .CONST_WORDS(CONST_WORDS),
        .IMEM_WORDS(IMEM_WORDS), .SEG_WORDS(SEG_WORDS), .TAG_W(TAG_W), .GLOBAL_WORDS(GLOBAL_WORDS)
    ) dut (
        .clk(clk), .rst(rst), .img_valid(img_valid), .img_ready(img_ready), .img_word(img_word),
        .launched(launched), .imem_we(imem_we), .imem_waddr(imem_waddr), .imem_wdata(imem_wdata),
        .cmem_we(cmem_we), .cmem_waddr(cmem_waddr), .cmem_wdata(cmem_wdata), .cfg_grid(cfg_grid),
        .cfg_block(cfg_block), .cfg_threads(cfg_threads), .cfg_regs(cfg_regs), .cfg_wpb(cfg_wpb),
        .cfg_slots(cfg_slots), .cfg_shared(cfg_shared), .cfg_sh_stride(cfg_sh_stride),
        .cfg_nparams(cfg_nparams), .cfg_params(cfg_params), .cfg_ninstr(cfg_ninstr), .cfg_nconst(cfg_nconst),
        .cfg_nblocks(cfg_nblocks), .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr),
        .mreq_write(mreq_write), .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag({TAG_W{1'b0}}),
        .mrsp_rdata({(SEG_WORDS * 32){1'b0}}), .loaded(loaded), .busy(busy), .error(error),
        .err_code(err_code), .err_rule(err_rule), .img_words(img_words), .ld_state(ld_state)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);
    // ---- contract
    always @* if (!init && launched) assume (loaded && !img_valid);

    // the loader's registers the proof reads (induction invariants, shared products)
    // peek: p_state = dut.state
    // peek: p_rec = dut.rec
    // peek: p_pidx = dut.pidx
    // peek: p_plen = dut.plen
    // peek: p_gxy = dut.grid_xy
    // peek: p_txy = dut.thr_xy
    // peek (proof): p_dprev = dut.d_prev_end
    // peek (proof): p_slbusy = dut.sl_busy
    // peek (proof): p_slw = dut.sl_w
    // peek (proof): p_slr = dut.sl_r
    // peek (proof): p_sls = dut.sl_s
    // peek (proof): p_rowsq = dut.rows_q
    (* keep *) wire [3:0]  p_state;
    (* keep *) wire [2:0]  p_rec;
    (* keep *) wire [23:0] p_pidx, p_plen;
    (* keep *) wire [31:0] p_gxy;
    (* keep *) wire [21:0] p_txy;
    (* keep *) wire [32:0] p_dprev;
    (* keep *) wire        p_slbusy;
    (* keep *) wire [6:0]  p_slw;
    (* keep *) wire [15:0] p_slr, p_rowsq;
    (* keep *) wire [17:0] p_sls;

    // ---- the reference checker (spec/image_rules.py check_words, one word at a time)
    localparam [2:0] P_IDLE = 3'd0,  // no image: a word must be a magic word
                     P_VER  = 3'd1,  // word 1: the version
                     P_HDR  = 3'd2,  // a record header
                     P_PAY  = 3'd3,  // payload word r_k of the record r_tag (DATA: the base is word 0)
                     P_DONE = 3'd4,  // END taken: the image is complete (loaded once stored)
                     P_ERR  = 3'd5;  // an illegal image: words ignored until a magic word
    reg [2:0]   r_ph;
    reg [2:0]   r_nord;   // records of RECORD_ORDER taken (IR_NORDER: only DATA or END may follow)
    reg [7:0]   r_tag;
    reg [23:0]  r_cnt, r_k;
    reg [31:0]  r_idx;    // index of the next word of the image (on an error: the offending word's)
    reg [7:0]   r_rule;
    reg [47:0]  r_grid, r_block;
    reg [31:0]  r_gxy;  // grid x*y (each factor <= 65535: exact in 32 bits)
    reg [21:0]  r_txy;  // block x*y, each factor saturated at 1025 (see sat11)
    reg [10:0]  r_threads;
    reg [5:0]   r_wpb, r_regs;
    reg [31:0]  r_shared;
    reg [23:0]  r_nparams, r_ninstr, r_nconst;
    reg [16*32-1:0] r_params;
    reg [31:0]  r_nblocks;
    reg [32:0]  r_dend;   // one past the previous DATA record's last word (check_words' data_end)

    wire        fire  = img_valid && img_ready;
    wire [7:0]  h_tag = img_word[31:24];
    wire [23:0] h_cnt = img_word[23:0];
    wire        restart = img_word == IR_MAGIC && r_ph != P_PAY;
    wire        dim_ok  = img_word >= 32'd1 && img_word <= IR_MAX_DIM;
    // Products. check_words multiplies exactly; the reference saturates each factor of the thread count
    // at 1025 (any v > 1024 becomes 1025), which keeps "x*y*z > L" exact for every L <= 1024 when all
    // factors are >= 1 (DIM is checked first): a saturated factor alone exceeds L. Here L = NUM_WARPS *
    // WARP_SIZE <= 1024. A grid's block count is exact (48 bits).
    // The product operands are the loader's own registers (LP_GXY = dut.grid_xy, LP_TXY = dut.thr_xy,
    // LP_GX / LP_BX = cfg_grid / cfg_block x), each ASSERTED equal to the reference's own (r_gxy, r_txy,
    // r_grid, r_block), so Yosys merges the equal multipliers (an unmerged pair is a multiplier
    // equivalence for the SAT solver: the induction step ran 8 minutes without an answer, a 24-cycle BMC
    // stalled at step 7). Sound: this wrapper and one with the reference's own operands agree up to the
    // first step where one of those equalities fails, and that step fails its assertion in both.
    function automatic [10:0] sat11(input [21:0] v);
        sat11 = (v > 22'd1024) ? 11'd1025 : v[10:0];
    endfunction
    // (macros, not wires: the runner's `connect -set` of a peek would leave a wire assigned from it undriven)
`define LP_GXY p_gxy
`define LP_TXY p_txy
`define LP_GX  cfg_grid[15:0]
`define LP_BX  cfg_block[15:0]
    wire [47:0] g_n = {16'd0, `LP_GXY} * {32'd0, img_word[15:0]};  // grid x*y*z when this word is z
    wire [21:0] t_n = {11'd0, sat11(`LP_TXY)} * {11'd0, sat11({6'd0, img_word[15:0]})};  // block's threads
    wire [21:0] t_rnd = t_n + WARP_SIZE - 1;
    wire [21:0] wpb_n = t_rnd >> WS_LOG;  // -(-threads // warp_size)
    // register rows of one block when this word is REGS (wpb <= NUM_WARPS; asked only for regs <= 32)
    wire [15:0] rows_n = {10'd0, r_wpb} * ROWS * {10'd0, img_word[5:0]};
    wire [32:0] d_end = {1'b0, img_word} + {9'd0, r_cnt} - 33'd1;  // DATA: base + count - 1

    reg       e_bad;   // the offered word makes the image illegal
    reg [7:0] e_rule;
    always @* begin
        e_bad  = 1'b0;
        e_rule = 8'd0;
        case (r_ph)
            P_IDLE: begin e_bad = 1'b1; e_rule = IR_RULE_MAGIC; end
            P_DONE: begin e_bad = 1'b1; e_rule = IR_RULE_AFTER_END; end
            P_VER:  if (img_word != IR_VERSION) begin e_bad = 1'b1; e_rule = IR_RULE_VERSION; end
            P_HDR: begin
                e_bad = 1'b1;
                if (!ir_known_tag(h_tag)) e_rule = IR_RULE_TAG;
                else if (r_nord == IR_NORDER) begin
                    if (h_tag == IR_TAG_DATA && h_cnt == 24'd0)     e_rule = IR_RULE_LENGTH;
                    else if (h_tag == IR_TAG_END && h_cnt != 24'd0) e_rule = IR_RULE_LENGTH;
                    else if (h_tag != IR_TAG_DATA && h_tag != IR_TAG_END) e_rule = IR_RULE_ORDER;
                    else e_bad = 1'b0;
                end
                else if (h_tag != ir_order_tag(r_nord)) e_rule = IR_RULE_ORDER;
                else if ((h_tag == IR_TAG_GRID || h_tag == IR_TAG_BLOCK) && h_cnt != 24'd3) e_rule = IR_RULE_LENGTH;
                else if ((h_tag == IR_TAG_REGS || h_tag == IR_TAG_SHARED) && h_cnt != 24'd1) e_rule = IR_RULE_LENGTH;
                else if (h_tag == IR_TAG_PARAM && h_cnt > IR_MAX_PARAMS) e_rule = IR_RULE_LENGTH;
                else if (h_tag == IR_TAG_INSTR && h_cnt == 24'd0) e_rule = IR_RULE_LENGTH;
                else if (h_tag == IR_TAG_INSTR && h_cnt > IMEM_WORDS) e_rule = IR_RULE_SIZE_INSTR;
                else if (h_tag == IR_TAG_CONST && h_cnt > CONST_WORDS) e_rule = IR_RULE_SIZE_CONST;
                else e_bad = 1'b0;
            end
            P_PAY: begin
                if (r_tag == IR_TAG_GRID || r_tag == IR_TAG_BLOCK) begin
                    if (!dim_ok) begin e_bad = 1'b1; e_rule = IR_RULE_DIM; end
                    else if (r_tag == IR_TAG_GRID && r_k == 24'd2 && g_n > 48'hffff_ffff) begin
                        e_bad = 1'b1; e_rule = IR_RULE_BLOCKS;
                    end else if (r_tag == IR_TAG_BLOCK && r_k == 24'd2 && wpb_n > NUM_WARPS) begin
                        e_bad = 1'b1; e_rule = IR_RULE_FIT_WARPS;
                    end
                end else if (r_tag == IR_TAG_REGS) begin
                    if (img_word < 32'd1 || img_word > IR_MAX_REGS) begin e_bad = 1'b1; e_rule = IR_RULE_REGS; end
                    else if (rows_n > RF_DEPTH) begin e_bad = 1'b1; e_rule = IR_RULE_FIT_REGS; end
                end else if (r_tag == IR_TAG_SHARED) begin
                    if (img_word > SHARED_WORDS) begin e_bad = 1'b1; e_rule = IR_RULE_FIT_SHARED; end
                end else if (r_tag == IR_TAG_DATA && r_k == 24'd0) begin
                    if (d_end > GLOBAL_WORDS) begin e_bad = 1'b1; e_rule = IR_RULE_DATA_RANGE; end
                    else if ({1'b0, img_word} < r_dend) begin e_bad = 1'b1; e_rule = IR_RULE_DATA_ORDER; end
                end
            end
            default: ;  // P_ERR: words are ignored
        endcase
    end

    wire take = fire && !restart && !e_bad && r_ph != P_ERR;  // a word that continues a legal image
    always @(posedge clk) begin
        if (rst) begin
            r_ph  <= P_IDLE;
            r_idx <= 32'd0;
            r_rule <= 8'd0;
        end else if (fire && restart) begin
            r_ph  <= P_VER;
            r_idx <= 32'd1;  // the magic word is word 0
            r_rule <= 8'd0;
        end else if (fire && r_ph == P_ERR) begin
            // ignored
        end else if (fire && e_bad) begin
            r_ph   <= P_ERR;  // r_idx stays: the offending word's index
            r_rule <= e_rule;
        end else if (fire) begin
            r_idx <= r_idx + 32'd1;
            case (r_ph)
                P_VER: r_ph <= P_HDR;
                P_HDR: begin
                    r_tag <= h_tag;
                    r_cnt <= h_cnt;
                    r_k   <= 24'd0;
                    if (h_tag == IR_TAG_END) r_ph <= P_DONE;
                    else if (h_cnt != 24'd0) r_ph <= P_PAY;  // an empty PARAM or CONST: the next header
                end
                P_PAY: begin
                    r_k <= r_k + 24'd1;
                    if (r_k == r_cnt - 24'd1) r_ph <= P_HDR;
                end
                default: ;
            endcase
        end else if (r_ph == P_DONE && launched) begin
            r_ph <= P_IDLE;
        end
    end
    // the records taken and the values of the image (cleared by reset and by a new image)
    always @(posedge clk) begin
        if (rst || (fire && restart)) begin
            r_nord <= 3'd0;
            r_grid <= 48'd0; r_block <= 48'd0; r_gxy <= 32'd0; r_txy <= 22'd0;
            r_threads <= 11'd0; r_wpb <= 6'd0; r_regs <= 6'd0; r_shared <= 32'd0;
            r_nparams <= 24'd0; r_ninstr <= 24'd0; r_nconst <= 24'd0; r_params <= {(16 * 32){1'b0}};
            r_nblocks <= 32'd0; r_dend <= 33'd0;
        end else if (take && r_ph == P_HDR) begin
            if (r_nord != IR_NORDER) r_nord <= r_nord + 3'd1;  // RECORD_ORDER's pop
            if (h_tag == IR_TAG_PARAM) r_nparams <= h_cnt;
            if (h_tag == IR_TAG_INSTR) r_ninstr  <= h_cnt;
            if (h_tag == IR_TAG_CONST) r_nconst  <= h_cnt;
        end else if (take && r_ph == P_PAY) begin
            case (r_tag)
                IR_TAG_GRID: begin
                    r_grid[r_k[1:0] * 16 +: 16] <= img_word[15:0];
                    if (r_k == 24'd1) r_gxy <= {16'd0, `LP_GX} * {16'd0, img_word[15:0]};
                    if (r_k == 24'd2) r_nblocks <= g_n[31:0];
                end
                IR_TAG_BLOCK: begin
                    r_block[r_k[1:0] * 16 +: 16] <= img_word[15:0];
                    if (r_k == 24'd1) r_txy <= {11'd0, sat11({6'd0, `LP_BX})} * {11'd0, sat11({6'd0, img_word[15:0]})};
                    if (r_k == 24'd2) begin
                        r_threads <= t_n[10:0];
                        r_wpb     <= wpb_n[5:0];
                    end
                end
                IR_TAG_REGS:   r_regs   <= img_word[5:0];
                IR_TAG_SHARED: r_shared <= img_word;
                IR_TAG_PARAM:  r_params[r_k[3:0] * 32 +: 32] <= img_word;
                IR_TAG_DATA:   if (r_k == 24'd0) r_dend <= d_end;
                default: ;
            endcase
        end
    end
    // the instruction / constant writes expected from the word taken now
    reg        q_iwe, q_cwe;
    reg [23:0] q_k;
    reg [31:0] q_w;
    always @(posedge clk) begin
        q_iwe <= !rst && take && r_ph == P_PAY && r_tag == IR_TAG_INSTR;
        q_cwe <= !rst && take && r_ph == P_PAY && r_tag == IR_TAG_CONST;
        q_k   <= r_k;
        q_w   <= img_word;
    end

    wire live = r_ph == P_VER || r_ph == P_HDR || r_ph == P_PAY || r_ph == P_DONE;  // an image being taken
    wire past = r_ph == P_HDR || r_ph == P_PAY || r_ph == P_DONE;
    wire [SH_AW+1:0] stride = ((r_shared[SH_AW+1:0] + NUM_BANKS - 1) / NUM_BANKS) * NUM_BANKS;
    // SmLaunch.of (tb/agents/sm_driver.py): slots = min(num_blocks, num_warps // wpb,
    // rf_depth // (wpb * regs * warp_rows), shared_words // stride if stride else no limit)
    wire [15:0] r_rows = {10'd0, r_wpb} * ROWS * {10'd0, r_regs};
    // The largest k <= NUM_BLOCKS with k * wpb <= NUM_WARPS, k * rows <= RF_DEPTH and k * stride <=
    // SHARED_WORDS: the same min (k * a <= N exactly when k <= N // a), without a divider for the solver.
    reg [15:0] exp_slots;
    integer    k;
    always @* begin
        exp_slots = 16'd0;
        for (k = 1; k <= NUM_BLOCKS; k = k + 1)
            if (k * r_wpb <= NUM_WARPS && k * r_rows <= RF_DEPTH && k * stride <= SHARED_WORDS)
                exp_slots = k;
    end
    // the block slots per SM: SmLaunch.of's min(NUM_BLOCKS, warps, register rows, shared words)
    always @* if (!init && loaded) assert (cfg_slots == exp_slots);
    // SLOTS_ONLY (the slot search's planted fault, a 24-cycle BMC): only the assertion above; with every
    // other one the solver stalls near step 12 (the fault's trace needs a whole image, 19 words)
`ifndef SLOTS_ONLY
    always @* begin
        if (!init) begin
            // the verdict: the first word check_words rejects, its rule, code and index
            assert (error == (r_ph == P_ERR));
            if (r_ph == P_ERR) assert (err_rule == r_rule && err_code == ir_code(r_rule) && img_words == r_idx);
            else assert (err_rule == 8'd0 && err_code == 8'd0);
            assert (img_words == r_idx);  // in every phase (no image: the last image's length, 0 after reset)
            if (loaded) assert (r_ph == P_DONE);
            if (!(r_ph == P_PAY && r_tag == IR_TAG_DATA)) assert (img_ready);
            // the launch configuration is the image's
            if (live) begin
                assert (cfg_grid == r_grid && cfg_block == r_block && cfg_nblocks == r_nblocks);
                assert (cfg_threads == r_threads && cfg_wpb == r_wpb && cfg_regs == r_regs);
                assert (cfg_shared == r_shared[SH_AW:0] && cfg_sh_stride == stride[SH_AW:0]);
                assert (cfg_nparams == r_nparams && cfg_params == r_params);
                assert (cfg_ninstr == r_ninstr && cfg_nconst == r_nconst);
            end
            // the loader's product registers equal the reference's (grid x*y, saturated block x*y)
            assert (p_gxy == r_gxy && p_txy == r_txy);
            // INSTR / CONST words land at their index
            assert (imem_we == q_iwe && cmem_we == q_cwe);
            if (q_iwe) assert (imem_waddr == q_k && imem_wdata == q_w);
            if (q_cwe) assert (cmem_waddr == q_k && cmem_wdata == q_w);
        end
    end
`endif

    // ---- induction invariants: the loader's registers agree with the reference
`ifdef INVARIANTS
    always @* begin
        if (!init) begin
            case (r_ph)
                P_IDLE: assert (p_state == 4'd0);
                P_VER:  assert (p_state == 4'd1 && r_nord == 3'd0 && r_dend == 33'd0);
                P_HDR:  assert (p_state == 4'd2 && p_rec == r_nord);
                P_PAY: begin
                    assert (r_k < r_cnt);
                    if (r_tag != IR_TAG_DATA) begin
                        assert (p_state == 4'd3 && p_rec == r_nord - 3'd1 && r_nord != 3'd0);
                        assert (r_tag == ir_order_tag(r_nord - 3'd1) && r_nord <= IR_NORDER);
                        assert (p_pidx == r_k && p_plen == r_cnt);
                    end else begin
                        assert (r_nord == IR_NORDER && p_rec == r_nord);
                        assert (p_state == (r_k == 24'd0 ? 4'd4 : 4'd5) && p_plen == r_cnt - 24'd1);
                        assert (p_pidx == (r_k == 24'd0 ? 24'd0 : r_k - 24'd1));
                    end
                end
                P_DONE: assert ((p_state == 4'd6 || p_state == 4'd7) && r_nord == IR_NORDER);
                default: assert (p_state == 4'd8);
            endcase
            if (r_ph == P_HDR) assert (r_nord <= IR_NORDER);
            if (r_ph == P_PAY && r_tag == IR_TAG_GRID) assert (r_cnt == 24'd3);
            if (r_ph == P_PAY && r_tag == IR_TAG_BLOCK) assert (r_cnt == 24'd3);
            if (r_ph == P_PAY && (r_tag == IR_TAG_REGS || r_tag == IR_TAG_SHARED)) assert (r_cnt == 24'd1);
            if (r_ph == P_PAY && r_tag == IR_TAG_PARAM) assert (r_cnt <= IR_MAX_PARAMS);
            if (r_ph == P_PAY && r_tag == IR_TAG_INSTR) assert (r_cnt <= IMEM_WORDS);
            if (r_ph == P_PAY && r_tag == IR_TAG_CONST) assert (r_cnt <= CONST_WORDS);
            assert (p_dprev == r_dend);
            if (past && r_nord >= 3'd2 && !(r_ph == P_PAY && r_tag == IR_TAG_BLOCK)) assert (r_wpb <= NUM_WARPS && r_wpb != 0);
            if (past && r_nord >= 3'd2 && !(r_ph == P_PAY && r_tag == IR_TAG_BLOCK))
                assert (r_threads <= NUM_WARPS * WARP_SIZE && r_wpb == (r_threads + WARP_SIZE - 1) / WARP_SIZE);
            if (past && r_nord >= 3'd3 && !(r_ph == P_PAY && r_tag == IR_TAG_REGS)) assert (r_regs >= 1 && r_regs <= 32);
            if (past && r_nord >= 3'd4 && !(r_ph == P_PAY && r_tag == IR_TAG_SHARED)) assert (r_shared <= SHARED_WORDS);
            // the block dimensions taken are in 1..65535 (DIM), so the block has a thread
            if (r_ph == P_PAY && r_tag == IR_TAG_BLOCK && r_k != 24'd0) assert (r_block[15:0] != 16'd0);
            if (r_ph == P_PAY && r_tag == IR_TAG_BLOCK && r_k == 24'd2) assert (r_block[31:16] != 16'd0 && r_txy != 22'd0);
            // the slot search (started by SHARED): running sums of k * wpb, k * rows, k * stride
            if (live) begin
                if (r_nord < 3'd3 || (r_ph == P_PAY && r_tag == IR_TAG_REGS)) assert (p_rowsq == 16'd0);
                else assert (p_rowsq == r_rows);
                if (r_nord < 3'd4 || (r_ph == P_PAY && r_tag == IR_TAG_SHARED)) begin
                    assert (!p_slbusy && cfg_slots == 0 && p_slw == 0 && p_slr == 0 && p_sls == 0);
                end else begin
                    assert (p_slw == cfg_slots * r_wpb && p_slr == cfg_slots * r_rows && p_sls == cfg_slots * stride);
                    assert (cfg_slots <= exp_slots);
                    if (!p_slbusy) assert (cfg_slots == exp_slots);
                end
            end
        end
    end
`endif
endmodule
`undef LP_GXY
`undef LP_TXY
`undef LP_GX
`undef LP_BX
