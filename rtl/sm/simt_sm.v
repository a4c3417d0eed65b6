`include "simt_isa.vh"
`include "simt_check.vh"
`include "simt_fault.vh"
`include "simt_retire.vh"
// Streaming multiprocessor (docs/sm.md): warp table, round-robin scheduler, fetch, decode, row-serial
// operand read / execute / writeback, divergence stacks, barriers, shared, constant and global memory.
//
// One warp-instruction is in the back end at a time and a warp is never in it twice, so there is no
// forwarding and no hazard logic (seed 000 section 4.2.1). A global access leaves the back end: the
// warp waits in state MEM while other warps run, and re-enters once to write its loads and retire.
// Test-only fault 1 (SIMT_FAULTS builds, docs/sm.md): bit 0 of warp lane 1's ALU results is flipped.
module simt_sm #(
    parameter integer WARP_SIZE    = 32,      // threads per warp: power of two, 4..32
    parameter integer NUM_LANES    = 8,       // integer lanes: 4, 8, 16 or 32, <= WARP_SIZE
    parameter integer NUM_WARPS    = 16,      // warp slots: 1..32
    parameter integer NUM_BLOCKS   = 4,       // block slots: 1..16, <= NUM_WARPS
    parameter integer RF_DEPTH     = 512,     // register rows per lane partition: power of two 32..4096
    parameter integer SHARED_WORDS = 1024,    // shared memory words: power of two 64..65536
    parameter integer NUM_BANKS    = 8,       // shared memory banks: power of two 1..32
    parameter integer CONST_WORDS  = 256,     // constant memory words: power of two 16..65536
    parameter integer IMEM_WORDS   = 1024,    // instruction memory words: power of two 16..65536
    parameter integer STACK_DEPTH  = 16,      // divergence stack entries per warp: 2..64
    parameter integer SEG_WORDS    = 8,       // global segment words: power of two 1..32
    parameter integer GLOBAL_WORDS = 1048576, // global memory words: power of two 1024..2**30
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
    output wire [63:0]                 perf_value
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
        if (WARP_SIZE < 4 || WARP_SIZE > 32 || (WARP_SIZE & (WARP_SIZE - 1)) != 0) begin : bad_warp_size
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter WARP_SIZE=%0d (power of two in 4..32)", WARP_SIZE);
        end
        if (!(NUM_LANES == 4 || NUM_LANES == 8 || NUM_LANES == 16 || NUM_LANES == 32) ||
            NUM_LANES > WARP_SIZE) begin : bad_lanes
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter NUM_LANES=%0d (4, 8, 16 or 32, <= WARP_SIZE)",
                           NUM_LANES);
        end
        if (NUM_WARPS < 1 || NUM_WARPS > 32) begin : bad_warps
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter NUM_WARPS=%0d (1..32)", NUM_WARPS);
        end
        if (NUM_BLOCKS < 1 || NUM_BLOCKS > 16 || NUM_BLOCKS > NUM_WARPS) begin : bad_blocks
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter NUM_BLOCKS=%0d (1..16, <= NUM_WARPS)", NUM_BLOCKS);
        end
        if (RF_DEPTH < 32 || RF_DEPTH > 4096 || (RF_DEPTH & (RF_DEPTH - 1)) != 0) begin : bad_rf
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter RF_DEPTH=%0d (power of two in 32..4096)", RF_DEPTH);
        end
        if (STACK_DEPTH < 2 || STACK_DEPTH > 64) begin : bad_stack
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter STACK_DEPTH=%0d (2..64)", STACK_DEPTH);
        end
        if (GLOBAL_WORDS < 1024 || GLOBAL_WORDS > (1 << 30) || (GLOBAL_WORDS & (GLOBAL_WORDS - 1)) != 0)
        begin : bad_global_words
            `SIMT_AT_ELAB $fatal(1, "simt_sm: illegal parameter GLOBAL_WORDS=%0d (power of two 1024..2**30)",
                           GLOBAL_WORDS);
        end
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

    // ---- execution state machine -----------------------------------------------------------------
    localparam [3:0] S_IDLE = 4'd0, S_DECODE = 4'd1, S_EXEC = 4'd2, S_SHREQ = 4'd3, S_SHWAIT = 4'd4,
                     S_GISSUE = 4'd5, S_COMMIT = 4'd6, S_STACK = 4'd7, S_RETIRE = 4'd8, S_HALT = 4'd9;
    reg [3:0]            state;
    reg [WID_W-1:0]      cw;          // warp slot in the back end
    reg                  memwb;       // the back end writes a completed global access
    reg [ROW_W-1:0]      row;         // row whose operands are on rdata_*
    reg [31:0]           instr_q;
    reg [WARP_SIZE-1:0]  taken;       // BEQ/BNE: lanes taking the branch, built row by row
    reg [WARP_SIZE*32-1:0] vals;      // per-lane results (retire record)
    reg [WARP_SIZE*32-1:0] gaddr;     // global access: per-lane addresses
    reg [WARP_SIZE*32-1:0] gdata;     // global access: per-lane store data; completed loads
    reg [6:0]            passes_acc;

    wire [PCX_W-1:0]     cur_pc   = w_pc[cw];
    wire [WARP_SIZE-1:0] cur_mask = w_mask[cw];
    wire [BID_W-1:0]     cur_slot = w_slot[cw];

    // ---- decode ----------------------------------------------------------------------------------
    wire        d_illegal, d_bad_reg, d_use_a, d_use_b, d_use_c, d_a_imm, d_b_imm, d_wr;
    wire        d_is_load, d_is_store, d_beq, d_bne, d_bra, d_ssy, d_bar, d_exit, d_lds;
    wire [2:0]  d_cls;
    wire [5:0]  d_fn;
    wire [4:0]  d_ra, d_rb, d_rc, d_rd, d_sreg;
    wire [31:0] d_imm;
    wire [15:0] d_target;
    simt_decode u_decode (
        .instr(instr_q), .regs(cfg_regs), .illegal(d_illegal), .bad_reg(d_bad_reg), .cls(d_cls),
        .alu_fn(d_fn), .ra(d_ra), .rb(d_rb), .rc(d_rc), .use_a(d_use_a), .use_b(d_use_b),
        .use_c(d_use_c), .a_imm(d_a_imm), .b_imm(d_b_imm), .imm(d_imm), .wr(d_wr), .rd(d_rd),
        .is_load(d_is_load), .is_store(d_is_store), .is_beq(d_beq), .is_bne(d_bne), .is_bra(d_bra),
        .is_ssy(d_ssy), .is_bar(d_bar), .is_exit(d_exit), .is_lds(d_lds), .sreg(d_sreg),
        .target(d_target)
    );
    wire is_alu    = d_cls == `SIMT_CLS_ALU;
    wire is_shared = d_cls == `SIMT_CLS_SHARED;
    wire is_const  = d_cls == `SIMT_CLS_CONST;
    wire is_global = d_cls == `SIMT_CLS_GLOBAL;
    wire is_branch = d_beq | d_bne;
    // Instructions that read operands or write a register go through the row loop.
    wire uses_rows = is_alu | d_lds | is_shared | is_const | is_global | is_branch;

    // ---- register file ---------------------------------------------------------------------------
    // Row address of register r of row k of warp slot s: s*regs*ROWS + r*ROWS + k (docs/sm.md).
    wire [RF_AW-1:0] wbase = cw * cfg_regs * ROWS;
    // Rows are prefetched: in DECODE row 0 is read, in EXEC row `row` is on rdata and row+1 is read.
    wire [ROW_W-1:0] rd_row = (state == S_DECODE) ? {ROW_W{1'b0}} : row + 1'b1;
    wire [RF_AW-1:0] raddr_a = wbase + d_ra * ROWS + rd_row;
    wire [RF_AW-1:0] raddr_b = wbase + d_rb * ROWS + rd_row;
    wire [RF_AW-1:0] raddr_c = wbase + d_rc * ROWS + rd_row;
    wire [NUM_LANES*32-1:0] rdata_a, rdata_b, rdata_c;
    reg  [NUM_LANES-1:0]    ex_we;
    reg  [NUM_LANES*32-1:0] ex_wdata;
    wire [RF_AW-1:0]        ex_waddr = wbase + d_rd * ROWS + row;
    // Block initialisation clears registers through the same port when the back end is not writing.
    wire                    clr_rf_req;
    wire [RF_AW-1:0]        clr_rf_addr;
    wire                    clr_rf_go = clr_rf_req && ex_we == {NUM_LANES{1'b0}};
    simt_regfile #(.NUM_LANES(NUM_LANES), .DEPTH(RF_DEPTH)) u_rf (
        .clk(clk), .raddr_a(raddr_a), .raddr_b(raddr_b), .raddr_c(raddr_c),
        .rdata_a(rdata_a), .rdata_b(rdata_b), .rdata_c(rdata_c),
        .we(clr_rf_go ? {NUM_LANES{1'b1}} : ex_we), .waddr(clr_rf_go ? clr_rf_addr : ex_waddr),
        .wdata(clr_rf_go ? {NUM_LANES*32{1'b0}} : ex_wdata)
    );

    // ---- per-lane datapath for the current row ---------------------------------------------------
    wire [NUM_LANES-1:0]    row_mask = cur_mask[row * NUM_LANES +: NUM_LANES];
    wire [NUM_LANES*32-1:0] alu_y, mem_addr, sreg_v, const_v;
    wire [NUM_LANES-1:0]    lane_nz, bad_const, bad_shared, bad_global;
    wire [47:0]             cur_ctaid = b_ctaid[cur_slot];
    wire [4:0]              cur_wib = w_wib[cw];
    genvar l;
    generate
        for (l = 0; l < NUM_LANES; l = l + 1) begin : lane
            wire [31:0] a = d_a_imm ? d_imm : rdata_a[l*32 +: 32];
            wire [31:0] b = d_b_imm ? d_imm : rdata_b[l*32 +: 32];
            wire [31:0] c = rdata_c[l*32 +: 32];
            simt_alu u_alu (.fn(d_fn), .a(a), .b(b), .c(c), .y(alu_y[l*32 +: 32]));
            wire [31:0] addr = a + b;
            assign mem_addr[l*32 +: 32] = addr;
            assign lane_nz[l]    = a != 32'd0;
            assign bad_const[l]  = addr >= {{(31 - C_AW){1'b0}}, cfg_nconst};
            assign bad_shared[l] = addr >= {{(31 - SH_AW){1'b0}}, cfg_shared};
            assign bad_global[l] = addr >= GLOBAL_WORDS;
            assign const_v[l*32 +: 32] = cmem[addr[C_AW-1:0]];
            // special registers (docs/isa.md 3.2)
            wire [4:0]  tin = row * NUM_LANES + l;              // thread index within the warp
            wire [31:0] flat_tid = cur_wib * WARP_SIZE + tin;
            wire [TH_W-1:0] tslot = cw * WARP_SIZE + tin;
            wire [47:0] txyz = tidm[tslot];
            reg  [31:0] sv;
            always @(*) begin
                case (d_sreg)
                    `SIMT_SREG_TID_X:    sv = {16'd0, txyz[15:0]};
                    `SIMT_SREG_TID_Y:    sv = {16'd0, txyz[31:16]};
                    `SIMT_SREG_TID_Z:    sv = {16'd0, txyz[47:32]};
                    `SIMT_SREG_NTID_X:   sv = {16'd0, cfg_block[15:0]};
                    `SIMT_SREG_NTID_Y:   sv = {16'd0, cfg_block[31:16]};
                    `SIMT_SREG_NTID_Z:   sv = {16'd0, cfg_block[47:32]};
                    `SIMT_SREG_CTAID_X:  sv = {16'd0, cur_ctaid[15:0]};
                    `SIMT_SREG_CTAID_Y:  sv = {16'd0, cur_ctaid[31:16]};
                    `SIMT_SREG_CTAID_Z:  sv = {16'd0, cur_ctaid[47:32]};
                    `SIMT_SREG_NCTAID_X: sv = {16'd0, cfg_grid[15:0]};
                    `SIMT_SREG_NCTAID_Y: sv = {16'd0, cfg_grid[31:16]};
                    `SIMT_SREG_NCTAID_Z: sv = {16'd0, cfg_grid[47:32]};
                    `SIMT_SREG_TID:      sv = flat_tid;
                    `SIMT_SREG_LANEID:   sv = {27'd0, tin};
                    `SIMT_SREG_WARPID:   sv = {27'd0, cur_wib};
                    `SIMT_SREG_SMID:     sv = {28'd0, sm_id};
                    default:             sv = cfg_params[(d_sreg - `SIMT_SREG_PARAM_BASE) * 32 +: 32];
                endcase
            end
            assign sreg_v[l*32 +: 32] = sv;
        end
    endgenerate

    // Lowest active lane of the current row that is out of range, for the error report.
    function automatic [LANE_W:0] first_lane(input [NUM_LANES-1:0] bits);
        integer i;
        begin
            first_lane = {1'b1, {LANE_W{1'b0}}};
            for (i = NUM_LANES - 1; i >= 0; i = i - 1)
                if (bits[i]) first_lane = {1'b0, i[LANE_W-1:0]};
        end
    endfunction
    wire [NUM_LANES-1:0] row_bad = row_mask & (is_const ? bad_const : is_shared ? bad_shared :
                                               is_global ? bad_global : {NUM_LANES{1'b0}});
    wire [LANE_W:0]      bad_lane = first_lane(row_bad);
    wire [3:0]           bad_kind = is_const ? `SIMT_ERR_CONST_OUT_OF_RANGE :
                                    is_shared ? `SIMT_ERR_SHARED_OUT_OF_RANGE : `SIMT_ERR_GLOBAL_OUT_OF_RANGE;

    // ---- shared memory ---------------------------------------------------------------------------
    reg  [NUM_LANES-1:0]       sh_mask_q;
    reg  [NUM_LANES*SH_AW-1:0] sh_addr_q;
    reg  [NUM_LANES*32-1:0]    sh_data_q;
    wire                       sh_req_ready, sh_rsp_valid, sh_clr_ready;
    wire [NUM_LANES*32-1:0]    sh_rdata;
    wire [$clog2(NUM_LANES+1)-1:0] sh_passes;
    wire                       clr_sh_req;
    wire [SHL_W-1:0]           clr_sh_line;
    simt_shared_lsu #(.NUM_LANES(NUM_LANES), .NUM_BANKS(NUM_BANKS), .SHARED_WORDS(SHARED_WORDS)) u_lsu (
        .clk(clk), .rst(rst), .req_valid(state == S_SHREQ), .req_ready(sh_req_ready),
        .lane_mask(sh_mask_q), .addr(sh_addr_q), .store(d_is_store), .wdata(sh_data_q),
        .rsp_valid(sh_rsp_valid), .rdata(sh_rdata), .passes(sh_passes),
        .clr(clr_sh_req && state != S_SHREQ && state != S_SHWAIT), .clr_ready(sh_clr_ready),
        .clr_line(clr_sh_line), .obs_we(sh_obs_we), .obs_addr(sh_obs_addr), .obs_data(sh_obs_data),
        .obs_clr(sh_obs_clr)
    );
    wire [SH_AW-1:0] sh_base = cur_slot * cfg_sh_stride;
    // The back end holds its warp until the store row's last pass is written, so cw names the writer.
    assign sh_obs_warp = 5'(cw);

    // ---- global memory ---------------------------------------------------------------------------
    wire                      g_acc_ready, g_cmp_valid, g_cmp_store;
    wire [WID_W-1:0]          g_cmp_warp;
    wire [WARP_SIZE*32-1:0]   g_cmp_data;
    wire [$clog2(WARP_SIZE):0] g_cmp_txns;
    reg  [5:0]                txns_q;     // transactions of the completed access (retire record)
    wire                      g_cmp_ready = state == S_IDLE && !err_valid;
    simt_gmem_unit #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .SEG_WORDS(SEG_WORDS)) u_gmem (
        .clk(clk), .rst(rst),
        .acc_valid(state == S_GISSUE), .acc_ready(g_acc_ready), .acc_warp(cw), .acc_mask(cur_mask),
        .acc_addr(gaddr), .acc_store(d_is_store), .acc_wdata(gdata),
        .cpl_valid(g_cmp_valid), .cpl_ready(g_cmp_ready), .cpl_warp(g_cmp_warp), .cpl_store(g_cmp_store),
        .cpl_txns(g_cmp_txns), .cpl_rdata(g_cmp_data),
        .mreq_valid(mreq_valid), .mreq_ready(mreq_ready), .mreq_addr(mreq_addr), .mreq_write(mreq_write),
        .mreq_mask(mreq_mask), .mreq_wdata(mreq_wdata), .mreq_tag(mreq_tag),
        .mrsp_valid(mrsp_valid), .mrsp_ready(mrsp_ready), .mrsp_tag(mrsp_tag), .mrsp_rdata(mrsp_rdata)
    );

    // ---- scheduler -------------------------------------------------------------------------------
    wire [NUM_WARPS-1:0] ready_vec;
    genvar gw;
    generate
        for (gw = 0; gw < NUM_WARPS; gw = gw + 1) begin : rdy
            assign ready_vec[gw] = w_state[gw] == WS_READY;
        end
    endgenerate
    wire             sched_valid;
    wire [WID_W-1:0] sched_grant;
    wire             take_cmp   = state == S_IDLE && !err_valid && g_cmp_valid;
    wire             take_sched = state == S_IDLE && !err_valid && !g_cmp_valid && sched_valid;
    // Fetch: the instruction of the warp entering the back end is on instr_q in S_DECODE and stays
    // there until it retires (the warp's pc only changes in S_RETIRE).
    wire [PCX_W-1:0] fetch_pc = take_cmp ? w_pc[g_cmp_warp] : take_sched ? w_pc[sched_grant] : cur_pc;
    always @(posedge clk) instr_q <= imem[fetch_pc[PC_W-1:0]];  // range-checked in S_DECODE
    simt_warp_sched #(.NUM_WARPS(NUM_WARPS)) u_sched (
        .clk(clk), .rst(rst), .ready(ready_vec), .take(take_sched), .grant_valid(sched_valid),
        .grant(sched_grant)
    );

    // ---- divergence stacks -----------------------------------------------------------------------
    wire                 ds_idle, ds_done, ds_warp_done, ds_divergent, ds_pushes, ds_merged, ds_error;
    wire [PCX_W-1:0]     ds_next_pc, ds_top_pc;
    wire [WARP_SIZE-1:0] ds_next_mask, ds_top_mask;
    wire                 ds_top_kind;
    wire [DEPTH_W-1:0]   ds_pops, ds_depth;
    wire [3:0]           ds_err_kind;
    wire                 clr_ds_req;
    wire [WID_W-1:0]     clr_ds_warp;
    reg  [1:0]           ds_op;
    wire [WARP_SIZE-1:0] exited_after = w_exited[cw] | (d_exit ? cur_mask : {WARP_SIZE{1'b0}});
    wire [WARP_SIZE-1:0] live_after   = w_valid[cw] & ~exited_after;
    wire [PCX_W-1:0]     seq_pc       = d_bra ? {1'b0, d_target} : cur_pc + 1'b1;
    simt_div_stack #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .STACK_DEPTH(STACK_DEPTH),
                     .PC_W(PCX_W)) u_stack (
        .clk(clk), .rst(rst), .clr(clr_ds_req), .clr_warp(clr_ds_warp),
        .start(state == S_COMMIT && ds_needed), .warp(cw), .op(ds_op), .pc(cur_pc), .npc(seq_pc),
        .target({1'b0, d_target}), .mask(cur_mask), .taken(taken), .exited(exited_after),
        .live(live_after), .idle(ds_idle), .done(ds_done), .next_pc(ds_next_pc),
        .next_mask(ds_next_mask), .warp_done(ds_warp_done), .divergent(ds_divergent),
        .pushes(ds_pushes), .pops(ds_pops), .merged(ds_merged), .depth(ds_depth), .error(ds_error),
        .err_kind(ds_err_kind), .top_after_pc(ds_top_pc), .top_after_mask(ds_top_mask),
        .top_after_kind(ds_top_kind)
    );
    always @(*) begin
        if (d_ssy) ds_op = 2'd1;
        else if (is_branch) ds_op = 2'd2;
        else if (d_exit) ds_op = 2'd3;
        else ds_op = 2'd0;
    end
    // A plain instruction of a warp with an empty stack needs no stack update: pc <- seq_pc.
    wire ds_needed = ds_op != 2'd0 || w_depth[cw] != {DEPTH_W{1'b0}};

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
    wire sh_clr_go = clr_sh_req && sh_clr_ready && state != S_SHREQ && state != S_SHWAIT;
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

    // ---- the back end ----------------------------------------------------------------------------
    reg [PCX_W-1:0]     nx_pc;
    reg [WARP_SIZE-1:0] nx_mask;
    reg                 nx_done;
    reg [DEPTH_W-1:0]   nx_depth;
    reg [PCX_W-1:0]     nx_top_pc;    // top stack entry after the instruction
    reg [WARP_SIZE-1:0] nx_top_mask;
    reg                 nx_top_kind;

    task automatic raise(input [3:0] kind, input [5:0] err_at_lane);
        begin
            err_valid <= 1'b1;
            err_kind  <= kind;
            err_block <= b_id[cur_slot];
            err_warp  <= cur_wib;
            err_pc    <= cur_pc;
            err_lane  <= err_at_lane;
            state     <= S_HALT;
        end
    endtask

`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif
    wire [5:0] err_lane_idx = row * NUM_LANES + bad_lane[LANE_W-1:0];
    wire [NUM_LANES*32-1:0] cmp_row = gdata[row * NUM_LANES * 32 +: NUM_LANES * 32];

    always @(*) begin
        ex_we    = {NUM_LANES{1'b0}};
        ex_wdata = alu_y;
        if (state == S_EXEC && d_wr && !memwb) begin
            if (is_alu || d_lds || is_const) begin
                ex_we    = row_mask;
                ex_wdata = d_lds ? sreg_v : is_const ? const_v : alu_y;
            end
        end else if (state == S_EXEC && memwb && d_is_load) begin
            ex_we    = row_mask;
            ex_wdata = cmp_row;
        end else if (state == S_SHWAIT && sh_rsp_valid && d_is_load) begin
            ex_we    = row_mask;
            ex_wdata = sh_rdata;
        end
`ifdef SIMT_FAULTS
        // Fault 1: warp lane 1 (row 0, lane 1) gets its ALU result with bit 0 flipped, in the
        // register file and the retire record alike.
        if (simt_fault == `SIMT_FAULT_LANE_VALUE && state == S_EXEC && d_wr && !memwb && is_alu &&
            row == {ROW_W{1'b0}})
            ex_wdata[32] = ~ex_wdata[32];
`endif
    end

    integer i;
    always @(posedge clk) begin
        rt_valid   <= 1'b0;
        blk_done   <= 1'b0;
        bar_arrive <= 1'b0;
        bar_exit   <= 1'b0;
        if (rst) begin
            state     <= S_IDLE;
            err_valid <= 1'b0;
            err_kind  <= 4'd0;
            // Datapath registers reach the retire port: reset them so it never shows X.
            cw         <= {WID_W{1'b0}};
            memwb      <= 1'b0;
            row        <= {ROW_W{1'b0}};
            vals       <= {WARP_SIZE*32{1'b0}};
            txns_q     <= 6'd0;
            passes_acc <= 7'd0;
            nx_done    <= 1'b0;
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

            case (state)
                S_IDLE: begin
                    if (take_cmp) begin
                        cw         <= g_cmp_warp;
                        memwb      <= 1'b1;
                        gdata      <= g_cmp_data;
                        txns_q     <= g_cmp_txns;
                        w_state[g_cmp_warp] <= WS_BUSY;
                        state      <= S_DECODE;
                    end else if (take_sched) begin
                        cw         <= sched_grant;
                        memwb      <= 1'b0;
                        w_state[sched_grant] <= WS_BUSY;
                        state      <= S_DECODE;
                    end
                end
                S_DECODE: begin
                    row        <= {ROW_W{1'b0}};
                    taken      <= {WARP_SIZE{1'b0}};
                    passes_acc <= 7'd0;
                    if (cur_pc >= cfg_ninstr) raise(`SIMT_ERR_PC_OUT_OF_RANGE, 6'h3f);
                    else if (d_illegal) raise(`SIMT_ERR_ILLEGAL_INSTRUCTION, 6'h3f);
                    else if (d_bad_reg) raise(`SIMT_ERR_BAD_REGISTER, 6'h3f);
                    else if (d_lds && d_sreg >= `SIMT_SREG_PARAM_BASE + cfg_nparams)
                        raise(`SIMT_ERR_BAD_PARAM, 6'h3f);
                    else if (uses_rows || memwb) state <= S_EXEC;
                    else state <= S_COMMIT;
                end
                S_EXEC: begin
                    if (!memwb && row_bad != {NUM_LANES{1'b0}}) begin
                        raise(bad_kind, err_lane_idx);
                    end else begin
                        if (d_wr) vals[row * NUM_LANES * 32 +: NUM_LANES * 32] <= ex_wdata;
                        if (is_branch)
                            taken[row * NUM_LANES +: NUM_LANES] <= (d_beq ? ~lane_nz : lane_nz) & row_mask;
                        if (!memwb && is_global) begin
                            gaddr[row * NUM_LANES * 32 +: NUM_LANES * 32] <= mem_addr;
                            gdata[row * NUM_LANES * 32 +: NUM_LANES * 32] <= rdata_c;
                        end
                        if (!memwb && is_shared) begin
                            sh_mask_q <= row_mask;
                            for (i = 0; i < NUM_LANES; i = i + 1)
                                sh_addr_q[i * SH_AW +: SH_AW] <= sh_base + mem_addr[i * 32 +: SH_AW];
                            sh_data_q <= rdata_c;
                            state     <= S_SHREQ;
                        end else if (row == ROWS - 1) begin
                            state <= (!memwb && is_global) ? S_GISSUE : S_COMMIT;
                        end else begin
                            row <= row + 1'b1;
                        end
                    end
                end
                S_SHREQ: if (sh_req_ready) state <= S_SHWAIT;
                S_SHWAIT: begin
                    if (sh_rsp_valid) begin
                        passes_acc <= passes_acc + sh_passes;
                        if (d_wr) vals[row * NUM_LANES * 32 +: NUM_LANES * 32] <= sh_rdata;
                        if (row == ROWS - 1) begin
                            state <= S_COMMIT;
                        end else begin
                            row   <= row + 1'b1;
                            state <= S_EXEC;
                        end
                    end
                end
                S_GISSUE: begin
                    if (g_acc_ready) begin
                        w_state[cw] <= WS_MEM;
                        state       <= S_IDLE;
                    end
                end
                S_COMMIT: begin
                    if (d_bar && cur_mask != (w_valid[cw] & ~w_exited[cw])) begin
                        raise(`SIMT_ERR_BARRIER_DIVERGENCE, 6'h3f);
                    end else if (ds_needed) begin
                        state <= S_STACK;
                    end else begin
                        nx_pc    <= seq_pc;
                        nx_mask  <= cur_mask;
                        nx_done  <= 1'b0;
                        nx_depth <= w_depth[cw];
                        // not visiting the stack unit means the stack is empty and stays empty
                        nx_top_pc   <= {PCX_W{1'b0}};
                        nx_top_mask <= {WARP_SIZE{1'b0}};
                        nx_top_kind <= 1'b0;
                        rt_pushes <= 1'b0;
                        rt_pops   <= {DEPTH_W{1'b0}};
                        rt_merged <= 1'b0;
                        state     <= S_RETIRE;
                    end
                end
                S_STACK: begin
                    if (ds_done) begin
                        if (ds_error) begin
                            raise(ds_err_kind, 6'h3f);
                        end else begin
                            nx_pc     <= ds_next_pc;
                            nx_mask   <= ds_next_mask;
                            nx_done   <= ds_warp_done;
                            nx_depth  <= ds_depth;
                            nx_top_pc   <= ds_top_pc;
                            nx_top_mask <= ds_top_mask;
                            nx_top_kind <= ds_top_kind;
                            rt_pushes <= ds_pushes;
                            rt_pops   <= ds_pops;
                            rt_merged <= ds_merged;
                            state     <= S_RETIRE;
                        end
                    end
                end
                S_RETIRE: begin
                    bar_slot     <= cur_slot;
                    w_pc[cw]     <= nx_pc;
                    w_mask[cw]   <= nx_mask;
                    w_exited[cw] <= exited_after;
                    w_depth[cw]  <= nx_depth;
                    if (nx_done) begin
                        w_state[cw] <= WS_DONE;
                        bar_exit    <= 1'b1;
                        if (b_ndone[cur_slot] + 1'b1 == cfg_wpb) begin
                            // The block finished: report it and free its slot and warps.
                            blk_done    <= 1'b1;
                            blk_done_id <= b_id[cur_slot];
                            b_valid[cur_slot] <= 1'b0;
                            for (i = 0; i < NUM_WARPS; i = i + 1)
                                if (w_slot[i] == cur_slot && w_state[i] != WS_EMPTY) w_state[i] <= WS_EMPTY;
                        end else begin
                            b_ndone[cur_slot] <= b_ndone[cur_slot] + 1'b1;
                        end
                    end else if (d_bar) begin
                        w_state[cw] <= WS_BAR;
                        bar_arrive  <= 1'b1;
                    end else begin
                        w_state[cw] <= WS_READY;
                    end
                    rt_valid     <= 1'b1;
                    rt_block     <= b_id[cur_slot];
                    rt_warp      <= cur_wib;
                    rt_slot      <= 4'(cur_slot);
                    rt_pc        <= cur_pc;
                    rt_instr     <= instr_q;
                    rt_mask      <= cur_mask;
                    rt_wr        <= d_wr;
                    rt_rd        <= d_rd;
                    rt_values    <= vals;
                    rt_next_pc   <= nx_pc;
                    rt_next_mask <= nx_mask;
                    rt_depth     <= nx_depth;
                    rt_passes    <= passes_acc;
                    rt_txns      <= txns_q;
                    rt_barrier   <= d_bar && !nx_done;
                    rt_done      <= nx_done;
                    rt_top_pc    <= nx_top_pc;
                    rt_top_mask  <= nx_top_mask;
                    rt_top_kind  <= nx_top_kind;
                    state        <= S_IDLE;
                end
                default: ; // S_HALT: an error stopped the SM until reset
            endcase
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
    simt_perf #(.WARP_SIZE(WARP_SIZE), .DEPTH_W(DEPTH_W), .NUM_BLOCKS(NUM_BLOCKS)) u_perf (
        .clk(clk), .rst(rst || perf_clear), .run(perf_run), .idle_cycle(state == S_IDLE && !take_cmp && !take_sched),
        .retire(state == S_RETIRE), .cls(d_cls), .mask(cur_mask),
        .divergent(state == S_STACK && ds_done && ds_divergent && !ds_error),
        .pushes(state == S_STACK && ds_done && !ds_error ? ds_pushes : 1'b0),
        .pops(state == S_STACK && ds_done && !ds_error ? ds_pops : {DEPTH_W{1'b0}}),
        .depth(ds_pushes && !ds_merged ? w_depth[cw] + 1'b1 : ds_depth),
        .depth_valid(state == S_STACK && ds_done && !ds_error),
        .shared_access(state == S_RETIRE && is_shared), .passes(passes_acc),
        .global_access(state == S_RETIRE && is_global), .txns(txns_q),
        .bar_arrive(state == S_RETIRE && d_bar && !nx_done), .bar_release(bar_release),
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

    // Decoder outputs the SM does not need (every operand port is read anyway) and status it
    // does not use; Verilator's default unused-regexp exempts names containing "unused".
    wire unused_ok = &{1'b0, g_cmp_store, d_use_a, d_use_b, d_use_c, bad_lane, ds_idle, fetch_pc};
endmodule
