`include "simt_retire.vh"
// Pipeline properties of the whole SM (docs/sm.md "Pipeline"): a bounded check in `make formal`.
//
// The properties are stated on the SM's ports and on the wires simt_sm.v connects its stage modules
// with (grant/f_warp/cpl_take of simt_issue, dec_*, ex_*, cm_* stage valids and warps, cm_issued /
// cm_retire into the warp table, the register-file write enable) and on the interface of the shared
// writeback (SWB, simt_shared_wb inside simt_execute: allocation, hand-over to CM, waiting counts, its
// register write), named in `// peek:` lines: they hold whatever the stages' internal timing is.
//
// Contract (what simt_gpu drives): reset first; the launch configuration is constant and passes the
// launch checks of docs/isa.md 8.1 (blocks of 1..8 threads, registers, shared words and slots that fit);
// the instruction and constant memories hold ANY contents (not written: every program of 16 words);
// blocks arrive at any time with any id; the memory system answers only requests it was given
// (one response per request tag, any data, any delay); perf and debug inputs are free.
// Properties, every cycle:
//   the stages keep the warp table's contract (simt_warp_table_props assumes it): F grants only a READY
//   warp, or takes back a warp waiting on memory; a warp is never granted while in flight (granted and
//   not yet retired or handed off); CM hands off or retires only a warp in flight, never both at once;
//   a warp is never in two stages: every valid stage (DEC, EX, SWB, CM) holds a warp in flight, no two
//   hold the same one, and (until an error) each warp in flight is in exactly one stage. With issue ahead
//   (ISSUE_AHEAD > 0, the `sm_ahead` job) a warp may be in several stages on purpose: DEC releases its
//   instruction (rel, the warp is READY again) and the wrapper counts the released instructions per warp;
//   then F grants only a warp whose unreleased instruction has left the pipeline, DEC releases only a warp
//   in flight with fewer than ISSUE_AHEAD ahead, CM hands off only a warp with none ahead, and each
//   stage holds one instruction: per warp the stages holding it number its unreleased instruction (0 or
//   1) plus its released ones (at most that many after an error, which flushes). The SWB is a
//   stage: a shared instruction leaves EX with its last row (here the only row: WARP_SIZE = NUM_LANES)
//   and waits there until its rows have landed; the entry CM holds (in_cm) counts as CM's. The wrapper
//   records which warps wait in the SWB from its allocations and hand-overs; the SWB's own counts
//   (waiting, waiting2) must agree, a warp has at most one entry, and entries reach CM in issue order;
//   only CM retires: the retire port is valid exactly in the cycle after CM retired, with that warp's
//   block slot and a non-empty mask; a retire that does not finish its warp leaves a thread active;
//   the register file is written only by the SWB (a landed load row of a warp waiting there) or by EX
//   holding a valid instruction, never both: in a cycle the SWB writes, the port carries its row and EX
//   writes nothing (with SWB_EX_FIRST = 1, simt_sm's default at ROWS = 1 as here, EX's row has the port
//   first and the SWB writes in the cycles EX leaves it, or under hold_swb when EX waits; the SWB's side
//   of the rule, in both orders, is proved on the unit: simt_shared_wb_props.sv); precise errors: EX raises an error only when no shared
//   instruction is waiting in the SWB (every older instruction has left for CM);
//   the debug view shows a warp in flight as "in pipeline" and one handed off as "memory";
//   flush on error: once err_valid is up nothing is granted, handed off, retired or moved to CM, the SWB
//   takes no entry and nobody writes a register; flush on reset: after a reset no stage (the SWB
//   included) holds a warp and the retire port is idle.
module simt_sm_props #(
    parameter integer WARP_SIZE    = 4,
    parameter integer NUM_LANES    = 4,
    parameter integer NUM_WARPS    = 2,
    parameter integer NUM_BLOCKS   = 2,
    parameter integer RF_DEPTH     = 32,
    parameter integer SHARED_WORDS = 64,
    parameter integer NUM_BANKS    = 2,
    parameter integer CONST_WORDS  = 16,
    parameter integer IMEM_WORDS   = 16,
    parameter integer STACK_DEPTH  = 2,
    parameter integer SEG_WORDS    = 1,
    parameter integer GLOBAL_WORDS = 1024,
    parameter integer ISSUE_AHEAD  = 0     // sm_pipeline: 0; sm_ahead: 2 (simt_sm's default)
) (
    input wire                    clk,
    input wire                    rst,
    input wire [3:0]              sm_id,
    input wire                    blk_valid,
    input wire [31:0]             blk_id,
    input wire [47:0]             blk_ctaid,
    input wire                    mreq_ready,
    input wire                    mrsp_valid,
    input wire [2:0]              mrsp_tag,
    input wire [SEG_WORDS*32-1:0] mrsp_rdata,
    input wire                    perf_clear,
    input wire                    perf_run,
    input wire [4:0]              perf_sel,
    input wire [4:0]              dbg_warp
);
    // Widths for these parameters: warp index 1 bit, tags 3 bits, counts 2 bits, pc 4 bits.
    localparam integer N = NUM_WARPS;
    localparam integer PC_W = $clog2(IMEM_WORDS);
    localparam integer C_AW = $clog2(CONST_WORDS);
    localparam integer SH_AW = $clog2(SHARED_WORDS);
    localparam integer TAG_W = 3;
    localparam integer DEPTH_W = $clog2(STACK_DEPTH + 1);  // the retire record's widths (simt_retire.vh)

    // ---- the launch configuration (constant, legal)
    (* anyconst *) reg [3:0]  threads;
    (* anyconst *) reg [5:0]  cfg_regs;
    (* anyconst *) reg [1:0]  cfg_slots;
    (* anyconst *) reg [6:0]  cfg_shared;
    (* anyconst *) reg [4:0]  cfg_nparams;
    (* anyconst *) reg [4:0]  cfg_ninstr;
    (* anyconst *) reg [4:0]  cfg_nconst;
    (* anyconst *) reg [47:0] cfg_grid;
    (* anyconst *) reg [511:0] cfg_params;
    wire [1:0]  cfg_wpb = (threads + 4'd3) >> 2;
    wire [6:0]  cfg_sh_stride = (cfg_shared + 7'd1) & ~7'd1;  // rounded up to NUM_BANKS = 2
    always @* begin
        assume (threads >= 1 && threads <= N * WARP_SIZE);
        assume (cfg_regs >= 1 && cfg_regs <= 32 && cfg_slots >= 1 && cfg_slots <= NUM_BLOCKS);
        assume (cfg_slots * cfg_wpb <= N && cfg_slots * cfg_wpb * cfg_regs <= RF_DEPTH);
        assume (cfg_slots * cfg_sh_stride <= SHARED_WORDS);
        assume (cfg_nparams <= 16 && cfg_ninstr >= 1 && cfg_ninstr <= IMEM_WORDS && cfg_nconst <= CONST_WORDS);
        assume (cfg_grid[15:0] != 0 && cfg_grid[31:16] != 0 && cfg_grid[47:32] != 0);
    end

    wire                        blk_ready, blk_done, idle, mreq_valid, mreq_write, mrsp_ready, rt_valid;
    wire                        sh_obs_clr, err_valid;
    wire [31:0]                 blk_done_id, mreq_addr, err_block;
    wire [SEG_WORDS-1:0]        mreq_mask;
    wire [SEG_WORDS*32-1:0]     mreq_wdata;
    wire [TAG_W-1:0]            mreq_tag;
    wire [`SIMT_RT_W-1:0]       rt_rec;
    wire [NUM_BANKS-1:0]        sh_obs_we;
    wire [NUM_BANKS*SH_AW-1:0]  sh_obs_addr;
    wire [NUM_BANKS*32-1:0]     sh_obs_data;
    wire [4:0]                  sh_obs_warp, err_warp, dbg_wib;
    wire [3:0]                  err_kind;
    wire [16:0]                 err_pc, dbg_pc, dbg_last_pc;
    wire [5:0]                  err_lane;
    wire [63:0]                 perf_value;
    wire [2:0]                  dbg_state;
    wire [31:0]                 dbg_block;
    wire                        dbg_retired;
    simt_sm #(.WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .NUM_WARPS(NUM_WARPS), .NUM_BLOCKS(NUM_BLOCKS),
              .RF_DEPTH(RF_DEPTH), .SHARED_WORDS(SHARED_WORDS), .NUM_BANKS(NUM_BANKS), .CONST_WORDS(CONST_WORDS),
              .IMEM_WORDS(IMEM_WORDS), .STACK_DEPTH(STACK_DEPTH), .SEG_WORDS(SEG_WORDS),
              .GLOBAL_WORDS(GLOBAL_WORDS),
              // "a warp is never in two stages" holds only without issue ahead (docs/sm.md), which
              // breaks it on purpose; with it the stages are counted per warp (see the header).
              .ISSUE_AHEAD(ISSUE_AHEAD)) dut (
        .clk(clk), .rst(rst), .sm_id(sm_id),
        .imem_we(1'b0), .imem_waddr({PC_W{1'b0}}), .imem_wdata(32'd0),
        .cmem_we(1'b0), .cmem_waddr({C_AW{1'b0}}), .cmem_wdata(32'd0),
        .cfg_grid(cfg_grid), .cfg_block({16'd1, 16'd1, 12'd0, threads}), .cfg_threads({7'd0, threads}),
        .cfg_regs(cfg_regs), .cfg_wpb(cfg_wpb), .cfg_slots(cfg_slots), .cfg_shared(cfg_shared),
        .cfg_sh_stride(cfg_sh_stride), .cfg_nparams(cfg_nparams), .cfg_params(cfg_params),
        .cfg_ninstr(cfg_ninstr), .cfg_nconst(cfg_nconst),
        .blk_valid(blk_valid), .blk_ready(blk_ready), .blk_id(blk_id), .blk_ctaid(blk_ctaid),
        .blk_done(blk_done), .blk_done_id(blk_done_id), .idle(idle),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata),
        .rt_valid(rt_valid), .rt_rec(rt_rec),
        .sh_obs_we(sh_obs_we), .sh_obs_addr(sh_obs_addr), .sh_obs_data(sh_obs_data), .sh_obs_clr(sh_obs_clr),
        .sh_obs_warp(sh_obs_warp),
        .err_valid(err_valid), .err_kind(err_kind), .err_block(err_block), .err_warp(err_warp),
        .err_pc(err_pc), .err_lane(err_lane),
        .perf_clear(perf_clear), .perf_run(perf_run), .perf_sel(perf_sel), .perf_value(perf_value),
        .dbg_warp(dbg_warp), .dbg_state(dbg_state), .dbg_block(dbg_block), .dbg_wib(dbg_wib), .dbg_pc(dbg_pc),
        .dbg_retired(dbg_retired), .dbg_last_pc(dbg_last_pc)
    );
    `SIMT_RT_VIEW(rt_rec)

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // ---- the memory system: answers only outstanding requests, one response per tag
    reg [(1<<TAG_W)-1:0] outstanding;
    always @(posedge clk) begin
        if (rst) outstanding <= 0;
        else begin
            if (mrsp_valid && mrsp_ready) outstanding[mrsp_tag] <= 1'b0;
            if (mreq_valid && mreq_ready) outstanding[mreq_tag] <= 1'b1;
        end
    end
    always @* if (!init && !rst && mrsp_valid) assume (outstanding[mrsp_tag]);

    // ---- the stage interface (simt_sm.v's wires between its stage modules)
    // peek: grant = dut.grant
    // peek: f_warp = dut.f_warp
    // peek: cpl_take = dut.cpl_take
    // peek: ready_vec = dut.ready_vec
    // peek: dec_valid = dut.dec_valid
    // peek: dec_warp = dut.dec_warp
    // peek: ex_valid = dut.ex_valid
    // peek: ex_warp = dut.ex_warp
    // peek: cm_valid = dut.cm_valid
    // peek: cm_warp = dut.cm_warp
    // peek: cm_issued = dut.cm_issued
    // peek: cm_retire = dut.cm_retire
    // peek: cm_slot = dut.cm_slot
    // peek: rf_we = dut.rf_we
    // peek: rf_waddr = dut.rf_waddr
    // peek: ex_raise = dut.ex_raise
    // peek: ex_to_cm = dut.ex_to_cm
    // peek: ex_writes = dut.u_ex.ex_writes
    // peek: swb_alloc = dut.u_ex.u_swb.alloc
    // peek: swb_to_cm = dut.u_ex.swb_to_cm
    // peek: swb_warp = dut.u_ex.swb_warp
    // peek: swb_wait = dut.u_ex.swb_wait
    // peek: swb_wait2 = dut.u_ex.swb_wait2
    // peek: swb_in_cm = dut.u_ex.swb_in_cm
    // peek: swb_we_any = dut.u_ex.swb_we_any
    // peek: swb_we = dut.u_ex.u_swb.rf_we
    // peek: swb_waddr = dut.u_ex.u_swb.rf_waddr
    // peek: nx_mask = dut.nx_mask
    // peek: nx_done = dut.nx_done
    // peek: rel = dut.rel
    (* keep *) wire         grant, cpl_take, dec_valid, ex_valid, cm_valid, cm_issued, cm_retire;
    (* keep *) wire         f_warp, dec_warp, ex_warp, cm_warp, cm_slot;
    (* keep *) wire [N-1:0] ready_vec;
    (* keep *) wire [NUM_LANES-1:0] rf_we;
    (* keep *) wire [WARP_SIZE-1:0] nx_mask;
    (* keep *) wire                 nx_done, rel;
    (* keep *) wire                 ex_raise, ex_to_cm, ex_writes;
    (* keep *) wire                 swb_alloc, swb_to_cm, swb_warp, swb_wait, swb_wait2, swb_in_cm, swb_we_any;
    (* keep *) wire [NUM_LANES-1:0] swb_we;
    (* keep *) wire [$clog2(RF_DEPTH)-1:0] rf_waddr, swb_waddr;  // register row addresses (ROWS = 1)

    // ---- the wrapper's record of each warp: in flight (granted, not yet retired or handed off), waiting
    // on memory (handed off, not yet taken back)
    reg [N-1:0] fly, mem;
    reg [2:0]   ahd [0:N-1];  // issue ahead: released instructions in flight
    wire        cm_ahd = ahd[cm_warp] != 0;  // CM retires a released instruction (the oldest: in order)
    reg         p_retire, p_slot;
    // ... and waiting in the SWB (allocated, not yet moved to CM); swb_old: the older of two waiting
    // entries (N = 2: one bit; set whenever the waiting set has a single warp)
    reg [N-1:0] swb;
    reg         swb_old;
    wire [N-1:0] swb_nx = (swb & ~(swb_to_cm ? (1 << swb_warp) : 0)) | (swb_alloc ? (1 << ex_warp) : 0);
    integer i;
    always @(posedge clk) begin
        p_retire <= !rst && cm_retire;
        p_slot   <= cm_slot;
        if (rst) begin
            fly <= 0; mem <= 0; swb <= 0; swb_old <= 1'b0;
            for (i = 0; i < N; i = i + 1) ahd[i] <= 3'd0;
        end else begin
            swb <= swb_nx;
            if (swb_nx == 2'b01) swb_old <= 1'b0;
            if (swb_nx == 2'b10) swb_old <= 1'b1;
            for (i = 0; i < N; i = i + 1) begin
                if (grant && f_warp == i) begin
                    fly[i] <= 1'b1; mem[i] <= 1'b0;
                end
                if ((cm_issued || (cm_retire && !cm_ahd)) && cm_warp == i) fly[i] <= 1'b0;
                if (rel && dec_warp == i) fly[i] <= 1'b0;
                ahd[i] <= ahd[i] + (rel && dec_warp == i) - (cm_retire && cm_ahd && cm_warp == i);
                if (cm_issued && cm_warp == i) mem[i] <= 1'b1;
            end
        end
    end

    reg past_rst = 1'b1;
    always @(posedge clk) past_rst <= rst;
    integer w;
    reg [2:0] stg [0:N-1];  // stages holding warp w
    always @* for (w = 0; w < N; w = w + 1)
        stg[w] = (dec_valid && dec_warp == w) + (ex_valid && ex_warp == w) + swb[w] + (cm_valid && cm_warp == w);
    always @* begin
        if (!init && !rst) begin
            // the warp table's contract
            if (grant) begin
                assert (!fly[f_warp]);
                if (cpl_take) assert (mem[f_warp]);
                else assert (ready_vec[f_warp] && !mem[f_warp]);
            end
            if (cm_issued) assert (fly[cm_warp] && !cm_ahd);
            if (cm_retire) assert (fly[cm_warp] || cm_ahd);
            assert (!(cm_issued && cm_retire));
            if (rel) assert (ISSUE_AHEAD > 0 && dec_valid && fly[dec_warp] && ahd[dec_warp] < ISSUE_AHEAD);
            // issue ahead: each stage holds one instruction of its warp (until an error)
            for (w = 0; w < N; w = w + 1) begin
                assert (ahd[w] <= ISSUE_AHEAD && stg[w] <= fly[w] + ahd[w]);
                if (!err_valid) assert (stg[w] == fly[w] + ahd[w]);
            end
        end
        if (!init && !rst && ISSUE_AHEAD == 0) begin
            // a warp is never in two stages
            if (dec_valid) assert (fly[dec_warp]);
            if (ex_valid) assert (fly[ex_warp]);
            if (cm_valid) assert (fly[cm_warp]);
            if (dec_valid && ex_valid) assert (dec_warp != ex_warp);
            if (dec_valid && cm_valid) assert (dec_warp != cm_warp);
            if (ex_valid && cm_valid) assert (ex_warp != cm_warp);
            for (w = 0; w < N; w = w + 1)
                if (swb[w]) begin
                    assert (fly[w]);
                    assert (!(dec_valid && dec_warp == w) && !(ex_valid && ex_warp == w) &&
                            !(cm_valid && cm_warp == w));
                end
            if (!err_valid)
                for (w = 0; w < N; w = w + 1)
                    if (fly[w])
                        assert ((dec_valid && dec_warp == w) || (ex_valid && ex_warp == w) || swb[w] ||
                                (cm_valid && cm_warp == w));
        end
        if (!init && !rst) begin
            // the SWB: an entry is taken by EX's warp (one per warp), handed to CM only for a warp waiting
            // there, the older first; its own counts agree; in_cm (CM reads its entry) only while CM is valid
            if (swb_alloc) assert (ex_valid && !swb[ex_warp]);
            if (swb_to_cm) assert (swb[swb_warp] && (swb != 2'b11 || swb_warp == swb_old));
            assert (swb_wait == (swb != 0) && swb_wait2 == (swb == 2'b11));
            if (swb_in_cm) assert (cm_valid);
            // precise errors: EX raises only when no older shared instruction still waits in the SWB
            if (ex_raise) assert (!swb_wait);
            // only CM retires
            assert (rt_valid == p_retire);
            if (rt_valid) assert (rt_slot == p_slot);
            // no retire has an empty mask; CM keeps the warp table's contract that a warp that is not
            // finished goes on with some thread
            if (rt_valid) assert (rt_mask != 0);
            if (cm_retire && !nx_done) assert (nx_mask != 0);
            // register writes: the SWB's row (a warp waiting there) or EX's row, never both
            if (rf_we != 0) assert (swb_we_any || (ex_valid && ex_writes));
            if (swb_we_any) assert (swb != 0 && !ex_writes && rf_we == swb_we && rf_waddr == swb_waddr);
            // the debug view
            if (dbg_warp < N && fly[dbg_warp]) assert (dbg_state == 3'd2);
            if (dbg_warp < N && mem[dbg_warp]) assert (dbg_state == 3'd3);
            // flush on error
            if (err_valid)
                assert (!grant && !cm_issued && !cm_retire && rf_we == 0 && !ex_to_cm && !swb_alloc);
            // flush on reset
            if (past_rst)
                assert (!dec_valid && !ex_valid && !cm_valid && !rt_valid && !err_valid && !swb_wait &&
                        !swb_in_cm);
        end
    end

`ifdef COVER
    // witnesses that the bound reaches the behaviour checked (the `sm_pipeline_cover` job)
    reg [1:0] n_retired;
    always @(posedge clk) if (rst) n_retired <= 0; else if (rt_valid && n_retired != 2'd3) n_retired <= n_retired + 1'b1;
    always @* if (!init && !rst) begin
        cover (rt_valid);                          // an instruction retires
        cover (n_retired == 2'd2);                 // two retire
        cover (cm_issued);                         // a global access is handed off
        cover (grant && cpl_take);                 // ... and its warp comes back
        cover (err_valid);                         // an error stops the pipeline
        cover (ex_valid && cm_valid);              // both warps in the pipeline, in two stages
        cover (swb_wait && ex_valid);              // a shared instruction waits while EX works on another
        cover (swb_we_any);                        // a shared load's row lands (the SWB writes)
        if (ISSUE_AHEAD > 0) begin                 // issue ahead (sm_ahead_cover)
            cover (rel);                           // DEC releases an instruction
            cover (stg[0] >= 2 || stg[1] >= 2);    // a warp in two stages at once
            cover (cm_retire && cm_ahd);           // a released instruction retires
        end
    end
`endif
endmodule
