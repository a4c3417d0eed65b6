// Properties of simt_axil_host (docs/gpu.md "Host interface", "AXI option"): proved by k-induction in
// `make formal`.
//
// Contract: reset first; the AXI4-Lite master keeps the AXI rules on its channels (AWVALID, WVALID,
// ARVALID held until taken with the payload stable; BREADY, RREADY free); the GPU's host port answers
// a read with host_rvalid only while the read's data is awaited (after host_ready took it, until the
// data came; tb/tests/system/test_axi.py and simt_gpu), host_ready free.
// Properties:
//   AXI slave rules: BVALID and RVALID held until BREADY / RREADY with BRESP / RDATA stable; AWREADY
//   only with WREADY (a write takes AW and W together) and only for a valid AW and W; ARREADY only for
//   a valid AR; one access at a time (nothing taken while one is in progress, never B and R together);
//   every access is answered exactly once: a write taken gives one B, a read taken one R;
//   host port: valid held until host_ready with address, kind and data stable; a whole-word write
//   becomes exactly one host write of register awaddr[9:2] with its data, answered OKAY after the host
//   took it; a partial-strobe write never reaches the host and is answered SLVERR; a read becomes one
//   host read of araddr[9:2] and R returns the host's data of that read, OKAY;
//   reads and writes alternate under contention: while a read waits, at most one write is taken.
module simt_axil_host_props #(
    parameter integer ADDR_W = 12
) (
    input wire              clk,
    input wire              rst,
    input wire [ADDR_W-1:0] awaddr,
    input wire [2:0]        awprot,
    input wire              awvalid,
    input wire [31:0]       wdata,
    input wire [3:0]        wstrb,
    input wire              wvalid,
    input wire              bready,
    input wire [ADDR_W-1:0] araddr,
    input wire [2:0]        arprot,
    input wire              arvalid,
    input wire              rready,
    input wire              host_ready,
    input wire              host_rvalid,
    input wire [31:0]       host_rdata
);
    wire        awready, wready, arready, bvalid, rvalid, host_valid, host_write;
    wire [1:0]  bresp, rresp;
    wire [31:0] rdata, host_wdata;
    wire [7:0]  host_addr;
    simt_axil_host #(.ADDR_W(ADDR_W)) dut (
        .clk(clk), .rst(rst), .s_axil_awaddr(awaddr), .s_axil_awprot(awprot), .s_axil_awvalid(awvalid),
        .s_axil_awready(awready), .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid),
        .s_axil_wready(wready), .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
        .s_axil_araddr(araddr), .s_axil_arprot(arprot), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
        .host_valid(host_valid), .host_ready(host_ready), .host_write(host_write), .host_addr(host_addr),
        .host_wdata(host_wdata), .host_rvalid(host_rvalid), .host_rdata(host_rdata)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @* if (init) assume (rst);

    // ---- the AXI master's rules (contract), from the previous cycle
    reg              p_aw, p_w, p_ar, p_ok;
    reg [ADDR_W-1:0] p_awaddr, p_araddr;
    reg [31:0]       p_wdata;
    reg [3:0]        p_wstrb;
    always @(posedge clk) begin
        p_ok <= !rst;
        p_aw <= awvalid && !awready; p_w <= wvalid && !wready; p_ar <= arvalid && !arready;
        p_awaddr <= awaddr; p_araddr <= araddr; p_wdata <= wdata; p_wstrb <= wstrb;
    end
    always @* begin
        if (!init && !rst && p_ok) begin
            if (p_aw) assume (awvalid && awaddr == p_awaddr);
            if (p_w) assume (wvalid && wdata == p_wdata && wstrb == p_wstrb);
            if (p_ar) assume (arvalid && araddr == p_araddr);
        end
    end

    // ---- the wrapper's record of the access in progress
    localparam [2:0] A_NONE = 3'd0, A_HW = 3'd1, A_B = 3'd2, A_HR = 3'd3, A_DATA = 3'd4, A_R = 3'd5;
    reg [2:0]  acc;      // none, host write pending, B pending, host read pending, data awaited, R pending
    reg [7:0]  e_addr;   // the register the host sees
    reg [31:0] e_data;   // the write's data / the read's data
    reg [1:0]  e_resp;
    reg [1:0]  writes_while_read_waits;
    wire take_w = awready && awvalid && wvalid;
    wire take_r = arready && arvalid;
    always @* if (!init && !rst && host_rvalid) assume (acc == A_DATA);
    always @(posedge clk) begin
        if (rst) begin
            acc <= A_NONE;
            writes_while_read_waits <= 0;
        end else begin
            if (take_w) begin
                e_addr <= awaddr[9:2]; e_data <= wdata;
                if (wstrb == 4'b1111) acc <= A_HW;
                else begin
                    acc <= A_B; e_resp <= 2'b10;
                end
            end
            if (take_r) begin
                e_addr <= araddr[9:2]; acc <= A_HR;
            end
            if (acc == A_HW && host_ready) begin
                acc <= A_B; e_resp <= 2'b00;
            end
            if (acc == A_B && bready) acc <= A_NONE;
            if (acc == A_HR && host_ready) acc <= A_DATA;
            if (acc == A_DATA && host_rvalid) begin
                acc <= A_R; e_data <= host_rdata;
            end
            if (acc == A_R && rready) acc <= A_NONE;
            // writes taken while a read is offered, since the last read was taken
            if (take_r) writes_while_read_waits <= 0;
            else if (take_w && arvalid && writes_while_read_waits != 2'd3)
                writes_while_read_waits <= writes_while_read_waits + 1'b1;
            else if (!arvalid) writes_while_read_waits <= 0;
        end
    end

    // previous cycle's outputs: valid held until ready, payload stable
    reg       q_b, q_r, q_h, q_ok;
    reg [1:0] q_bresp;
    reg [31:0] q_rdata, q_hwdata;
    reg [7:0] q_haddr;
    reg       q_hwrite;
    always @(posedge clk) begin
        q_ok <= !rst && !init;
        q_b <= bvalid && !bready; q_r <= rvalid && !rready; q_h <= host_valid && !host_ready;
        q_bresp <= bresp; q_rdata <= rdata; q_haddr <= host_addr; q_hwrite <= host_write; q_hwdata <= host_wdata;
    end

    always @* begin
        if (!init && !rst) begin
            // AXI slave rules
            if (q_ok && q_b) assert (bvalid && bresp == q_bresp);
            if (q_ok && q_r) assert (rvalid && rdata == q_rdata);
            assert (awready == wready);
            if (awready) assert (awvalid && wvalid && acc == A_NONE);
            if (arready) assert (arvalid && acc == A_NONE && !awready);
            assert (!(bvalid && rvalid));
            // each access answered once, with the right response
            assert (bvalid == (acc == A_B));
            if (bvalid) assert (bresp == e_resp);
            assert (rvalid == (acc == A_R));
            if (rvalid) assert (rdata == e_data && rresp == 2'b00);
            // the host port
            if (q_ok && q_h) assert (host_valid && host_addr == q_haddr && host_write == q_hwrite &&
                                     (!q_hwrite || host_wdata == q_hwdata));
            assert (host_valid == (acc == A_HW || acc == A_HR));
            if (host_valid) assert (host_addr == e_addr && host_write == (acc == A_HW));
            if (acc == A_HW) assert (host_wdata == e_data);
            // fairness
            assert (writes_while_read_waits <= 1);
        end
    end

    // induction invariants (proof job only): the unit's state is the record's
    // peek: p_state = dut.state
    // peek: p_last = dut.last_read
    // peek: p_addr = dut.addr_q
    // peek: p_wdq = dut.wdata_q
    (* keep *) wire [2:0]  p_state;
    (* keep *) wire        p_last;
    (* keep *) wire [7:0]  p_addr;
    (* keep *) wire [31:0] p_wdq;  // not p_wdata: that is the contract's previous-cycle wdata above
`ifdef INVARIANTS
    always @* begin
        if (!init) begin
            assert (p_state == acc);
            if (acc != A_NONE) assert (p_addr == e_addr);
            if (acc == A_HW) assert (p_wdq == e_data);
            if (writes_while_read_waits != 0) assert (!p_last);
        end
    end
`endif
endmodule
