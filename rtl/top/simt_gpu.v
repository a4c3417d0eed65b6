`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_retire.vh"
`include "simt_fault.vh"
// GPU top (docs/gpu.md): NUM_SMS streaming multiprocessors, the launch loader, the block scheduler
// and the arbiter that shares one external global-memory port. A host drives it only through the
// register interface host_*; the rt_* and sh_obs_* outputs (one slice per SM) are for the harness.
module simt_gpu #(
    parameter integer NUM_SMS      = `SIMT_DEFAULT_NUM_SMS,      // streaming multiprocessors
    parameter integer WARP_SIZE    = `SIMT_DEFAULT_WARP_SIZE,    // threads per warp
    parameter integer NUM_LANES    = `SIMT_DEFAULT_NUM_LANES,    // lanes per SM
    parameter integer NUM_WARPS    = `SIMT_DEFAULT_NUM_WARPS,    // warp slots per SM
    parameter integer NUM_BLOCKS   = `SIMT_DEFAULT_NUM_BLOCKS,   // block slots per SM
    parameter integer RF_DEPTH     = `SIMT_DEFAULT_RF_DEPTH,     // register rows per lane
    parameter integer SHARED_WORDS = `SIMT_DEFAULT_SHARED_WORDS, // shared words per SM
    parameter integer NUM_BANKS    = `SIMT_DEFAULT_NUM_BANKS,    // shared banks
    parameter integer CONST_WORDS  = `SIMT_DEFAULT_CONST_WORDS,  // constant words
    parameter integer IMEM_WORDS   = `SIMT_DEFAULT_IMEM_WORDS,   // instruction words
    parameter integer STACK_DEPTH  = `SIMT_DEFAULT_STACK_DEPTH,  // divergence stack entries per warp
    parameter integer SEG_WORDS    = `SIMT_DEFAULT_SEG_WORDS,    // global segment words
    parameter integer GLOBAL_WORDS = `SIMT_DEFAULT_GLOBAL_WORDS, // global memory words
    // 1: a global store retires once its transactions have left its SM, before its acknowledgements;
    // a launch then ends only when no acknowledgement is outstanding (docs/gpu.md "Posted stores")
    parameter integer POST_STORES  = `SIMT_DEFAULT_POST_STORES,
    // derived widths; not meant to be overridden
    parameter integer WID_W   = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1,
    parameter integer TAG_W   = WID_W + $clog2(WARP_SIZE),              // an SM's memory tag
    parameter integer PORT_W  = $clog2(NUM_SMS + 1),                    // SMs + the loader
    parameter integer XTAG_W  = PORT_W + TAG_W,                         // external memory tag
    parameter integer DEPTH_W = $clog2(STACK_DEPTH + 1),
    parameter integer SH_AW   = $clog2(SHARED_WORDS)                    // shared word address
) (
    input  wire                              clk,
    input  wire                              rst,
    // host register interface
    input  wire                              host_valid,
    output wire                              host_ready,
    input  wire                              host_write,
    input  wire [7:0]                        host_addr,
    input  wire [31:0]                       host_wdata,
    output reg                               host_rvalid,
    output reg  [31:0]                       host_rdata,
    // launch-ended interrupt: high while STATUS reads DONE or ERROR with neither BUSY nor LOADING,
    // until the next START, ABORT or reset (a host may sleep on it instead of polling STATUS)
    output wire                              irq,
    // external global-memory port (docs/sm.md protocol, tag {port, sm tag})
    output wire                              mreq_valid,
    input  wire                              mreq_ready,
    output wire [31:0]                       mreq_addr,
    output wire                              mreq_write,
    output wire [SEG_WORDS-1:0]              mreq_mask,
    output wire [SEG_WORDS*32-1:0]           mreq_wdata,
    output wire [XTAG_W-1:0]                 mreq_tag,
    input  wire                              mrsp_valid,
    output wire                              mrsp_ready,
    input  wire [XTAG_W-1:0]                 mrsp_tag,
    input  wire [SEG_WORDS*32-1:0]           mrsp_rdata,
    // observation: retire port of every SM (docs/sm.md "Retire port"), SM s in slice s
    output wire [NUM_SMS-1:0]                rt_valid,
    output reg  [NUM_SMS*`SIMT_RT_W-1:0]     rt_rec,         // one record per SM (rtl/include/simt_retire.vh)
    // observation: every shared-memory bank write of every SM (docs/sm.md simt_shared_lsu);
    // SM s, bank b in slice s*NUM_BANKS + b
    output wire [NUM_SMS*NUM_BANKS-1:0]      sh_obs_we,
    output reg  [NUM_SMS*NUM_BANKS*SH_AW-1:0] sh_obs_addr,
    output reg  [NUM_SMS*NUM_BANKS*32-1:0]   sh_obs_data,
    output wire [NUM_SMS-1:0]                sh_obs_clr,
    output wire [NUM_SMS*5-1:0]              sh_obs_warp,
    // observation: block dispatch (which SM got which block)
    output wire [NUM_SMS-1:0]                dispatch_valid,
    output wire [31:0]                       dispatch_block
);
    localparam integer PC_W   = $clog2(IMEM_WORDS);
    localparam integer C_AW   = $clog2(CONST_WORDS);
    localparam integer WCNT_W = $clog2(NUM_WARPS + 1);
    localparam integer BCNT_W = $clog2(NUM_BLOCKS + 1);
    localparam integer SM_W   = (NUM_SMS > 1) ? $clog2(NUM_SMS) : 1;

    generate
        `SIMT_CHECK_NUM_SMS("simt_gpu", NUM_SMS)
        `SIMT_CHECK_POST_STORES("simt_gpu", POST_STORES)
    endgenerate

    // ---- host registers --------------------------------------------------------------------------
    localparam [7:0] R_ID = 8'h00, R_CONFIG = 8'h01, R_CTRL = 8'h02, R_STATUS = 8'h03, R_IMAGE = 8'h04,
                     R_ERR_KIND = 8'h08, R_ERR_SM = 8'h09, R_ERR_BLOCK = 8'h0A, R_ERR_WARP = 8'h0B,
                     R_ERR_PC = 8'h0C, R_ERR_LANE = 8'h0D, R_ERR_RULE = 8'h0E,
                     R_IMG_WORDS = 8'h0F, R_PERF_SEL = 8'h10, R_PERF_LO = 8'h11,
                     R_PERF_HI = 8'h12, R_BLOCKS_DONE = 8'h13,
                     R_BLOCKS_DISPATCHED = 8'h14, R_DBG_SEL = 8'h18, R_DBG_WARP = 8'h19,
                     R_DBG_BLOCK = 8'h1A, R_DBG_PC = 8'h1B, R_DBG_LAST_PC = 8'h1C,
                     R_MEM_RSPS = 8'h1D, R_MEM_OUTSTANDING = 8'h1E;

    wire        img_ready;
    wire        launch_ok;  // START takes the loaded image (block scheduler section below)
    reg         abort_q;
    reg         running;  // a launch runs: from its START until done or an error (STATUS.BUSY)
    // POST_STORES: some SM has a retired store whose acknowledgement is outstanding. The launch is not
    // over until they are all in: it is not done, BUSY stays high (after an error too) and, as while
    // it runs, IMAGE words and START are ignored (a new image's DATA stores must not race them).
    wire        acks_wait;
    wire        live       = running || acks_wait;
    // A running launch owns the program, constants and configuration its image left: IMAGE words and
    // START are ignored until it ends (they would rewrite them), and STATUS.IGNORED says so.
    wire        img_write  = host_valid && host_write && host_addr == R_IMAGE && !live;
    // No host access is taken in the cycle an ABORT resets everything, so none is lost to it.
    assign      host_ready = !abort_q && !(draining && host_write) && (!img_write || img_ready);
    wire        host_fire  = host_valid && host_ready;
    wire        ctrl_write = host_fire && host_write && host_addr == R_CTRL;
    wire        start_req  = ctrl_write && host_wdata[0] && !live;
    wire        ignored    = live && (ctrl_write && host_wdata[0] || host_fire && host_write && host_addr == R_IMAGE);
    wire        abort_req  = ctrl_write && host_wdata[1];

    // ABORT returns everything to idle without help from the memory system: the SMs, the loader and
    // the scheduler are held in reset while every request already issued on the external port is
    // answered (those responses are swallowed here), so none reaches the next launch. The arbiter is
    // not reset by ABORT, so a request it presents is never withdrawn (memory-port protocol).
    always @(posedge clk) abort_q <= rst ? 1'b0 : abort_req;
    reg         draining;
    reg  [15:0] outstanding;  // requests accepted on the external port and not yet answered
    wire        x_mrsp_valid, x_mrsp_ready;
    wire        soft_rst = rst || abort_q || draining;
    wire        ignored_q;  // STATUS.IGNORED: cleared by the next launch, ABORT or reset
    simt_ignore_flag u_ignored (.clk(clk), .clear(soft_rst || launch_ok), .hit(ignored), .flag(ignored_q));

    reg  [12:0] perf_sel;          // {sm[7:0], counter[4:0]}
    reg  [12:0] dbg_sel;           // {sm[7:0], warp slot[4:0]}: the debug view's warp
    reg  [31:0] mem_rsps;          // responses taken on the external port in this launch
    reg         done_q, err_q;
    reg  [7:0]  err_kind_q;
    reg  [4:0]  err_sm_q;
    reg  [31:0] err_block_q;
    reg  [4:0]  err_warp_q;
    reg  [16:0] err_pc_q;
    reg  [5:0]  err_lane_q;
    wire [63:0] perf_value;

    // ---- launch loader ---------------------------------------------------------------------------
    wire                   imem_we, cmem_we;
    wire [PC_W-1:0]        imem_waddr;
    wire [C_AW-1:0]        cmem_waddr;
    wire [31:0]            imem_wdata, cmem_wdata;
    wire [47:0]            cfg_grid, cfg_block;
    wire [10:0]            cfg_threads;
    wire [5:0]             cfg_regs;
    wire [WCNT_W-1:0]      cfg_wpb;
    wire [BCNT_W-1:0]      cfg_slots;
    wire [SH_AW:0]         cfg_shared, cfg_sh_stride;
    wire [4:0]             cfg_nparams;
    wire [16*32-1:0]       cfg_params;
    wire [PC_W:0]          cfg_ninstr;
    wire [C_AW:0]          cfg_nconst;
    wire [31:0]            cfg_nblocks;
    wire                   ld_loaded, ld_error, ld_busy;
    wire [7:0]             ld_err_code, ld_err_rule;
    wire [31:0]            ld_img_words;
    wire [3:0]             ld_state;
    wire                   ld_mreq_valid, ld_mreq_ready, ld_mreq_write, ld_mrsp_valid, ld_mrsp_ready;
    wire [31:0]            ld_mreq_addr;
    wire [SEG_WORDS-1:0]   ld_mreq_mask;
    wire [SEG_WORDS*32-1:0] ld_mreq_wdata, ld_mrsp_rdata;
    wire [TAG_W-1:0]       ld_mreq_tag, ld_mrsp_tag;
    simt_loader #(
        .WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS), .NUM_BLOCKS(NUM_BLOCKS),
        .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS), .NUM_BANKS(NUM_BANKS),
        .CONST_WORDS(CONST_WORDS), .IMEM_WORDS(IMEM_WORDS), .SEG_WORDS(SEG_WORDS), .TAG_W(TAG_W),
        .GLOBAL_WORDS(GLOBAL_WORDS)
    ) u_loader (
        .clk(clk), .rst(soft_rst),
        .img_valid(img_write), .img_ready(img_ready), .img_word(host_wdata), .launched(launch_ok),
        .imem_we(imem_we), .imem_waddr(imem_waddr), .imem_wdata(imem_wdata),
        .cmem_we(cmem_we), .cmem_waddr(cmem_waddr), .cmem_wdata(cmem_wdata),
        .cfg_grid(cfg_grid), .cfg_block(cfg_block), .cfg_threads(cfg_threads), .cfg_regs(cfg_regs),
        .cfg_wpb(cfg_wpb), .cfg_slots(cfg_slots), .cfg_shared(cfg_shared), .cfg_sh_stride(cfg_sh_stride),
        .cfg_nparams(cfg_nparams), .cfg_params(cfg_params), .cfg_ninstr(cfg_ninstr),
        .cfg_nconst(cfg_nconst), .cfg_nblocks(cfg_nblocks),
        .mreq_valid(ld_mreq_valid), .mreq_ready(ld_mreq_ready), .mreq_addr(ld_mreq_addr),
        .mreq_write(ld_mreq_write), .mreq_mask(ld_mreq_mask), .mreq_wdata(ld_mreq_wdata),
        .mreq_tag(ld_mreq_tag), .mrsp_valid(ld_mrsp_valid), .mrsp_ready(ld_mrsp_ready),
        .mrsp_tag(ld_mrsp_tag), .mrsp_rdata(ld_mrsp_rdata),
        .busy(ld_busy), .loaded(ld_loaded), .error(ld_error), .err_code(ld_err_code), .ld_state(ld_state),
        .err_rule(ld_err_rule), .img_words(ld_img_words)
    );

    // ---- block scheduler -------------------------------------------------------------------------
    wire [NUM_SMS-1:0] blk_valid, blk_ready, blk_done;
    wire [31:0]        blk_id;
    wire [47:0]        blk_ctaid;
    wire               sched_busy, sched_done;
    wire               unused_sched_busy = sched_busy;
    wire [31:0]        blocks_done, blocks_dispatched;
    // A kernel error stops the launch: the scheduler is aborted once, when the error is captured.
    reg                err_q_d;
    always @(posedge clk) err_q_d <= soft_rst ? 1'b0 : err_q;
    wire               sched_abort = err_q && !err_q_d;
    // START while an image is still arriving or its DATA stores are draining waits for the load;
    // START with no image (loader idle: none loaded since the last START, ABORT or reset) is launch
    // error 0x13; launch_ok tells the loader that this START used its image up.
    reg                start_pending;
    wire               start_now  = start_req || start_pending;
    assign             launch_ok  = start_now && ld_loaded && !ld_busy;
    wire               start_bad  = start_now && !ld_loaded && !ld_busy;
    always @(posedge clk)
        if (soft_rst) start_pending <= 1'b0;
        else start_pending <= start_now && !launch_ok && !start_bad && !ld_error;
    // BUSY covers the whole launch, from START until done or an error, with no gap between a
    // deferred START and the scheduler's own busy flag (a STATUS poll must never see "idle" early).
    // Once a kernel error is captured the launch stops: nothing more is dispatched.
    simt_block_sched #(.NUM_SMS(NUM_SMS)) u_sched (
        .clk(clk), .rst(soft_rst), .start(launch_ok), .abort(sched_abort),
        .cfg_grid(cfg_grid), .cfg_nblocks(cfg_nblocks),
        .blk_valid(blk_valid), .blk_ready(blk_ready), .blk_id(blk_id), .blk_ctaid(blk_ctaid),
        .blk_done(blk_done), .busy(sched_busy), .done(sched_done), .blocks_dispatched(blocks_dispatched),
        .blocks_done(blocks_done)
    );
    assign dispatch_valid = blk_valid & blk_ready;
    assign dispatch_block = blk_id;

    // ---- streaming multiprocessors ---------------------------------------------------------------
    wire [NUM_SMS-1:0]               s_mreq_valid, s_mreq_ready, s_mreq_write, s_mrsp_valid, s_mrsp_ready;
    wire [NUM_SMS*32-1:0]            s_mreq_addr;
    wire [NUM_SMS*SEG_WORDS-1:0]     s_mreq_mask;
    reg  [NUM_SMS*SEG_WORDS*32-1:0]  s_mreq_wdata;
    wire [NUM_SMS*SEG_WORDS*32-1:0]  s_mrsp_rdata;
    wire [NUM_SMS*TAG_W-1:0]         s_mreq_tag, s_mrsp_tag;
    wire [NUM_SMS-1:0]               sm_err;
    wire [NUM_SMS*4-1:0]             sm_err_kind;
    wire [NUM_SMS*32-1:0]            sm_err_block;
    wire [NUM_SMS*5-1:0]             sm_err_warp;
    wire [NUM_SMS*17-1:0]            sm_err_pc;
    wire [NUM_SMS*6-1:0]             sm_err_lane;
    wire [NUM_SMS*64-1:0]            sm_perf;
    wire [NUM_SMS*3-1:0]             sm_dbg_state;
    wire [NUM_SMS*32-1:0]            sm_dbg_block;
    wire [NUM_SMS*5-1:0]             sm_dbg_wib;
    wire [NUM_SMS*17-1:0]            sm_dbg_pc, sm_dbg_last_pc;
    wire [NUM_SMS-1:0]               sm_dbg_retired;
    wire [NUM_SMS-1:0]               sm_acks;  // the SM has a posted store not yet acknowledged
    genvar s;
    generate
        for (s = 0; s < NUM_SMS; s = s + 1) begin : sm
            // Per-SM outputs the top does not use (block ids come from the scheduler's count).
            wire [31:0]               unused_done_id;
            wire                      unused_idle;
            // The wide per-SM outputs land in their slice from an always block: joined straight from the
            // port connections, Icarus would rebuild the whole NUM_SMS-wide net bit by bit at each change.
            wire [SEG_WORDS*32-1:0]      mreq_wdata_s;
            wire [`SIMT_RT_W-1:0]        rt_rec_s;
            wire [NUM_BANKS*SH_AW-1:0]   sh_obs_addr_s;
            wire [NUM_BANKS*32-1:0]      sh_obs_data_s;
            always @(*) s_mreq_wdata[s*SEG_WORDS*32 +: SEG_WORDS*32] = mreq_wdata_s;
            always @(*) rt_rec[s*`SIMT_RT_W +: `SIMT_RT_W]           = rt_rec_s;
            always @(*) sh_obs_addr[s*NUM_BANKS*SH_AW +: NUM_BANKS*SH_AW] = sh_obs_addr_s;
            always @(*) sh_obs_data[s*NUM_BANKS*32 +: NUM_BANKS*32]       = sh_obs_data_s;
            simt_sm #(
                .WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS),
                .NUM_BLOCKS(NUM_BLOCKS), .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS),
                .NUM_BANKS(NUM_BANKS), .CONST_WORDS(CONST_WORDS), .IMEM_WORDS(IMEM_WORDS),
                .STACK_DEPTH(STACK_DEPTH), .SEG_WORDS(SEG_WORDS), .GLOBAL_WORDS(GLOBAL_WORDS),
                .POST_STORES(POST_STORES)
            ) u_sm (
                .clk(clk), .rst(soft_rst), .sm_id(s[3:0]),
                .imem_we(imem_we), .imem_waddr(imem_waddr), .imem_wdata(imem_wdata),
                .cmem_we(cmem_we), .cmem_waddr(cmem_waddr), .cmem_wdata(cmem_wdata),
                .cfg_grid(cfg_grid), .cfg_block(cfg_block), .cfg_threads(cfg_threads), .cfg_regs(cfg_regs),
                .cfg_wpb(cfg_wpb), .cfg_slots(cfg_slots), .cfg_shared(cfg_shared),
                .cfg_sh_stride(cfg_sh_stride), .cfg_nparams(cfg_nparams), .cfg_params(cfg_params),
                .cfg_ninstr(cfg_ninstr), .cfg_nconst(cfg_nconst),
                .blk_valid(blk_valid[s]), .blk_ready(blk_ready[s]), .blk_id(blk_id), .blk_ctaid(blk_ctaid),
                .blk_done(blk_done[s]), .blk_done_id(unused_done_id), .idle(unused_idle),
                .acks_out(sm_acks[s]),
                .mreq_valid(s_mreq_valid[s]), .mreq_ready(s_mreq_ready[s]),
                .mreq_addr(s_mreq_addr[s*32 +: 32]), .mreq_write(s_mreq_write[s]),
                .mreq_mask(s_mreq_mask[s*SEG_WORDS +: SEG_WORDS]),
                .mreq_wdata(mreq_wdata_s),
                .mreq_tag(s_mreq_tag[s*TAG_W +: TAG_W]), .mrsp_valid(s_mrsp_valid[s]),
                .mrsp_ready(s_mrsp_ready[s]), .mrsp_tag(s_mrsp_tag[s*TAG_W +: TAG_W]),
                .mrsp_rdata(s_mrsp_rdata[s*SEG_WORDS*32 +: SEG_WORDS*32]),
                .rt_valid(rt_valid[s]), .rt_rec(rt_rec_s),
                .sh_obs_we(sh_obs_we[s*NUM_BANKS +: NUM_BANKS]),
                .sh_obs_addr(sh_obs_addr_s),
                .sh_obs_data(sh_obs_data_s), .sh_obs_clr(sh_obs_clr[s]),
                .sh_obs_warp(sh_obs_warp[s*5 +: 5]),
                .err_valid(sm_err[s]), .err_kind(sm_err_kind[s*4 +: 4]),
                .err_block(sm_err_block[s*32 +: 32]), .err_warp(sm_err_warp[s*5 +: 5]),
                .err_pc(sm_err_pc[s*17 +: 17]), .err_lane(sm_err_lane[s*6 +: 6]),
                .perf_clear(launch_ok), .perf_run(running), .perf_sel(perf_sel[4:0]), .perf_value(sm_perf[s*64 +: 64]),
                .dbg_warp(dbg_sel[4:0]), .dbg_state(sm_dbg_state[s*3 +: 3]),
                .dbg_block(sm_dbg_block[s*32 +: 32]), .dbg_wib(sm_dbg_wib[s*5 +: 5]),
                .dbg_pc(sm_dbg_pc[s*17 +: 17]), .dbg_retired(sm_dbg_retired[s]),
                .dbg_last_pc(sm_dbg_last_pc[s*17 +: 17])
            );
        end
    endgenerate

    // ---- memory arbitration: the SMs and the loader share the external port ----------------------
    // While draining, responses are taken and dropped here instead of reaching the SMs.
    assign x_mrsp_valid = mrsp_valid && !draining;
    assign mrsp_ready   = draining ? 1'b1 : x_mrsp_ready;
    always @(posedge clk) begin
        if (rst) begin
            outstanding <= 16'd0;
            draining    <= 1'b0;
            mem_rsps    <= 32'd0;
        end else begin
            // The watchdog's progress indicator (MEM_RSPS): every response of this launch.
            if (abort_q || launch_ok) mem_rsps <= 32'd0;
            else if (mrsp_valid && mrsp_ready && !draining) mem_rsps <= mem_rsps + 32'd1;
            outstanding <= outstanding + {15'd0, mreq_valid && mreq_ready} - {15'd0, mrsp_valid && mrsp_ready};
            if (abort_q) draining <= 1'b1;
            else if (draining && outstanding == 16'd0 && !mreq_valid) draining <= 1'b0;
        end
    end
    // The arbiter's pointer restarts with each launch (restart = launch_ok: the loader's DATA stores
    // are all answered by then and no SM has requested yet), so a launch's cycles do not depend on the
    // launches before it; like rst, ABORT does not reset it (see above).
    simt_mem_arbiter #(.NUM_SMS(NUM_SMS + 1), .SEG_WORDS(SEG_WORDS), .TAG_W(TAG_W)) u_arb (
        .clk(clk), .rst(rst), .restart(launch_ok),
        .s_mreq_valid({ld_mreq_valid, s_mreq_valid}), .s_mreq_ready({ld_mreq_ready, s_mreq_ready}),
        .s_mreq_addr({ld_mreq_addr, s_mreq_addr}), .s_mreq_write({ld_mreq_write, s_mreq_write}),
        .s_mreq_mask({ld_mreq_mask, s_mreq_mask}), .s_mreq_wdata({ld_mreq_wdata, s_mreq_wdata}),
        .s_mreq_tag({ld_mreq_tag, s_mreq_tag}),
        .s_mrsp_valid({ld_mrsp_valid, s_mrsp_valid}), .s_mrsp_ready({ld_mrsp_ready, s_mrsp_ready}),
        .s_mrsp_tag({ld_mrsp_tag, s_mrsp_tag}), .s_mrsp_rdata({ld_mrsp_rdata, s_mrsp_rdata}),
        .x_mreq_valid(mreq_valid), .x_mreq_ready(mreq_ready), .x_mreq_addr(mreq_addr),
        .x_mreq_write(mreq_write), .x_mreq_mask(mreq_mask), .x_mreq_wdata(mreq_wdata),
        .x_mreq_tag(mreq_tag), .x_mrsp_valid(x_mrsp_valid), .x_mrsp_ready(x_mrsp_ready),
        .x_mrsp_tag(mrsp_tag), .x_mrsp_rdata(mrsp_rdata)
    );

    // ---- status, errors, counters ----------------------------------------------------------------
    // The first error wins: a loader error, or the lowest-numbered SM reporting one (simt_sm_select,
    // which also picks the SM whose counter and debug view the host reads).
    wire            any_sm_err;
    wire [SM_W-1:0] first_sm;
    wire [31:0]     dbg_warp_r, dbg_block_r, dbg_pc_r, dbg_last_pc_r;
    simt_sm_select #(.NUM_SMS(NUM_SMS)) u_select (
        .sm_err(sm_err), .any_sm_err(any_sm_err), .first_sm(first_sm),
        .perf_sel(perf_sel), .sm_perf(sm_perf), .perf_value(perf_value),
        .dbg_sm(dbg_sel[12:5]), .sm_dbg_state(sm_dbg_state), .sm_dbg_block(sm_dbg_block),
        .sm_dbg_wib(sm_dbg_wib), .sm_dbg_pc(sm_dbg_pc), .sm_dbg_last_pc(sm_dbg_last_pc),
        .sm_dbg_retired(sm_dbg_retired), .dbg_warp(dbg_warp_r), .dbg_block(dbg_block_r),
        .dbg_pc(dbg_pc_r), .dbg_last_pc(dbg_last_pc_r)
    );

    // The launch ends when the scheduler is done and no posted store waits for its acknowledgement
    // (sm_acks is 0 when POST_STORES = 0: every store retired has been answered).
