// simt_axi_mem_bridge — the GPU's global-memory port (docs/sm.md "SM memory port": segment requests
// with a word mask, tagged responses in any order) as an AXI4 master with a 32-bit data bus
// (docs/gpu.md "AXI option").
//
// Requests. A native request is taken into a one-entry register (mreq_ready while it is empty) and
// issued as one INCR burst of SEG_WORDS 4-byte beats at byte address AXI_BASE + 4 * word address:
//   load  -> AR (ARLEN = SEG_WORDS - 1); the response is the SEG_WORDS beats, word i = beat i
//   store -> AW + SEG_WORDS W beats, WSTRB 4'hF on the masked words and 4'h0 on the others; the
//            response is the B handshake (no data)
// The AXI ID is the native tag. An SM never reuses a tag while its request is outstanding, so its
// transactions have IDs of their own and the slave may answer them in any order; the loader uses one
// tag for all its stores, which AXI then answers in order.
// A segment never crosses a 4 KB boundary (aligned, at most 128 bytes).
//
// Ordering. The native port promises that a request takes effect when it is accepted; AXI orders
// nothing between different IDs or between the read and write channels. The bridge keeps a table of
// the MAX_OUT transactions in flight (segment address, load/store, ID) and holds a request back while
// an in-flight transaction touches the same segment and either of the two is a store (read after
// write, write after read, write after write); loads of one segment may overlap. With MAX_OUT in
// flight, the next request waits for a free entry.
//
// Responses. B and R become native responses on one channel, a finished read burst first. Read beats
// are gathered in one buffer (RREADY is low while a gathered burst waits for mrsp_ready), so the slave
// must not interleave the beats of different read bursts (AXI4 allows it; most slaves and
// interconnects do not, and read-interleave depth 1 is the usual setting). `error` reports, sticky
// until reset, what the bridge cannot fix: bit 0 a SLVERR/DECERR response (the native response is
// still given, its data as the slave sent it), bit 1 a protocol violation by the slave (RID changing
// inside a burst, RLAST on the wrong beat, a response whose ID is not in flight).
// Test-only fault 11 (SIMT_FAULTS builds, docs/sm.md): an error response's bit survives reset.
`include "simt_params.vh"  // machine parameters: defaults, legal ranges and checks (docs/isa.md 9)
`include "simt_fault.vh"
module simt_axi_mem_bridge #(
    parameter integer SEG_WORDS = `SIMT_DEFAULT_SEG_WORDS, // words per segment
    parameter integer ID_W      = 8,            // AXI ID width = the native tag width
    parameter integer MAX_OUT   = 16,           // transactions in flight: 1..64
    parameter [31:0]  AXI_BASE  = 32'h0000_0000 // byte address of global word 0 (aligned to the segment)
) (
    input  wire                        clk,
    input  wire                        rst,
    // native port (the GPU's external memory port)
    input  wire                        mreq_valid,
    output wire                        mreq_ready,
    input  wire [31:0]                 mreq_addr,
    input  wire                        mreq_write,
    input  wire [SEG_WORDS-1:0]        mreq_mask,
    input  wire [SEG_WORDS*32-1:0]     mreq_wdata,
    input  wire [ID_W-1:0]             mreq_tag,
    output wire                        mrsp_valid,
    input  wire                        mrsp_ready,
    output wire [ID_W-1:0]             mrsp_tag,
    output wire [SEG_WORDS*32-1:0]     mrsp_rdata,
    // AXI4 master
    output wire [ID_W-1:0]             m_axi_awid,
    output wire [31:0]                 m_axi_awaddr,
    output wire [7:0]                  m_axi_awlen,
    output wire [2:0]                  m_axi_awsize,
    output wire [1:0]                  m_axi_awburst,
    output wire                        m_axi_awlock,
    output wire [3:0]                  m_axi_awcache,
    output wire [2:0]                  m_axi_awprot,
    output wire                        m_axi_awvalid,
    input  wire                        m_axi_awready,
    output wire [31:0]                 m_axi_wdata,
    output wire [3:0]                  m_axi_wstrb,
    output wire                        m_axi_wlast,
    output wire                        m_axi_wvalid,
    input  wire                        m_axi_wready,
    input  wire [ID_W-1:0]             m_axi_bid,
    input  wire [1:0]                  m_axi_bresp,
    input  wire                        m_axi_bvalid,
    output wire                        m_axi_bready,
    output wire [ID_W-1:0]             m_axi_arid,
    output wire [31:0]                 m_axi_araddr,
    output wire [7:0]                  m_axi_arlen,
    output wire [2:0]                  m_axi_arsize,
    output wire [1:0]                  m_axi_arburst,
    output wire                        m_axi_arlock,
    output wire [3:0]                  m_axi_arcache,
    output wire [2:0]                  m_axi_arprot,
    output wire                        m_axi_arvalid,
    input  wire                        m_axi_arready,
    input  wire [ID_W-1:0]             m_axi_rid,
    input  wire [31:0]                 m_axi_rdata,
    input  wire [1:0]                  m_axi_rresp,
    input  wire                        m_axi_rlast,
    input  wire                        m_axi_rvalid,
    output wire                        m_axi_rready,
    output reg  [1:0]                  error
);
    localparam integer BEAT_W = (SEG_WORDS > 1) ? $clog2(SEG_WORDS) : 1;
    localparam integer SLOT_W = (MAX_OUT > 1) ? $clog2(MAX_OUT) : 1;

    generate
        `SIMT_CHECK_SEG_WORDS("simt_axi_mem_bridge", SEG_WORDS)
        if (MAX_OUT < 1 || MAX_OUT > 64) begin : bad_out
            `SIMT_AT_ELAB $fatal(1, "simt_axi_mem_bridge: illegal parameter MAX_OUT=%0d (1..64)", MAX_OUT);
        end
    endgenerate

    // ---- request register ------------------------------------------------------------------------
    reg                    q_valid, q_write, q_issued, aw_done;
    reg [31:0]             q_addr;
    reg [SEG_WORDS-1:0]    q_mask;
    reg [SEG_WORDS*32-1:0] q_wdata;
    reg [ID_W-1:0]         q_tag;
    reg [BEAT_W-1:0]       w_beat;
    reg                    w_done;

    // ---- in-flight table -------------------------------------------------------------------------
    reg [MAX_OUT-1:0]      t_valid, t_write;
    reg [31:0]             t_addr [0:MAX_OUT-1];
    reg [ID_W-1:0]         t_id   [0:MAX_OUT-1];

    reg                    hazard, have_free;
    reg [SLOT_W-1:0]       free_slot;
    integer                i;
    always @(*) begin
        hazard = 1'b0;
        have_free = 1'b0;
        free_slot = {SLOT_W{1'b0}};
        for (i = MAX_OUT - 1; i >= 0; i = i - 1) begin
            if (t_valid[i] && t_addr[i] == q_addr && (t_write[i] || q_write)) hazard = 1'b1;
            if (!t_valid[i]) begin
                have_free = 1'b1;
                free_slot = SLOT_W'(i);
            end
        end
    end
    // The request in the register goes out once it has a table entry and no hazard; it is entered in
    // the table at that edge (q_issued), so a later request sees it.
    wire issue = q_valid && !q_issued && have_free && !hazard;

    wire aw_fire = m_axi_awvalid && m_axi_awready;
    wire w_fire  = m_axi_wvalid && m_axi_wready;
    wire ar_fire = m_axi_arvalid && m_axi_arready;
    wire w_last  = w_beat == BEAT_W'(SEG_WORDS - 1);
    wire q_done  = q_issued && (q_write ? (aw_done || aw_fire) && (w_done || (w_fire && w_last)) : ar_fire);
    assign mreq_ready = !q_valid;

    wire [31:0] byte_addr = AXI_BASE + {q_addr[29:0], 2'b00};
    assign m_axi_awid    = q_tag;
    assign m_axi_awaddr  = byte_addr;
    assign m_axi_awlen   = 8'(SEG_WORDS - 1);
    assign m_axi_awsize  = 3'd2;     // 4 bytes per beat
    assign m_axi_awburst = 2'b01;    // INCR
    assign m_axi_awlock  = 1'b0;
    assign m_axi_awcache = 4'b0011;  // normal, non-cacheable, bufferable
    assign m_axi_awprot  = 3'b000;
    assign m_axi_awvalid = q_issued && q_write && !aw_done;
    assign m_axi_wdata   = q_wdata[32*w_beat +: 32];
    assign m_axi_wstrb   = {4{q_mask[w_beat]}};
    assign m_axi_wlast   = w_last;
    assign m_axi_wvalid  = q_issued && q_write && !w_done;
    assign m_axi_arid    = q_tag;
    assign m_axi_araddr  = byte_addr;
    assign m_axi_arlen   = 8'(SEG_WORDS - 1);
    assign m_axi_arsize  = 3'd2;
    assign m_axi_arburst = 2'b01;
    assign m_axi_arlock  = 1'b0;
    assign m_axi_arcache = 4'b0011;
    assign m_axi_arprot  = 3'b000;
    assign m_axi_arvalid = q_issued && !q_write;
    // word addresses fit 30 bits (GLOBAL_WORDS <= 2**30); OKAY and EXOKAY are both success
    wire   unused_bits   = &{1'b0, q_addr[31:30], m_axi_bresp[0], m_axi_rresp[0]};

    always @(posedge clk) begin
        if (rst) begin
            q_valid  <= 1'b0;
            q_issued <= 1'b0;
            aw_done  <= 1'b0;
            w_done   <= 1'b0;
            w_beat   <= {BEAT_W{1'b0}};
        end else begin
            if (mreq_valid && mreq_ready) begin
                q_valid <= 1'b1;
                q_addr  <= mreq_addr;
                q_write <= mreq_write;
                q_mask  <= mreq_mask;
                q_wdata <= mreq_wdata;
                q_tag   <= mreq_tag;
            end
            if (issue) q_issued <= 1'b1;
            if (aw_fire) aw_done <= 1'b1;
            if (w_fire) begin
                w_beat <= w_last ? {BEAT_W{1'b0}} : w_beat + 1'b1;
                if (w_last) w_done <= 1'b1;
            end
            if (q_done) begin
                q_valid  <= 1'b0;
                q_issued <= 1'b0;
                aw_done  <= 1'b0;
                w_done   <= 1'b0;
            end
        end
    end

    // ---- responses -------------------------------------------------------------------------------
    reg                    r_full;                // a gathered read burst waits for mrsp_ready
    reg [SEG_WORDS*32-1:0] r_data;
    reg [ID_W-1:0]         r_id;
    reg [BEAT_W-1:0]       r_beat;
    assign m_axi_rready = !r_full;
    wire   r_fire  = m_axi_rvalid && m_axi_rready;
    wire   r_end   = r_fire && m_axi_rlast;
    // BREADY only with BVALID: mrsp_ready depends on the response's tag (simt_gpu routes by it), which
    // is BID only while BVALID is high
    assign m_axi_bready = m_axi_bvalid && !r_full && mrsp_ready;
    wire   b_fire  = m_axi_bvalid && m_axi_bready;
    assign mrsp_valid = r_full || m_axi_bvalid;
    assign mrsp_tag   = r_full ? r_id : m_axi_bid;
    assign mrsp_rdata = r_full ? r_data : {SEG_WORDS*32{1'b0}};

    // Table: enter at issue, leave at the burst's last R beat or the B handshake, matched by ID and
    // kind. One ID may be in flight several times (the loader uses one tag for all its stores); AXI
    // answers one ID in issue order, so each entry keeps its age among the entries of its ID and kind
    // (0 = oldest) and a response frees the oldest.
    reg [SLOT_W:0]    t_age [0:MAX_OUT-1];
    reg [MAX_OUT-1:0] b_grp, r_grp, b_hit, r_hit;
    reg [SLOT_W:0]    same_id;  // entries of the issuing request's ID and kind that stay in flight
    always @(*) begin
        same_id = {(SLOT_W + 1){1'b0}};
        for (i = 0; i < MAX_OUT; i = i + 1) begin
            b_grp[i] = t_valid[i] && t_write[i] && t_id[i] == m_axi_bid;
            r_grp[i] = t_valid[i] && !t_write[i] && t_id[i] == m_axi_rid;
            b_hit[i] = b_grp[i] && t_age[i] == {(SLOT_W + 1){1'b0}};
            r_hit[i] = r_grp[i] && t_age[i] == {(SLOT_W + 1){1'b0}};
            if (t_valid[i] && t_write[i] == q_write && t_id[i] == q_tag &&
                !(q_write ? b_fire && b_hit[i] : r_end && r_hit[i]))
                same_id = same_id + 1'b1;
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            t_valid <= {MAX_OUT{1'b0}};
        end else begin
            for (i = 0; i < MAX_OUT; i = i + 1) begin
                if ((b_fire && b_hit[i]) || (r_end && r_hit[i])) t_valid[i] <= 1'b0;
                else if ((b_fire && b_grp[i]) || (r_end && r_grp[i])) t_age[i] <= t_age[i] - 1'b1;
            end
            if (issue) begin
                t_valid[free_slot] <= 1'b1;
                t_write[free_slot] <= q_write;
            end
        end
        if (issue) begin
            t_addr[free_slot] <= q_addr;
            t_id[free_slot]   <= q_tag;
            t_age[free_slot]  <= same_id;
        end
    end

`ifdef SIMT_FAULTS
    // Fault 11: reset clears the protocol bit but not the error-response bit, so a system that resets
    // after a slave error still reads axi_error[0] = 1 (the AXI fault soak must notice).
    `SIMT_FAULT_PLUSARG
    wire f_keep_error = simt_fault == `SIMT_FAULT_STICKY_AXI_ERROR && error[0];
