`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
`include "simt_fault.vh"
// Shared writeback: where a shared instruction's rows land after it has left EX (docs/sm.md "Pipeline").
//
// A shared instruction takes an entry when its row 0 enters the LSU (alloc) and leaves EX with its
// last row, so the next instruction enters EX while the LSU still answers. Entries are a ring in issue
// order; the LSU answers rows in order, so each answer belongs to the oldest entry still waiting for
// rows (land). An answered row is kept in the entry's value buffer (the retire record's values) and a
// load row is written to the register file: in its answer cycle when the port is free, else later.
// Write-port priority (docs/sm.md "Pipeline"): EX's writing row first (ex_want: EX has a row that
// writes and may go); a landing row that meets it waits in the value buffer as the one pending row
// (pend) and is written from there in the next cycle the port is free. The exception (hold_swb): a
// row is pending and another load row lands -- the buffer holds one pending row, so the pending row
// takes the port and EX's row waits that cycle (the landing row becomes the pending one). An entry
// moves to CM only when every row has landed and none is left unwritten, so a younger instruction of
// its warp (simt_scoreboard holds it until then) reads every landed row from the register file.
// With EX_FIRST = 0 (simt_sm's SWB_EX_FIRST) the landing row always has the port instead (hold_swb
// whenever a load row lands) and nothing is ever pending: the write port of issue 32's second round.
// When every row has landed and been written, the oldest entry moves to CM
// (to_cm, when CM is free: cm_ok) and stays allocated while CM holds it (in_cm): CM reads its values
// from `vals` until it completes. Shared instructions reach CM in issue order among themselves.
// Entries: ceil((ROWS + 3) / ROWS), what one shared instruction per ROWS cycles needs (an entry lives
// from its row 0 to its retire, ROWS + 3 cycles). Reset and an error (halt) stop it; reset empties it.
// Test-only faults 13 and 22 (SIMT_FAULTS builds, docs/sm.md "Test-only fault hooks"); unit bench
// tb/tests/unit/test_shared_wb.py.
module simt_shared_wb #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE,   // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES,   // machine parameter (checked in simt_sm)
    parameter integer RF_AW     = 10,                        // register row address width
    parameter integer WID_W     = 4,                         // warp slot index width
    parameter integer EX_FIRST  = 1,                         // write port: 1 EX's row first, 0 this unit's
    parameter integer PW        = $clog2(NUM_LANES + 1)      // LSU passes width; derived
) (
    input  wire                      clk,
    input  wire                      rst,
    input  wire                      halt,
    input  wire [5:0]                cfg_regs,
    // allocation: row 0 of a shared instruction enters the LSU this cycle
    output wire                      can_alloc,
    input  wire                      alloc,
    input  wire [WID_W-1:0]          alloc_warp,
    input  wire [31:0]               alloc_instr,
    input  wire [4:0]                alloc_rd,
    input  wire                      alloc_load,
    input  wire [WARP_SIZE-1:0]      alloc_mask,
    // LSU answers (in row order)
    input  wire                      rsp_valid,
    input  wire [NUM_LANES*32-1:0]   rsp_data,
    input  wire [PW-1:0]             rsp_passes,
    // register-file write of a landed row: the pending one, else the landing one (EX's row first)
    input  wire                      ex_want,     // EX has a row that writes the register file this cycle
    output wire                      hold_swb,    // EX's row must wait: the pending row takes the port
    output wire                      rf_we_any,
    output wire [NUM_LANES-1:0]      rf_we,
    output wire [RF_AW-1:0]          rf_waddr,
    output wire [NUM_LANES*32-1:0]   rf_wdata,
    // towards CM
    output wire                      waiting,     // an entry has not moved to CM yet
    output wire                      waiting2,    // ... two or more
    input  wire                      cm_ok,       // CM is empty or completes without an error
    output wire                      to_cm,       // the oldest entry moves to CM this cycle
    output wire [WID_W-1:0]          to_cm_warp,
    output wire [31:0]               to_cm_instr,
    output wire [6:0]                to_cm_passes,
    output reg                       in_cm,       // CM holds the oldest entry
    output wire [WARP_SIZE*32-1:0]   vals         // its values (retire record)
);
    /* verilator lint_off WIDTHEXPAND */
    /* verilator lint_off WIDTHTRUNC */
    // An illegal pair (NUM_LANES > WARP_SIZE) is refused by simt_sm's parameter check; ROWS = 1 keeps
    // the widths below defined until that check runs (Icarus stops on a division by zero first).
    localparam integer ROWS  = (NUM_LANES > 0 && WARP_SIZE >= NUM_LANES) ? WARP_SIZE / NUM_LANES : 1;
    localparam integer N     = (ROWS + 3 + ROWS - 1) / ROWS;  // entries
    localparam integer NW    = $clog2(N);                    // ring index width (N >= 2)
    localparam integer ROW_W = (ROWS > 1) ? $clog2(ROWS) : 1;
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
`endif

    reg [N-1:0]             e_done;    // every row has landed
    reg [WID_W-1:0]         e_warp  [0:N-1];
    reg [31:0]              e_instr [0:N-1];
    reg [4:0]               e_rd    [0:N-1];
    reg [N-1:0]             e_load;
    reg [WARP_SIZE-1:0]     e_mask  [0:N-1];
    reg [6:0]               e_passes[0:N-1];
    reg [N*WARP_SIZE*32-1:0] e_vals;
    reg [NW-1:0]            head, tail, land;   // oldest entry, next to allocate, entry receiving answers
    reg [ROW_W-1:0]         land_row;            // rows of `land` answered so far
    reg [NW:0]              n_alloc;             // entries allocated (in_cm's included)

    function automatic [NW-1:0] nxt(input [NW-1:0] i);
        nxt = (i == N - 1) ? {NW{1'b0}} : i + 1'b1;
    endfunction

    assign can_alloc = n_alloc != N;
    wire [NW:0] n_wait = n_alloc - {{NW{1'b0}}, in_cm};
    assign waiting  = n_wait != 0;
    assign waiting2 = n_wait > 1;

    // The landing row (counted, kept) and the pending row (landed earlier, not yet written).
    reg              pend;       // a load row waits in the value buffer for the write port
    reg [NW-1:0]     pend_e;     // ... its entry
    reg [ROW_W-1:0]  pend_row;   // ... its row
    wire last_row = land_row == ROWS - 1;
    // After an error nothing more is written (docs/isa.md 7: the faulting instruction's own earlier
    // rows may, or may not, have written theirs).
    wire land_ld  = rsp_valid && e_load[land] && !halt;   // a load row lands
    // EX_FIRST = 0: the landing row always takes the port (EX's row waits), nothing is ever pending.
    assign hold_swb = EX_FIRST != 0 ? pend && land_ld : land_ld;  // two rows to place: the pending one writes
`ifdef SIMT_FAULTS
    // Fault 22: the port priority broken -- a landed row is written in a cycle EX's row has the port
    // (in the SM EX's row wins the port and the row is lost; the unit bench sees the collision).
    wire f_first = simt_fault == `SIMT_FAULT_SWB_PORT;
`else
    wire f_first = 1'b0;
