`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
// simt_tid_table -- the SM's thread-id table (docs/sm.md "Block dispatch"): {tid.z, tid.y, tid.x} of
// every thread slot (slot = warp slot * WARP_SIZE + thread index in the warp), written by block
// initialisation, read by EX's special registers.
//
// Block initialisation (simt_block_init) writes TIDS consecutive slots per cycle, starting at a slot
// that is a multiple of TIDS (a block's first slot is first_warp * WARP_SIZE and it steps by TIDS;
// TIDS divides WARP_SIZE). So the table is stored as rows of TIDS entries: row = slot / TIDS, entry =
// slot % TIDS, one write port of TIDS * 48 bits with a per-entry enable (a block's last group may be
// partial: the entries past its last thread keep their value). One write port is what lets synthesis
// keep the table as a memory macro (docs/ppa.md "Memories"); written entry by entry, four write ports,
// it became 24,576 flip-flops at 8 lanes. Each lane's read port reads its slot's row and selects the
// entry: asynchronous, as before, so EX sees the same values in the same cycle.
//
// No reset: a slot is written by its block's initialisation before any warp of the block runs.
// Test-only fault 18 (SIMT_FAULTS builds): entry 1 of every row is written with entry 0's tid.
module simt_tid_table #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE,  // machine parameter (checked in simt_sm)
    parameter integer NUM_WARPS = `SIMT_DEFAULT_NUM_WARPS,  // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES,  // machine parameter (checked in simt_sm)
    parameter integer TIDS      = 4,                        // entries written per cycle (a row)
    parameter integer TH_W      = $clog2(NUM_WARPS * WARP_SIZE)  // slot index width
) (
    input  wire                      clk,
    // write: the group of TIDS slots starting at waddr (a multiple of TIDS), entry k where we[k]
    input  wire [TIDS-1:0]           we,
    input  wire [31:0]               waddr,
    input  wire [TIDS*48-1:0]        wdata,   // entry k's {tid.z, tid.y, tid.x} at [k*48 +: 48]
    // read: lane l's slot at [l*TH_W +: TH_W], its entry at [l*48 +: 48] in the same cycle
    input  wire [NUM_LANES*TH_W-1:0] rslot,
    output reg  [NUM_LANES*48-1:0]   rdata  // one slice per lane (see the read loop)
);
    localparam integer ROWS_T = NUM_WARPS * WARP_SIZE / TIDS;         // rows of the table
    localparam integer LOG_T  = $clog2(TIDS);                          // slot = row * TIDS + entry
    localparam integer EIX_W  = (TIDS > 1) ? LOG_T : 1;                // entry index width
    localparam integer RIX_W  = (ROWS_T > 1) ? $clog2(ROWS_T) : 1;     // row index width
    generate
        if (TIDS < 1 || TIDS > WARP_SIZE || (TIDS & (TIDS - 1)) != 0) begin : g_bad_tids
            `SIMT_AT_ELAB $fatal(1, "simt_tid_table: illegal parameter TIDS=%0d (legal: a power of two dividing WARP_SIZE=%0d)", TIDS, WARP_SIZE);
        end
    endgenerate
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif

    reg [TIDS*48-1:0] mem [0:ROWS_T-1];
    wire [TH_W-1:0]    wslot = waddr[TH_W-1:0];
    wire [TH_W-1:0]    wq    = wslot >> LOG_T;  // row of the group (its entry bits are 0)
    wire [RIX_W-1:0]   wrow  = wq[RIX_W-1:0];
    reg  [TIDS*48-1:0] wd;
    always @(*) begin
        wd = wdata;
`ifdef SIMT_FAULTS
        if (simt_fault == `SIMT_FAULT_TID_ENTRY && TIDS > 1) wd[48 +: 48] = wdata[47:0];
`endif
    end
    // One write port: every enabled entry of the same row on the same edge (a per-entry enable).
    integer k;
    always @(posedge clk) begin
        for (k = 0; k < TIDS; k = k + 1)
            if (we[k]) mem[wrow][k*48 +: 48] <= wd[k*48 +: 48];
    end

    genvar l;
    generate
        for (l = 0; l < NUM_LANES; l = l + 1) begin : g_rd
            wire [TH_W-1:0]    slot = rslot[l*TH_W +: TH_W];
            wire [TH_W-1:0]    q    = slot >> LOG_T;
            wire [TIDS*48-1:0] row  = mem[q[RIX_W-1:0]];
            wire [EIX_W-1:0]   ent  = (TIDS > 1) ? slot[EIX_W-1:0] : {EIX_W{1'b0}};
            always @(*) rdata[l*48 +: 48] = row[ent*48 +: 48];
            wire unused_rd = &{1'b0, q};  // the row index uses its low bits
        end
    endgenerate

    wire unused_ok = &{1'b0, waddr, wq};
endmodule
