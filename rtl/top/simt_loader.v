`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
// Launch-image loader (docs/gpu.md; image format docs/isa.md 8.3).
//
// Takes the image one 32-bit word per img_valid/img_ready handshake and, as the words stream by:
//   - validates the format (magic, version, records GRID BLOCK REGS SHARED PARAM INSTR CONST in this
//     order, then any DATA records, then END) and the launch limits of docs/isa.md 8.1;
//   - writes INSTR and CONST payloads through imem_* / cmem_* (the GPU broadcasts them to every SM);
//   - builds the SM launch configuration cfg_* (docs/sm.md "simt_sm"), including the derived cfg_wpb,
//     cfg_sh_stride and cfg_slots (tb/agents/sm_driver.py SmLaunch.of), and cfg_nblocks;
//   - turns DATA runs into SEG_WORDS-aligned masked store requests on a port of the SM memory protocol
//     (docs/sm.md), one request per segment touched, and counts their acknowledgements.
// The rule check of each word is simt_image_check and the DATA store path simt_loader_store (their own
// files, one job each); both are wired here with no register between, so the timing below is unchanged.
// `loaded` is high once a complete, valid image is held and every DATA store has been acknowledged,
// until `launched` says the GPU started it (one image, one launch: back to S_IDLE);
// `error` is high (with err_code, docs/gpu.md launch errors) from the first offending word until a
// magic word starts a new image. Words after an error are accepted and ignored, so the host can
// always finish writing an image: the loader never blocks on a bad one.
//
// Error codes: 0x10 bad image (magic, version, record order, tag, record length, dimension or register
// count out of range, grid of more than 2^32-1 blocks, DATA outside GLOBAL_WORDS, a word after END),
// 0x11 a block does not fit one SM (warps, register rows or shared words: exactly the cases where
// SmLaunch.of would find 0 slots), 0x12 INSTR or CONST longer than its memory. Each error is
// reported at the word that makes the image illegal, so the first offending word decides the code;
// err_rule names the rule it broke (SIMT_RULE_*, the numbers of spec/image_rules.py Rule,
// docs/gpu.md ERR_RULE) and img_words holds its index (word 0 = the magic word). While an image is
// being received img_words is the index of the next word expected, so a host that stops sending
// (a truncated image) can read how far the loader got.
//
// A magic word restarts the loader wherever a record header or a new image may start (docs/gpu.md,
// IMAGE register): the image being loaded is dropped, together with a DATA segment not yet issued.
// Inside a record's payload (GRID .. CONST words, a DATA base or DATA words) the magic value is an
// ordinary word, so any 32-bit value can be loaded.
//
// Timing: one word per cycle, except that a DATA word that completes a segment waits while the
// previous segment's request is still waiting for mreq_ready. After END, `loaded` rises when the
// last request has been acknowledged and the slot search (at most NUM_BLOCKS cycles after SHARED)
// has ended.
module simt_loader #(
    parameter integer WARP_SIZE    = `SIMT_DEFAULT_WARP_SIZE,    // threads per warp
    parameter integer NUM_LANES    = `SIMT_DEFAULT_NUM_LANES,    // integer lanes
    parameter integer NUM_WARPS    = `SIMT_DEFAULT_NUM_WARPS,    // warp slots per SM
    parameter integer NUM_BLOCKS   = `SIMT_DEFAULT_NUM_BLOCKS,   // block slots per SM
    parameter integer RF_DEPTH     = `SIMT_DEFAULT_RF_DEPTH,     // register rows per lane partition
    parameter integer SHARED_WORDS = `SIMT_DEFAULT_SHARED_WORDS, // shared words per SM
    parameter integer NUM_BANKS    = `SIMT_DEFAULT_NUM_BANKS,    // shared banks
    parameter integer CONST_WORDS  = `SIMT_DEFAULT_CONST_WORDS,  // constant memory words
    parameter integer IMEM_WORDS   = `SIMT_DEFAULT_IMEM_WORDS,   // instruction memory words
    parameter integer SEG_WORDS    = `SIMT_DEFAULT_SEG_WORDS,    // global segment words
    parameter integer TAG_W        = 9,       // memory request tag width: 1..32
    // DATA records must lie inside global memory (docs/isa.md 8.1): same value as the SMs' GLOBAL_WORDS
    parameter integer GLOBAL_WORDS = `SIMT_DEFAULT_GLOBAL_WORDS, // global memory words
    // derived widths (the SM's cfg_* port widths); not meant to be overridden
    parameter integer PC_W   = $clog2(IMEM_WORDS),
    parameter integer C_AW   = $clog2(CONST_WORDS),
    parameter integer SH_AW  = $clog2(SHARED_WORDS),
    parameter integer WCNT_W = $clog2(NUM_WARPS + 1),
    parameter integer BCNT_W = $clog2(NUM_BLOCKS + 1)
) (
    input  wire                    clk,
    input  wire                    rst,
    // image words (the host's IMAGE register)
    input  wire                    img_valid,
    output wire                    img_ready,
    input  wire [31:0]             img_word,
    // the GPU starts a launch with the held image (docs/gpu.md "Launch lifecycle"): a START uses the
    // image up, so `loaded` falls and a second START without a new image is launch error 0x13
    input  wire                    launched,
    // program load, broadcast to every SM
    output reg                     imem_we,
    output reg  [PC_W-1:0]         imem_waddr,
    output reg  [31:0]             imem_wdata,
    output reg                     cmem_we,
    output reg  [C_AW-1:0]         cmem_waddr,
    output reg  [31:0]             cmem_wdata,
    // launch configuration: the SM's cfg_* inputs (docs/sm.md), plus the grid's block count
    output reg  [47:0]             cfg_grid,       // {z, y, x}, 16 bits each
    output reg  [47:0]             cfg_block,      // {z, y, x}
    output reg  [10:0]             cfg_threads,
    output reg  [5:0]              cfg_regs,
    output reg  [WCNT_W-1:0]       cfg_wpb,
    output reg  [BCNT_W-1:0]       cfg_slots,
    output reg  [SH_AW:0]          cfg_shared,
    output reg  [SH_AW:0]          cfg_sh_stride,
    output reg  [4:0]              cfg_nparams,
    output reg  [16*32-1:0]        cfg_params,
    output reg  [PC_W:0]           cfg_ninstr,
    output reg  [C_AW:0]           cfg_nconst,
    output reg  [31:0]             cfg_nblocks,
    // DATA records: global-memory stores (SM memory protocol, docs/sm.md)
    output wire                    mreq_valid,
    input  wire                    mreq_ready,
    output wire [31:0]             mreq_addr,
    output wire                    mreq_write,
    output wire [SEG_WORDS-1:0]    mreq_mask,
    output wire [SEG_WORDS*32-1:0] mreq_wdata,
    output wire [TAG_W-1:0]        mreq_tag,
    input  wire                    mrsp_valid,
    output wire                    mrsp_ready,
    // A store acknowledgement carries no information beyond its arrival: every response on this port
    // answers one of the loader's stores (the GPU routes by tag), so tag and data are not inspected.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [TAG_W-1:0]        mrsp_tag,
    input  wire [SEG_WORDS*32-1:0] mrsp_rdata,
    /* verilator lint_on UNUSEDSIGNAL */
    // status
    output wire                    loaded,         // a complete valid image is held
    output wire                    busy,           // an image is being received or its stores drained
    output wire                    error,          // the image is illegal (sticky until a magic word)
    output reg  [7:0]              err_code,       // docs/gpu.md launch error code, 0 when no error
    output reg  [7:0]              err_rule,       // the rule broken (SIMT_RULE_*, docs/gpu.md ERR_RULE), 0 when none
    output reg  [31:0]             img_words,      // words of the image taken; on an error, the offending word's index
    output wire [3:0]              ld_state        // loader state (S_* below), for the STATUS register
);
    // ---- parameter checks (docs/isa.md section 9) ------------------------------------------------
    generate
        `SIMT_CHECK_WARP_SIZE("simt_loader", WARP_SIZE)
        `SIMT_CHECK_NUM_LANES("simt_loader", NUM_LANES)
        `SIMT_CHECK_NUM_LANES_AT_MOST_WARP_SIZE("simt_loader", NUM_LANES, WARP_SIZE)
        `SIMT_CHECK_NUM_WARPS("simt_loader", NUM_WARPS)
        `SIMT_CHECK_NUM_BLOCKS("simt_loader", NUM_BLOCKS)
        `SIMT_CHECK_NUM_BLOCKS_AT_MOST_NUM_WARPS("simt_loader", NUM_BLOCKS, NUM_WARPS)
        `SIMT_CHECK_RF_DEPTH("simt_loader", RF_DEPTH)
        `SIMT_CHECK_SHARED_WORDS("simt_loader", SHARED_WORDS)
        `SIMT_CHECK_NUM_BANKS("simt_loader", NUM_BANKS)
        `SIMT_CHECK_CONST_WORDS("simt_loader", CONST_WORDS)
        `SIMT_CHECK_IMEM_WORDS("simt_loader", IMEM_WORDS)
        `SIMT_CHECK_SEG_WORDS("simt_loader", SEG_WORDS)
        if (TAG_W < 1 || TAG_W > 32) begin : bad_tag
            `SIMT_AT_ELAB $fatal(1,
                "simt_loader: illegal parameter TAG_W=%0d (must be in 1..32)", TAG_W);
        end
        `SIMT_CHECK_GLOBAL_WORDS("simt_loader", GLOBAL_WORDS)
    endgenerate

    localparam integer ROWS_LOG    = $clog2(WARP_SIZE / NUM_LANES);  // log2 of rows per warp
    localparam integer WS_LOG      = $clog2(WARP_SIZE);
    // Limits as sized constants, so every comparison below is between equal widths.
    localparam [15:0]  RF_LIM     = RF_DEPTH[15:0];
    localparam [6:0]   WARP_LIM   = NUM_WARPS[6:0];
    localparam [17:0]  SH_LIM     = SHARED_WORDS[17:0];
    localparam [BCNT_W-1:0] BLK_LIM = NUM_BLOCKS[BCNT_W-1:0];

    // ---- states and records (shared with simt_image_check) ---------------------------------------
    `include "simt_loader_fsm.vh"

    reg  [3:0]  state;
    reg  [2:0]  rec;
    reg  [23:0] pidx;   // index of the next payload word of the record (DATA: after the base)
    reg  [23:0] plen;   // payload words of the record (DATA: without the base)

    wire        fire     = img_valid && img_ready;
    wire        is_magic = img_word == `SIMT_IMAGE_MAGIC;
    wire        in_payload = state == S_PAYLOAD || state == S_DBASE || state == S_DPAY;
    wire        restart  = fire && is_magic && !in_payload;
    wire [7:0]  hdr_tag  = img_word[31:24];
    wire [23:0] hdr_cnt  = img_word[23:0];
    wire        last_pay = pidx == plen - 24'd1;

    // ---- per-word derived values -----------------------------------------------------------------
    // Threads per block are only compared with MAX_THREADS <= 1024, so each factor saturates at 1025
    // and the products stay 22 bits wide instead of 48.
    function [10:0] sat11(input [21:0] v);
        sat11 = (v > 22'd1024) ? 11'd1025 : v[10:0];
    endfunction
    reg  [21:0] thr_xy;     // sat(block.x) * sat(block.y)
    reg  [31:0] grid_xy;    // grid.x * grid.y (each <= 65535: fits 32 bits)
    wire [21:0] thr_now  = {11'd0, sat11(thr_xy)} * {11'd0, sat11({6'd0, img_word[15:0]})};
    wire [47:0] nblk_now = {16'd0, grid_xy} * {32'd0, img_word[15:0]};
    // Warps per block = ceil(threads / WARP_SIZE); used only when threads <= MAX_THREADS, where it
    // fits WCNT_W bits, so the rounded sum's top bits are not needed.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [10:0] thr_rnd  = thr_now[10:0] + WARP_SIZE[10:0] - 11'd1;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [WCNT_W-1:0] wpb_now = thr_rnd[WS_LOG +: WCNT_W];
    // Register rows of one block: wpb (<= 32) * regs (<= 32, checked first) * ROWS (<= 8).
    wire [15:0] rows_now = ({{(16 - WCNT_W){1'b0}}, cfg_wpb} * {10'd0, img_word[5:0]}) << ROWS_LOG;
    wire [32:0] data_end = {1'b0, img_word} + {9'd0, plen};  // one past the DATA record's last word

    // ---- validation of the word being accepted (simt_image_check) --------------------------------
    wire [32:0] d_prev_end;  // one past the previous DATA record's last word (0 before the first)
    wire        bad;         // the word makes the image illegal
    wire [7:0]  bad_rule, bad_code;
    simt_image_check #(
        .WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS),
        .CONST_WORDS(CONST_WORDS), .IMEM_WORDS(IMEM_WORDS), .GLOBAL_WORDS(GLOBAL_WORDS)
    ) u_check (
        .state(state), .rec(rec), .pidx(pidx), .img_word(img_word), .thr_now(thr_now),
        .nblk_hi(nblk_now[47:32]), .rows_now(rows_now), .data_end(data_end), .d_prev_end(d_prev_end),
        .bad(bad), .bad_rule(bad_rule), .bad_code(bad_code)
    );

    // ---- record sequencing -----------------------------------------------------------------------
    wire flushed;
    always @(posedge clk) begin
        if (rst) begin
            state    <= S_IDLE;
            err_code <= 8'd0;
            err_rule <= 8'd0;
            img_words <= 32'd0;
            rec      <= REC_GRID;
            pidx     <= 24'd0;
            plen     <= 24'd0;
        end else if (restart) begin
            state    <= S_VERSION;
            err_code <= 8'd0;
            err_rule <= 8'd0;
            img_words <= 32'd1;  // the magic word is word 0
        end else if (fire && bad) begin
            state    <= S_ERROR;  // img_words keeps the offending word's index
            err_code <= bad_code;
            err_rule <= bad_rule;
        end else if (fire) begin
            if (state != S_ERROR) img_words <= img_words + 32'd1;
            case (state)
                S_VERSION: begin
                    state <= S_HEADER;
                    rec   <= REC_GRID;
                end
                S_HEADER: begin
                    pidx <= 24'd0;
                    plen <= (rec == REC_TAIL) ? hdr_cnt - 24'd1 : hdr_cnt;
                    if (rec == REC_TAIL)
                        state <= (hdr_tag == `SIMT_TAG_DATA) ? S_DBASE : S_FLUSH;
                    else if (hdr_cnt == 24'd0)
                        rec <= rec + 3'd1;       // empty PARAM or CONST record
                    else
                        state <= S_PAYLOAD;
                end
                S_PAYLOAD: begin
                    pidx <= pidx + 24'd1;
                    if (last_pay) begin
                        state <= S_HEADER;
                        rec   <= rec + 3'd1;
                    end
                end
                S_DBASE: state <= (plen == 24'd0) ? S_HEADER : S_DPAY;
                S_DPAY: begin
                    pidx <= pidx + 24'd1;
                    if (last_pay) state <= S_HEADER;
                end
                default: ;
            endcase
        end else if (state == S_FLUSH && flushed) begin
            state <= S_LOADED;
        end else if (state == S_LOADED && launched) begin
            state <= S_IDLE;  // cfg_* and the memories keep the image for the launch now running
        end
    end

    assign loaded   = state == S_LOADED;
    assign error    = state == S_ERROR;
    assign busy     = !(state == S_IDLE || state == S_LOADED || state == S_ERROR);
    assign ld_state = state;

    // ---- launch configuration --------------------------------------------------------------------
    wire accept = fire && !restart && !bad;  // a word that continues a legal image
    always @(posedge clk) begin
        if (rst || restart) begin
            cfg_grid    <= 48'd0;
            cfg_block   <= 48'd0;
            cfg_threads <= 11'd0;
            cfg_regs    <= 6'd0;
            cfg_wpb     <= {WCNT_W{1'b0}};
            cfg_shared  <= {(SH_AW + 1){1'b0}};
            cfg_sh_stride <= {(SH_AW + 1){1'b0}};
            cfg_nparams <= 5'd0;
            cfg_params  <= {(16 * 32){1'b0}};  // parameters the image does not give read 0
            cfg_ninstr  <= {(PC_W + 1){1'b0}};
            cfg_nconst  <= {(C_AW + 1){1'b0}};
            cfg_nblocks <= 32'd0;
            thr_xy      <= 22'd0;
            grid_xy     <= 32'd0;
        end else if (accept && state == S_HEADER) begin
            case (rec)
                REC_PARAM: cfg_nparams <= hdr_cnt[4:0];
                REC_INSTR: cfg_ninstr  <= hdr_cnt[PC_W:0];
                REC_CONST: cfg_nconst  <= hdr_cnt[C_AW:0];
                default: ;
            endcase
        end else if (accept && state == S_PAYLOAD) begin
            case (rec)
                REC_GRID: begin
                    cfg_grid[pidx[1:0]*16 +: 16] <= img_word[15:0];
                    if (pidx == 24'd1) grid_xy <= {16'd0, cfg_grid[15:0]} * {16'd0, img_word[15:0]};
                    if (pidx == 24'd2) cfg_nblocks <= nblk_now[31:0];
                end
                REC_BLOCK: begin
                    cfg_block[pidx[1:0]*16 +: 16] <= img_word[15:0];
                    if (pidx == 24'd1)
                        thr_xy <= {11'd0, sat11({6'd0, cfg_block[15:0]})} *
                                  {11'd0, sat11({6'd0, img_word[15:0]})};
                    if (pidx == 24'd2) begin
                        cfg_threads <= thr_now[10:0];
                        cfg_wpb     <= wpb_now;
                    end
                end
                REC_REGS: cfg_regs <= img_word[5:0];
                REC_SHARED: begin
                    cfg_shared    <= img_word[SH_AW:0];
                    // Rounded up to NUM_BANKS so every block's region starts on bank 0 (docs/sm.md).
                    cfg_sh_stride <= (img_word[SH_AW:0] + NUM_BANKS[SH_AW:0] - 1'b1) &
                                     ~(NUM_BANKS[SH_AW:0] - 1'b1);
                end
                REC_PARAM: cfg_params[pidx[3:0]*32 +: 32] <= img_word;
                default: ;
            endcase
        end
    end

    // Instruction and constant words are written as they arrive (indices < IMEM_WORDS / CONST_WORDS:
    // the header's count was checked).
    always @(posedge clk) begin
        imem_we <= 1'b0;
        cmem_we <= 1'b0;
        if (rst) begin
            imem_waddr <= {PC_W{1'b0}};
            imem_wdata <= 32'd0;
            cmem_waddr <= {C_AW{1'b0}};
            cmem_wdata <= 32'd0;
        end else if (accept && state == S_PAYLOAD && rec == REC_INSTR) begin
            imem_we    <= 1'b1;
            imem_waddr <= pidx[PC_W-1:0];
            imem_wdata <= img_word;
        end else if (accept && state == S_PAYLOAD && rec == REC_CONST) begin
            cmem_we    <= 1'b1;
            cmem_waddr <= pidx[C_AW-1:0];
            cmem_wdata <= img_word;
        end
    end

    // ---- block slots per SM: the largest k <= NUM_BLOCKS whose k blocks fit ----------------------
    // SmLaunch.of takes min(NUM_BLOCKS, NUM_WARPS / wpb, RF_DEPTH / rows, SHARED_WORDS / stride); with
    // running sums k*wpb, k*rows, k*stride, one candidate k per cycle, no divider is needed. The fit
    // checks at BLOCK, REGS and SHARED guarantee that k = 1 fits, so the result is never 0.
    reg              sl_busy;
    reg  [6:0]       sl_w;   // k * wpb         (< NUM_WARPS + 32)
    reg  [15:0]      sl_r;   // k * rows        (< RF_DEPTH + 8192)
    reg  [17:0]      sl_s;   // k * stride      (< 2 * SHARED_WORDS)
    reg  [15:0]      rows_q; // register rows of one block
    wire [6:0]       sl_w_n = sl_w + {{(7 - WCNT_W){1'b0}}, cfg_wpb};
    wire [15:0]      sl_r_n = sl_r + rows_q;
    wire [17:0]      sl_s_n = sl_s + {{(17 - SH_AW){1'b0}}, cfg_sh_stride};
    wire             sl_fit = cfg_slots < BLK_LIM && sl_w_n <= WARP_LIM && sl_r_n <= RF_LIM &&
                              sl_s_n <= SH_LIM;
    always @(posedge clk) begin
        if (rst || restart) begin
            sl_busy   <= 1'b0;
            cfg_slots <= {BCNT_W{1'b0}};
            rows_q    <= 16'd0;
            sl_w      <= 7'd0;
            sl_r      <= 16'd0;
            sl_s      <= 18'd0;
        end else if (accept && state == S_PAYLOAD && rec == REC_REGS) begin
            rows_q    <= rows_now;
        end else if (accept && state == S_PAYLOAD && rec == REC_SHARED) begin
            sl_busy   <= 1'b1;  // wpb, rows and (next cycle) stride are known
            cfg_slots <= {BCNT_W{1'b0}};
            sl_w      <= 7'd0;
            sl_r      <= 16'd0;
            sl_s      <= 18'd0;
        end else if (sl_busy) begin
            if (sl_fit) begin
                cfg_slots <= cfg_slots + 1'b1;
                sl_w      <= sl_w_n;
                sl_r      <= sl_r_n;
                sl_s      <= sl_s_n;
            end else begin
                sl_busy   <= 1'b0;
            end
        end
    end

    // ---- DATA records: words into SEG_WORDS-aligned masked store requests (simt_loader_store) ----
    wire store_idle;  // no request waiting and every store acknowledged
    simt_loader_store #(.SEG_WORDS(SEG_WORDS), .TAG_W(TAG_W)) u_store (
        .clk(clk), .rst(rst), .restart(restart), .in_dpay(state == S_DPAY),
        .base_acc(accept && state == S_DBASE), .word_acc(accept && state == S_DPAY),
        .last_pay(last_pay), .img_word(img_word), .data_end(data_end), .d_prev_end(d_prev_end),
        .img_ready(img_ready), .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr),
        .mreq_write(mreq_write), .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .idle(store_idle)
    );
    assign flushed = store_idle && !sl_busy;
endmodule
