// Properties of simt_issue's warp scheduler (docs/sm.md "simt_warp_sched"): proved by k-induction in
// `make formal` (job issue_sched).
//
// simt_issue owns the round-robin scheduler (simt_warp_sched, proved on its own by the warp_sched job)
// and clears its pointer while the next launch's image is loaded (launch_load = simt_sm's imem_we), so
// a launch's cycles do not depend on the launches before it.
// Contract: reset first; every other input free in every cycle (the property below needs nothing more
// of what simt_sm drives: it holds for any ready vector, completed accesses, EX hand-shakes and halt).
// Properties (on simt_issue's ports):
//   after a reset or a launch_load cycle, and until the scheduler's next grant is taken (a grant that is
//   not a completed access's re-entry), the scheduler's choice is the lowest-numbered ready warp: with
//   no completed access re-entering, f_warp is the lowest ready warp (the search starts at warp 0 as
//   after reset, whatever the launches before took).
module simt_issue_props #(
    parameter integer NUM_WARPS = 3
) (
    input wire                 clk,
    input wire                 rst,
    input wire                 halt,
    input wire                 launch_load,
    input wire [5:0]           cfg_regs,
    input wire [4:0]           cfg_nparams,
    input wire [4:0]           cfg_ninstr,
    input wire [NUM_WARPS-1:0] ready,
    input wire [6:0]           f_pc,
    input wire                 d_can_rel,
    input wire                 sb_hold,
    input wire [31:0]          dec_instr,
    input wire                 cpl_valid,
    input wire [1:0]           cpl_warp,
    input wire [1:0]           cpl_txns,
    input wire [63:0]          cpl_rdata,
    input wire                 ex_adv,
    input wire [5:0]           ex_raddr_a,
    input wire [5:0]           ex_raddr_b,
    input wire [5:0]           ex_raddr_c,
    input wire                 mw_release,
    input wire                 later_busy,
    input wire                 retired
);
    localparam integer N = NUM_WARPS;
    // WARP_SIZE = NUM_LANES = 2, imem of 16 words (PC_W 4), pc 7 bits, register rows 6 bits
    wire        grant, rel, dec_sh_store, imem_re, cpl_take, ex_take, dec_valid, dec_memwb, dec_last;
    wire        dec_flt, f_idle;
    wire [1:0]  f_warp, dec_warp;
    wire [6:0]  dec_pc;
    wire [3:0]  imem_raddr, dec_flt_kind;
    wire [5:0]  raddr_a, raddr_b, raddr_c, dec_txns;
    wire        dec_row;
    wire [63:0] mw_data;
    simt_issue #(.WARP_SIZE(2), .NUM_LANES(2), .NUM_WARPS(NUM_WARPS), .PC_W(4), .PCX_W(7), .RF_AW(6)) dut (
        .clk(clk), .rst(rst), .halt(halt), .launch_load(launch_load), .cfg_regs(cfg_regs),
        .cfg_nparams(cfg_nparams), .cfg_ninstr(cfg_ninstr), .ready(ready), .grant(grant), .f_warp(f_warp),
        .f_pc(f_pc), .dec_pc(dec_pc), .d_can_rel(d_can_rel), .rel(rel), .sb_hold(sb_hold),
        .dec_sh_store(dec_sh_store), .imem_re(imem_re), .imem_raddr(imem_raddr), .dec_instr(dec_instr),
        .cpl_valid(cpl_valid), .cpl_take(cpl_take), .cpl_warp(cpl_warp), .cpl_txns(cpl_txns),
        .cpl_rdata(cpl_rdata), .raddr_a(raddr_a), .raddr_b(raddr_b), .raddr_c(raddr_c), .ex_adv(ex_adv),
        .ex_raddr_a(ex_raddr_a), .ex_raddr_b(ex_raddr_b), .ex_raddr_c(ex_raddr_c), .mw_release(mw_release),
        .ex_take(ex_take), .dec_valid(dec_valid), .dec_warp(dec_warp), .dec_memwb(dec_memwb),
        .dec_row(dec_row), .dec_last(dec_last), .dec_flt(dec_flt), .dec_flt_kind(dec_flt_kind),
        .dec_txns(dec_txns), .mw_data(mw_data), .f_idle(f_idle), .later_busy(later_busy), .retired(retired)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // fresh: the scheduler has not taken a grant since the last reset or launch_load
    wire take_sched = grant && !cpl_take;
    reg  fresh, by_load, took;
    always @(posedge clk) begin
        fresh   <= rst || launch_load || (fresh && !take_sched);
        by_load <= !rst && (launch_load || (by_load && !take_sched));  // ... and that was a launch_load
        took    <= !rst && !launch_load && (took || take_sched);       // a take since the last clear
    end
    // the lowest ready warp
    reg [1:0] lowest;
    integer k;
    always @* begin
        lowest = 0;
        for (k = N - 1; k >= 0; k = k - 1) if (ready[k]) lowest = k;
    end

    always @* begin
        if (!init && fresh && !cpl_take && ready != 0) assert (f_warp == lowest);
    end

    // peek: start = dut.u_sched.start
    (* keep *) wire [1:0] start;
`ifdef INVARIANTS
    always @* if (!init && fresh) assert (start == 0);
`endif

`ifdef COVER
    // witnesses (issue_sched_cover): a take moves the pointer, a launch_load clears it and the next
    // take is the lowest ready warp although the pointer had passed it
    reg moved;  // the pointer was past warp 0 when the last launch_load came
    always @(posedge clk) moved <= rst ? 1'b0 : launch_load ? (took && start != 0) : moved;
    always @* if (!init && !rst) begin
        cover (by_load && moved && take_sched && ready[0] && ready[N - 1]);
    end
`endif
endmodule
