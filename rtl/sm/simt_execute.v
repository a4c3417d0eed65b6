`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
`include "simt_isa.vh"
`include "simt_decoded.vh"
`include "simt_fault.vh"
// Execute: stage EX of the SM pipeline (docs/sm.md "Pipeline").
//
// One row of NUM_LANES threads per cycle: the operands arrive from the register file (read by DEC the
// cycle before), the lanes compute (simt_alu, special registers, constants, branch conditions, the
// address checks), and the row's result is written to the register file in the same cycle and kept in
// `vals` for the retire record. Branch conditions build `taken`, global accesses gather `gaddr`/`gdata`,
// shared rows go to simt_shared_lsu. A shared instruction leaves EX with its last row: its rows land
// in simt_shared_wb (own value buffer, first claim on the register-file write port), which hands it to
// CM in order among shared instructions; a younger instruction that cannot fault in CM may reach CM
// first (docs/sm.md "Pipeline", "What retires around an error" in docs/isa.md 7).
// The buffers vals, taken, gaddr and gdata belong to the instruction in CM until it completes, so EX
// acts only when CM is empty or completes without an error this cycle (cm_ok).
// Test-only faults 1, 8 and 9 (SIMT_FAULTS builds, docs/sm.md "Test-only fault hooks").
module simt_execute #(
    parameter integer WARP_SIZE    = `SIMT_DEFAULT_WARP_SIZE,      // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES    = `SIMT_DEFAULT_NUM_LANES,       // machine parameter (checked in simt_sm)
    parameter integer SHARED_WORDS = `SIMT_DEFAULT_SHARED_WORDS,    // machine parameter (checked in simt_sm)
    parameter integer NUM_BANKS    = `SIMT_DEFAULT_NUM_BANKS,       // machine parameter (checked in simt_sm)
    parameter integer GLOBAL_WORDS = `SIMT_DEFAULT_GLOBAL_WORDS,  // machine parameter (checked in simt_sm)
    parameter integer C_AW         = 6,       // constant memory address width
    parameter integer SH_AW        = $clog2(SHARED_WORDS),      // derived; not meant to be overridden
    parameter integer SHL_W        = $clog2(SHARED_WORDS / NUM_BANKS) > 0 ? $clog2(SHARED_WORDS / NUM_BANKS) : 1,
    parameter integer RF_AW        = 10,      // register row address width
    parameter integer TH_W         = 9,       // thread slot index width
    parameter integer WID_W        = 4,       // warp slot index width
    parameter integer BID_W        = 2,       // block slot index width
    parameter integer ROW_W        = (WARP_SIZE / NUM_LANES > 1) ? $clog2(WARP_SIZE / NUM_LANES) : 1,
    parameter integer PCX_W        = 17,      // pc width
    parameter integer SWB_EX_FIRST = 1        // write port: EX's row before a landed shared row (simt_shared_wb)
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire                       halt,         // an error stops every stage until reset
    input  wire [3:0]                 sm_id,
    input  wire [47:0]                cfg_grid,
    input  wire [47:0]                cfg_block,
    input  wire [5:0]                 cfg_regs,
    input  wire [SH_AW:0]             cfg_shared,
    input  wire [SH_AW:0]             cfg_sh_stride,
    input  wire [C_AW:0]              cfg_nconst,
    input  wire [16*32-1:0]           cfg_params,
    // DEC's token (simt_issue), taken when ex_take
    input  wire                       ex_take,
    input  wire [WID_W-1:0]           dec_warp,
    input  wire                       dec_memwb,
    input  wire [31:0]                dec_instr,
    input  wire [ROW_W-1:0]           dec_row,
    input  wire                       dec_last,
    input  wire                       dec_flt,
    input  wire [3:0]                 dec_flt_kind,
    input  wire [5:0]                 dec_txns,
    input  wire [PCX_W-1:0]           dec_pc,
    input  wire [WARP_SIZE*32-1:0]    mw_data,      // a completed access's load data
    output wire                       ex_adv,       // EX takes a new token or empties this cycle
    output wire [RF_AW-1:0]           ex_raddr_a,   // EX's own row's read addresses (while it holds)
    output wire [RF_AW-1:0]           ex_raddr_b,
    output wire [RF_AW-1:0]           ex_raddr_c,
    output wire                       mw_release,   // the completed access's last row is written
    // warp table (read port EX); EX's pc is its own (with issue ahead the table's may be an older one's)
    output reg  [WID_W-1:0]           ex_warp,
    output reg  [PCX_W-1:0]           ex_pc,
    input  wire [WARP_SIZE-1:0]       ex_mask,
    input  wire [BID_W-1:0]           ex_slot,
    input  wire [4:0]                 ex_wib,
    input  wire [47:0]                ex_ctaid,
    // register file: operands (registered reads) and the write port
    input  wire [NUM_LANES*32-1:0]    rdata_a,
    input  wire [NUM_LANES*32-1:0]    rdata_b,
    input  wire [NUM_LANES*32-1:0]    rdata_c,
    output reg  [NUM_LANES-1:0]       rf_we,
    output reg  [RF_AW-1:0]           rf_waddr,
    output reg  [NUM_LANES*32-1:0]    rf_wdata,
    // constant memory and thread-id table (combinational reads, one per lane)
    output reg  [NUM_LANES*C_AW-1:0]  const_addr,
    input  wire [NUM_LANES*32-1:0]    const_data,
    output reg  [NUM_LANES*TH_W-1:0]  tid_slot,
    input  wire [NUM_LANES*48-1:0]    tid_xyz,
    // shared-memory line clears of block initialisation (not while a shared instruction is in EX)
    input  wire                       clr_sh_req,
    input  wire [SHL_W-1:0]           clr_sh_line,
    output wire                       sh_clr_go,
    output wire [NUM_BANKS-1:0]       sh_obs_we,
    output wire [NUM_BANKS*SH_AW-1:0] sh_obs_addr,
    output wire [NUM_BANKS*32-1:0]    sh_obs_data,
    output wire                       sh_obs_clr,
    // CM (simt_commit)
    input  wire                       cm_ok,        // CM is empty or completes without an error
    output reg                        ex_valid,
    output wire                       ex_raise,     // this row faults: report it
    output wire [3:0]                 ex_err_kind,
    output wire [5:0]                 ex_err_lane,  // 63: no lane responsible
    output wire                       ex_to_cm,     // an instruction moves to CM (EX's or a shared one's)
    output wire [WID_W-1:0]           to_cm_warp,   // ... its warp slot, instruction, flags
    output wire                       to_cm_memwb,
    output wire [31:0]                to_cm_instr,
    output wire [5:0]                 to_cm_txns,
    output wire [6:0]                 to_cm_passes, // shared: passes
    output wire [WARP_SIZE*32-1:0]    vals,         // per-lane results of CM's instruction (retire record)
    output wire                       swb_busy,     // a shared instruction's rows are still landing
    output wire                       swb_alloc,    // a shared instruction's row 0 takes an SWB entry
    output wire                       swb_leave,    // the oldest SWB entry moves to CM (warp to_cm_warp)
    output reg  [WID_W-1:0]           sh_row_warp,  // warp of the row the LSU serves (sh_obs_warp)
    output reg  [WARP_SIZE-1:0]       taken,        // BEQ/BNE: lanes taking the branch
    output reg  [WARP_SIZE*32-1:0]    gaddr,        // global access: per-lane addresses
    output reg  [WARP_SIZE*32-1:0]    gdata         // global access: per-lane store data
);
    // Row, thread and address arithmetic truncates to the index width on purpose (see simt_sm.v).
    /* verilator lint_off WIDTHEXPAND */
    /* verilator lint_off WIDTHTRUNC */
    localparam integer ROWS   = WARP_SIZE / NUM_LANES;
    localparam integer LANE_W = (NUM_LANES > 1) ? $clog2(NUM_LANES) : 1;
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif

    // ---- the token in EX -------------------------------------------------------------------------------
    reg [ROW_W-1:0] ex_row;       // row whose operands are on rdata_*
    reg             ex_last;      // the instruction's last token
    reg             ex_flt;       // DEC found a launch-check fault: EX only reports it
    reg [3:0]       ex_flt_kind;
    reg             ex_memwb;     // a completed global access: writes its loads and retires
    reg [31:0]      ex_instr;
    reg [5:0]       ex_txns;
    reg [WARP_SIZE*32-1:0] ex_vals; // per-lane results of EX's instruction
    wire [`SIMT_DEC_W-1:0] xd;  // EX's instruction, decoded
    simt_decode u_ex_decode (.instr(ex_instr), .regs(cfg_regs), .dec(xd));
    wire [RF_AW-1:0] ex_wbase = ex_warp * cfg_regs * ROWS;
    assign ex_raddr_a = ex_wbase + `SIMT_DEC_RA(xd) * ROWS + ex_row;
    assign ex_raddr_b = ex_wbase + `SIMT_DEC_RB(xd) * ROWS + ex_row;
    assign ex_raddr_c = ex_wbase + `SIMT_DEC_RC(xd) * ROWS + ex_row;
    // What the token does (a faulting token does nothing but report).
    wire ex_op     = !ex_flt && !ex_memwb;
    wire ex_alu    = ex_op && `SIMT_DEC_CLS(xd) == `SIMT_CLS_ALU;
    wire ex_sh     = ex_op && `SIMT_DEC_CLS(xd) == `SIMT_CLS_SHARED;
    wire ex_const  = ex_op && `SIMT_DEC_CLS(xd) == `SIMT_CLS_CONST;
    wire ex_global = ex_op && `SIMT_DEC_CLS(xd) == `SIMT_CLS_GLOBAL;
    wire ex_branch = ex_op && (`SIMT_DEC_IS_BEQ(xd) || `SIMT_DEC_IS_BNE(xd));
    wire [NUM_LANES-1:0] row_mask = ex_mask[ex_row * NUM_LANES +: NUM_LANES];

    // ---- lanes -----------------------------------------------------------------------------------------
    // Each lane writes its slice of these row vectors from its own always block (a reg, not a wire
    // joined from per-lane assigns, which Icarus rebuilds bit by bit once per lane per cycle).
    reg  [NUM_LANES*32-1:0] alu_y, mem_addr, sreg_v;
    wire [NUM_LANES-1:0]    lane_nz, bad_const, bad_shared, bad_global;
    genvar l;
    generate
        for (l = 0; l < NUM_LANES; l = l + 1) begin : lane
            wire [31:0] a = `SIMT_DEC_A_IMM(xd) ? `SIMT_DEC_IMM(xd) : rdata_a[l*32 +: 32];
            wire [31:0] b = `SIMT_DEC_B_IMM(xd) ? `SIMT_DEC_IMM(xd) : rdata_b[l*32 +: 32];
            wire [31:0] c = rdata_c[l*32 +: 32];
            wire [31:0] y;
            simt_alu u_alu (.fn(`SIMT_DEC_ALU_FN(xd)), .a(a), .b(b), .c(c), .y(y));
            always @(*) alu_y[l*32 +: 32] = y;
            wire [31:0] addr = a + b;
            always @(*) mem_addr[l*32 +: 32] = addr;
            assign lane_nz[l]    = a != 32'd0;
            assign bad_const[l]  = addr >= {{(31 - C_AW){1'b0}}, cfg_nconst};
            assign bad_shared[l] = addr >= {{(31 - SH_AW){1'b0}}, cfg_shared};
            assign bad_global[l] = addr >= GLOBAL_WORDS;
            always @(*) const_addr[l*C_AW +: C_AW] = addr[C_AW-1:0];
            // special registers (docs/isa.md 3.2)
            wire [4:0]  tin = ex_row * NUM_LANES + l;           // thread index within the warp
            wire [31:0] flat_tid = ex_wib * WARP_SIZE + tin;
            always @(*) tid_slot[l*TH_W +: TH_W] = ex_warp * WARP_SIZE + tin;
            wire [47:0] txyz = tid_xyz[l*48 +: 48];
            reg  [31:0] sv;
            always @(*) begin
                case (`SIMT_DEC_SREG(xd))
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
                    default: sv = cfg_params[(`SIMT_DEC_SREG(xd) - `SIMT_SREG_PARAM_BASE) * 32 +: 32];
                endcase
            end
            always @(*) sreg_v[l*32 +: 32] = sv;
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
    assign ex_err_kind = ex_flt ? ex_flt_kind :
                         ex_const ? `SIMT_ERR_CONST_OUT_OF_RANGE :
                         ex_sh ? `SIMT_ERR_SHARED_OUT_OF_RANGE : `SIMT_ERR_GLOBAL_OUT_OF_RANGE;
    assign ex_err_lane = ex_flt ? 6'h3f : ex_row * NUM_LANES + bad_lane[LANE_W-1:0];

    // ---- when the token acts, and when the instruction moves on ----------------------------------------
    // Precise errors: a faulting token reports only when every older instruction has left for CM
    // (no shared instruction older than it still landing; its own entry, for a shared row > 0, is younger).
    wire swb_wait, swb_wait2, swb_to_cm, swb_in_cm, swb_can_alloc, swb_we_any, hold_swb;
    wire ex_own_swb  = ex_sh && ex_row != {ROW_W{1'b0}};
    wire swb_older   = ex_own_swb ? swb_wait2 : swb_wait;
    wire ex_bad      = ex_flt || row_bad != {NUM_LANES{1'b0}};
    wire ex_act      = ex_valid && !halt && cm_ok && !(ex_bad && swb_older);
    assign ex_raise  = ex_act && ex_bad;
    // A token that writes a row has the write port first; it waits only when the shared writeback must
    // write its pending row (hold_swb: a second load row lands while one waits, simt_shared_wb).
    wire ex_wr_row   = ex_memwb ? `SIMT_DEC_IS_LOAD(xd)
                                : (`SIMT_DEC_WR(xd) && (ex_alu || (ex_op && `SIMT_DEC_IS_LDS(xd)) || ex_const));
`ifdef SIMT_FAULTS
    // Fault 8: EX's row does not wait when the shared writeback must write (hold_swb); it takes the
    // port and that row is never written (its values still reach the retire record from the buffer).
    wire f_port      = simt_fault == `SIMT_FAULT_PORT_PRIORITY;
    // Fault 9: after the first shared row of the run, a reset no longer reaches the LSU and the shared
    // writeback, so rows in flight land and retire after it.
    reg f_sh_armed, f_reset_seen;
    initial begin
        f_sh_armed   = 1'b0;
        f_reset_seen = 1'b0;
    end
    always @(posedge clk) begin
        if (rst) f_reset_seen <= 1'b1;  // armed only out of a real reset (Verilator's random start)
        if (sh_req_valid && !rst && f_reset_seen) f_sh_armed <= 1'b1;
    end
    wire rst_sh      = rst && !(simt_fault == `SIMT_FAULT_STALE_SWB && f_sh_armed);
`else
    wire f_port      = 1'b0;
    wire rst_sh      = rst;
`endif
    wire ex_want     = ex_act && !ex_raise && ex_wr_row;  // EX's row would write (the SWB yields)
    wire ex_go       = ex_act && !ex_raise && (f_port || !(hold_swb && ex_wr_row));
    // An instruction reaches CM ahead of older shared instructions still landing only if CM cannot
    // raise an error for it (BAR, SSY, BEQ/BNE can: they wait), and never in the cycle one moves.
    wire ex_cm_safe  = ex_flt || ex_memwb || !(`SIMT_DEC_IS_BAR(xd) || `SIMT_DEC_IS_SSY(xd) ||
                                                `SIMT_DEC_IS_BEQ(xd) || `SIMT_DEC_IS_BNE(xd));
    wire ex_cm_free  = !swb_to_cm && (ex_cm_safe || !swb_wait);
    wire sh_req_ready, sh_rsp_valid, sh_clr_ready;
    wire sh_req_valid = ex_go && ex_sh && (ex_own_swb || swb_can_alloc);
    wire ex_fire     = ex_sh ? sh_req_valid && sh_req_ready : ex_go && (!ex_last || ex_cm_free);
    wire ex_to_cm_ex = ex_fire && ex_last && !ex_sh;
    assign ex_to_cm  = ex_to_cm_ex || swb_to_cm;
    assign ex_adv    = !ex_valid || ex_fire;
    assign mw_release = ex_fire && ex_memwb && ex_last;

    // ---- shared memory -----------------------------------------------------------------------------------
    wire [NUM_LANES*32-1:0]        sh_rdata;
    wire [$clog2(NUM_LANES+1)-1:0] sh_passes;
    wire [SH_AW-1:0]               sh_base = ex_slot * cfg_sh_stride;
    reg  [NUM_LANES*SH_AW-1:0]     sh_addr;
    integer si;
    always @(*) begin
        for (si = 0; si < NUM_LANES; si = si + 1)
            sh_addr[si * SH_AW +: SH_AW] = sh_base + mem_addr[si * 32 +: SH_AW];
    end
    // No line clear while a shared instruction is in EX: its rows and the clear share the banks.
    wire sh_busy_ex = ex_valid && ex_sh;  // (rows already in the LSU hold it busy: clr_ready)
    assign sh_clr_go = clr_sh_req && sh_clr_ready && !sh_busy_ex;
    simt_shared_lsu #(.NUM_LANES(NUM_LANES), .NUM_BANKS(NUM_BANKS), .SHARED_WORDS(SHARED_WORDS)) u_lsu (
        .clk(clk), .rst(rst_sh), .req_valid(sh_req_valid), .req_ready(sh_req_ready),
        .lane_mask(row_mask), .addr(sh_addr), .store(`SIMT_DEC_IS_STORE(xd)), .wdata(rdata_c),
        .rsp_valid(sh_rsp_valid), .rdata(sh_rdata), .passes(sh_passes),
        .clr(clr_sh_req && !sh_busy_ex), .clr_ready(sh_clr_ready),
        .clr_line(clr_sh_line), .obs_we(sh_obs_we), .obs_addr(sh_obs_addr), .obs_data(sh_obs_data),
        .obs_clr(sh_obs_clr)
    );
    wire [RF_AW-1:0]   swb_waddr;
    wire [NUM_LANES-1:0] swb_we;
    wire [NUM_LANES*32-1:0] swb_wdata;
    wire [WID_W-1:0]   swb_warp;
    wire [31:0]        swb_instr;
    wire [6:0]         swb_passes;
    wire [WARP_SIZE*32-1:0] swb_vals;
    simt_shared_wb #(.WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .RF_AW(RF_AW), .WID_W(WID_W),
                     .EX_FIRST(SWB_EX_FIRST)) u_swb (
        .clk(clk), .rst(rst_sh), .halt(halt), .cfg_regs(cfg_regs), .can_alloc(swb_can_alloc),
        .alloc(swb_alloc), .alloc_warp(ex_warp), .alloc_instr(ex_instr),
        .alloc_rd(`SIMT_DEC_RD(xd)), .alloc_load(`SIMT_DEC_IS_LOAD(xd)), .alloc_mask(ex_mask),
        .rsp_valid(sh_rsp_valid), .rsp_data(sh_rdata), .rsp_passes(sh_passes),
        .ex_want(ex_want), .hold_swb(hold_swb), .rf_we_any(swb_we_any), .rf_we(swb_we),
        .rf_waddr(swb_waddr), .rf_wdata(swb_wdata),
        .waiting(swb_wait), .waiting2(swb_wait2), .cm_ok(cm_ok), .to_cm(swb_to_cm), .to_cm_warp(swb_warp),
        .to_cm_instr(swb_instr), .to_cm_passes(swb_passes), .in_cm(swb_in_cm), .vals(swb_vals)
    );
    assign swb_alloc    = sh_req_valid && sh_req_ready && !ex_own_swb;
    assign swb_leave    = swb_to_cm;
    assign swb_busy     = swb_wait;
    assign to_cm_warp   = swb_to_cm ? swb_warp : ex_warp;
    assign to_cm_memwb  = !swb_to_cm && ex_memwb;
    assign to_cm_instr  = swb_to_cm ? swb_instr : ex_instr;
    assign to_cm_txns   = swb_to_cm ? 6'd0 : ex_txns;
    assign to_cm_passes = swb_to_cm ? swb_passes : 7'd0;
    assign vals         = swb_in_cm ? swb_vals : ex_vals;

    // ---- register writeback --------------------------------------------------------------------------
    // One write port. Priority: EX's row first; a shared load's landed row (simt_shared_wb) in the
    // cycles EX does not write -- except hold_swb, when the SWB's pending row goes first and EX's row
    // waits (ex_go); block initialisation in the cycles nobody writes.
    wire [NUM_LANES*32-1:0] mw_row = mw_data[ex_row * NUM_LANES * 32 +: NUM_LANES * 32];
    wire [RF_AW-1:0] ex_waddr = ex_wbase + `SIMT_DEC_RD(xd) * ROWS + ex_row;
    wire ex_writes = ex_fire && ex_wr_row;
    always @(*) begin
        rf_we    = {NUM_LANES{1'b0}};
        rf_waddr = ex_waddr;
        rf_wdata = alu_y;
        if (ex_writes) begin
            rf_we    = row_mask;
            rf_wdata = ex_memwb ? mw_row : `SIMT_DEC_IS_LDS(xd) ? sreg_v : ex_const ? const_data : alu_y;
`ifdef SIMT_FAULTS
            // Fault 1: warp lane 1 (row 0, lane 1) gets its ALU result with bit 0 flipped, in the
            // register file and the retire record alike.
            if (simt_fault == `SIMT_FAULT_LANE_VALUE && ex_alu && ex_row == {ROW_W{1'b0}})
                rf_wdata[32] = ~rf_wdata[32];
`endif
        end else if (swb_we_any) begin
            // (never with ex_writes but under faults 8 and 22, where EX's row wins and this one is lost)
            rf_we    = swb_we;
            rf_waddr = swb_waddr;
            rf_wdata = swb_wdata;
        end
    end

    // ---- DEC -> EX, and the row's effects ------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            ex_valid <= 1'b0;
            // Datapath registers reach the retire port: reset them so it never shows X.
            // ex_warp names the shared-memory writer on sh_obs_warp, which a line clear shows too.
            ex_warp  <= {WID_W{1'b0}};
            ex_pc    <= {PCX_W{1'b0}};
            ex_row   <= {ROW_W{1'b0}};
            ex_instr <= 32'd0;
            ex_memwb <= 1'b0;
            ex_txns  <= 6'd0;
            ex_vals  <= {WARP_SIZE*32{1'b0}};
            sh_row_warp <= {WID_W{1'b0}};
        end else begin
            if (ex_take) begin
                ex_valid    <= 1'b1;
                ex_warp     <= dec_warp;
                ex_pc       <= dec_pc;
                ex_memwb    <= dec_memwb;
                ex_instr    <= dec_instr;
                ex_row      <= dec_row;
                ex_last     <= dec_last;
                ex_flt      <= dec_flt;
                ex_flt_kind <= dec_flt_kind;
                ex_txns     <= dec_txns;
            end else if (ex_adv) begin
                ex_valid <= 1'b0;
            end
            if (ex_fire) begin
                if (ex_writes) ex_vals[ex_row * NUM_LANES * 32 +: NUM_LANES * 32] <= rf_wdata;
                if (ex_branch)
                    taken[ex_row * NUM_LANES +: NUM_LANES] <=
                        (`SIMT_DEC_IS_BEQ(xd) ? ~lane_nz : lane_nz) & row_mask;
                if (ex_global) begin
                    gaddr[ex_row * NUM_LANES * 32 +: NUM_LANES * 32] <= mem_addr;
                    gdata[ex_row * NUM_LANES * 32 +: NUM_LANES * 32] <= rdata_c;
                end
                // The LSU serves the row it accepted last: its bank writes are this warp's.
                if (ex_sh) sh_row_warp <= ex_warp;
            end
        end
    end

    // Decoder fields EX does not need; Verilator's default unused-regexp exempts "unused".
    wire unused_ok = &{1'b0, xd, bad_lane};
endmodule
