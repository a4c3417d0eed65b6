`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
// Block scheduler (docs/gpu.md "Block scheduler").
//
// After `start` it walks the grid in flat block order, 0 .. cfg_nblocks-1, keeping ctaid {z, y, x} in
// counters (x fastest, then y, then z: no division), and offers the current block to one SM at a time:
// the first SM whose blk_ready is high, searching from the SM after the last one that took a block
// (wrapping). So every SM with a free slot gets blocks in turn and all SMs fill up. A launch is done
// when every block has been dispatched and every SM has reported each of its blocks on blk_done.
//
// Ports: blk_id / blk_ctaid are one bus shared by all SMs (only the SM whose blk_valid bit is set
// samples them). blk_valid depends combinationally on blk_ready (the round-robin choice) and on
// abort; simt_sm's blk_ready does not depend on blk_valid, so there is no loop. At most one block is
// dispatched per cycle. blk_done may pulse on several SMs in one cycle; all are counted.
// Timing: busy rises the cycle after start; done rises (and busy falls) two cycles after the cycle of
// the last blk_done pulse. `done` is a level, held until the next start or abort; `start` while busy
// is ignored; `abort` returns to idle at the next edge, offers no block in its own cycle, and keeps
// the counters for inspection until the next start (the GPU resets the SMs).
module simt_block_sched #(
    parameter integer NUM_SMS = `SIMT_DEFAULT_NUM_SMS, // streaming multiprocessors
    // derived width; not meant to be overridden
    parameter integer SM_W = (NUM_SMS > 1) ? $clog2(NUM_SMS) : 1
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               start,              // pulse: launch (configuration stable until done)
    // `abort` is also a C library function name; Verilator renames its C++ symbol itself, the
    // port keeps the name docs/gpu.md uses (CTRL.ABORT).
    /* verilator lint_off SYMRSVDWORD */
    input  wire               abort,              // pulse: back to idle
    /* verilator lint_on SYMRSVDWORD */
    // {z, y, x}, 16 bits each, each >= 1. z is not needed: the walk ends by the block count, so z
    // only counts up. The full {z, y, x} is kept so the SMs' cfg_grid bus connects unchanged.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [47:0]        cfg_grid,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0]        cfg_nblocks,        // x * y * z (from simt_loader)
    // block dispatch, one valid bit per SM, shared id / ctaid
    output reg  [NUM_SMS-1:0] blk_valid,
    input  wire [NUM_SMS-1:0] blk_ready,
    output wire [31:0]        blk_id,             // flat block index
    output wire [47:0]        blk_ctaid,          // {z, y, x}
    input  wire [NUM_SMS-1:0] blk_done,           // one-cycle pulses: a block finished
    // status
    output wire               busy,
    output wire               done,
    output reg  [31:0]        blocks_dispatched,
    output reg  [31:0]        blocks_done
);
    generate
        `SIMT_CHECK_NUM_SMS("simt_block_sched", NUM_SMS)
    endgenerate

    reg        run;       // a launch is in progress
    reg        done_q;
    reg [15:0] cx, cy, cz;
    reg [SM_W-1:0] last;  // SM that took the last block

    // A block is waiting to be dispatched. Not in an abort cycle: a block handed out then would be
    // lost to the count while the SM that took it still runs it.
    wire have = run && !abort && blocks_dispatched != cfg_nblocks;

    // ---- round-robin choice: first ready SM after `last` -----------------------------------------
    reg            found;
    reg [SM_W-1:0] pick;
    integer i, j;
    always @(*) begin
        found = 1'b0;
        pick  = {SM_W{1'b0}};
        for (i = 0; i < NUM_SMS; i = i + 1) begin
            // Candidate SM (last + 1 + i) mod NUM_SMS; the sum stays below 2 * NUM_SMS.
            j = {{(32 - SM_W){1'b0}}, last} + 1 + i;
            if (j >= NUM_SMS) j = j - NUM_SMS;
            if (!found && blk_ready[j]) begin
                found = 1'b1;
                pick  = j[SM_W-1:0];
            end
        end
    end
    always @(*) begin
        blk_valid = {NUM_SMS{1'b0}};
        if (have && found) blk_valid[pick] = 1'b1;
    end
    wire dispatch = have && found;  // the picked SM is ready: the block goes this cycle

    assign blk_id    = blocks_dispatched;
    assign blk_ctaid = {cz, cy, cx};
    assign busy      = run;
    assign done      = done_q;

    // ---- grid walk -------------------------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            run               <= 1'b0;
            done_q            <= 1'b0;
            blocks_dispatched <= 32'd0;
            cx                <= 16'd0;
            cy                <= 16'd0;
            cz                <= 16'd0;
            last              <= NUM_SMS[SM_W-1:0] - 1'b1;
        end else if (abort) begin
            run               <= 1'b0;
            done_q            <= 1'b0;
        end else if (start && !run) begin
            run               <= 1'b1;
            done_q            <= 1'b0;
            blocks_dispatched <= 32'd0;
            {cz, cy, cx}      <= 48'd0;
            last              <= NUM_SMS[SM_W-1:0] - 1'b1;  // SM 0 gets the first block
        end else if (run && blocks_dispatched == cfg_nblocks && blocks_done == cfg_nblocks) begin
            run               <= 1'b0;
            done_q            <= 1'b1;
        end else if (dispatch) begin
            blocks_dispatched <= blocks_dispatched + 32'd1;
            last              <= pick;
            if (cx != cfg_grid[15:0] - 16'd1) begin
                cx <= cx + 16'd1;
            end else begin
                cx <= 16'd0;
                if (cy != cfg_grid[31:16] - 16'd1) begin
                    cy <= cy + 16'd1;
                end else begin
                    cy <= 16'd0;
                    cz <= cz + 16'd1;
                end
            end
        end
    end

    // ---- completions -----------------------------------------------------------------------------
    reg [4:0] ndone_now;  // blocks completing this cycle (up to 16)
    integer k;
    always @(*) begin
        ndone_now = 5'd0;
        for (k = 0; k < NUM_SMS; k = k + 1)
            ndone_now = ndone_now + {4'd0, blk_done[k]};
    end
    always @(posedge clk) begin
        if (rst)                  blocks_done <= 32'd0;
        else if (start && !run && !abort) blocks_done <= 32'd0;
        else if (run)             blocks_done <= blocks_done + {27'd0, ndone_now};
    end
endmodule
