`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
`include "simt_retire.vh"
// Streaming multiprocessor (docs/sm.md): the SM's memories, its parameter checks and its units,
// wired in pipeline order: simt_warp_table (warp and block state, its only writer), simt_block_init
// (block dispatch), simt_issue (F fetch and DEC decode, scheduler, register read), simt_execute (EX:
// lanes, special registers, constants, shared rows, writeback), simt_commit (CM: stack unit,
// completion, errors, retire port), with the register file, the global memory unit and the barriers
// between them; and the debug view.
//
// Different warps occupy different stages in the same cycle and the rows of consecutive instructions
// follow each other through the lanes. Without issue ahead (ISSUE_AHEAD = 0) a warp is never in the
// pipeline twice, so there is no forwarding and no hazard logic (Lies 2019, seed 000, section 4.2.1);
// with it, a warp whose instruction continues at pc + 1 without a stack pop is READY again from DEC
// and simt_scoreboard keeps its instructions' register writes and retires in program order
// (docs/sm.md "Issue ahead"). A global access leaves the pipeline: the
// warp waits in state MEM while other warps run, and re-enters once to write its loads and retire.
// Test-only fault 7 lives here, 1 in simt_execute, 5 and 6 in simt_issue (SIMT_FAULTS builds,
// docs/sm.md "Test-only fault hooks").
module simt_sm #(
    parameter integer WARP_SIZE    = `SIMT_DEFAULT_WARP_SIZE,    // threads per warp
    parameter integer NUM_LANES    = `SIMT_DEFAULT_NUM_LANES,    // integer lanes
    parameter integer NUM_WARPS    = `SIMT_DEFAULT_NUM_WARPS,    // warp slots
    parameter integer NUM_BLOCKS   = `SIMT_DEFAULT_NUM_BLOCKS,   // block slots
    parameter integer RF_DEPTH     = `SIMT_DEFAULT_RF_DEPTH,     // register rows per lane partition
    parameter integer SHARED_WORDS = `SIMT_DEFAULT_SHARED_WORDS, // shared memory words
    parameter integer NUM_BANKS    = `SIMT_DEFAULT_NUM_BANKS,    // shared memory banks
    parameter integer CONST_WORDS  = `SIMT_DEFAULT_CONST_WORDS,  // constant memory words
    parameter integer IMEM_WORDS   = `SIMT_DEFAULT_IMEM_WORDS,   // instruction memory words
    parameter integer STACK_DEPTH  = `SIMT_DEFAULT_STACK_DEPTH,  // divergence stack entries per warp
    parameter integer SEG_WORDS    = `SIMT_DEFAULT_SEG_WORDS,    // global segment words
    parameter integer GLOBAL_WORDS = `SIMT_DEFAULT_GLOBAL_WORDS, // global memory words
    // issue ahead: instructions a warp may have in flight past its committed pc, 0..7 (0: a warp is
    // BUSY from its grant until it leaves CM; docs/sm.md "Issue ahead")
    parameter integer ISSUE_AHEAD  = 2,
    // idle-warp rule: while IDLE_MIN or more READY warps have nothing in flight, a warp with
    // instructions ahead is not granted; 0 off, 1..32 (docs/sm.md "Issue ahead")
    parameter integer IDLE_MIN     = 1,
    // issue ahead in a divergence region: 1, an instruction of a warp with a non-empty stack is released
    // too when its pc + 1 is not the innermost SYNC's rpc (no pop follows); 0, only with an empty stack
    // (docs/sm.md "Issue ahead"). Default 1 at ROWS = 1 (32 lanes), else 0: at 8 and 16 lanes it made
    // stencil3d slower (597,557 and 307,302 cycles against 597,542 and 307,009; docs/benchmarks.md
    // "Issue 32, fourth round")
    parameter integer AHEAD_SSY    = (WARP_SIZE / NUM_LANES == 1) ? 1 : 0,
    // register-file write port: 1 EX's row first, a landed shared row waits in the SWB's value buffer;
    // 0 the landed row first, EX's row waits (docs/sm.md "Pipeline"). Default 1 at ROWS = 1 (32 lanes),
    // else 0 (measured, docs/benchmarks.md "Issue 32, third round")
    parameter integer SWB_EX_FIRST = (WARP_SIZE / NUM_LANES == 1) ? 1 : 0,
    // posted stores: 1, a global store retires once its transactions have left the SM (the memory
    // port makes a request take effect when accepted), before its acknowledgements (docs/isa.md 6.4)
    parameter integer POST_STORES  = `SIMT_DEFAULT_POST_STORES,
    // derived widths; not meant to be overridden
    parameter integer PC_W   = $clog2(IMEM_WORDS),   // instruction memory address
    // A pc can hold any 16-bit branch target and target + 1, so a jump or fall-through past the
    // program is PC_OUT_OF_RANGE (docs/isa.md 3.4) instead of wrapping in a narrower pc.
    parameter integer PCX_W  = 17,
    parameter integer C_AW   = $clog2(CONST_WORDS),
    parameter integer SH_AW  = $clog2(SHARED_WORDS),
    parameter integer WID_W  = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,
    parameter integer TAG_W  = WID_W + $clog2(WARP_SIZE),
    parameter integer WCNT_W = $clog2(NUM_WARPS + 1),
    parameter integer BCNT_W = $clog2(NUM_BLOCKS + 1),
    parameter integer DEPTH_W = $clog2(STACK_DEPTH + 1)
) (
    input  wire                        clk,
    input  wire                        rst,
    input  wire [3:0]                  sm_id,          // %smid
    // program load, before a launch
    input  wire                        imem_we,
    input  wire [PC_W-1:0]             imem_waddr,
    input  wire [31:0]                 imem_wdata,
    input  wire                        cmem_we,
    input  wire [C_AW-1:0]             cmem_waddr,
    input  wire [31:0]                 cmem_wdata,
    // launch configuration, stable while blocks run (docs/sm.md "Launch configuration")
    input  wire [47:0]                 cfg_grid,       // {z, y, x}, 16 bits each
    input  wire [47:0]                 cfg_block,      // {z, y, x}
    input  wire [10:0]                 cfg_threads,    // threads per block
    input  wire [5:0]                  cfg_regs,       // registers per thread, 1..32
    input  wire [WCNT_W-1:0]           cfg_wpb,        // warps per block
    input  wire [BCNT_W-1:0]           cfg_slots,      // block slots this launch may use
    input  wire [SH_AW:0]              cfg_shared,     // shared words per block
    input  wire [SH_AW:0]              cfg_sh_stride,  // cfg_shared rounded up to NUM_BANKS
    input  wire [4:0]                  cfg_nparams,    // 0..16
    input  wire [16*32-1:0]            cfg_params,
    input  wire [PC_W:0]               cfg_ninstr,
    input  wire [C_AW:0]               cfg_nconst,
    // block dispatch and completion
    input  wire                        blk_valid,
    output wire                        blk_ready,
    input  wire [31:0]                 blk_id,         // flat block index
    input  wire [47:0]                 blk_ctaid,      // {z, y, x}
    output wire                        blk_done,       // one-cycle pulse
    output wire [31:0]                 blk_done_id,
    output wire                        idle,           // no block resident
    output wire                        acks_out,       // POST_STORES: a retired store is not yet acknowledged
    // global memory port (docs/sm.md)
    output wire                        mreq_valid,
    input  wire                        mreq_ready,
    output wire [31:0]                 mreq_addr,
    output wire                        mreq_write,
    output wire [SEG_WORDS-1:0]        mreq_mask,
    output wire [SEG_WORDS*32-1:0]     mreq_wdata,
    output wire [TAG_W-1:0]            mreq_tag,
    input  wire                        mrsp_valid,
    output wire                        mrsp_ready,
    input  wire [TAG_W-1:0]            mrsp_tag,
    input  wire [SEG_WORDS*32-1:0]     mrsp_rdata,
    // retire port: one record per retired warp-instruction, fields packed as rtl/include/simt_retire.vh
    output wire                        rt_valid,
    output wire [`SIMT_RT_W-1:0]       rt_rec,
    // every shared-memory bank write (docs/sm.md simt_shared_lsu), for the shared-memory monitor
    output wire [NUM_BANKS-1:0]        sh_obs_we,
    output wire [NUM_BANKS*SH_AW-1:0]  sh_obs_addr,
    output wire [NUM_BANKS*32-1:0]     sh_obs_data,
    output wire                        sh_obs_clr,     // this cycle's writes clear a block's line
    output wire [4:0]                  sh_obs_warp,    // warp slot of the store row (when not clr)
    // error status (sticky until reset)
    output wire                        err_valid,
    output wire [3:0]                  err_kind,
    output wire [31:0]                 err_block,
    output wire [4:0]                  err_warp,
    output wire [PCX_W-1:0]            err_pc,
    output wire [5:0]                  err_lane,       // 63: no lane responsible
    // performance counters (SIMT_PERF_* indices); perf_clear zeroes them (a new launch), cycles and
    // idle cycles count while perf_run is high (the launch is running)
    input  wire                        perf_clear,
    input  wire                        perf_run,
    input  wire [4:0]                  perf_sel,
    output wire [63:0]                 perf_value,
    // debug view (docs/sm.md "Debug view"): warp slot dbg_warp, for the host's hang report
    input  wire [4:0]                  dbg_warp,
    output wire [2:0]                  dbg_state,      // 0 empty, 1 ready, 2 in pipeline, 3 memory, 4 barrier, 5 done
    output wire [31:0]                 dbg_block,
    output wire [4:0]                  dbg_wib,
    output wire [PCX_W-1:0]            dbg_pc,
    output wire                        dbg_retired,    // the warp retired an instruction since its block started
    output wire [PCX_W-1:0]            dbg_last_pc     // pc of that last retired instruction
);
    localparam integer ROWS   = WARP_SIZE / NUM_LANES;
    localparam integer ROW_W  = (ROWS > 1) ? $clog2(ROWS) : 1;
    localparam integer RF_AW  = $clog2(RF_DEPTH);
    localparam integer BID_W  = (NUM_BLOCKS > 1) ? $clog2(NUM_BLOCKS) : 1;
    localparam integer TH_W   = $clog2(NUM_WARPS * WARP_SIZE);
    localparam integer SHL_W  = $clog2(SHARED_WORDS / NUM_BANKS) > 0 ? $clog2(SHARED_WORDS / NUM_BANKS) : 1;

    // Index arithmetic (register rows, thread slots, shared lines, warp slots) mixes integer
    // parameters with narrow fields and truncates to the address width on purpose: every result fits
    // by construction or by the launch checks of docs/isa.md 8.1, and the lockstep comparison with
    // the golden model catches a wrong index. Verilator's width warnings are off for this file only.
    /* verilator lint_off WIDTHEXPAND */
    /* verilator lint_off WIDTHTRUNC */

    // ---- parameter checks (docs/isa.md section 9) ------------------------------------------------
    generate
        `SIMT_CHECK_WARP_SIZE("simt_sm", WARP_SIZE)
        `SIMT_CHECK_NUM_LANES("simt_sm", NUM_LANES)
        `SIMT_CHECK_NUM_LANES_AT_MOST_WARP_SIZE("simt_sm", NUM_LANES, WARP_SIZE)
        `SIMT_CHECK_NUM_WARPS("simt_sm", NUM_WARPS)
        `SIMT_CHECK_NUM_BLOCKS("simt_sm", NUM_BLOCKS)
        `SIMT_CHECK_NUM_BLOCKS_AT_MOST_NUM_WARPS("simt_sm", NUM_BLOCKS, NUM_WARPS)
        `SIMT_CHECK_RF_DEPTH("simt_sm", RF_DEPTH)
        `SIMT_CHECK_STACK_DEPTH("simt_sm", STACK_DEPTH)
        `SIMT_CHECK_GLOBAL_WORDS("simt_sm", GLOBAL_WORDS)
        `SIMT_CHECK_POST_STORES("simt_sm", POST_STORES)
        if (ISSUE_AHEAD < 0 || ISSUE_AHEAD > 7) begin : g_bad_ahead
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter ISSUE_AHEAD=%0d (legal: 0..7 instructions ahead per warp)", ISSUE_AHEAD);
        end
        if (SWB_EX_FIRST < 0 || SWB_EX_FIRST > 1) begin : g_bad_exfirst
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter SWB_EX_FIRST=%0d (legal: 0, 1)", SWB_EX_FIRST);
        end
        if (AHEAD_SSY < 0 || AHEAD_SSY > 1) begin : g_bad_ahead_ssy
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter AHEAD_SSY=%0d (legal: 0, 1)", AHEAD_SSY);
        end
        if (IDLE_MIN < 0 || IDLE_MIN > 32) begin : g_bad_idle
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter IDLE_MIN=%0d (legal: 0 off, 1..32 idle warps)", IDLE_MIN);
        end
    endgenerate


    // ---- memories owned by the SM ----------------------------------------------------------------
    reg [31:0] imem [0:IMEM_WORDS-1];
    reg [31:0] cmem [0:CONST_WORDS-1];
    localparam integer TIDS = 4;  // thread ids block initialisation writes per cycle (simt_block_init)
    wire [TIDS-1:0]   tid_we;
    wire [31:0]       tid_waddr;
    wire [TIDS*48-1:0] tid_wdata;
    always @(posedge clk) begin
        if (imem_we) imem[imem_waddr] <= imem_wdata;
        if (cmem_we) cmem[cmem_waddr] <= cmem_wdata;
    end
    // imem has a registered read port: F presents the pc, the word is DEC's instruction (dec_instr).
    wire                       imem_re;
    wire [PC_W-1:0]            imem_raddr;
    reg  [31:0]                dec_instr;
    always @(posedge clk) if (imem_re) dec_instr <= imem[imem_raddr];
    wire [NUM_LANES*C_AW-1:0]  const_addr;
    wire [NUM_LANES*TH_W-1:0]  tid_slot;
    reg  [NUM_LANES*32-1:0]    const_data;  // a slice per lane: see simt_regfile's read registers
    wire [NUM_LANES*48-1:0]    tid_xyz;
    genvar l;
    generate
        for (l = 0; l < NUM_LANES; l = l + 1) begin : lane_rd
            // (the word through a wire: an always block reading the array would wake on every word)
            wire [31:0] word = cmem[const_addr[l*C_AW +: C_AW]];
            always @(*) const_data[l*32 +: 32] = word;
        end
    endgenerate
    // {tid.z, tid.y, tid.x} per thread slot: rows of TIDS slots, one write port (a memory macro)
    simt_tid_table #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .NUM_LANES(NUM_LANES), .TIDS(TIDS),
                     .TH_W(TH_W)) u_tids (
        .clk(clk), .we(tid_we), .waddr(tid_waddr), .wdata(tid_wdata), .rslot(tid_slot), .rdata(tid_xyz)
    );

    // ==== the pipeline (docs/sm.md "Pipeline") ===================================================
    // Four stages, each holding at most one warp-instruction of a different warp: simt_issue (F: the
    // scheduler grants a warp, imem read; DEC: decode, launch checks, one register row read per cycle),
    // simt_execute (EX: one row per cycle through the lanes, writeback), simt_commit (CM: stack update,
    // warp's next state, retire port, or the hand-off of a global access). A warp is BUSY in the warp
    // table from its grant until it leaves CM, so it is never in the pipeline twice and no forwarding
    // exists. Signals are named for the stage that drives them (dec_*, ex_*, cm_*).
    wire halt = err_valid;  // an error stops every stage until reset

    // warp table <-> stages
    wire [NUM_WARPS-1:0]   ready_vec;
    wire [5:0]             n_bar_waiting;
    wire                   grant, any_block, free_found, in_start, in_busy, rel, d_can_rel, sb_hold;
    wire                   d_sync;        // DEC's warp's stack has a SYNC, with rpc d_rpc (simt_div_stack)
    wire [PCX_W-1:0]       d_rpc;
    wire                   swb_alloc, swb_leave;
    wire                   dec_sh_store;  // DEC's instruction is a shared store
    wire [PCX_W-1:0]       tbl_d_pc, tbl_x_pc;  // the committed pc (DEC and EX carry their own)
    wire [BID_W-1:0]       free_slot, in_slot;
    wire [WID_W-1:0]       f_warp, in_first_warp;
    wire [PCX_W-1:0]       f_pc, dec_pc, ex_pc, cm_pc, nx_pc, dbg_pc_raw, dbg_last_raw;
    wire [WARP_SIZE-1:0]   ex_mask, cm_mask, cm_valid_thr, cm_exited, nx_mask, nx_exited;
    wire [BID_W-1:0]       ex_slot, cm_slot;
    wire [4:0]             ex_wib, cm_wib, dbg_wib_raw;
    wire [31:0]            ex_block, cm_block, dbg_block_raw;
    wire [47:0]            ex_ctaid;
    wire [DEPTH_W-1:0]     cm_depth, nx_depth;
    wire                   cm_issued, cm_retire, nx_done, nx_bar, dbg_rtd_raw;
    wire [2:0]             dbg_state_raw;
    // issue -> execute
    wire                   ex_take, dec_valid, dec_memwb, dec_last, dec_flt, f_idle;
    wire [WID_W-1:0]       dec_warp;
    wire [ROW_W-1:0]       dec_row;
    wire [3:0]             dec_flt_kind;
    wire [5:0]             dec_txns;
    wire [WARP_SIZE*32-1:0] mw_data;
    // execute -> issue, commit
    wire                   ex_adv, mw_release, ex_valid, ex_raise, ex_to_cm, to_cm_memwb, swb_busy;
    wire [RF_AW-1:0]       ex_raddr_a, ex_raddr_b, ex_raddr_c;
    wire [WID_W-1:0]       ex_warp, to_cm_warp, sh_row_warp;
    wire [3:0]             ex_err_kind;
    wire [5:0]             ex_err_lane, to_cm_txns;
    wire [31:0]            to_cm_instr;
    wire [6:0]             to_cm_passes;
    wire [WARP_SIZE*32-1:0] vals, gaddr, gdata;
    wire [WARP_SIZE-1:0]   taken;
    // commit
    wire                   cm_ok, cm_valid, acc_valid, acc_ready, acc_store;
    wire [WID_W-1:0]       cm_warp;
    // register file ports
    wire [RF_AW-1:0]        raddr_a, raddr_b, raddr_c;
    wire [NUM_LANES*32-1:0] rdata_a, rdata_b, rdata_c;
    wire [NUM_LANES-1:0]    rf_we;
    wire [RF_AW-1:0]        rf_waddr;
    wire [NUM_LANES*32-1:0] rf_wdata;
    // block initialisation
    wire                   clr_rf_go, clr_rf_req, clr_sh_req, clr_ds_req, sh_clr_go, bar_init;
    wire [RF_AW-1:0]       clr_rf_addr;
    wire [SHL_W-1:0]       clr_sh_line;
    wire [WID_W-1:0]       clr_ds_warp;
    // barriers
    wire                   bar_arrive, bar_exit;
    wire [BID_W-1:0]       bar_slot;
    wire [NUM_BLOCKS-1:0]  bar_release;
    // global memory unit -> F
    wire                   cpl_valid, cpl_take, cpl_store;
    wire [WID_W-1:0]       cpl_warp;
    wire [$clog2(WARP_SIZE):0] cpl_txns;
    wire [WARP_SIZE*32-1:0] cpl_rdata;

    simt_warp_table #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .NUM_BLOCKS(NUM_BLOCKS), .PCX_W(PCX_W),
                      .DEPTH_W(DEPTH_W), .AHEAD(ISSUE_AHEAD), .IDLE_MIN(IDLE_MIN), .AHEAD_SSY(AHEAD_SSY), .WID_W(WID_W), .BID_W(BID_W), .WCNT_W(WCNT_W), .BCNT_W(BCNT_W)) u_warps (
        .clk(clk), .rst(rst), .cfg_threads(cfg_threads), .cfg_wpb(cfg_wpb), .cfg_slots(cfg_slots),
        .dispatch(blk_valid && blk_ready), .blk_id(blk_id), .blk_ctaid(blk_ctaid), .free_found(free_found),
        .free_slot(free_slot), .any_block(any_block), .blk_done(blk_done), .blk_done_id(blk_done_id),
        .start(in_start), .start_slot(in_slot), .start_warp(in_first_warp), .bar_release(bar_release),
        .grant(grant), .grant_warp(f_warp), .rel(rel), .d_can_rel(d_can_rel), .d_npc(dec_pc + 1'b1), .d_sync(d_sync), .d_rpc(d_rpc),
        .d_keep(dec_sh_store), .cm_issued(cm_issued), .cm_retire(cm_retire), .cm_warp(cm_warp),
        .nx_pc(nx_pc), .nx_mask(nx_mask), .nx_exited(nx_exited), .nx_depth(nx_depth), .nx_done(nx_done),
        .nx_bar(nx_bar), .ready(ready_vec), .n_bar_waiting(n_bar_waiting), .f_warp(f_warp), .f_pc(f_pc),
        .d_warp(dec_warp), .d_pc(tbl_d_pc), .x_warp(ex_warp), .x_pc(tbl_x_pc), .x_mask(ex_mask), .x_slot(ex_slot),
        .x_wib(ex_wib), .x_block(ex_block), .x_ctaid(ex_ctaid), .c_pc(cm_pc), .c_mask(cm_mask),
        .c_valid(cm_valid_thr), .c_exited(cm_exited), .c_depth(cm_depth), .c_slot(cm_slot), .c_wib(cm_wib),
        .c_block(cm_block), .g_warp(dbg_warp[WID_W-1:0]), .g_state(dbg_state_raw), .g_block(dbg_block_raw),
        .g_wib(dbg_wib_raw), .g_pc(dbg_pc_raw), .g_retired(dbg_rtd_raw), .g_last_pc(dbg_last_raw)
    );

    simt_block_init #(.WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_BANKS(NUM_BANKS), .RF_AW(RF_AW),
                      .SH_AW(SH_AW), .SHL_W(SHL_W), .WID_W(WID_W), .BID_W(BID_W), .WCNT_W(WCNT_W),
                      .TIDS(TIDS)) u_init (
        .clk(clk), .rst(rst), .cfg_block(cfg_block[31:0]), .cfg_threads(cfg_threads), .cfg_regs(cfg_regs),
        .cfg_wpb(cfg_wpb), .cfg_sh_stride(cfg_sh_stride), .blk_valid(blk_valid), .blk_ready(blk_ready),
        .free_found(free_found), .free_slot(free_slot), .busy(in_busy), .start(in_start), .slot(in_slot),
        .first_warp(in_first_warp), .clr_rf_req(clr_rf_req), .clr_rf_addr(clr_rf_addr), .clr_rf_go(clr_rf_go),
        .clr_sh_req(clr_sh_req), .clr_sh_line(clr_sh_line), .sh_clr_go(sh_clr_go), .clr_ds_req(clr_ds_req),
        .clr_ds_warp(clr_ds_warp), .bar_init(bar_init), .tid_we(tid_we), .tid_waddr(tid_waddr),
        .tid_wdata(tid_wdata)
    );

    simt_issue #(.WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS), .PC_W(PC_W),
                 .PCX_W(PCX_W), .RF_AW(RF_AW), .WID_W(WID_W), .ROW_W(ROW_W)) u_issue (
        .clk(clk), .rst(rst), .halt(halt), .launch_load(imem_we), .cfg_regs(cfg_regs), .cfg_nparams(cfg_nparams),
        .cfg_ninstr(cfg_ninstr), .ready(ready_vec), .grant(grant), .f_warp(f_warp), .f_pc(f_pc),
        .dec_pc(dec_pc), .d_can_rel(d_can_rel), .rel(rel), .sb_hold(sb_hold), .dec_sh_store(dec_sh_store), .imem_re(imem_re), .imem_raddr(imem_raddr), .dec_instr(dec_instr),
        .cpl_valid(cpl_valid),
        .cpl_take(cpl_take), .cpl_warp(cpl_warp), .cpl_txns(cpl_txns), .cpl_rdata(cpl_rdata),
        .raddr_a(raddr_a), .raddr_b(raddr_b), .raddr_c(raddr_c), .ex_adv(ex_adv), .ex_raddr_a(ex_raddr_a),
        .ex_raddr_b(ex_raddr_b), .ex_raddr_c(ex_raddr_c), .mw_release(mw_release), .ex_take(ex_take),
        .dec_valid(dec_valid), .dec_warp(dec_warp), .dec_memwb(dec_memwb), .dec_row(dec_row), .dec_last(dec_last),
        .dec_flt(dec_flt), .dec_flt_kind(dec_flt_kind),
        .dec_txns(dec_txns), .mw_data(mw_data), .f_idle(f_idle), .later_busy(ex_valid || swb_busy || cm_valid),
        .retired(rt_valid)
    );

    simt_execute #(.WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .SHARED_WORDS(SHARED_WORDS),
                   .NUM_BANKS(NUM_BANKS), .GLOBAL_WORDS(GLOBAL_WORDS), .C_AW(C_AW), .SH_AW(SH_AW), .SHL_W(SHL_W),
                   .RF_AW(RF_AW), .TH_W(TH_W), .WID_W(WID_W), .BID_W(BID_W), .ROW_W(ROW_W),
                   .PCX_W(PCX_W), .SWB_EX_FIRST(SWB_EX_FIRST)) u_ex (
        .clk(clk), .rst(rst), .halt(halt), .sm_id(sm_id), .cfg_grid(cfg_grid), .cfg_block(cfg_block),
        .cfg_regs(cfg_regs), .cfg_shared(cfg_shared), .cfg_sh_stride(cfg_sh_stride), .cfg_nconst(cfg_nconst),
        .cfg_params(cfg_params), .ex_take(ex_take), .dec_warp(dec_warp), .dec_memwb(dec_memwb),
        .dec_instr(dec_instr), .dec_row(dec_row), .dec_last(dec_last), .dec_flt(dec_flt),
        .dec_flt_kind(dec_flt_kind), .dec_txns(dec_txns), .dec_pc(dec_pc), .mw_data(mw_data), .ex_adv(ex_adv),
        .ex_raddr_a(ex_raddr_a), .ex_raddr_b(ex_raddr_b), .ex_raddr_c(ex_raddr_c), .mw_release(mw_release),
        .ex_warp(ex_warp), .ex_pc(ex_pc), .ex_mask(ex_mask), .ex_slot(ex_slot), .ex_wib(ex_wib), .ex_ctaid(ex_ctaid),
        .rdata_a(rdata_a), .rdata_b(rdata_b), .rdata_c(rdata_c), .rf_we(rf_we), .rf_waddr(rf_waddr),
        .rf_wdata(rf_wdata), .const_addr(const_addr), .const_data(const_data), .tid_slot(tid_slot),
        .tid_xyz(tid_xyz), .clr_sh_req(clr_sh_req), .clr_sh_line(clr_sh_line), .sh_clr_go(sh_clr_go),
        .sh_obs_we(sh_obs_we), .sh_obs_addr(sh_obs_addr), .sh_obs_data(sh_obs_data), .sh_obs_clr(sh_obs_clr),
        .cm_ok(cm_ok), .ex_valid(ex_valid), .ex_raise(ex_raise), .ex_err_kind(ex_err_kind),
        .ex_err_lane(ex_err_lane), .ex_to_cm(ex_to_cm), .to_cm_warp(to_cm_warp), .to_cm_memwb(to_cm_memwb),
        .to_cm_instr(to_cm_instr), .to_cm_txns(to_cm_txns), .to_cm_passes(to_cm_passes), .vals(vals),
        .swb_busy(swb_busy), .swb_alloc(swb_alloc), .swb_leave(swb_leave), .sh_row_warp(sh_row_warp), .taken(taken), .gaddr(gaddr), .gdata(gdata)
    );
    // Issue ahead: DEC's token waits while an older instruction of its warp may still write a register.
    simt_scoreboard #(.WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS), .WID_W(WID_W)) u_sb (
        .clk(clk), .rst(rst), .dec_valid(dec_valid && dec_row == {ROW_W{1'b0}}), .dec_warp(dec_warp), .ex_valid(ex_valid),
        .ex_warp(ex_warp), .dec_store(dec_sh_store), .cm_valid(cm_valid), .cm_warp(cm_warp),
        .swb_alloc(swb_alloc), .swb_alloc_warp(ex_warp), .swb_leave(swb_leave),
        .swb_leave_warp(to_cm_warp), .hold(sb_hold)
    );
    // The LSU's bank writes belong to the row it accepted last (EX has moved on by then).
    assign sh_obs_warp = 5'(sh_row_warp);

    simt_commit #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .NUM_BLOCKS(NUM_BLOCKS),
                  .STACK_DEPTH(STACK_DEPTH), .PCX_W(PCX_W), .DEPTH_W(DEPTH_W), .WID_W(WID_W), .BID_W(BID_W)) u_cm (
        .clk(clk), .rst(rst), .cfg_regs(cfg_regs), .ex_to_cm(ex_to_cm), .ex_warp(to_cm_warp),
        .ex_memwb(to_cm_memwb), .ex_instr(to_cm_instr), .ex_txns(to_cm_txns), .ex_passes(to_cm_passes),
        .vals(vals), .taken(taken),
        .cm_ok(cm_ok), .cm_valid(cm_valid), .ex_raise(ex_raise), .ex_err_kind(ex_err_kind),
        .ex_err_lane(ex_err_lane), .x_pc(ex_pc), .x_wib(ex_wib), .x_block(ex_block), .cm_warp(cm_warp),
        .c_pc(cm_pc), .c_mask(cm_mask), .c_valid(cm_valid_thr), .c_exited(cm_exited), .c_depth(cm_depth),
        .c_slot(cm_slot), .c_wib(cm_wib), .c_block(cm_block), .cm_issued(cm_issued), .cm_retire(cm_retire),
        .nx_pc(nx_pc), .nx_mask(nx_mask), .nx_exited(nx_exited), .nx_depth(nx_depth), .nx_done(nx_done),
        .nx_bar(nx_bar), .acc_valid(acc_valid), .acc_ready(acc_ready), .acc_store(acc_store),
        .clr_ds_req(clr_ds_req), .clr_ds_warp(clr_ds_warp), .d_warp(dec_warp), .d_sync(d_sync), .d_rpc(d_rpc), .bar_arrive(bar_arrive), .bar_exit(bar_exit),
        .bar_slot(bar_slot), .bar_release(bar_release), .bar_waiting(n_bar_waiting), .perf_clear(perf_clear),
        .perf_run(perf_run), .front_idle(f_idle && !ex_valid && !swb_busy), .perf_sel(perf_sel), .perf_value(perf_value),
        .rt_valid(rt_valid), .rt_rec(rt_rec), .err_valid(err_valid), .err_kind(err_kind),
        .err_block(err_block), .err_warp(err_warp), .err_pc(err_pc), .err_lane(err_lane)
    );

    // ---- units between the stages ----------------------------------------------------------------
    // Register file: DEC reads (the data arrive in EX), EX writes; block initialisation clears rows
    // through the same port in the cycles EX does not write.
    assign clr_rf_go = clr_rf_req && rf_we == {NUM_LANES{1'b0}};
    simt_regfile #(.NUM_LANES(NUM_LANES), .RF_DEPTH(RF_DEPTH)) u_rf (
        .clk(clk), .raddr_a(raddr_a), .raddr_b(raddr_b), .raddr_c(raddr_c),
        .rdata_a(rdata_a), .rdata_b(rdata_b), .rdata_c(rdata_c),
        .we(clr_rf_go ? {NUM_LANES{1'b1}} : rf_we), .waddr(clr_rf_go ? clr_rf_addr : rf_waddr),
        .wdata(clr_rf_go ? {NUM_LANES*32{1'b0}} : rf_wdata)
    );
    // Global memory unit: CM hands an access off, F takes the completed one back.
    simt_gmem_unit #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .SEG_WORDS(SEG_WORDS),
                     .POST_STORES(POST_STORES)) u_gmem (
        .clk(clk), .rst(rst), .acks_out(acks_out),
        .acc_valid(acc_valid), .acc_ready(acc_ready), .acc_warp(cm_warp), .acc_mask(cm_mask),
        .acc_addr(gaddr), .acc_store(acc_store), .acc_wdata(gdata),
        .cpl_valid(cpl_valid), .cpl_ready(cpl_take), .cpl_warp(cpl_warp), .cpl_store(cpl_store),
        .cpl_txns(cpl_txns), .cpl_rdata(cpl_rdata),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata)
    );
    // Barriers: block initialisation sets a block's up, CM reports arrivals and finishes.
    simt_barrier #(.NUM_BLOCKS(NUM_BLOCKS), .NUM_WARPS(NUM_WARPS)) u_bar (
        .clk(clk), .rst(rst), .init(bar_init), .init_slot(in_slot), .init_warps(cfg_wpb),
        .arrive(bar_arrive), .arrive_slot(bar_slot), .exit(bar_exit), .exit_slot(bar_slot),
        .released(bar_release)
    );
    assign idle = !in_busy && !any_block;

    // ---- debug view (docs/sm.md "Debug view") ----------------------------------------------------
    // A mux over the warp table, plus each warp's last retired pc: what the host's hang report reads.
    wire dbg_hit = dbg_warp < NUM_WARPS;
    assign dbg_state   = dbg_hit ? dbg_state_raw : 3'd0;
    wire dbg_res = dbg_state != 3'd0;
    assign dbg_block   = dbg_res ? dbg_block_raw : 32'd0;
    assign dbg_wib     = dbg_res ? dbg_wib_raw : 5'd0;
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    // Fault 7: the debug view reports every warp's pc one too high (the pipeline is untouched).
    assign dbg_pc      = dbg_res ? dbg_pc_raw + {16'd0, simt_fault == `SIMT_FAULT_DEBUG_PC} : {PCX_W{1'b0}};
`else
    assign dbg_pc      = dbg_res ? dbg_pc_raw : {PCX_W{1'b0}};
`endif
    assign dbg_retired = dbg_res && dbg_rtd_raw;
    assign dbg_last_pc = dbg_retired ? dbg_last_raw : {PCX_W{1'b0}};

    // The record's fields by name (rt_pc, rt_values, ...), for a bench that watches one SM's port.
    /* verilator lint_off UNUSEDSIGNAL */
    `SIMT_RT_VIEW(rt_rec)
    /* verilator lint_on UNUSEDSIGNAL */
    // Status the SM does not use; Verilator's default unused-regexp exempts names containing "unused".
    wire unused_ok = &{1'b0, cpl_store, tbl_d_pc, tbl_x_pc};
endmodule
