// Properties of simt_warp_table (docs/sm.md "Pipeline"): proved by k-induction in `make formal`.
//
// The warp table is the only writer of warp state; the pipeline stages report events to it. The
// wrapper keeps its own record of each warp and block slot, built only from those events, and checks
// what the table reports (ready vector, block slots, block completion, every read port) against it.
//
// Contract (what simt_sm and its stages drive; docs/sm.md): reset first; the launch configuration is
// constant (cfg_wpb 1..NUM_WARPS warps of cfg_threads threads, cfg_slots 1..NUM_BLOCKS slots with
// cfg_slots * cfg_wpb <= NUM_WARPS, the launch checks of docs/isa.md 8.1); a block is dispatched only
// while a slot is free and no block is being initialised (simt_block_init: one at a time); start names
// the slot being initialised and its warps slot * cfg_wpb ..; F grants (the scheduler) only a READY warp
// or takes back (a completed global access) a warp waiting on memory; DEC releases (rel, issue ahead,
// docs/sm.md "Issue ahead") only the warp whose instruction it holds (in the pipeline, d_can_rel) and
// not one F grants in that cycle; CM hands off (cm_issued) only a warp in the pipeline with no released
// instruction ahead of it, retires (cm_retire) a released instruction of a warp (the oldest in flight:
// in order) or else the warp's instruction in the pipeline, never hand-off and retire in one cycle; a
// released instruction neither finishes the warp nor waits at a barrier (it continues at pc + 1), and
// a retire that does not finish the warp leaves some thread active (nx_mask != 0); bar_release and the
// other nx_* are free.
// (simt_sm_props checks in the whole SM that the stages keep this contract.)
// Properties:
//   a warp is never issued twice while in flight: ready[w] exactly for a started warp that is neither in
//   the pipeline (granted, not yet released, retired or handed off), nor waiting on memory or at a
//   barrier, nor done, and the idle-warp rule (IDLE_MIN, docs/sm.md "Issue ahead"): while IDLE_MIN or
//   more READY warps have no released instruction in flight, a READY warp that has some is not offered
//   (ready low), otherwise every READY warp is; the rule never hides every READY warp; issue ahead: at
//   most AHEAD released instructions per warp (d_can_rel exactly for a warp with an empty stack and
//   fewer than AHEAD ahead), F's pc is the committed pc plus the released
//   instructions, and the retire of a released instruction moves the pc but not the warp's state;
//   a barrier-waiting warp becomes READY only on its block's release; n_bar_waiting counts them;
//   a block slot is resident from its dispatch until its last warp retires done; free_slot is the lowest
//   free usable slot; any_block = some slot resident;
//   blk_done pulses exactly once per block, in the cycle after its cfg_wpb-th warp retired done, with
//   the id it was dispatched with, and the block's warps become EMPTY (its slot free);
//   every read port (F, DEC, EX, CM, debug) returns the last value written: pc 0, the valid-thread
//   mask and stack depth 0 at the block's start, then the retired instruction's next pc, mask,
//   exited lanes and depth; block slot, warp index in the block, block id and ctaid; the debug view's
//   state, retired flag and last retired pc;
//   a started warp that is not done has a non-empty active mask (given CM's guarantee that a retire
//   that does not finish the warp leaves a thread active): the mask a retire record reports is never
//   empty (docs/testplan.yaml hole gpu.instr.opcode_x_mask.cross 'none').
module simt_warp_table_props #(
    parameter integer WARP_SIZE  = 2,
    parameter integer NUM_WARPS  = 3,
    parameter integer NUM_BLOCKS = 2,
    parameter integer PCX_W      = 3,
    parameter integer DEPTH_W    = 2,
    parameter integer AHEAD      = 2,  // issue ahead (simt_sm's ISSUE_AHEAD; its default is 2)
    parameter integer IDLE_MIN   = 1   // idle-warp rule (simt_sm's IDLE_MIN; its default is 1; 0 off)
) (
    input wire                  clk,
    input wire                  rst,
    input wire                  dispatch,
    input wire [31:0]           blk_id,
    input wire [47:0]           blk_ctaid,
    input wire                  start,
    input wire                  start_slot,
    input wire [1:0]            start_warp,
    input wire [NUM_BLOCKS-1:0] bar_release,
    input wire                  grant,
    input wire [1:0]            grant_warp,
    input wire                  rel,
    input wire                  cm_issued,
    input wire                  cm_retire,
    input wire [1:0]            cm_warp,
    input wire [PCX_W-1:0]      nx_pc,
    input wire [WARP_SIZE-1:0]  nx_mask,
    input wire [WARP_SIZE-1:0]  nx_exited,
    input wire [DEPTH_W-1:0]    nx_depth,
    input wire                  nx_done,
    input wire                  nx_bar,
    input wire [1:0]            f_warp,
    input wire [1:0]            d_warp,
    input wire [1:0]            x_warp,
    input wire [1:0]            g_warp
);
    // Widths: NUM_WARPS = 3 -> warp index 2 bits, NUM_BLOCKS = 2 -> slot index 1 bit, counts 2 bits.
    localparam integer N = NUM_WARPS;
    localparam integer B = NUM_BLOCKS;
    localparam [2:0] WS_EMPTY = 3'd0, WS_READY = 3'd1, WS_BUSY = 3'd2, WS_MEM = 3'd3, WS_BAR = 3'd4,
                     WS_DONE = 3'd5;

    // the launch configuration: constant
    (* anyconst *) reg [10:0] cfg_threads;
    (* anyconst *) reg [1:0]  cfg_wpb;
    (* anyconst *) reg [1:0]  cfg_slots;

    wire                 free_found, free_slot, any_block, blk_done, x_slot, c_slot;
    wire [31:0]          blk_done_id, x_block, c_block, g_block;
    wire [N-1:0]         ready;
    wire [5:0]           n_bar_waiting;
    wire [PCX_W-1:0]     f_pc, d_pc, x_pc, c_pc, g_pc, g_last_pc;
    wire [WARP_SIZE-1:0] x_mask, c_mask, c_valid, c_exited;
    wire [4:0]           x_wib, c_wib, g_wib;
    wire [47:0]          x_ctaid;
    wire [DEPTH_W-1:0]   c_depth;
    wire [2:0]           g_state;
    wire                 g_retired, d_can_rel;
    simt_warp_table #(.WARP_SIZE(WARP_SIZE), .NUM_WARPS(NUM_WARPS), .NUM_BLOCKS(NUM_BLOCKS), .PCX_W(PCX_W),
                      .DEPTH_W(DEPTH_W), .AHEAD(AHEAD), .IDLE_MIN(IDLE_MIN)) dut (
        .clk(clk), .rst(rst), .cfg_threads(cfg_threads), .cfg_wpb(cfg_wpb), .cfg_slots(cfg_slots),
        .dispatch(dispatch), .blk_id(blk_id), .blk_ctaid(blk_ctaid), .free_found(free_found),
        .free_slot(free_slot), .any_block(any_block), .blk_done(blk_done), .blk_done_id(blk_done_id),
        .start(start), .start_slot(start_slot), .start_warp(start_warp), .bar_release(bar_release),
        .grant(grant), .grant_warp(grant_warp), .rel(rel), .d_can_rel(d_can_rel), .cm_issued(cm_issued), .cm_retire(cm_retire), .cm_warp(cm_warp),
        .nx_pc(nx_pc), .nx_mask(nx_mask), .nx_exited(nx_exited), .nx_depth(nx_depth), .nx_done(nx_done),
        .nx_bar(nx_bar), .ready(ready), .n_bar_waiting(n_bar_waiting), .f_warp(f_warp), .f_pc(f_pc),
        .d_warp(d_warp), .d_pc(d_pc), .x_warp(x_warp), .x_pc(x_pc), .x_mask(x_mask), .x_slot(x_slot),
        .x_wib(x_wib), .x_block(x_block), .x_ctaid(x_ctaid), .c_pc(c_pc), .c_mask(c_mask), .c_valid(c_valid),
        .c_exited(c_exited), .c_depth(c_depth), .c_slot(c_slot), .c_wib(c_wib), .c_block(c_block),
        .g_warp(g_warp), .g_state(g_state), .g_block(g_block), .g_wib(g_wib), .g_pc(g_pc),
        .g_retired(g_retired), .g_last_pc(g_last_pc)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // ---- the wrapper's record, from the events only
    // per warp: started (its block resident and started), in the pipeline, waiting on memory, at a
    // barrier, done; the values last written
    reg [N-1:0]         live, busy, mem, bar, fin, rtd;
    reg [PCX_W-1:0]     m_pc   [0:N-1];
    reg [PCX_W-1:0]     m_last [0:N-1];
    reg [WARP_SIZE-1:0] m_mask [0:N-1];
    reg [WARP_SIZE-1:0] m_exit [0:N-1];
    reg [WARP_SIZE-1:0] m_vld  [0:N-1];
    reg [DEPTH_W-1:0]   m_dep  [0:N-1];
    reg [N-1:0]         m_slot;
    reg [1:0]           m_wib  [0:N-1];
    reg [2:0]           m_ahd  [0:N-1];  // released instructions in flight (issue ahead)
    // per block slot: resident, id, ctaid, warps done; the slot being initialised
    reg [B-1:0]         res;
    reg [31:0]          m_id    [0:B-1];
    reg [47:0]          m_ctaid [0:B-1];
    reg [1:0]           m_ndone [0:B-1];
    reg                 pend, pend_slot;
    reg                 m_bd;      // blk_done expected (the pulse)
    reg [31:0]          m_bd_id;

    // valid-thread mask of warp k of a block
    function automatic [WARP_SIZE-1:0] valid_of(input integer k);
        integer l;
        begin
            for (l = 0; l < WARP_SIZE; l = l + 1) valid_of[l] = (k * WARP_SIZE + l) < cfg_threads;
        end
    endfunction
    function automatic [2:0] state_of(input integer w);
        state_of = !live[w] ? WS_EMPTY : fin[w] ? WS_DONE : bar[w] ? WS_BAR : mem[w] ? WS_MEM :
                   busy[w] ? WS_BUSY : WS_READY;
    endfunction

    // ---- contract
    always @* begin
        assume (cfg_wpb >= 1 && cfg_wpb <= N && cfg_slots >= 1 && cfg_slots <= B && cfg_slots * cfg_wpb <= N);
        assume (cfg_threads > (cfg_wpb - 1) * WARP_SIZE && cfg_threads <= cfg_wpb * WARP_SIZE);
        if (!init && !rst) begin
            if (dispatch) assume (free_found && !pend);
            if (start) assume (pend && start_slot == pend_slot && start_warp == pend_slot * cfg_wpb);
            if (grant) assume (grant_warp < N && (ready[grant_warp] || mem[grant_warp]));
            if (rel) assume (d_warp < N && busy[d_warp] && d_can_rel && !(grant && grant_warp == d_warp));
            if (cm_issued) assume (cm_warp < N && busy[cm_warp] && m_ahd[cm_warp] == 0);
            if (cm_retire) assume (cm_warp < N && (busy[cm_warp] || m_ahd[cm_warp] != 0));
            // DEC holds the warp's youngest instruction: CM's of that warp in the same cycle is released
            if (rel && (cm_issued || cm_retire) && cm_warp == d_warp) assume (cm_retire && m_ahd[cm_warp] != 0);
            assume (!(cm_issued && cm_retire));
            // a released instruction continues at pc + 1: it neither finishes the warp nor waits
            if (cm_retire && m_ahd[cm_warp] != 0) assume (!nx_done && !nx_bar);
            // CM (simt_commit, simt_div_stack): a warp that is not finished goes on with some thread
            if (cm_retire && !nx_done) assume (nx_mask != 0);
        end
    end

    // ---- the record's update
    wire       cs = m_slot[cm_warp];  // CM warp's block slot
    wire       cm_ahd = m_ahd[cm_warp] != 0;  // CM retires a released instruction
    wire       last = cm_retire && !cm_ahd && nx_done && m_ndone[cs] + 2'd1 == cfg_wpb;
    integer i;
    always @(posedge clk) begin
        m_bd <= 1'b0;
        if (rst) begin
            live <= 0; busy <= 0; mem <= 0; bar <= 0; fin <= 0; res <= 0; pend <= 1'b0;
            for (i = 0; i < N; i = i + 1) m_ahd[i] <= 3'd0;
        end else begin
            if (dispatch) begin
                res[free_slot] <= 1'b1; m_id[free_slot] <= blk_id; m_ctaid[free_slot] <= blk_ctaid;
                m_ndone[free_slot] <= 2'd0; pend <= 1'b1; pend_slot <= free_slot;
            end
            for (i = 0; i < N; i = i + 1) begin
                if (start && i >= start_warp && i < start_warp + cfg_wpb) begin
                    live[i] <= 1'b1; busy[i] <= 1'b0; mem[i] <= 1'b0; bar[i] <= 1'b0; fin[i] <= 1'b0;
                    rtd[i] <= 1'b0; m_pc[i] <= 0; m_dep[i] <= 0; m_slot[i] <= start_slot;
                    m_wib[i] <= i - start_warp; m_vld[i] <= valid_of(i - start_warp);
                    m_mask[i] <= valid_of(i - start_warp); m_exit[i] <= ~valid_of(i - start_warp);
                end
                if (bar[i] && bar_release[m_slot[i]]) bar[i] <= 1'b0;
                if (grant && grant_warp == i) begin
                    busy[i] <= 1'b1; mem[i] <= 1'b0;
                end
                if (rel && d_warp == i) busy[i] <= 1'b0;
                m_ahd[i] <= m_ahd[i] + (rel && d_warp == i) - (cm_retire && cm_ahd && cm_warp == i);
                if (cm_issued && cm_warp == i) begin
                    busy[i] <= 1'b0; mem[i] <= 1'b1;
                end
                if (cm_retire && cm_warp == i) begin
                    if (!cm_ahd) begin
                        busy[i] <= 1'b0; mem[i] <= 1'b0; bar[i] <= !nx_done && nx_bar; fin[i] <= nx_done;
                    end
                    m_pc[i] <= nx_pc; m_mask[i] <= nx_mask; m_exit[i] <= nx_exited; m_dep[i] <= nx_depth;
                    rtd[i] <= 1'b1; m_last[i] <= m_pc[i];
                end
                // the block's last warp finished: its warps leave the table
                if (last && live[i] && m_slot[i] == cs) begin
                    live[i] <= 1'b0; busy[i] <= 1'b0; mem[i] <= 1'b0; bar[i] <= 1'b0; fin[i] <= 1'b0;
                end
            end
            if (start) pend <= 1'b0;
            if (cm_retire && !cm_ahd && nx_done) begin
                if (last) begin
                    res[cs] <= 1'b0; m_bd <= 1'b1; m_bd_id <= m_id[cs];
                end else m_ndone[cs] <= m_ndone[cs] + 2'd1;
            end
        end
    end

    // ---- properties
    integer   q;
    // rdy: the record's READY warps (started, not in the pipeline, not on memory, at a barrier or done);
    // n_idle of them have no released instruction in flight; held: the idle-warp rule holds back the
    // READY warps running ahead (IDLE_MIN > 0 and at least IDLE_MIN idle READY warps)
    reg [N-1:0] rdy;
    reg [2:0]   n_idle;
    wire        held = IDLE_MIN > 0 && n_idle >= IDLE_MIN;
    always @* begin
        n_idle = 0;
        for (q = 0; q < N; q = q + 1) begin
            rdy[q] = live[q] && !fin[q] && !bar[q] && !mem[q] && !busy[q];
            n_idle = n_idle + (rdy[q] && m_ahd[q] == 0);
        end
    end
    reg [5:0] nbar;
    reg       e_found, e_slot;
    integer   k;
    always @* begin
        nbar = 0;
        for (q = 0; q < N; q = q + 1) nbar = nbar + (live[q] && bar[q] && !fin[q]);
        e_found = 1'b0; e_slot = 1'b0;
        for (q = B - 1; q >= 0; q = q - 1)
            if (!res[q] && q < cfg_slots) begin
                e_found = 1'b1; e_slot = q;
            end
    end
    always @* begin
        if (!init) begin
            // the idle-warp rule (docs/sm.md "Issue ahead"): a READY warp is offered unless IDLE_MIN or
            // more READY warps have nothing in flight and it has released instructions in flight
            for (k = 0; k < N; k = k + 1)
                assert (ready[k] == (rdy[k] && !(held && m_ahd[k] != 0)));
            // the rule never hides every READY warp (an idle one is left to grant)
            if (rdy != 0) assert (ready != 0);
            assert (n_bar_waiting == nbar);
            assert (any_block == (res != 0));
            assert (free_found == e_found);
            if (e_found) assert (free_slot == e_slot);
            assert (blk_done == m_bd);
            if (m_bd) assert (blk_done_id == m_bd_id);
            // read ports
            if (f_warp < N && live[f_warp]) assert (f_pc == m_pc[f_warp] + m_ahd[f_warp]);
            if (d_warp < N && live[d_warp])
                assert (d_can_rel == (AHEAD > 0 && m_dep[d_warp] == 0 && m_ahd[d_warp] < AHEAD));
            if (d_warp < N && live[d_warp]) assert (d_pc == m_pc[d_warp]);
            if (x_warp < N && live[x_warp]) begin
                assert (x_pc == m_pc[x_warp] && x_mask == m_mask[x_warp] && x_slot == m_slot[x_warp]);
                assert (x_wib == m_wib[x_warp] && x_block == m_id[m_slot[x_warp]]);
                if (!fin[x_warp]) assert (x_mask != 0);  // a warp that runs has an active thread
                assert (x_ctaid == m_ctaid[m_slot[x_warp]]);
            end
            if (cm_warp < N && live[cm_warp]) begin
                assert (c_pc == m_pc[cm_warp] && c_mask == m_mask[cm_warp] && c_valid == m_vld[cm_warp]);
                assert (c_exited == m_exit[cm_warp] && c_depth == m_dep[cm_warp]);
                if (!fin[cm_warp]) assert (c_mask != 0);  // so no retire record has an empty mask
                assert (c_slot == m_slot[cm_warp] && c_wib == m_wib[cm_warp] && c_block == m_id[m_slot[cm_warp]]);
            end
            if (g_warp < N) begin
                assert (g_state == state_of(g_warp));
                if (live[g_warp]) begin
                    assert (g_pc == m_pc[g_warp] && g_wib == m_wib[g_warp] && g_block == m_id[m_slot[g_warp]]);
                    assert (g_retired == rtd[g_warp]);
                    if (rtd[g_warp]) assert (g_last_pc == m_last[g_warp]);
                end
            end
        end
    end

    // ---- induction invariants (proof job only): the record is consistent, and the table's storage
    // equals it. The peeked wires exist in every job (the runner connects them).
    // peek: p_state[2:0] = dut.w_state[0]
    // peek: p_state[5:3] = dut.w_state[1]
    // peek: p_state[8:6] = dut.w_state[2]
    // peek: p_pc[2:0] = dut.w_pc[0]
    // peek: p_pc[5:3] = dut.w_pc[1]
    // peek: p_pc[8:6] = dut.w_pc[2]
    // peek: p_last[2:0] = dut.w_last[0]
    // peek: p_last[5:3] = dut.w_last[1]
    // peek: p_last[8:6] = dut.w_last[2]
    // peek: p_mask[1:0] = dut.w_mask[0]
    // peek: p_mask[3:2] = dut.w_mask[1]
    // peek: p_mask[5:4] = dut.w_mask[2]
    // peek: p_vld[1:0] = dut.w_valid[0]
    // peek: p_vld[3:2] = dut.w_valid[1]
    // peek: p_vld[5:4] = dut.w_valid[2]
    // peek: p_exit[1:0] = dut.w_exited[0]
    // peek: p_exit[3:2] = dut.w_exited[1]
    // peek: p_exit[5:4] = dut.w_exited[2]
    // peek: p_dep[1:0] = dut.w_depth[0]
    // peek: p_dep[3:2] = dut.w_depth[1]
    // peek: p_dep[5:4] = dut.w_depth[2]
    // peek: p_slot[0:0] = dut.w_slot[0]
    // peek: p_slot[1:1] = dut.w_slot[1]
    // peek: p_slot[2:2] = dut.w_slot[2]
    // peek: p_wib[4:0] = dut.w_wib[0]
    // peek: p_wib[9:5] = dut.w_wib[1]
    // peek: p_wib[14:10] = dut.w_wib[2]
    // peek: p_rtd = dut.w_rtd
    // peek: p_bval[0:0] = dut.b_valid[0]
    // peek: p_bval[1:1] = dut.b_valid[1]
    // peek: p_bid[31:0] = dut.b_id[0]
    // peek: p_bid[63:32] = dut.b_id[1]
    // peek: p_bcta[47:0] = dut.b_ctaid[0]
    // peek: p_bcta[95:48] = dut.b_ctaid[1]
    // peek: p_bnd[1:0] = dut.b_ndone[0]
    // peek: p_bnd[3:2] = dut.b_ndone[1]
    // peek: p_ahd[2:0] = dut.w_ahead[0]
    // peek: p_ahd[5:3] = dut.w_ahead[1]
    // peek: p_ahd[8:6] = dut.w_ahead[2]
    (* keep *) wire [3*N-1:0]         p_state;
    (* keep *) wire [PCX_W*N-1:0]     p_pc, p_last;
    (* keep *) wire [WARP_SIZE*N-1:0] p_mask, p_vld, p_exit;
    (* keep *) wire [DEPTH_W*N-1:0]   p_dep;
    (* keep *) wire [N-1:0]           p_slot, p_rtd;
    (* keep *) wire [5*N-1:0]         p_wib;
    (* keep *) wire [B-1:0]           p_bval;
    (* keep *) wire [32*B-1:0]        p_bid;
    (* keep *) wire [48*B-1:0]        p_bcta;
    (* keep *) wire [2*B-1:0]         p_bnd;
    (* keep *) wire [3*N-1:0]         p_ahd;
`ifdef COVER
    // witnesses (warp_table_cover): the idle-warp rule holds a READY warp back that runs ahead, and a
    // READY warp running ahead is offered when fewer than IDLE_MIN warps are idle
    always @* if (!init && !rst) begin
        cover (rdy[0] && m_ahd[0] != 0 && !ready[0] && ready != 0);
        cover (rdy[0] && m_ahd[0] != 0 && ready[0]);
        cover (grant && m_ahd[grant_warp] != 0);  // a warp running ahead is granted again
    end
`endif
`ifdef INVARIANTS
    reg [2*B-1:0] nd;  // done warps of each slot, counted from the record
    integer       j, jj, v, u;
    always @* begin
        for (jj = 0; jj < B; jj = jj + 1) begin
            nd[2*jj +: 2] = 0;
            for (v = 0; v < N; v = v + 1) nd[2*jj +: 2] = nd[2*jj +: 2] + (live[v] && m_slot[v] == jj && fin[v]);
        end
    end
    always @* begin
        if (!init) begin
            if (pend) assert (res[pend_slot] && pend_slot < cfg_slots);
            for (j = 0; j < B; j = j + 1) begin
                assert (p_bval[j] == res[j]);
                if (j >= cfg_slots) assert (!res[j]);
                if (res[j]) begin
                    assert (p_bid[32*j +: 32] == m_id[j] && p_bcta[48*j +: 48] == m_ctaid[j]);
                    assert (p_bnd[2*j +: 2] == m_ndone[j] && m_ndone[j] < cfg_wpb);
                end
                if (res[j]) assert (nd[2*j +: 2] == m_ndone[j]);
            end
            for (u = 0; u < N; u = u + 1) begin
                assert (p_state[3*u +: 3] == state_of(u));
                // the event flags of a warp exclude each other
                assert ((busy[u] + mem[u] + bar[u] + fin[u]) <= 1);
                // issue ahead: the table's count of released instructions is the record's, at most
                // AHEAD; they are younger than any hand-off, barrier or finish of the warp (in order), and
                // a warp that is not started has none (its block's start does not clear the count)
                assert (p_ahd[3*u +: 3] == m_ahd[u] && m_ahd[u] <= AHEAD);
                if (m_ahd[u] != 0) assert (live[u] && !mem[u] && !bar[u] && !fin[u]);
                if (!live[u]) assert (!busy[u] && !mem[u] && !bar[u] && !fin[u]);
                if (live[u]) begin
                    // a started warp belongs to the resident, started block of its slot
                    assert (res[m_slot[u]] && !(pend && pend_slot == m_slot[u]));
                    assert (u >= m_slot[u] * cfg_wpb && u < m_slot[u] * cfg_wpb + cfg_wpb);
                    assert (m_wib[u] == u - m_slot[u] * cfg_wpb);
                    assert (p_pc[PCX_W*u +: PCX_W] == m_pc[u] && p_mask[WARP_SIZE*u +: WARP_SIZE] == m_mask[u]);
                    assert (p_vld[WARP_SIZE*u +: WARP_SIZE] == m_vld[u] && p_exit[WARP_SIZE*u +: WARP_SIZE] == m_exit[u]);
                    assert (p_dep[DEPTH_W*u +: DEPTH_W] == m_dep[u] && p_slot[u] == m_slot[u]);
                    assert (p_wib[5*u +: 5] == m_wib[u] && p_rtd[u] == rtd[u]);
                    if (rtd[u]) assert (p_last[PCX_W*u +: PCX_W] == m_last[u]);
                    if (!fin[u]) assert (m_mask[u] != 0);
                end else begin
                    // a warp of a resident slot is started unless its block is being initialised
                    for (j = 0; j < B; j = j + 1)
                        if (u >= j * cfg_wpb && u < j * cfg_wpb + cfg_wpb && j < cfg_slots)
                            assert (!res[j] || (pend && pend_slot == j));
                end
            end
        end
    end
`endif
endmodule
