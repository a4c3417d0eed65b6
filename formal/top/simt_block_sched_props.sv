// Properties of simt_block_sched (docs/gpu.md "Block scheduler"): proved by k-induction in `make formal`.
//
// Contract (simt_gpu, tb/tests/unit/test_block_sched.py): reset first; start only while idle, with a grid
// of 1..3 blocks per dimension (small for the proof; the logic is per dimension) and cfg_nblocks = x*y*z,
// both stable until done or abort; blk_ready free; blk_done pulses only for blocks that are running (at
// most as many pulses as blocks dispatched and not done); abort free.
// Properties:
//   at most one block is dispatched per cycle, only to a ready SM, and only while blocks remain;
//   no block lost or duplicated: the k-th dispatch of a launch carries blk_id k and the ctaid
//   {z, y, x} with k = x + X*(y + Y*z), x < X, y < Y; a launch dispatches exactly cfg_nblocks blocks;
//   done only when every block was dispatched and reported done (blocks_done = cfg_nblocks);
//   a launch with every block done finishes (busy falls, done rises) at the next edge;
//   blocks_dispatched / blocks_done count every dispatch / blk_done pulse of the launch;
//   fairness: an SM that is ready at every dispatch gets a block within NUM_SMS dispatches.
module simt_block_sched_props #(
    parameter integer NUM_SMS = 3
) (
    input wire               clk,
    input wire               rst,
    input wire               start,
    input wire               abort,
    input wire [47:0]        cfg_grid,
    input wire [31:0]        cfg_nblocks,
    input wire [NUM_SMS-1:0] blk_ready,
    input wire [NUM_SMS-1:0] blk_done
);
    localparam integer SM_W = (NUM_SMS > 1) ? $clog2(NUM_SMS) : 1;
    localparam integer N = NUM_SMS;

    wire [NUM_SMS-1:0] blk_valid;
    wire [31:0]        blk_id, blocks_dispatched, blocks_done;
    wire [47:0]        blk_ctaid;
    wire               busy, done;
    simt_block_sched #(.NUM_SMS(NUM_SMS)) dut (
        .clk(clk), .rst(rst), .start(start), .abort(abort), .cfg_grid(cfg_grid), .cfg_nblocks(cfg_nblocks),
        .blk_valid(blk_valid), .blk_ready(blk_ready), .blk_id(blk_id), .blk_ctaid(blk_ctaid),
        .blk_done(blk_done), .busy(busy), .done(done), .blocks_dispatched(blocks_dispatched),
        .blocks_done(blocks_done)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    wire [15:0] gx = cfg_grid[15:0], gy = cfg_grid[31:16], gz = cfg_grid[47:32];

    // ---- contract
    reg [47:0] c_grid;
    reg [31:0] c_nblocks;
    reg        launched;  // start seen since reset (the configuration is held from then on)
    always @(posedge clk) begin
        if (rst) launched <= 1'b0;
        else if (start && !busy && !abort) begin
            launched <= 1'b1; c_grid <= cfg_grid; c_nblocks <= cfg_nblocks;
        end
    end
    wire dispatch = |blk_valid;
    reg [31:0] k_disp;  // dispatches of this launch (the wrapper's count)
    reg [31:0] k_done;
    always @(posedge clk) begin
        if (rst) k_disp <= 0;
        else if (abort) ;
        else if (start && !busy) k_disp <= 0;
        else if (dispatch) k_disp <= k_disp + 1;
    end
    // blocks reported done (also in an abort cycle: the counters stay for inspection)
    always @(posedge clk) begin
        if (rst) k_done <= 0;
        else if (start && !busy && !abort) k_done <= 0;
        else if (busy) k_done <= k_done + $countones(blk_done);
    end
    always @* begin
        if (!init) begin
            if (start && !busy) begin
                assume (gx >= 1 && gx <= 3 && gy >= 1 && gy <= 3 && gz >= 1 && gz <= 3);
                assume (cfg_nblocks == gx * gy * gz);
            end else if (launched) begin
                assume (cfg_grid == c_grid && cfg_nblocks == c_nblocks);
            end
            if (!busy) assume (blk_done == 0);
            else assume ($countones(blk_done) + k_done <= k_disp);
        end
    end

    // ---- fairness
    (* anyconst *) reg [SM_W-1:0] ws;
    always @* assume (ws < N);
    reg [SM_W:0] waited;
    always @(posedge clk) begin
        if (rst || (start && !busy)) waited <= 0;
        else if (dispatch) waited <= (blk_valid[ws] || !blk_ready[ws]) ? 0 : waited + 1'b1;
    end
    function automatic integer dist(input integer last, input integer b);
        integer a;
        begin
            a = (last + 1 >= N) ? 0 : last + 1;
            dist = (b >= a) ? b - a : b + N - a;
        end
    endfunction

    // peek: p_last = dut.last
    // peek: p_run = dut.run
    (* keep *) wire [SM_W-1:0] p_last;
    (* keep *) wire p_run;

    wire [15:0] cx = blk_ctaid[15:0], cy = blk_ctaid[31:16], cz = blk_ctaid[47:32];
    always @* begin
        if (!init) begin
            assert ($onehot0(blk_valid));
            assert ((blk_valid & ~blk_ready) == 0);
            if (dispatch) begin
                assert (busy && !abort);
                assert (blocks_dispatched < cfg_nblocks);
                assert (blk_id == k_disp);
                assert (cx < gx && cy < gy);
                assert (blk_id == cx + gx * (cy + gy * cz));
            end
            if (done) assert (!busy && blocks_dispatched == c_nblocks && blocks_done == c_nblocks);
            assert (waited <= N - 1);
            // the status counters count every dispatch and every blk_done pulse of the launch
            if (launched) assert (blocks_dispatched == k_disp && blocks_done == k_done);
`ifdef INVARIANTS
            assert (p_run == busy);
            assert (p_last < N);
            assert (waited + dist(p_last, ws) <= N - 1);
            if (launched) begin
                assert (k_disp <= c_nblocks && k_done <= k_disp);
                assert (c_nblocks == c_grid[15:0] * c_grid[31:16] * c_grid[47:32]);
                assert (c_grid[15:0] >= 1 && c_grid[15:0] <= 3 && c_grid[31:16] >= 1 && c_grid[31:16] <= 3);
                assert (c_grid[47:32] >= 1 && c_grid[47:32] <= 3);
                if (busy) begin
                    assert (cx < gx && cy < gy);
                    assert (blocks_dispatched == cx + gx * (cy + gy * cz));
                end
            end else begin
                assert (!busy && !done);
            end
`endif
        end
    end

    // finishing: every block dispatched and done -> idle and done at the next edge
    reg fin_q;
    always @(posedge clk) fin_q <= !init && !rst && !abort && busy && blocks_dispatched == cfg_nblocks
                                   && blocks_done == cfg_nblocks;
    always @* if (!init && fin_q) assert (!busy && done);
endmodule
