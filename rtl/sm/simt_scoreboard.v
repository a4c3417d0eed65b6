`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
`include "simt_fault.vh"
// Issue scoreboard: when DEC's instruction may enter EX while older instructions of the SAME warp are
// still in flight (docs/sm.md "Issue ahead").
//
// With issue ahead (simt_sm's ISSUE_AHEAD > 0) a warp whose instruction in DEC continues at pc + 1
// without touching the stack (an ALU, special-register, constant or shared instruction, or a completed
// global access, of a warp whose divergence stack is empty or, with AHEAD_SSY, does not pop after it) becomes READY again from DEC, so its next
// instruction is fetched while this one is still in EX, the shared writeback (SWB) or CM. Everything
// older than DEC's instruction then writes registers only in EX or the SWB, and this unit holds DEC's
// token out of EX (`hold`) while:
//   - EX holds an instruction of the same warp and a row is one cycle (ROWS = 1): EX writes its row in
//     the cycle DEC presents the read of the same row, and the register file's registered read returns
//     the old value then (read-before-write). With ROWS > 1 an instruction's row 0 enters EX only
//     after the older one's last row, ROWS - 1 cycles after that one's row 0 was written, and row k
//     after row k: no hazard;
//   - the SWB holds a shared instruction of the same warp (from its row 0 entering the LSU until it
//     moves to CM): its load rows land later, and the instruction must reach CM before any younger one
//     of its warp (the SWB lets EX's instruction overtake older shared ones only of other warps).
// Only an instruction's first token waits: once its row 0 is in EX its own SWB entry must not hold
// its later rows (that would never drain), and nothing older of its warp is left to wait for.
// A shared store also waits until every older instruction of its warp has retired (none of them in
// EX or CM either): its bank writes then come after their retire records, in the order the shared-
// memory monitor (tb/scoreboards) attributes a warp's bank writes to its next retire.
// So a warp's instructions write and retire in program order; the retire record, the precise-error
// rule and the lockstep checker (which steps each warp in its retire order) are unchanged.
// Per warp a count of its SWB entries (at most the SWB's entries, < 8). Without issue ahead a warp is
// never in DEC and EX or the SWB at once, so `hold` is never high.
// Test-only fault 12 (SIMT_FAULTS builds): the SWB count is ignored.
module simt_scoreboard #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE,   // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES,   // machine parameter (checked in simt_sm)
    parameter integer NUM_WARPS = `SIMT_DEFAULT_NUM_WARPS,   // machine parameter (checked in simt_sm)
    parameter integer WID_W     = (NUM_WARPS > 1) ? $clog2(NUM_WARPS) : 1   // derived; not meant to be overridden
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             dec_valid,       // DEC's next token is an instruction's first (row 0)
    input  wire [WID_W-1:0] dec_warp,
    input  wire             ex_valid,
    input  wire [WID_W-1:0] ex_warp,
    input  wire             dec_store,       // DEC's instruction is a shared store
    input  wire             cm_valid,
    input  wire [WID_W-1:0] cm_warp,
    input  wire             swb_alloc,       // a shared instruction's row 0 enters the LSU (an SWB entry)
    input  wire [WID_W-1:0] swb_alloc_warp,
    input  wire             swb_leave,       // the oldest SWB entry moves to CM
    input  wire [WID_W-1:0] swb_leave_warp,
    output wire             hold             // DEC's token must not enter EX this cycle
);
    localparam integer ROWS = (NUM_LANES > 0 && WARP_SIZE >= NUM_LANES) ? WARP_SIZE / NUM_LANES : 1;
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    wire f_no_swb = simt_fault == `SIMT_FAULT_NO_HOLD;
`else
    wire f_no_swb = 1'b0;
`endif

    reg [2:0] n_sh [0:NUM_WARPS-1];  // the warp's shared instructions in the SWB
    integer i;
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < NUM_WARPS; i = i + 1) n_sh[i] <= 3'd0;
        end else begin
            for (i = 0; i < NUM_WARPS; i = i + 1)
                n_sh[i] <= n_sh[i] + {2'd0, swb_alloc && swb_alloc_warp == i[WID_W-1:0]}
                                   - {2'd0, swb_leave && swb_leave_warp == i[WID_W-1:0]};
        end
    end

    wire ex_same  = (ROWS == 1 || dec_store) && ex_valid && ex_warp == dec_warp;
    wire cm_same  = dec_store && cm_valid && cm_warp == dec_warp;
    wire swb_same = n_sh[dec_warp] != 3'd0 && !f_no_swb;
    assign hold = dec_valid && (ex_same || cm_same || swb_same);
endmodule
