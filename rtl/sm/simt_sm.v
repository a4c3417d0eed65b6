`include "simt_isa.vh"
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
`include "simt_retire.vh"
// Streaming multiprocessor (docs/sm.md): warp table, round-robin scheduler and a four-stage pipeline
// (F fetch, DEC decode and operand read, EX row-serial execute and writeback, CM commit), divergence
// stacks, barriers, shared, constant and global memory.
//
// Different warps occupy different stages in the same cycle and the rows of consecutive instructions
// follow each other through the lanes; a warp is never in the pipeline twice, so there is no
// forwarding and no hazard logic (Lies 2019, seed 000, section 4.2.1). A global access leaves the pipeline: the
// warp waits in state MEM while other warps run, and re-enters once to write its loads and retire.
// Test-only faults 1, 5, 6 and 7 (SIMT_FAULTS builds, docs/sm.md "Test-only fault hooks").
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
    output reg                         blk_done,       // one-cycle pulse
    output reg  [31:0]                 blk_done_id,
    output wire                        idle,           // no block resident
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
    // retire port: one record per retired warp-instruction
    output reg                         rt_valid,
    output reg  [`SIMT_RT_BLOCK_W-1:0]     rt_block,
    output reg  [`SIMT_RT_WARP_W-1:0]      rt_warp,
    output reg  [`SIMT_RT_SLOT_W-1:0]      rt_slot,        // block slot of the warp's block
    output reg  [`SIMT_RT_PC_W-1:0]        rt_pc,
    output reg  [`SIMT_RT_INSTR_W-1:0]     rt_instr,
    output reg  [`SIMT_RT_MASK_W-1:0]      rt_mask,
    output reg  [`SIMT_RT_WR_W-1:0]        rt_wr,
    output reg  [`SIMT_RT_RD_W-1:0]        rt_rd,
    output reg  [`SIMT_RT_VALUES_W-1:0]    rt_values,
    output reg  [`SIMT_RT_NEXT_PC_W-1:0]   rt_next_pc,
    output reg  [`SIMT_RT_NEXT_MASK_W-1:0]  rt_next_mask,
    output reg  [`SIMT_RT_PUSHES_W-1:0]    rt_pushes,
    output reg  [`SIMT_RT_POPS_W-1:0]      rt_pops,
    output reg  [`SIMT_RT_MERGED_W-1:0]    rt_merged,
    output reg  [`SIMT_RT_DEPTH_W-1:0]     rt_depth,
    output reg  [`SIMT_RT_PASSES_W-1:0]    rt_passes,      // shared: passes of the access
    output reg  [`SIMT_RT_TXNS_W-1:0]      rt_txns,        // global: transactions of the access
    output reg  [`SIMT_RT_BARRIER_W-1:0]   rt_barrier,
    output reg  [`SIMT_RT_DONE_W-1:0]      rt_done,
    // top entry of the warp's divergence stack after the instruction (0 when rt_depth is 0)
    output reg  [`SIMT_RT_TOP_PC_W-1:0]    rt_top_pc,
    output reg  [`SIMT_RT_TOP_MASK_W-1:0]  rt_top_mask,
    output reg  [`SIMT_RT_TOP_KIND_W-1:0]  rt_top_kind,    // 0 SYNC, 1 DIV
    // every shared-memory bank write (docs/sm.md simt_shared_lsu), for the shared-memory monitor
    output wire [NUM_BANKS-1:0]        sh_obs_we,
    output wire [NUM_BANKS*SH_AW-1:0]  sh_obs_addr,
    output wire [NUM_BANKS*32-1:0]     sh_obs_data,
    output wire                        sh_obs_clr,     // this cycle's writes clear a block's line
    output wire [4:0]                  sh_obs_warp,    // warp slot of the store row (when not clr)
    // error status (sticky until reset)
    output reg                         err_valid,
    output reg  [3:0]                  err_kind,
    output reg  [31:0]                 err_block,
    output reg  [4:0]                  err_warp,
    output reg  [PCX_W-1:0]            err_pc,
    output reg  [5:0]                  err_lane,       // 63: no lane responsible
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
    localparam integer LANE_W = (NUM_LANES > 1) ? $clog2(NUM_LANES) : 1;
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
    endgenerate

    // ---- warp table ------------------------------------------------------------------------------
    localparam [2:0] WS_EMPTY = 3'd0, WS_READY = 3'd1, WS_BUSY = 3'd2, WS_MEM = 3'd3, WS_BAR = 3'd4,
                     WS_DONE = 3'd5;
    reg [2:0]           w_state  [0:NUM_WARPS-1];
    reg [PCX_W-1:0]     w_pc     [0:NUM_WARPS-1];
    reg [WARP_SIZE-1:0] w_mask   [0:NUM_WARPS-1];
    reg [WARP_SIZE-1:0] w_valid  [0:NUM_WARPS-1];
    reg [WARP_SIZE-1:0] w_exited [0:NUM_WARPS-1];
    reg [DEPTH_W-1:0]   w_depth  [0:NUM_WARPS-1];
    reg [BID_W-1:0]     w_slot   [0:NUM_WARPS-1];  // block slot of the warp
    reg [4:0]           w_wib    [0:NUM_WARPS-1];  // warp index within its block

    // ---- block slots -----------------------------------------------------------------------------
    reg                 b_valid  [0:NUM_BLOCKS-1];
    reg [31:0]          b_id     [0:NUM_BLOCKS-1];
    reg [47:0]          b_ctaid  [0:NUM_BLOCKS-1];
    reg [WCNT_W-1:0]    b_ndone  [0:NUM_BLOCKS-1];  // warps of the block that finished

    // ---- memories owned by the SM ----------------------------------------------------------------
    reg [31:0] imem [0:IMEM_WORDS-1];
    reg [31:0] cmem [0:CONST_WORDS-1];
    reg [47:0] tidm [0:NUM_WARPS*WARP_SIZE-1];  // {tid.z, tid.y, tid.x} per thread slot

    always @(posedge clk) begin
        if (imem_we) imem[imem_waddr] <= imem_wdata;
        if (cmem_we) cmem[cmem_waddr] <= cmem_wdata;
    end

    // ==== the pipeline (docs/sm.md "Pipeline") ===================================================
    // Four stages, each holding at most one warp-instruction of a different warp:
    //   F   the scheduler grants a ready warp (or a completed global access re-enters); imem read
    //   DEC decode and launch checks; register rows read one per cycle (row k's operands arrive in EX
    //       the cycle after)
    //   EX  one row per cycle through the lanes: ALU, special registers, constants, branch
    //       conditions, shared-memory rows into the LSU, global addresses and data gathered; register
    //       writeback of the row in the same cycle
    //   CM  commit: barrier check, divergence-stack update, the warp table and the retire port, or the
    //       hand-off of a global access to the memory unit
    // A warp is BUSY from its grant until it leaves CM, so it is never in the pipeline twice and no
    // forwarding exists. The per-instruction buffers (vals, taken, gaddr, gdata) belong to the
    // instruction in CM until it completes; EX acts on a row only when CM is empty or completing.
    wire halt = err_valid;  // an error stops every stage until reset

    // ---- stage registers -------------------------------------------------------------------------
    reg                 dec_valid;
    reg [WID_W-1:0]     dec_warp;
    reg                 dec_memwb;    // a completed global access writing its loads and retiring
    reg [31:0]          dec_instr;
    reg [ROW_W-1:0]     dec_row;      // row whose register read is presented this cycle
    reg [5:0]           dec_txns;

    reg                 ex_valid;
    reg [WID_W-1:0]     ex_warp;
    reg                 ex_memwb;
    reg [31:0]          ex_instr;
    reg [ROW_W-1:0]     ex_row;       // row whose operands are on rdata_*
    reg                 ex_last;      // the instruction's last token
    reg                 ex_flt;       // DEC found a launch-check fault: EX only reports it
    reg [3:0]           ex_flt_kind;
    reg [5:0]           ex_txns;
    reg                 ex_drain;     // shared: every row is in the LSU, waiting for the responses
    reg [ROW_W:0]       ex_nrsp;      // shared: rows answered so far
    reg [6:0]           ex_passes;    // shared: passes so far

    reg                 cm_valid;
    reg                 cm_first;     // first cycle in CM (the stack update starts)
    reg [WID_W-1:0]     cm_warp;
    reg                 cm_memwb;
    reg [31:0]          cm_instr;
    reg [5:0]           cm_txns;
    reg [6:0]           cm_passes;

    reg [WARP_SIZE-1:0]    taken;     // BEQ/BNE: lanes taking the branch, built row by row in EX
    reg [WARP_SIZE*32-1:0] vals;      // per-lane results (retire record)
    reg [WARP_SIZE*32-1:0] gaddr;     // global access: per-lane addresses
    reg [WARP_SIZE*32-1:0] gdata;     // global access: per-lane store data
    reg [WARP_SIZE*32-1:0] mw_data;   // completed global loads, until EX has written them
    reg                    mw_busy;   // a completed access is in DEC or EX (one at a time)

    // ---- decoders: one per stage (combinational) -------------------------------------------------
    wire        dd_illegal, dd_bad_reg, dd_use_a, dd_use_b, dd_use_c, dd_a_imm, dd_b_imm, dd_wr;
    wire        dd_is_load, dd_is_store, dd_beq, dd_bne, dd_bra, dd_ssy, dd_bar, dd_exit, dd_lds;
    wire [2:0]  dd_cls;
    wire [5:0]  dd_fn;
    wire [4:0]  dd_ra, dd_rb, dd_rc, dd_rd, dd_sreg;
    wire [31:0] dd_imm;
    wire [15:0] dd_target;
    simt_decode u_dec_decode (
        .instr(dec_instr), .regs(cfg_regs), .illegal(dd_illegal), .bad_reg(dd_bad_reg), .cls(dd_cls),
        .alu_fn(dd_fn), .ra(dd_ra), .rb(dd_rb), .rc(dd_rc), .use_a(dd_use_a), .use_b(dd_use_b),
        .use_c(dd_use_c), .a_imm(dd_a_imm), .b_imm(dd_b_imm), .imm(dd_imm), .wr(dd_wr), .rd(dd_rd),
        .is_load(dd_is_load), .is_store(dd_is_store), .is_beq(dd_beq), .is_bne(dd_bne), .is_bra(dd_bra),
        .is_ssy(dd_ssy), .is_bar(dd_bar), .is_exit(dd_exit), .is_lds(dd_lds), .sreg(dd_sreg),
        .target(dd_target)
    );
    wire        xd_illegal, xd_bad_reg, xd_use_a, xd_use_b, xd_use_c, xd_a_imm, xd_b_imm, xd_wr;
    wire        xd_is_load, xd_is_store, xd_beq, xd_bne, xd_bra, xd_ssy, xd_bar, xd_exit, xd_lds;
    wire [2:0]  xd_cls;
    wire [5:0]  xd_fn;
    wire [4:0]  xd_ra, xd_rb, xd_rc, xd_rd, xd_sreg;
    wire [31:0] xd_imm;
    wire [15:0] xd_target;
    simt_decode u_ex_decode (
        .instr(ex_instr), .regs(cfg_regs), .illegal(xd_illegal), .bad_reg(xd_bad_reg), .cls(xd_cls),
        .alu_fn(xd_fn), .ra(xd_ra), .rb(xd_rb), .rc(xd_rc), .use_a(xd_use_a), .use_b(xd_use_b),
        .use_c(xd_use_c), .a_imm(xd_a_imm), .b_imm(xd_b_imm), .imm(xd_imm), .wr(xd_wr), .rd(xd_rd),
        .is_load(xd_is_load), .is_store(xd_is_store), .is_beq(xd_beq), .is_bne(xd_bne), .is_bra(xd_bra),
        .is_ssy(xd_ssy), .is_bar(xd_bar), .is_exit(xd_exit), .is_lds(xd_lds), .sreg(xd_sreg),
        .target(xd_target)
    );
    wire        cd_illegal, cd_bad_reg, cd_use_a, cd_use_b, cd_use_c, cd_a_imm, cd_b_imm, cd_wr;
    wire        cd_is_load, cd_is_store, cd_beq, cd_bne, cd_bra, cd_ssy, cd_bar, cd_exit, cd_lds;
    wire [2:0]  cd_cls;
    wire [5:0]  cd_fn;
    wire [4:0]  cd_ra, cd_rb, cd_rc, cd_rd, cd_sreg;
    wire [31:0] cd_imm;
    wire [15:0] cd_target;
    simt_decode u_cm_decode (
        .instr(cm_instr), .regs(cfg_regs), .illegal(cd_illegal), .bad_reg(cd_bad_reg), .cls(cd_cls),
        .alu_fn(cd_fn), .ra(cd_ra), .rb(cd_rb), .rc(cd_rc), .use_a(cd_use_a), .use_b(cd_use_b),
        .use_c(cd_use_c), .a_imm(cd_a_imm), .b_imm(cd_b_imm), .imm(cd_imm), .wr(cd_wr), .rd(cd_rd),
        .is_load(cd_is_load), .is_store(cd_is_store), .is_beq(cd_beq), .is_bne(cd_bne), .is_bra(cd_bra),
        .is_ssy(cd_ssy), .is_bar(cd_bar), .is_exit(cd_exit), .is_lds(cd_lds), .sreg(cd_sreg),
        .target(cd_target)
    );

    // ---- DEC: launch checks, token count, register read address ----------------------------------
    wire [PCX_W-1:0] dec_pc   = w_pc[dec_warp];
    // Instructions that read operands or write a register send one token per row through EX;
    // the others (SSY, BRA, BAR, EXIT), a faulting instruction and a completed store send one.
    wire dd_rows = dd_cls == `SIMT_CLS_ALU || dd_lds || dd_cls == `SIMT_CLS_SHARED ||
                   dd_cls == `SIMT_CLS_CONST || dd_cls == `SIMT_CLS_GLOBAL || dd_beq || dd_bne;
    reg       dec_flt;
    reg [3:0] dec_flt_kind;
    always @(*) begin
        dec_flt      = !dec_memwb;
        dec_flt_kind = `SIMT_ERR_PC_OUT_OF_RANGE;
        if (dec_memwb) dec_flt = 1'b0;
        else if (dec_pc >= cfg_ninstr) dec_flt_kind = `SIMT_ERR_PC_OUT_OF_RANGE;
        else if (dd_illegal) dec_flt_kind = `SIMT_ERR_ILLEGAL_INSTRUCTION;
        else if (dd_bad_reg) dec_flt_kind = `SIMT_ERR_BAD_REGISTER;
        else if (dd_lds && dd_sreg >= `SIMT_SREG_PARAM_BASE + cfg_nparams) dec_flt_kind = `SIMT_ERR_BAD_PARAM;
        else dec_flt = 1'b0;
    end
    wire dec_multi = !dec_flt && (dec_memwb ? dd_is_load : dd_rows);
    wire dec_last  = !dec_multi || dec_row == ROWS - 1;

    // ---- register file ---------------------------------------------------------------------------
    // Row address of register r of row k of warp slot s: s*regs*ROWS + r*ROWS + k (docs/sm.md).
    wire [RF_AW-1:0] dec_wbase = dec_warp * cfg_regs * ROWS;
    wire [RF_AW-1:0] ex_wbase  = ex_warp * cfg_regs * ROWS;
    // The read data are registered: the address presented now is for the token in EX next cycle,
    // which is DEC's token when EX advances and EX's own token again when it holds.
    wire             ex_adv;
    wire [RF_AW-1:0] raddr_a = ex_adv ? dec_wbase + dd_ra * ROWS + dec_row : ex_wbase + xd_ra * ROWS + ex_row;
    wire [RF_AW-1:0] raddr_b = ex_adv ? dec_wbase + dd_rb * ROWS + dec_row : ex_wbase + xd_rb * ROWS + ex_row;
    wire [RF_AW-1:0] raddr_c = ex_adv ? dec_wbase + dd_rc * ROWS + dec_row : ex_wbase + xd_rc * ROWS + ex_row;
    wire [NUM_LANES*32-1:0] rdata_a, rdata_b, rdata_c;
    reg  [NUM_LANES-1:0]    rf_we;
    reg  [RF_AW-1:0]        rf_waddr;
    reg  [NUM_LANES*32-1:0] rf_wdata;
    // Block initialisation clears registers through the same port when no stage writes.
    wire                    clr_rf_req;
    wire [RF_AW-1:0]        clr_rf_addr;
    wire                    clr_rf_go = clr_rf_req && rf_we == {NUM_LANES{1'b0}};
    simt_regfile #(.NUM_LANES(NUM_LANES), .RF_DEPTH(RF_DEPTH)) u_rf (
        .clk(clk), .raddr_a(raddr_a), .raddr_b(raddr_b), .raddr_c(raddr_c),
        .rdata_a(rdata_a), .rdata_b(rdata_b), .rdata_c(rdata_c),
        .we(clr_rf_go ? {NUM_LANES{1'b1}} : rf_we), .waddr(clr_rf_go ? clr_rf_addr : rf_waddr),
        .wdata(clr_rf_go ? {NUM_LANES*32{1'b0}} : rf_wdata)
    );

    // ---- EX: per-lane datapath of the row in EX ---------------------------------------------------
    wire [PCX_W-1:0]        ex_pc   = w_pc[ex_warp];
    wire [WARP_SIZE-1:0]    ex_mask = w_mask[ex_warp];
    wire [BID_W-1:0]        ex_slot = w_slot[ex_warp];
    wire [4:0]              ex_wib  = w_wib[ex_warp];
    wire [47:0]             ex_ctaid = b_ctaid[ex_slot];
    // What the token does (a faulting token does nothing but report).
    wire ex_op     = !ex_flt && !ex_memwb;
    wire ex_alu    = ex_op && xd_cls == `SIMT_CLS_ALU;
    wire ex_sh     = ex_op && xd_cls == `SIMT_CLS_SHARED;
    wire ex_const  = ex_op && xd_cls == `SIMT_CLS_CONST;
    wire ex_global = ex_op && xd_cls == `SIMT_CLS_GLOBAL;
    wire ex_branch = ex_op && (xd_beq || xd_bne);
    wire [NUM_LANES-1:0]    row_mask = ex_mask[ex_row * NUM_LANES +: NUM_LANES];
    wire [NUM_LANES*32-1:0] alu_y, mem_addr, sreg_v, const_v;
    wire [NUM_LANES-1:0]    lane_nz, bad_const, bad_shared, bad_global;
    genvar l;
    generate
        for (l = 0; l < NUM_LANES; l = l + 1) begin : lane
            wire [31:0] a = xd_a_imm ? xd_imm : rdata_a[l*32 +: 32];
            wire [31:0] b = xd_b_imm ? xd_imm : rdata_b[l*32 +: 32];
            wire [31:0] c = rdata_c[l*32 +: 32];
            simt_alu u_alu (.fn(xd_fn), .a(a), .b(b), .c(c), .y(alu_y[l*32 +: 32]));
            wire [31:0] addr = a + b;
            assign mem_addr[l*32 +: 32] = addr;
            assign lane_nz[l]    = a != 32'd0;
            assign bad_const[l]  = addr >= {{(31 - C_AW){1'b0}}, cfg_nconst};
            assign bad_shared[l] = addr >= {{(31 - SH_AW){1'b0}}, cfg_shared};
            assign bad_global[l] = addr >= GLOBAL_WORDS;
            assign const_v[l*32 +: 32] = cmem[addr[C_AW-1:0]];
            // special registers (docs/isa.md 3.2)
            wire [4:0]  tin = ex_row * NUM_LANES + l;           // thread index within the warp
            wire [31:0] flat_tid = ex_wib * WARP_SIZE + tin;
            wire [TH_W-1:0] tslot = ex_warp * WARP_SIZE + tin;
            wire [47:0] txyz = tidm[tslot];
            reg  [31:0] sv;
            always @(*) begin
                case (xd_sreg)
                    `SIMT_SREG_TID_X:    sv = {16'd0, txyz[15:0]};
                    `SIMT_SREG_TID_Y:    sv = {16'd0, txyz[31:16]};
                    `SIMT_SREG_TID_Z:    sv = {16'd0, txyz[47:32]};
                    `SIMT_SREG_NTID_X:   sv = {16'd0, cfg_block[15:0]};
                    `SIMT_SREG_NTID_Y:   sv = {16'd0, cfg_block[31:16]};
                    `SIMT_SREG_NTID_Z:   sv = {16'd0, cfg_block[47:32]};
                    `SIMT_SREG_CTAID_X:  sv = {16'd0, ex_ctaid[15:0]};
                    `SIMT_SREG_CTAID_Y:  sv = {16'd0, ex_ctaid[31:16]};
                    `SIMT_SREG_CTAID_Z:  sv = {16'd0, ex_ctaid[47:32]};
                    `SIMT_SREG_NCTAID_X: sv = {16'd0, cfg_grid[15:0]};
                    `SIMT_SREG_NCTAID_Y: sv = {16'd0, cfg_grid[31:16]};
                    `SIMT_SREG_NCTAID_Z: sv = {16'd0, cfg_grid[47:32]};
                    `SIMT_SREG_TID:      sv = flat_tid;
                    `SIMT_SREG_LANEID:   sv = {27'd0, tin};
                    `SIMT_SREG_WARPID:   sv = {27'd0, ex_wib};
                    `SIMT_SREG_SMID:     sv = {28'd0, sm_id};
                    default:             sv = cfg_params[(xd_sreg - `SIMT_SREG_PARAM_BASE) * 32 +: 32];
                endcase
            end
            assign sreg_v[l*32 +: 32] = sv;
        end
    endgenerate

    // Lowest active lane of the row that is out of range, for the error report.
    function automatic [LANE_W:0] first_lane(input [NUM_LANES-1:0] bits);
        integer i;
        begin
            first_lane = {1'b1, {LANE_W{1'b0}}};
            for (i = NUM_LANES - 1; i >= 0; i = i - 1)
                if (bits[i]) first_lane = {1'b0, i[LANE_W-1:0]};
        end
    endfunction
    wire [NUM_LANES-1:0] row_bad = row_mask & (ex_const ? bad_const : ex_sh ? bad_shared :
                                               ex_global ? bad_global : {NUM_LANES{1'b0}});
    wire [LANE_W:0]      bad_lane = first_lane(row_bad);
    wire [3:0]           bad_kind = ex_flt ? ex_flt_kind :
                                    ex_const ? `SIMT_ERR_CONST_OUT_OF_RANGE :
                                    ex_sh ? `SIMT_ERR_SHARED_OUT_OF_RANGE : `SIMT_ERR_GLOBAL_OUT_OF_RANGE;
    wire [5:0]           err_lane_idx = ex_flt ? 6'h3f : ex_row * NUM_LANES + bad_lane[LANE_W-1:0];

    // ---- EX: when the token acts, and when the instruction moves on --------------------------------
    wire cm_done, cm_raise;
    // EX may act when CM is empty or completes without an error this cycle (the buffers are then
    // free and an older instruction's error is never overtaken).
    wire cm_ok       = !cm_valid || (cm_done && !cm_raise);
    wire ex_act      = ex_valid && !ex_drain && !halt && cm_ok;
    wire ex_raise    = ex_act && (ex_flt || row_bad != {NUM_LANES{1'b0}});
    wire sh_req_ready, sh_rsp_valid, sh_clr_ready;
    wire sh_req_valid = ex_act && !ex_raise && ex_sh;
    wire ex_fire     = ex_act && !ex_raise && (!ex_sh || sh_req_ready);
    wire [ROW_W:0] ex_nrsp_nx = ex_nrsp + {{ROW_W{1'b0}}, sh_rsp_valid};
    wire ex_drained  = ex_drain && !halt && ex_nrsp_nx == ROWS;
    wire ex_to_cm    = (ex_fire && ex_last && !ex_sh) || ex_drained;
    assign ex_adv    = !ex_valid || (ex_fire && !(ex_last && ex_sh)) || ex_drained;
    wire ex_take     = dec_valid && ex_adv && !halt;   // DEC's token enters EX
    wire dec_free    = !dec_valid || (ex_take && dec_last);

    // ---- shared memory ---------------------------------------------------------------------------
    wire [NUM_LANES*32-1:0]    sh_rdata;
    wire [$clog2(NUM_LANES+1)-1:0] sh_passes;
    wire                       clr_sh_req;
    wire [SHL_W-1:0]           clr_sh_line;
    wire [SH_AW-1:0]           sh_base = ex_slot * cfg_sh_stride;
    reg  [NUM_LANES*SH_AW-1:0] sh_addr;
    integer si;
    always @(*) begin
        for (si = 0; si < NUM_LANES; si = si + 1)
            sh_addr[si * SH_AW +: SH_AW] = sh_base + mem_addr[si * 32 +: SH_AW];
    end
    // No line clear while a shared instruction is in EX: its rows and the clear share the banks.
    wire sh_busy_ex = ex_valid && ex_sh;
    simt_shared_lsu #(.NUM_LANES(NUM_LANES), .NUM_BANKS(NUM_BANKS), .SHARED_WORDS(SHARED_WORDS)) u_lsu (
        .clk(clk), .rst(rst), .req_valid(sh_req_valid), .req_ready(sh_req_ready),
        .lane_mask(row_mask), .addr(sh_addr), .store(xd_is_store), .wdata(rdata_c),
        .rsp_valid(sh_rsp_valid), .rdata(sh_rdata), .passes(sh_passes),
        .clr(clr_sh_req && !sh_busy_ex), .clr_ready(sh_clr_ready),
        .clr_line(clr_sh_line), .obs_we(sh_obs_we), .obs_addr(sh_obs_addr), .obs_data(sh_obs_data),
        .obs_clr(sh_obs_clr)
    );
    // EX holds a shared instruction until its last row is answered, so ex_warp names the writer.
    assign sh_obs_warp = 5'(ex_warp);
    wire [NUM_LANES-1:0] rsp_row_mask = ex_mask[ex_nrsp[ROW_W-1:0] * NUM_LANES +: NUM_LANES];

    // ---- EX: register writeback ------------------------------------------------------------------
    // One write port, and its writers never meet: a shared load's rows are written when the LSU
    // answers, while EX holds that instruction (its own tokens write nothing); every other writing
    // token writes in its EX cycle. Block initialisation takes the cycles nobody writes.
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif
    wire [NUM_LANES*32-1:0] mw_row = mw_data[ex_row * NUM_LANES * 32 +: NUM_LANES * 32];
    wire [RF_AW-1:0] ex_waddr = ex_wbase + xd_rd * ROWS + ex_row;
    wire ex_writes = ex_fire && (ex_memwb ? xd_is_load : (xd_wr && (ex_alu || (ex_op && xd_lds) || ex_const)));
    always @(*) begin
        rf_we    = {NUM_LANES{1'b0}};
        rf_waddr = ex_waddr;
        rf_wdata = alu_y;
        if (sh_rsp_valid && ex_sh && xd_is_load) begin
            rf_we    = rsp_row_mask;
            rf_waddr = ex_wbase + xd_rd * ROWS + ex_nrsp[ROW_W-1:0];
            rf_wdata = sh_rdata;
        end else if (ex_writes) begin
            rf_we    = row_mask;
            rf_wdata = ex_memwb ? mw_row : xd_lds ? sreg_v : ex_const ? const_v : alu_y;
`ifdef SIMT_FAULTS
            // Fault 1: warp lane 1 (row 0, lane 1) gets its ALU result with bit 0 flipped, in the
            // register file and the retire record alike.
            if (simt_fault == `SIMT_FAULT_LANE_VALUE && ex_alu && ex_row == {ROW_W{1'b0}})
                rf_wdata[32] = ~rf_wdata[32];
`endif
        end
    end

    // ---- global memory ---------------------------------------------------------------------------
    wire                      g_acc_ready, g_cmp_valid, g_cmp_store;
    wire [WID_W-1:0]          g_cmp_warp;
    wire [WARP_SIZE*32-1:0]   g_cmp_data;
    wire [$clog2(WARP_SIZE):0] g_cmp_txns;
    wire                      cm_global = cm_valid && !cm_memwb && cd_cls == `SIMT_CLS_GLOBAL;
    wire                      g_acc_valid = cm_global && !halt;
    wire                      take_cmp;
    simt_gmem_unit #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .SEG_WORDS(SEG_WORDS)) u_gmem (
        .clk(clk), .rst(rst),
        .acc_valid(g_acc_valid), .acc_ready(g_acc_ready), .acc_warp(cm_warp), .acc_mask(w_mask[cm_warp]),
        .acc_addr(gaddr), .acc_store(cd_is_store), .acc_wdata(gdata),
        .cpl_valid(g_cmp_valid), .cpl_ready(take_cmp), .cpl_warp(g_cmp_warp), .cpl_store(g_cmp_store),
        .cpl_txns(g_cmp_txns), .cpl_rdata(g_cmp_data),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata)
    );

    // ---- F: scheduler and fetch ------------------------------------------------------------------
    wire [NUM_WARPS-1:0] ready_vec;
    genvar gw;
    generate
        for (gw = 0; gw < NUM_WARPS; gw = gw + 1) begin : rdy
            assign ready_vec[gw] = w_state[gw] == WS_READY;
        end
    endgenerate
    wire             sched_valid;
    wire [WID_W-1:0] sched_grant;
`ifdef SIMT_FAULTS
    // Fault 5: issue waits for an empty pipeline (the one-instruction-at-a-time back end).
    wire             f_serial   = simt_fault == `SIMT_FAULT_SERIAL_ISSUE && (dec_valid || ex_valid || cm_valid);
    wire             f_open     = !halt && dec_free && !f_serial;
`else
    wire             f_open     = !halt && dec_free;
`endif
    // A completed access goes first (its warp has waited longest); one at a time through mw_data.
    assign           take_cmp   = f_open && g_cmp_valid && !mw_busy;
    wire             take_sched = f_open && !take_cmp && sched_valid;
    wire [PCX_W-1:0] fetch_pc   = take_cmp ? w_pc[g_cmp_warp] : w_pc[sched_grant];
    // The pc is range-checked in DEC; imem is indexed by its low bits only.
    always @(posedge clk) if (take_cmp || take_sched) dec_instr <= imem[fetch_pc[PC_W-1:0]];
    simt_warp_sched #(.NUM_WARPS(NUM_WARPS)) u_sched (
        .clk(clk), .rst(rst), .ready(ready_vec), .take(take_sched), .grant_valid(sched_valid),
        .grant(sched_grant)
    );

    // ---- CM: divergence stacks -------------------------------------------------------------------
    wire [PCX_W-1:0]     cm_pc   = w_pc[cm_warp];
    wire [WARP_SIZE-1:0] cm_mask = w_mask[cm_warp];
    wire [BID_W-1:0]     cm_slot = w_slot[cm_warp];
    wire [4:0]           cm_wib  = w_wib[cm_warp];
    wire                 ds_idle, ds_done, ds_warp_done, ds_divergent, ds_pushes, ds_merged, ds_error;
    wire [PCX_W-1:0]     ds_next_pc, ds_top_pc;
    wire [WARP_SIZE-1:0] ds_next_mask, ds_top_mask;
    wire                 ds_top_kind;
    wire [DEPTH_W-1:0]   ds_pops, ds_depth;
    wire [3:0]           ds_err_kind;
    wire                 clr_ds_req;
    wire [WID_W-1:0]     clr_ds_warp;
    reg  [1:0]           ds_op;
    wire                 cm_branch    = !cm_memwb && (cd_beq || cd_bne);
    wire                 cm_exit      = !cm_memwb && cd_exit;
    wire [WARP_SIZE-1:0] exited_after = w_exited[cm_warp] | (cm_exit ? cm_mask : {WARP_SIZE{1'b0}});
    wire [WARP_SIZE-1:0] live_after   = w_valid[cm_warp] & ~exited_after;
    wire [PCX_W-1:0]     seq_pc       = (!cm_memwb && cd_bra) ? {1'b0, cd_target} : cm_pc + 1'b1;
    always @(*) begin
        if (cm_memwb) ds_op = 2'd0;
        else if (cd_ssy) ds_op = 2'd1;
        else if (cm_branch) ds_op = 2'd2;
        else if (cm_exit) ds_op = 2'd3;
        else ds_op = 2'd0;
    end
    // A plain instruction of a warp with an empty stack needs no stack update: pc <- seq_pc.
    wire cm_ds     = ds_op != 2'd0 || w_depth[cm_warp] != {DEPTH_W{1'b0}};
    wire cm_bar    = !cm_memwb && cd_bar;
    wire bar_bad   = cm_bar && cm_mask != (w_valid[cm_warp] & ~w_exited[cm_warp]);
    wire cm_plain  = cm_valid && !cm_global && !halt;             // an instruction that retires
    wire ds_start  = cm_plain && cm_first && !bar_bad && cm_ds;
    wire ds_finish = cm_plain && !cm_first && ds_done;
    simt_div_stack #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .STACK_DEPTH(STACK_DEPTH),
                     .PC_W(PCX_W)) u_stack (
        .clk(clk), .rst(rst), .clr(clr_ds_req), .clr_warp(clr_ds_warp),
        .start(ds_start), .warp(cm_warp), .op(ds_op), .pc(cm_pc), .npc(seq_pc),
        .target({1'b0, cd_target}), .mask(cm_mask), .taken(taken), .exited(exited_after),
        .live(live_after), .idle(ds_idle), .done(ds_done), .next_pc(ds_next_pc),
        .next_mask(ds_next_mask), .warp_done(ds_warp_done), .divergent(ds_divergent),
        .pushes(ds_pushes), .pops(ds_pops), .merged(ds_merged), .depth(ds_depth), .error(ds_error),
        .err_kind(ds_err_kind), .top_after_pc(ds_top_pc), .top_after_mask(ds_top_mask),
        .top_after_kind(ds_top_kind)
    );

    // ---- CM: completion --------------------------------------------------------------------------
    // Retire in the first cycle when the stack is not involved, else in the cycle the stack unit
    // answers; a global access completes when the memory unit takes it.
    wire cm_retire = (cm_plain && cm_first && !bar_bad && !cm_ds) || (ds_finish && !ds_error);
    assign cm_raise = (cm_plain && cm_first && bar_bad) || (ds_finish && ds_error);
    wire cm_issued = g_acc_valid && g_acc_ready;
    assign cm_done  = cm_retire || cm_raise || cm_issued;

    // The warp's state after the instruction: from the stack unit, or sequential with the stack
    // empty (and staying empty).
    wire [PCX_W-1:0]     nx_pc       = cm_ds ? ds_next_pc : seq_pc;
    wire [WARP_SIZE-1:0] nx_mask     = cm_ds ? ds_next_mask : cm_mask;
    wire                 nx_done     = cm_ds && ds_warp_done;
    wire [DEPTH_W-1:0]   nx_depth    = cm_ds ? ds_depth : w_depth[cm_warp];
    wire [PCX_W-1:0]     nx_top_pc   = cm_ds ? ds_top_pc : {PCX_W{1'b0}};
    wire [WARP_SIZE-1:0] nx_top_mask = cm_ds ? ds_top_mask : {WARP_SIZE{1'b0}};
    wire                 nx_top_kind = cm_ds && ds_top_kind;

    // ---- barriers --------------------------------------------------------------------------------
    wire [NUM_BLOCKS-1:0] bar_release;
    wire                  bar_init;
    wire [BID_W-1:0]      bar_init_slot;
    reg                   bar_arrive, bar_exit;
    reg  [BID_W-1:0]      bar_slot;  // slot of the warp that arrived or finished (registered)
    simt_barrier #(.NUM_BLOCKS(NUM_BLOCKS), .NUM_WARPS(NUM_WARPS)) u_bar (
        .clk(clk), .rst(rst), .init(bar_init), .init_slot(bar_init_slot), .init_warps(cfg_wpb),
        .arrive(bar_arrive), .arrive_slot(bar_slot), .exit(bar_exit), .exit_slot(bar_slot),
        .released(bar_release)
    );

    // ---- block initialisation (docs/sm.md "Block dispatch") ---------------------------------------
    // One block at a time: clear its register rows and shared lines, write its threads' tid.x/y/z,
    // empty its warps' stacks, then make its warps READY.
    reg              in_busy;
    reg [BID_W-1:0]  in_slot;
    reg [RF_AW:0]    in_rf_cnt, in_rf_end;
    reg [SHL_W:0]    in_sh_cnt, in_sh_end;
    reg [10:0]       in_th_cnt;
    reg [15:0]       in_x, in_y, in_z;
    reg [WCNT_W-1:0] in_ds_cnt;
    reg              in_bar_done;
    reg [BID_W-1:0]  free_slot;
    reg              free_found;
    integer k;
    always @(*) begin
        free_found = 1'b0;
        free_slot  = {BID_W{1'b0}};
        for (k = NUM_BLOCKS - 1; k >= 0; k = k - 1)
            if (!b_valid[k] && k < cfg_slots) begin
                free_found = 1'b1;
                free_slot  = k[BID_W-1:0];
            end
    end
    assign blk_ready     = !in_busy && free_found && !rst;
    assign clr_rf_req    = in_busy && in_rf_cnt != in_rf_end;
    assign clr_rf_addr   = in_rf_cnt[RF_AW-1:0];
    assign clr_sh_req    = in_busy && in_sh_cnt != in_sh_end;
    assign clr_sh_line   = in_sh_cnt[SHL_W-1:0];
    assign clr_ds_req    = in_busy && in_ds_cnt != cfg_wpb;
    assign clr_ds_warp   = in_slot * cfg_wpb + in_ds_cnt;
    assign bar_init      = in_busy && !in_bar_done;
    assign bar_init_slot = in_slot;
    wire sh_clr_go = clr_sh_req && sh_clr_ready && !sh_busy_ex;
    wire in_finish = in_busy && !clr_rf_req && !clr_sh_req && !clr_ds_req && in_bar_done &&
                     in_th_cnt == cfg_threads;
    wire [WID_W-1:0] in_first_warp = in_slot * cfg_wpb;

    always @(posedge clk) begin
        if (rst) begin
            in_busy <= 1'b0;
        end else if (blk_valid && blk_ready) begin
            in_busy     <= 1'b1;
            in_slot     <= free_slot;
            in_rf_cnt   <= free_slot * cfg_wpb * cfg_regs * ROWS;
            in_rf_end   <= (free_slot + 1'b1) * cfg_wpb * cfg_regs * ROWS;
            in_sh_cnt   <= (free_slot * cfg_sh_stride) / NUM_BANKS;
            in_sh_end   <= ((free_slot + 1'b1) * cfg_sh_stride) / NUM_BANKS;
            in_th_cnt   <= 11'd0;
            in_x        <= 16'd0;
            in_y        <= 16'd0;
            in_z        <= 16'd0;
            in_ds_cnt   <= {WCNT_W{1'b0}};
            in_bar_done <= 1'b0;
        end else if (in_busy) begin
            if (clr_rf_go) in_rf_cnt <= in_rf_cnt + 1'b1;
            if (sh_clr_go) in_sh_cnt <= in_sh_cnt + 1'b1;
            if (clr_ds_req) in_ds_cnt <= in_ds_cnt + 1'b1;
            in_bar_done <= 1'b1;
            if (in_th_cnt != cfg_threads) begin
                tidm[in_first_warp * WARP_SIZE + in_th_cnt] <= {in_z, in_y, in_x};
                in_th_cnt <= in_th_cnt + 1'b1;
                if (in_x + 1'b1 == cfg_block[15:0]) begin
                    in_x <= 16'd0;
                    if (in_y + 1'b1 == cfg_block[31:16]) begin
                        in_y <= 16'd0;
                        in_z <= in_z + 1'b1;
                    end else begin
                        in_y <= in_y + 1'b1;
                    end
                end else begin
                    in_x <= in_x + 1'b1;
                end
            end
            if (in_finish) in_busy <= 1'b0;
        end
    end

`ifdef SIMT_FAULTS
    reg f_retired;  // fault 6: some instruction has retired since the first reset
    reg f_reset_seen;
    initial begin
        f_retired    = 1'b0;
        f_reset_seen = 1'b0;
    end
    // Counted only after a reset has been seen and while out of reset: under Verilator's random initial
    // state rt_valid (and rst itself) may read 1 at the first edges, before the bench asserts reset, and
    // must not arm the fault before anything has really retired (seed 505048349 did).
    always @(posedge clk) begin
        if (rst) f_reset_seen <= 1'b1;
        if (rt_valid && !rst && f_reset_seen) f_retired <= 1'b1;
    end
`endif

    // ---- the stage registers, the warp table and the retire port ----------------------------------
    task automatic raise(input [3:0] kind, input [WID_W-1:0] warp, input [5:0] err_at_lane);
        begin
            err_valid <= 1'b1;
            err_kind  <= kind;
            err_block <= b_id[w_slot[warp]];
            err_warp  <= w_wib[warp];
            err_pc    <= w_pc[warp];
            err_lane  <= err_at_lane;
        end
    endtask

    integer i;
    always @(posedge clk) begin
        rt_valid   <= 1'b0;
        blk_done   <= 1'b0;
        bar_arrive <= 1'b0;
        bar_exit   <= 1'b0;
        if (rst) begin
            err_valid <= 1'b0;
            err_kind  <= 4'd0;
            dec_valid <= 1'b0;
`ifdef SIMT_FAULTS
            // Fault 6: a reset after the first retire leaves DEC's instruction in place.
            if (simt_fault == `SIMT_FAULT_STALE_TOKEN && f_retired) dec_valid <= dec_valid;
`endif
            ex_valid  <= 1'b0;
            cm_valid  <= 1'b0;
            mw_busy   <= 1'b0;
            // Datapath registers reach the retire port: reset them so it never shows X.
            // ex_warp names the shared-memory writer on sh_obs_warp, which a line clear shows too.
            dec_warp  <= {WID_W{1'b0}};
            ex_warp   <= {WID_W{1'b0}};
            ex_row    <= {ROW_W{1'b0}};
            ex_instr  <= 32'd0;
            cm_warp   <= {WID_W{1'b0}};
            cm_memwb  <= 1'b0;
            cm_txns   <= 6'd0;
            cm_passes <= 7'd0;
            ex_drain  <= 1'b0;
            vals      <= {WARP_SIZE*32{1'b0}};
            for (i = 0; i < NUM_WARPS; i = i + 1) begin
                w_state[i] <= WS_EMPTY;
                w_depth[i] <= {DEPTH_W{1'b0}};
            end
            for (i = 0; i < NUM_BLOCKS; i = i + 1) begin
                b_valid[i] <= 1'b0;
                b_ndone[i] <= {WCNT_W{1'b0}};
            end
        end else begin
            // Block dispatch and initialisation.
            if (blk_valid && blk_ready) begin
                b_valid[free_slot] <= 1'b1;
                b_id[free_slot]    <= blk_id;
                b_ctaid[free_slot] <= blk_ctaid;
                b_ndone[free_slot] <= {WCNT_W{1'b0}};
            end
            if (in_finish) begin
                for (i = 0; i < NUM_WARPS; i = i + 1)
                    if (i >= in_first_warp && i < in_first_warp + cfg_wpb) begin
                        w_state[i]  <= WS_READY;
                        w_pc[i]     <= {PCX_W{1'b0}};
                        w_valid[i]  <= valid_of(i - in_first_warp);
                        w_mask[i]   <= valid_of(i - in_first_warp);
                        w_exited[i] <= ~valid_of(i - in_first_warp);
                        w_depth[i]  <= {DEPTH_W{1'b0}};
                        w_slot[i]   <= in_slot;
                        w_wib[i]    <= i - in_first_warp;
                    end
            end
            // Barrier release: the block's waiting warps become ready.
            for (i = 0; i < NUM_WARPS; i = i + 1)
                if (w_state[i] == WS_BAR && bar_release[w_slot[i]]) w_state[i] <= WS_READY;

            // F -> DEC
            if (take_cmp) begin
                dec_warp  <= g_cmp_warp;
                dec_memwb <= 1'b1;
                dec_txns  <= g_cmp_txns;
                mw_data   <= g_cmp_data;
                mw_busy   <= 1'b1;
                w_state[g_cmp_warp] <= WS_BUSY;
            end else if (take_sched) begin
                dec_warp  <= sched_grant;
                dec_memwb <= 1'b0;
                dec_txns  <= 6'd0;
                w_state[sched_grant] <= WS_BUSY;
            end
            if (take_cmp || take_sched) begin
                dec_valid <= 1'b1;
                dec_row   <= {ROW_W{1'b0}};
            end else if (ex_take) begin
                if (dec_last) dec_valid <= 1'b0;
                else dec_row <= dec_row + 1'b1;
            end

            // DEC -> EX: a new token, or EX empties
            if (ex_take) begin
                ex_valid    <= 1'b1;
                ex_warp     <= dec_warp;
                ex_memwb    <= dec_memwb;
                ex_instr    <= dec_instr;
                ex_row      <= dec_row;
                ex_last     <= dec_last;
                ex_flt      <= dec_flt;
                ex_flt_kind <= dec_flt_kind;
                ex_txns     <= dec_txns;
                if (dec_row == {ROW_W{1'b0}}) begin
                    ex_nrsp   <= {(ROW_W+1){1'b0}};
                    ex_passes <= 7'd0;
                end
            end else if (ex_adv) begin
                ex_valid <= 1'b0;
            end

            // EX: the row's effects
            if (ex_raise) raise(bad_kind, ex_warp, err_lane_idx);
            if (ex_fire) begin
                if (ex_writes) vals[ex_row * NUM_LANES * 32 +: NUM_LANES * 32] <= rf_wdata;
                if (ex_branch)
                    taken[ex_row * NUM_LANES +: NUM_LANES] <= (xd_beq ? ~lane_nz : lane_nz) & row_mask;
                if (ex_global) begin
                    gaddr[ex_row * NUM_LANES * 32 +: NUM_LANES * 32] <= mem_addr;
                    gdata[ex_row * NUM_LANES * 32 +: NUM_LANES * 32] <= rdata_c;
                end
                if (ex_memwb && ex_last) mw_busy <= 1'b0;
                if (ex_sh && ex_last) ex_drain <= 1'b1;
            end
            if (sh_rsp_valid && ex_sh) begin
                // When the last answer lets the instruction leave, the next one's row 0 may enter
                // in this cycle and restart the counts (above); CM takes the total below.
                if (!ex_drained) begin
                    ex_nrsp   <= ex_nrsp_nx;
                    ex_passes <= ex_passes + sh_passes;
                end
                if (xd_is_load) vals[ex_nrsp[ROW_W-1:0] * NUM_LANES * 32 +: NUM_LANES * 32] <= sh_rdata;
            end
            if (ex_drained) ex_drain <= 1'b0;

            // EX -> CM
            if (ex_to_cm) begin
                cm_valid  <= 1'b1;
                cm_first  <= 1'b1;
                cm_warp   <= ex_warp;
                cm_memwb  <= ex_memwb;
                cm_instr  <= ex_instr;
                cm_txns   <= ex_txns;
                cm_passes <= ex_passes + (sh_rsp_valid ? 7'(sh_passes) : 7'd0);
            end else if (cm_done) begin
                cm_valid <= 1'b0;
            end else if (cm_valid && !halt) begin
                cm_first <= 1'b0;
            end

            // CM: complete the instruction
            if (cm_raise) raise(bar_bad && cm_first ? `SIMT_ERR_BARRIER_DIVERGENCE : ds_err_kind, cm_warp, 6'h3f);
            if (cm_issued) w_state[cm_warp] <= WS_MEM;
            if (cm_retire) begin
                bar_slot         <= cm_slot;
                w_pc[cm_warp]     <= nx_pc;
                w_mask[cm_warp]   <= nx_mask;
                w_exited[cm_warp] <= exited_after;
                w_depth[cm_warp]  <= nx_depth;
                if (nx_done) begin
                    w_state[cm_warp] <= WS_DONE;
                    bar_exit         <= 1'b1;
                    if (b_ndone[cm_slot] + 1'b1 == cfg_wpb) begin
                        // The block finished: report it and free its slot and warps.
                        blk_done    <= 1'b1;
                        blk_done_id <= b_id[cm_slot];
                        b_valid[cm_slot] <= 1'b0;
                        for (i = 0; i < NUM_WARPS; i = i + 1)
                            if (w_slot[i] == cm_slot && w_state[i] != WS_EMPTY) w_state[i] <= WS_EMPTY;
                    end else begin
                        b_ndone[cm_slot] <= b_ndone[cm_slot] + 1'b1;
                    end
                end else if (cm_bar) begin
                    w_state[cm_warp] <= WS_BAR;
                    bar_arrive       <= 1'b1;
                end else begin
                    w_state[cm_warp] <= WS_READY;
                end
                rt_valid     <= 1'b1;
                rt_block     <= b_id[cm_slot];
                rt_warp      <= cm_wib;
                rt_slot      <= 4'(cm_slot);
                rt_pc        <= cm_pc;
                rt_instr     <= cm_instr;
                rt_mask      <= cm_mask;
                rt_wr        <= cd_wr;
                rt_rd        <= cd_rd;
                rt_values    <= vals;
                rt_next_pc   <= nx_pc;
                rt_next_mask <= nx_mask;
                rt_depth     <= nx_depth;
                rt_passes    <= cm_passes;
                rt_txns      <= cm_txns;
                rt_barrier   <= cm_bar && !nx_done;
                rt_done      <= nx_done;
                rt_top_pc    <= nx_top_pc;
                rt_top_mask  <= nx_top_mask;
                rt_top_kind  <= nx_top_kind;
                rt_pushes    <= cm_ds && ds_pushes;
                rt_pops      <= cm_ds ? ds_pops : {DEPTH_W{1'b0}};
                rt_merged    <= cm_ds && ds_merged;
            end
        end
    end

    // Valid-thread mask of warp k of a block of cfg_threads threads.
    function automatic [WARP_SIZE-1:0] valid_of(input integer wk);
        integer n;
        begin
            n = cfg_threads - wk * WARP_SIZE;
            if (n >= WARP_SIZE) valid_of = {WARP_SIZE{1'b1}};
            else if (n <= 0) valid_of = {WARP_SIZE{1'b0}};
            else valid_of = ({WARP_SIZE{1'b1}} >> (WARP_SIZE - n));
        end
    endfunction

    // ---- performance counters (SIMT_PERF_*) ------------------------------------------------------
    wire ds_counted = ds_finish && !ds_error;
    simt_perf #(.WARP_SIZE(WARP_SIZE), .DEPTH_W(DEPTH_W), .NUM_BLOCKS(NUM_BLOCKS)) u_perf (
        .clk(clk), .rst(rst || perf_clear), .run(perf_run),
        .idle_cycle(!dec_valid && !ex_valid && !cm_valid && !take_cmp && !take_sched),
        .retire(cm_retire), .cls(cd_cls), .mask(cm_mask),
        .divergent(ds_counted && ds_divergent),
        .pushes(ds_counted ? ds_pushes : 1'b0),
        .pops(ds_counted ? ds_pops : {DEPTH_W{1'b0}}),
        .depth(ds_pushes && !ds_merged ? w_depth[cm_warp] + 1'b1 : ds_depth),
        .depth_valid(ds_counted),
        .shared_access(cm_retire && cd_cls == `SIMT_CLS_SHARED), .passes(cm_passes),
        .global_access(cm_retire && cd_cls == `SIMT_CLS_GLOBAL), .txns(cm_txns),
        .bar_arrive(cm_retire && cm_bar && !nx_done), .bar_release(bar_release),
        .bar_waiting(n_bar_waiting),
        .sel(perf_sel), .value(perf_value)
    );

    // Warps waiting at a barrier this cycle (barrier-wait counter).
    reg [5:0] n_bar_waiting;
    always @(*) begin
        n_bar_waiting = 6'd0;
        for (k = 0; k < NUM_WARPS; k = k + 1)
            n_bar_waiting = n_bar_waiting + {5'd0, w_state[k] == WS_BAR};
    end

    assign idle = !in_busy && (b_valid_any == 1'b0);
    reg b_valid_any;
    always @(*) begin
        b_valid_any = 1'b0;
        for (k = 0; k < NUM_BLOCKS; k = k + 1) b_valid_any = b_valid_any | b_valid[k];
    end

    // ---- debug view (docs/sm.md "Debug view") ----------------------------------------------------
    // A mux over the warp table, plus each warp's last retired pc: what the host's hang report reads.
    reg [PCX_W-1:0]     w_last [0:NUM_WARPS-1];
    // Not reset: a slot is read only while resident, and its block's initialisation clears its flag.
    reg [NUM_WARPS-1:0] w_rtd;  // the warp retired an instruction since its block started
    integer dk;
    always @(posedge clk) begin
        for (dk = 0; dk < NUM_WARPS; dk = dk + 1)
            if (in_finish && dk >= in_first_warp && dk < in_first_warp + cfg_wpb) w_rtd[dk] <= 1'b0;
        if (cm_retire) begin
            w_rtd[cm_warp]  <= 1'b1;
            w_last[cm_warp] <= cm_pc;
        end
    end
    wire             dbg_hit = dbg_warp < NUM_WARPS;
    wire [WID_W-1:0] dbg_w   = dbg_warp[WID_W-1:0];
    assign dbg_state   = dbg_hit ? w_state[dbg_w] : WS_EMPTY;
    wire             dbg_res = dbg_state != WS_EMPTY;
    assign dbg_block   = dbg_res ? b_id[w_slot[dbg_w]] : 32'd0;
    assign dbg_wib     = dbg_res ? w_wib[dbg_w] : 5'd0;
`ifdef SIMT_FAULTS
    // Fault 7: the debug view reports every warp's pc one too high (the pipeline is untouched).
    assign dbg_pc      = dbg_res ? w_pc[dbg_w] + {16'd0, simt_fault == `SIMT_FAULT_DEBUG_PC} : {PCX_W{1'b0}};
`else
    assign dbg_pc      = dbg_res ? w_pc[dbg_w] : {PCX_W{1'b0}};
`endif
    assign dbg_retired = dbg_res && w_rtd[dbg_w];
    assign dbg_last_pc = dbg_retired ? w_last[dbg_w] : {PCX_W{1'b0}};

    // Decoder outputs the SM does not need (every operand port is read anyway) and status it
    // does not use; Verilator's default unused-regexp exempts names containing "unused".
    wire unused_ok = &{1'b0, g_cmp_store, bad_lane, ds_idle, fetch_pc, ex_pc,
                       dd_use_a, dd_use_b, dd_use_c, dd_a_imm, dd_b_imm, dd_wr, dd_is_store, dd_bra, dd_ssy,
                       dd_bar, dd_exit, dd_fn, dd_rd, dd_imm, dd_target,
                       xd_illegal, xd_bad_reg, xd_use_a, xd_use_b, xd_use_c, xd_wr, xd_bne, xd_bra, xd_ssy,
                       xd_bar, xd_exit, xd_target,
                       cd_illegal, cd_bad_reg, cd_use_a, cd_use_b, cd_use_c, cd_a_imm, cd_b_imm, cd_is_load,
                       cd_lds, cd_fn, cd_ra, cd_rb, cd_rc, cd_sreg, cd_imm};
endmodule
