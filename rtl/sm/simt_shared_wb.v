`include "simt_params.vh"  // machine parameter defaults (docs/isa.md 9)
`include "simt_fault.vh"
// Shared writeback: where a shared instruction's rows land after it has left EX (docs/sm.md "Pipeline").
//
// A shared instruction takes an entry when its row 0 enters the LSU (alloc) and leaves EX with its
// last row, so the next instruction enters EX while the LSU still answers. Entries are a ring in issue
// order; the LSU answers rows in order, so each answer belongs to the oldest entry still waiting for
// rows (land). An answered load row is written to the register file in its answer cycle -- this unit
// has the write port's first claim, EX's writing row waits a cycle (simt_execute) -- and kept in the
// entry's value buffer for the retire record. When every row has landed, the oldest entry moves to CM
// (to_cm, when CM is free: cm_ok) and stays allocated while CM holds it (in_cm): CM reads its values
// from `vals` until it completes. Shared instructions reach CM in issue order among themselves.
// Entries: ceil((ROWS + 3) / ROWS), what one shared instruction per ROWS cycles needs (an entry lives
// from its row 0 to its retire, ROWS + 3 cycles). Reset and an error (halt) stop it; reset empties it.
// Test-only fault 13 (SIMT_FAULTS builds, docs/sm.md "Test-only fault hooks"); unit bench
// tb/tests/unit/test_shared_wb.py.
module simt_shared_wb #(
    parameter integer WARP_SIZE = `SIMT_DEFAULT_WARP_SIZE,   // machine parameter (checked in simt_sm)
    parameter integer NUM_LANES = `SIMT_DEFAULT_NUM_LANES,   // machine parameter (checked in simt_sm)
    parameter integer RF_AW     = 10,                        // register row address width
    parameter integer WID_W     = 4,                         // warp slot index width
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
    // register-file write of the landing row (first claim on the port)
    output wire                      rf_we_any,
    output wire [NUM_LANES-1:0]      rf_we,
    output wire [RF_AW-1:0]          rf_waddr,
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

    // The landing row: written to the register file now (loads), counted, kept.
    wire last_row = land_row == ROWS - 1;
`ifdef SIMT_FAULTS
    // Fault 13: the landing row is written at the oldest entry's warp and rd, not its own entry's (the
    // same while one entry is in flight; wrong once rows of a younger entry land behind an older one).
    wire [NW-1:0] wb = simt_fault == `SIMT_FAULT_SWB_HEAD_ROW ? head : land;
`else
    wire [NW-1:0] wb = land;
`endif
    wire [RF_AW-1:0] land_base = e_warp[wb] * cfg_regs * ROWS + e_rd[wb] * ROWS;
    // After an error nothing more is written (docs/isa.md 7: the faulting instruction's own earlier
    // rows may, or may not, have written theirs).
    assign rf_we_any = rsp_valid && e_load[land] && !halt;
    assign rf_we     = rf_we_any ? e_mask[land][land_row * NUM_LANES +: NUM_LANES] : {NUM_LANES{1'b0}};
    assign rf_waddr  = land_base + land_row;

    // The entry to move to CM next: the oldest, or the one after it while CM holds the oldest.
    wire [NW-1:0] cand = in_cm ? nxt(head) : head;
    wire cand_landing = rsp_valid && land == cand && last_row;
    assign to_cm = !halt && cm_ok && n_wait != 0 && (e_done[cand] || cand_landing);
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
        end else begin
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