`endif
    wire port_ok  = !ex_want || hold_swb || f_first;     // the port is this unit's this cycle
    wire wr_pend  = pend && !halt && port_ok;
    wire wr_land  = land_ld && !pend && port_ok;
    // After this cycle: the pending row (the old one if not written, else the landing row not written).
    wire          nx_pend   = pend ? (!wr_pend || land_ld) : (land_ld && !wr_land);
    wire [NW-1:0] nx_pend_e = (pend && !wr_pend) ? pend_e : land;
    wire [NW-1:0] w_e       = pend ? pend_e : land;       // the entry of the row written now
    wire [ROW_W-1:0] w_row  = pend ? pend_row : land_row;
`ifdef SIMT_FAULTS
    // Fault 13: the row is written at the oldest entry's warp and rd, not its own entry's (the
    // same while one entry is in flight; wrong once rows of a younger entry land behind an older one).
    wire [NW-1:0] wb = simt_fault == `SIMT_FAULT_SWB_HEAD_ROW ? head : w_e;
`else
    wire [NW-1:0] wb = w_e;
`endif
    wire [RF_AW-1:0] w_base = e_warp[wb] * cfg_regs * ROWS + e_rd[wb] * ROWS;
    assign rf_we_any = wr_pend || wr_land;
    assign rf_we     = rf_we_any ? e_mask[w_e][w_row * NUM_LANES +: NUM_LANES] : {NUM_LANES{1'b0}};
    assign rf_waddr  = w_base + w_row;
    assign rf_wdata  = pend ? e_vals[(pend_e * WARP_SIZE + pend_row * NUM_LANES) * 32 +: NUM_LANES * 32]
                            : rsp_data;

    // The entry to move to CM next: the oldest, or the one after it while CM holds the oldest. It goes
    // when all its rows have landed (or the last lands now) and none is left unwritten after this cycle.
    wire [NW-1:0] cand = in_cm ? nxt(head) : head;
    wire cand_landing = rsp_valid && land == cand && last_row;
    wire cand_unwritten = nx_pend && nx_pend_e == cand;
    assign to_cm = !halt && cm_ok && n_wait != 0 && (e_done[cand] || cand_landing) && !cand_unwritten;
    assign to_cm_warp   = e_warp[cand];
    assign to_cm_instr  = e_instr[cand];
    assign to_cm_passes = e_passes[cand] + (cand_landing ? 7'(rsp_passes) : 7'd0);
    assign vals = e_vals[head * WARP_SIZE * 32 +: WARP_SIZE * 32];
    wire free_head = in_cm && cm_ok;  // CM completes the oldest entry


    always @(posedge clk) begin
        if (rst) begin
            e_done   <= {N{1'b0}};
            head     <= {NW{1'b0}};
            tail     <= {NW{1'b0}};
            land     <= {NW{1'b0}};
            land_row <= {ROW_W{1'b0}};
            n_alloc  <= {(NW+1){1'b0}};
            in_cm    <= 1'b0;
            pend     <= 1'b0;
        end else begin
            pend <= nx_pend;
            if (nx_pend) begin
                pend_e   <= nx_pend_e;
                pend_row <= (pend && !wr_pend) ? pend_row : land_row;
            end
            n_alloc <= n_alloc + {{NW{1'b0}}, alloc} - {{NW{1'b0}}, free_head};
            if (alloc) begin
                e_done[tail]   <= 1'b0;
                e_warp[tail]   <= alloc_warp;
                e_instr[tail]  <= alloc_instr;
                e_rd[tail]     <= alloc_rd;
                e_load[tail]   <= alloc_load;
                e_mask[tail]   <= alloc_mask;
                e_passes[tail] <= 7'd0;
                tail           <= nxt(tail);
            end
            if (rsp_valid) begin
                e_passes[land] <= e_passes[land] + 7'(rsp_passes);
                if (e_load[land])
                    e_vals[(land * WARP_SIZE + land_row * NUM_LANES) * 32 +: NUM_LANES * 32] <= rsp_data;
                if (last_row) begin
                    e_done[land] <= 1'b1;
                    land         <= nxt(land);
                    land_row     <= {ROW_W{1'b0}};
                end else begin
                    land_row <= land_row + 1'b1;
                end
            end
            if (free_head) begin
                head          <= nxt(head);
            end
            if (free_head || to_cm) in_cm <= to_cm;
        end
    end
endmodule