`else
    wire f_keep_error = 1'b0;
`endif

    reg in_burst;
    always @(posedge clk) begin
        if (rst) begin
            r_full   <= 1'b0;
            r_beat   <= {BEAT_W{1'b0}};
            in_burst <= 1'b0;
            error    <= {1'b0, f_keep_error};
        end else begin
            if (r_full && mrsp_ready) r_full <= 1'b0;
            if (r_fire) begin
                r_data[32*r_beat +: 32] <= m_axi_rdata;
                r_id     <= m_axi_rid;
                r_beat   <= m_axi_rlast ? {BEAT_W{1'b0}} : r_beat + 1'b1;
                in_burst <= !m_axi_rlast;
                if (m_axi_rlast) r_full <= 1'b1;
                if (m_axi_rresp[1]) error[0] <= 1'b1;
                if ((in_burst && m_axi_rid != r_id) || (m_axi_rlast != (r_beat == BEAT_W'(SEG_WORDS - 1))) ||
                    (!in_burst && r_hit == {MAX_OUT{1'b0}}))
                    error[1] <= 1'b1;
            end
            if (b_fire) begin
                if (m_axi_bresp[1]) error[0] <= 1'b1;
                if (b_hit == {MAX_OUT{1'b0}}) error[1] <= 1'b1;
            end
        end
    end
endmodule
