// simt_axil_host — an AXI4-Lite slave in front of the GPU's host register port (docs/gpu.md "Host
// interface" and "AXI option"). Register index n is at byte offset 4 * n: the index is
// s_axil_*addr[9:2]; address bits 1..0 and above 9 are ignored (the 1 KB window repeats).
//
// One access at a time. A write is taken when both AW and W are valid (AWREADY and WREADY rise
// together), then presented on the host port until host_ready, then answered on B. A read is taken
// from AR, presented until host_ready, and its data (host_rvalid, the next cycle) answered on R.
// When a read and a write arrive together they alternate. Writes are whole words: a write whose
// WSTRB is not 4'b1111 changes nothing and is answered SLVERR; every other response is OKAY.
`include "simt_check.vh"
module simt_axil_host #(
    parameter integer ADDR_W = 10  // AXI4-Lite address width: 10..32
) (
    input  wire              clk,
    input  wire              rst,
    // AXI4-Lite slave
    input  wire [ADDR_W-1:0] s_axil_awaddr,
    input  wire [2:0]        s_axil_awprot,
    input  wire              s_axil_awvalid,
    output wire              s_axil_awready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    input  wire              s_axil_wvalid,
    output wire              s_axil_wready,
    output reg  [1:0]        s_axil_bresp,
    output reg               s_axil_bvalid,
    input  wire              s_axil_bready,
    input  wire [ADDR_W-1:0] s_axil_araddr,
    input  wire [2:0]        s_axil_arprot,
    input  wire              s_axil_arvalid,
    output wire              s_axil_arready,
    output reg  [31:0]       s_axil_rdata,
    output wire [1:0]        s_axil_rresp,
    output reg               s_axil_rvalid,
    input  wire              s_axil_rready,
    // host register port of simt_gpu
    output wire              host_valid,
    input  wire              host_ready,
    output wire              host_write,
    output wire [7:0]        host_addr,
    output wire [31:0]       host_wdata,
    input  wire              host_rvalid,
    input  wire [31:0]       host_rdata
);
    generate
        if (ADDR_W < 10 || ADDR_W > 32) begin : bad_addr_w
            `SIMT_AT_ELAB $fatal(1, "simt_axil_host: illegal parameter ADDR_W=%0d (10..32)", ADDR_W);
        end
    endgenerate

    localparam [2:0] S_IDLE = 3'd0, S_WR = 3'd1, S_WR_RSP = 3'd2, S_RD = 3'd3, S_RD_WAIT = 3'd4, S_RD_RSP = 3'd5;
    reg [2:0]  state;
    reg        last_read;  // the last access taken was a read: a write goes first on a tie
    reg [7:0]  addr_q;
    reg [31:0] wdata_q;

    wire take_write = state == S_IDLE && s_axil_awvalid && s_axil_wvalid && (!s_axil_arvalid || last_read);
    wire take_read  = state == S_IDLE && s_axil_arvalid && !take_write;
    assign s_axil_awready = take_write;
    assign s_axil_wready  = take_write;
    assign s_axil_arready = take_read;
    assign s_axil_rresp   = 2'b00;

    assign host_valid = state == S_WR || state == S_RD;
    assign host_write = state == S_WR;
    assign host_addr  = addr_q;
    assign host_wdata = wdata_q;
    // protection bits, byte offset and the address bits above the window are ignored
    wire   unused_axil = &{1'b0, s_axil_awprot, s_axil_arprot, s_axil_awaddr, s_axil_araddr};

    always @(posedge clk) begin
        if (rst) begin
            state         <= S_IDLE;
            last_read     <= 1'b0;
            s_axil_bvalid <= 1'b0;
            s_axil_rvalid <= 1'b0;
        end else begin
            case (state)
                S_IDLE:
                    if (take_write) begin
                        addr_q    <= s_axil_awaddr[9:2];
                        wdata_q   <= s_axil_wdata;
                        last_read <= 1'b0;
                        if (s_axil_wstrb == 4'b1111) begin
                            state <= S_WR;
                        end else begin
                            state         <= S_WR_RSP;
                            s_axil_bresp  <= 2'b10;  // SLVERR: partial-word write refused
                            s_axil_bvalid <= 1'b1;
                        end
                    end else if (take_read) begin
                        addr_q    <= s_axil_araddr[9:2];
                        last_read <= 1'b1;
                        state     <= S_RD;
                    end
                S_WR:
                    if (host_ready) begin
                        state         <= S_WR_RSP;
                        s_axil_bresp  <= 2'b00;
                        s_axil_bvalid <= 1'b1;
                    end
                S_WR_RSP:
                    if (s_axil_bready) begin
                        s_axil_bvalid <= 1'b0;
                        state         <= S_IDLE;
                    end
                S_RD:
                    if (host_ready) state <= S_RD_WAIT;
                S_RD_WAIT:
                    if (host_rvalid) begin
                        s_axil_rdata  <= host_rdata;
                        s_axil_rvalid <= 1'b1;
                        state         <= S_RD_RSP;
                    end
                S_RD_RSP:
                    if (s_axil_rready) begin
                        s_axil_rvalid <= 1'b0;
                        state         <= S_IDLE;
                    end
                default: state <= S_IDLE;
            endcase
        end
    end
endmodule