`ifdef SIMT_FAULTS
    // Fault 27 (POST_STORES = 1): the launch end does not wait for the posted stores' acknowledgements.
    `SIMT_FAULT_PLUSARG
    assign acks_wait = |sm_acks && simt_fault != `SIMT_FAULT_ACKS_IGNORED;
`else
    assign acks_wait = |sm_acks;
`endif
    wire sched_end = sched_done && !acks_wait;

    always @(posedge clk) begin
        if (soft_rst) begin
            done_q <= 1'b0;
            err_q  <= 1'b0;
            err_kind_q <= 8'd0;
            err_sm_q <= 5'd0;
            err_block_q <= 32'd0;
            err_warp_q <= 5'd0;
            err_pc_q <= 17'd0;
            err_lane_q <= 6'd63;
            perf_sel <= 13'd0;
            dbg_sel <= 13'd0;
            running <= 1'b0;
        end else begin
            if (launch_ok) begin
                done_q <= 1'b0;
                err_q  <= 1'b0;
                err_kind_q <= 8'd0;
            end else if (start_bad && !err_q) begin
                err_q      <= 1'b1;  // START with no image loaded
                err_kind_q <= 8'h13;
            end
            if (sched_end) done_q <= 1'b1;
            if (launch_ok) running <= 1'b1;
            else if (sched_end || err_q) running <= 1'b0;
            if (!err_q && ld_error) begin
                err_q      <= 1'b1;
                err_kind_q <= ld_err_code;
                err_lane_q <= 6'd63;
            end else if (!err_q && any_sm_err) begin
                err_q       <= 1'b1;
                err_kind_q  <= {4'd0, sm_err_kind[first_sm*4 +: 4]};
                err_sm_q    <= {{(5 - SM_W){1'b0}}, first_sm};
                err_block_q <= sm_err_block[first_sm*32 +: 32];
                err_warp_q  <= sm_err_warp[first_sm*5 +: 5];
                err_pc_q    <= sm_err_pc[first_sm*17 +: 17];
                err_lane_q  <= sm_err_lane[first_sm*6 +: 6];
            end
            if (host_fire && host_write && host_addr == R_PERF_SEL) perf_sel <= host_wdata[12:0];
            if (host_fire && host_write && host_addr == R_DBG_SEL) dbg_sel <= host_wdata[12:0];
        end
    end

    // ERROR shows a loader error from the cycle the loader refuses the word (err_q follows one cycle
    // later), so a STATUS read right after the offending word never sees an idle GPU without ERROR.
    wire [31:0] status = {23'd0, ignored_q, ld_state, ld_busy, err_q || ld_error, done_q,
                          ((running || start_pending) && !err_q) || draining || acks_wait};
`ifdef SIMT_FAULTS
    // Fault 29: irq rises on an error only, not when a launch ends DONE. The host agent's wait would
    // still find the end by polling STATUS; its check that irq matches STATUS at the launch end catches it.
    assign irq = (status[1] && simt_fault != `SIMT_FAULT_IRQ_NO_DONE || status[2]) && !status[0] && !ld_busy;
`else
    assign irq = (status[1] || status[2]) && !status[0] && !ld_busy;
`endif
    always @(posedge clk) begin
        host_rvalid <= 1'b0;
        if (rst) begin
            host_rdata <= 32'd0;
        end else if (host_fire && !host_write) begin
            host_rvalid <= 1'b1;
            case (host_addr)
                R_ID:          host_rdata <= `SIMT_IMAGE_MAGIC;
                R_CONFIG:      host_rdata <= {NUM_SMS[7:0], NUM_LANES[7:0], WARP_SIZE[7:0], 8'd1};
                R_STATUS:      host_rdata <= status;
                R_ERR_KIND:    host_rdata <= {24'd0, err_kind_q};
                R_ERR_SM:      host_rdata <= {27'd0, err_sm_q};
                R_ERR_BLOCK:   host_rdata <= err_block_q;
                R_ERR_WARP:    host_rdata <= {27'd0, err_warp_q};
                R_ERR_PC:      host_rdata <= {15'd0, err_pc_q};
                R_ERR_LANE:    host_rdata <= {26'd0, err_lane_q};
                R_ERR_RULE:    host_rdata <= {24'd0, ld_err_rule};
                R_IMG_WORDS:   host_rdata <= ld_img_words;
                R_PERF_SEL:    host_rdata <= {19'd0, perf_sel};
                R_PERF_LO:     host_rdata <= perf_value[31:0];
                R_PERF_HI:     host_rdata <= perf_value[63:32];
                R_BLOCKS_DONE: host_rdata <= blocks_done;
                R_BLOCKS_DISPATCHED: host_rdata <= blocks_dispatched;
                R_DBG_SEL:     host_rdata <= {19'd0, dbg_sel};
                R_DBG_WARP:    host_rdata <= dbg_warp_r;
                R_DBG_BLOCK:   host_rdata <= dbg_block_r;
                R_DBG_PC:      host_rdata <= dbg_pc_r;
                R_DBG_LAST_PC: host_rdata <= dbg_last_pc_r;
                R_MEM_RSPS:    host_rdata <= mem_rsps;
                R_MEM_OUTSTANDING: host_rdata <= {16'd0, outstanding};
                default:       host_rdata <= 32'd0;
            endcase
        end
    end
endmodule
