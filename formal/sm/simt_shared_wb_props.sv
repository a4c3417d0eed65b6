// Properties of simt_shared_wb, the shared writeback (SWB) and its value buffer (docs/sm.md "Pipeline",
// "Register-file write port"): proved by k-induction in `make formal` (jobs shared_wb, EX_FIRST = 1,
// and shared_wb_ex0, EX_FIRST = 0).
//
// The wrapper keeps its own record of the shared instructions, built from the events only: entries in
// allocation order (warp, instruction, rd, load, mask, summed passes), per row whether it has landed,
// the data it landed with and whether it has been written to the register file (a store row, or a row
// landing after an error, needs no write); and checks the unit's outputs against it.
//
// Contract (what simt_execute drives, and tb/tests/unit/test_shared_wb.py): reset first; cfg_regs
// constant (1..32); EX allocates (alloc, with row 0 of a shared instruction) only while can_alloc, with
// no error, after the previous instruction has sent all its ROWS rows (EX sends the others one per
// cycle at most: row_send, a free input of the wrapper); the LSU answers (rsp_valid) only rows sent in
// an earlier cycle and not yet answered, in order, with 1..NUM_LANES passes and any data; an error
// (halt) lasts until the next reset; cm_ok and ex_want (EX has a row to write) are free.
// Properties, every cycle out of reset:
//   the value buffer: a landed load row is written to the register file exactly once -- every SWB write
//   is the oldest landed, unwritten row (none is written twice, none written before it lands), with
//   its entry's address (warp * regs * ROWS + rd * ROWS + row), its row of the entry's mask and the
//   data it landed with (a held row is never overwritten in the buffer); with EX_FIRST = 1 at most one
//   landed row waits (the pending row), with EX_FIRST = 0 none (the landing row is written in its
//   cycle); the SWB writes whenever the port is its own and it has a row (nothing held longer than the
//   priority rule says); an entry moves to CM only when all its rows have landed and none is left
//   unwritten (so nothing is lost), exactly when docs/sm.md says (oldest first, CM free, no error), with
//   its warp, instruction and summed passes; while CM holds it, `vals` shows the data its rows landed
//   with;
//   write-port exclusivity, both orders: the SWB writes only when EX's row does not want the port
//   (ex_want) or the SWB made it wait (hold_swb); hold_swb is exactly "a load row lands while one is
//   pending" (EX_FIRST = 1: EX's row first) or "a load row lands" (EX_FIRST = 0: the landing row
//   first), and when it is up the SWB writes (the port EX gave up is used);
//   can_alloc, waiting and waiting2 agree with the record; after an error nothing is written.
module simt_shared_wb_props #(
    parameter integer WARP_SIZE = 2,
    parameter integer NUM_LANES = 1,
    parameter integer EX_FIRST  = 1
) (
    input wire                      clk,
    input wire                      rst,
    input wire                      halt,
    input wire                      alloc,
    input wire                      alloc_warp,
    input wire [31:0]               alloc_instr,
    input wire [4:0]                alloc_rd,
    input wire                      alloc_load,
    input wire [WARP_SIZE-1:0]      alloc_mask,
    input wire                      row_send,     // EX sends a later row of its shared instruction
    input wire                      rsp_valid,
    input wire [NUM_LANES*32-1:0]   rsp_data,
    input wire                      rsp_passes,
    input wire                      ex_want,
    input wire                      cm_ok
);
    localparam integer ROWS = WARP_SIZE / NUM_LANES;       // 2
    localparam integer N    = (ROWS + 3 + ROWS - 1) / ROWS;  // entries: 3
    localparam integer L    = NUM_LANES;
    localparam integer RW   = NUM_LANES * 32;               // bits of a row
    localparam integer RF_AW = 6;

    (* anyconst *) reg [5:0] cfg_regs;
    always @* assume (cfg_regs >= 1 && cfg_regs <= 32);

    wire                  can_alloc, hold_swb, rf_we_any, waiting, waiting2, to_cm, in_cm;
    wire [L-1:0]          rf_we;
    wire [RF_AW-1:0]      rf_waddr;
    wire [RW-1:0]         rf_wdata;
    wire                  to_cm_warp;
    wire [31:0]           to_cm_instr;
    wire [6:0]            to_cm_passes;
    wire [WARP_SIZE*32-1:0] vals;
    simt_shared_wb #(.WARP_SIZE(WARP_SIZE), .NUM_LANES(NUM_LANES), .RF_AW(RF_AW), .WID_W(1),
                     .EX_FIRST(EX_FIRST)) dut (
        .clk(clk), .rst(rst), .halt(halt), .cfg_regs(cfg_regs), .can_alloc(can_alloc), .alloc(alloc),
        .alloc_warp(alloc_warp), .alloc_instr(alloc_instr), .alloc_rd(alloc_rd), .alloc_load(alloc_load),
        .alloc_mask(alloc_mask), .rsp_valid(rsp_valid), .rsp_data(rsp_data), .rsp_passes(rsp_passes),
        .ex_want(ex_want), .hold_swb(hold_swb), .rf_we_any(rf_we_any), .rf_we(rf_we), .rf_waddr(rf_waddr),
        .rf_wdata(rf_wdata), .waiting(waiting), .waiting2(waiting2), .cm_ok(cm_ok), .to_cm(to_cm),
        .to_cm_warp(to_cm_warp), .to_cm_instr(to_cm_instr), .to_cm_passes(to_cm_passes), .in_cm(in_cm),
        .vals(vals)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // ---- the record: a ring of N entries in allocation order (m_head the oldest, m_n allocated, the
    // one CM holds included), rows landed, their data, rows written
    reg [2:0]        m_n;
    reg [1:0]        m_head;
    reg              m_incm;
    reg              m_warp  [0:N-1];
    reg [31:0]       m_instr [0:N-1];
    reg [4:0]        m_rd    [0:N-1];
    reg [N-1:0]      m_load;
    reg [WARP_SIZE-1:0] m_mask [0:N-1];
    reg [6:0]        m_pass  [0:N-1];
    reg [1:0]        m_nl    [0:N-1];   // rows landed
    reg [ROWS-1:0]   m_wr    [0:N-1];   // rows written (or needing no write)
    reg [ROWS*RW-1:0] m_val  [0:N-1];   // the data each row landed with
    reg              m_tosend;          // rows of the newest instruction EX has still to send (ROWS = 2)
    reg [3:0]        m_infl;            // rows sent in earlier cycles, not yet answered
    reg              p_halt;

    function automatic [1:0] ring(input [1:0] h, input [2:0] o);  // the o-th entry after h
        ring = (h + o >= N) ? h + o - N : h + o;
    endfunction
    function automatic [1:0] off(input [1:0] h, input [1:0] e);   // how far e is after h
        off = (e >= h) ? e - h : e + N - h;
    endfunction
    wire [1:0] m_tail = ring(m_head, m_n);
    wire [2:0] n_wait = m_n - m_incm;

    // the entry receiving answers: the oldest with rows still to land
    reg       l_ok;
    reg [1:0] l_e;
    // the oldest landed load row not yet written (the pending row) and how many there are
    reg       u_ok;
    reg [1:0] u_e;
    reg       u_r;
    reg [2:0] u_n;
    integer o, r;
    always @* begin
        l_ok = 1'b0; l_e = m_tail; u_ok = 1'b0; u_e = 0; u_r = 0; u_n = 0;
        for (o = N - 1; o >= 0; o = o - 1)
            if (o < m_n && m_nl[ring(m_head, o)] != ROWS) begin
                l_ok = 1'b1; l_e = ring(m_head, o);
            end
        for (o = N - 1; o >= 0; o = o - 1)
            for (r = ROWS - 1; r >= 0; r = r - 1)
                if (o < m_n && r < m_nl[ring(m_head, o)] && m_load[ring(m_head, o)] && !m_wr[ring(m_head, o)][r]) begin
                    u_ok = 1'b1; u_e = ring(m_head, o); u_r = r;
                    u_n = u_n + 1;
                end
    end
    wire       l_r   = m_nl[l_e][0];                     // the landing row (ROWS = 2)
    wire       m_ld  = rsp_valid && m_load[l_e] && !halt;  // a load row lands
    // the write-port rule of docs/sm.md, from the record
    wire       e_hold = EX_FIRST != 0 ? u_ok && m_ld : m_ld;
    wire       e_port = !ex_want || e_hold;
    wire       w_pend = u_ok && !halt && e_port;           // the pending row is written
    wire       w_land = m_ld && !u_ok && e_port;           // the landing row is written now
    wire [1:0] w_e    = w_pend ? u_e : l_e;
    wire       w_r    = w_pend ? u_r : l_r;
    wire [RW-1:0] w_data = w_pend ? m_val[u_e][u_r * RW +: RW] : rsp_data;
    wire [RF_AW-1:0] w_addr = m_warp[w_e] * cfg_regs * ROWS + m_rd[w_e] * ROWS + w_r;
    // the entry to move to CM: the oldest, or the next while CM holds the oldest; all rows landed (or
    // the last lands now) and none left unwritten after this cycle
    wire [1:0] cand      = m_incm ? ring(m_head, 1) : m_head;
    wire       c_landing = rsp_valid && l_ok && l_e == cand && l_r == ROWS - 1;
    // every row of cand has landed and is written (or needs no write) after this cycle
    reg        c_all;
    integer    cr;
    always @* begin
        c_all = 1'b1;
        for (cr = 0; cr < ROWS; cr = cr + 1)
            c_all = c_all && (cr < m_nl[cand] || (rsp_valid && l_e == cand && l_r == cr)) &&
                    (m_wr[cand][cr] || ((w_pend || w_land) && w_e == cand && w_r == cr) ||
                     (rsp_valid && l_e == cand && l_r == cr && !m_load[cand]));
    end
    wire       e_to_cm   = !halt && cm_ok && n_wait != 0 && (m_nl[cand] == ROWS || c_landing) &&
                           !(u_ok && u_e == cand && !w_pend) && !(m_ld && l_e == cand && !w_land);
    wire       free_head = m_incm && cm_ok;

    // ---- contract
    always @* begin
        if (!init && !rst) begin
            if (p_halt) assume (halt);
            if (alloc) assume (can_alloc && !halt && !m_tosend);
            if (row_send) assume (m_tosend && !halt && !alloc);
            if (rsp_valid) assume (m_infl != 0 && rsp_passes >= 1);
        end
    end

    integer i;
    always @(posedge clk) begin
        p_halt <= halt && !rst;
        if (rst) begin
            m_n <= 0; m_head <= 0; m_incm <= 1'b0; m_tosend <= 1'b0; m_infl <= 0;
        end else begin
            m_infl <= m_infl + alloc + row_send - rsp_valid;
            if (row_send) m_tosend <= 1'b0;
            if (rsp_valid) begin
                m_pass[l_e] <= m_pass[l_e] + rsp_passes;
                m_val[l_e][l_r * RW +: RW] <= rsp_data;
                m_nl[l_e] <= m_nl[l_e] + 1'b1;
                // a store row, or a row landing after an error, has nothing to write
                if (!m_load[l_e] || halt) m_wr[l_e][l_r] <= 1'b1;
            end
            if (w_pend || w_land) m_wr[w_e][w_r] <= 1'b1;
            if (free_head) m_head <= ring(m_head, 1);
            if (free_head || e_to_cm) m_incm <= e_to_cm;
            if (alloc) begin
                m_warp[m_tail] <= alloc_warp; m_instr[m_tail] <= alloc_instr; m_rd[m_tail] <= alloc_rd;
                m_load[m_tail] <= alloc_load; m_mask[m_tail] <= alloc_mask; m_pass[m_tail] <= 0;
                m_nl[m_tail] <= 0; m_wr[m_tail] <= 0; m_tosend <= ROWS > 1;
            end
            m_n <= m_n + alloc - free_head;
        end
    end

    // ---- properties
    always @* begin
        if (!init && !rst) begin
            // write-port exclusivity and the priority rule (both orders)
            if (rf_we_any) assert (!ex_want || hold_swb);
            assert (hold_swb == e_hold);
            if (hold_swb) assert (rf_we_any);
            // the value buffer: every write is the oldest landed, unwritten row, with its address, mask
            // and landed data; the SWB writes whenever the port is its own and it has a row
            assert (rf_we_any == (w_pend || w_land));
            if (rf_we_any) begin
                assert (u_ok || m_ld);
                assert (rf_waddr == w_addr && rf_we == m_mask[w_e][w_r * L +: L] && rf_wdata == w_data);
            end
            if (!rf_we_any) assert (rf_we == 0);
            if (halt) assert (!rf_we_any);
            // at most one row waits (EX_FIRST = 1), none with the landing row first (EX_FIRST = 0)
            assert (u_n <= (EX_FIRST != 0 ? 1 : 0));
            // to CM: in order, complete, nothing left unwritten
            assert (to_cm == e_to_cm);
            if (to_cm) begin
                assert (c_all);
                assert (to_cm_warp == m_warp[cand] && to_cm_instr == m_instr[cand]);
                assert (to_cm_passes == m_pass[cand] + (c_landing ? {6'd0, rsp_passes} : 7'd0));
            end
            // CM reads the oldest entry's landed data
            assert (in_cm == m_incm);
            if (m_incm && m_load[m_head]) assert (vals == m_val[m_head]);
            assert (can_alloc == (m_n != N) && waiting == (n_wait != 0) && waiting2 == (n_wait > 1));
        end
    end

    // ---- induction invariants (proof jobs): the record is consistent and the unit's registers and
    // storage equal it
    // peek: p_n = dut.n_alloc
    // peek: p_head = dut.head
    // peek: p_tail = dut.tail
    // peek: p_land = dut.land
    // peek: p_lrow = dut.land_row
    // peek: p_incm = dut.in_cm
    // peek: p_pend = dut.pend
    // peek: p_done = dut.e_done
    // peek: p_load = dut.e_load
    // peek: p_vals = dut.e_vals
    // peek (proof): p_pe = dut.pend_e
    // peek (proof): p_prow = dut.pend_row
    // peek: p_warp[0:0] = dut.e_warp[0]
    // peek: p_warp[1:1] = dut.e_warp[1]
    // peek: p_warp[2:2] = dut.e_warp[2]
    // peek: p_rd[4:0] = dut.e_rd[0]
    // peek: p_rd[9:5] = dut.e_rd[1]
    // peek: p_rd[14:10] = dut.e_rd[2]
    // peek: p_instr[31:0] = dut.e_instr[0]
    // peek: p_instr[63:32] = dut.e_instr[1]
    // peek: p_instr[95:64] = dut.e_instr[2]
    // peek: p_mask[1:0] = dut.e_mask[0]
    // peek: p_mask[3:2] = dut.e_mask[1]
    // peek: p_mask[5:4] = dut.e_mask[2]
    // peek: p_pass[6:0] = dut.e_passes[0]
    // peek: p_pass[13:7] = dut.e_passes[1]
    // peek: p_pass[20:14] = dut.e_passes[2]
    (* keep *) wire [2:0]  p_n;
    (* keep *) wire [1:0]  p_head, p_tail, p_land, p_pe;
    (* keep *) wire        p_lrow, p_incm, p_pend, p_prow;
    (* keep *) wire [N-1:0] p_done, p_load, p_warp;
    (* keep *) wire [N*WARP_SIZE*32-1:0] p_vals;
    (* keep *) wire [5*N-1:0]  p_rd;
    (* keep *) wire [32*N-1:0] p_instr;
    (* keep *) wire [WARP_SIZE*N-1:0] p_mask;
    (* keep *) wire [7*N-1:0]  p_pass;
`ifdef INVARIANTS
    reg [3:0] unans;  // rows of the allocated entries not yet answered
    integer e, q, qq, rr;
    always @* begin
        unans = 0;
        for (qq = 0; qq < N; qq = qq + 1) if (qq < m_n) unans = unans + (ROWS - m_nl[ring(m_head, qq)]);
    end
    always @* begin
        if (!init) begin
            assert (m_n <= N && m_head < N && (!m_incm || m_n != 0));
            assert (p_n == m_n && p_head == m_head && p_tail == m_tail && p_incm == m_incm);
            assert (m_infl + m_tosend == unans);
            if (m_tosend) assert (m_n != 0 && m_nl[ring(m_head, m_n - 1)] <= ROWS - 1);
            if (l_ok) assert (p_land == l_e && p_lrow == l_r);
            else assert (p_land == m_tail && p_lrow == 0);
            assert (p_pend == u_ok);
            if (u_ok) assert (p_pe == u_e && p_prow == u_r);
            if (m_incm) assert (m_nl[m_head] == ROWS && m_wr[m_head] == {ROWS{1'b1}});
            for (q = 0; q < N; q = q + 1)
                if (q < m_n) begin
                    e = ring(m_head, q);
                    assert (m_nl[e] <= ROWS);
                    // entries land in order: those before the landing one are complete, those after empty
                    if (l_ok && q > off(m_head, l_e)) assert (m_nl[e] == 0);
                    if (!l_ok || q < off(m_head, l_e)) assert (m_nl[e] == ROWS);
                    assert (p_done[e] == (m_nl[e] == ROWS) && p_load[e] == m_load[e] && p_warp[e] == m_warp[e]);
                    assert (p_rd[5*e +: 5] == m_rd[e] && p_instr[32*e +: 32] == m_instr[e]);
                    assert (p_mask[WARP_SIZE*e +: WARP_SIZE] == m_mask[e] && p_pass[7*e +: 7] == m_pass[e]);
                    for (rr = 0; rr < ROWS; rr = rr + 1) begin
                        if (rr >= m_nl[e]) assert (!m_wr[e][rr]);
                        if (rr < m_nl[e] && !m_load[e]) assert (m_wr[e][rr]);
                        if (rr < m_nl[e] && m_load[e])
                            assert (p_vals[(e * WARP_SIZE + rr * L) * 32 +: RW] == m_val[e][rr * RW +: RW]);
                    end
                end
        end
    end
`endif

`ifdef COVER
    // witnesses (shared_wb_cover, shared_wb_ex0_cover): the antecedents of the properties are reached
    always @* if (!init && !rst) begin
        cover (hold_swb && ex_want);                       // the SWB makes EX's row wait
        cover (rf_we_any && m_incm && rsp_valid && l_e != m_head);  // rows land behind the entry CM holds
        cover (to_cm && m_load[cand] && c_landing);        // a load entry moves as its last row lands
        cover (m_incm && m_load[m_head] && m_mask[m_head] == 2'b11);  // CM reads a load's values
        if (EX_FIRST != 0) begin
            cover (u_ok && ex_want && !m_ld);              // a landed row waits for the port
            cover (w_pend && !hold_swb);                   // ... and is written from the buffer later
            cover (to_cm && m_load[cand] && !c_landing && u_e == cand && w_pend);  // moves as it is written
        end
    end
`endif
endmodule
