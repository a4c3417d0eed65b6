// Yosys techmap (ppa/netlist.py): a memory macro ($mem_v2 left after make ppa's flop-array rule) becomes
// its *registered boundary* for static timing. Every address, data and enable bit it reads ends at a
// simt_macro_in (a timing endpoint with the macro's setup time), every read data bit starts at a
// simt_macro_out (clock-to-output = the macro's access time); ppa/timedlib.py writes both cells' Liberty.
// The macro's array itself is not in the netlist: its area and energy are modelled per bit (docs/ppa.md).
(* techmap_celltype = "$mem_v2" *)
module _simt_macro_boundary (RD_CLK, RD_EN, RD_ARST, RD_SRST, RD_ADDR, RD_DATA, WR_CLK, WR_EN, WR_ADDR, WR_DATA);
  parameter MEMID = "";
  parameter signed SIZE = 4;
  parameter signed OFFSET = 0;
  parameter signed ABITS = 2;
  parameter signed WIDTH = 8;
  parameter signed INIT = 1'bx;
  parameter signed RD_PORTS = 1;
  parameter RD_CLK_ENABLE = 1'b1;
  parameter RD_CLK_POLARITY = 1'b1;
  parameter RD_TRANSPARENCY_MASK = 1'b0;
  parameter RD_COLLISION_X_MASK = 1'b0;
  parameter RD_WIDE_CONTINUATION = 1'b0;
  parameter RD_CE_OVER_SRST = 1'b0;
  parameter RD_ARST_VALUE = 1'b0;
  parameter RD_SRST_VALUE = 1'b0;
  parameter RD_INIT_VALUE = 1'b0;
  parameter signed WR_PORTS = 1;
  parameter WR_CLK_ENABLE = 1'b1;
  parameter WR_CLK_POLARITY = 1'b1;
  parameter WR_PRIORITY_MASK = 1'b0;
  parameter WR_WIDE_CONTINUATION = 1'b0;

  input [RD_PORTS-1:0] RD_CLK, RD_EN, RD_ARST, RD_SRST;
  input [RD_PORTS*ABITS-1:0] RD_ADDR;
  output [RD_PORTS*WIDTH-1:0] RD_DATA;
  input [WR_PORTS-1:0] WR_CLK;
  input [WR_PORTS*WIDTH-1:0] WR_EN;
  input [WR_PORTS*ABITS-1:0] WR_ADDR;
  input [WR_PORTS*WIDTH-1:0] WR_DATA;

  // keep: an endpoint drives nothing, so opt_clean would delete it (and the paths into the macro with
  // it: the netlists timed before 2026-11-26 had no simt_macro_in at all)
  // the macro's clock: its (only) write port's
  wire clk = WR_CLK[0];
  genvar i;
  generate
    for (i = 0; i < RD_PORTS * ABITS; i = i + 1) begin : rd_addr
      (* keep *) simt_macro_in in_ (.CLK(clk), .D(RD_ADDR[i]));
    end
    for (i = 0; i < RD_PORTS; i = i + 1) begin : rd_en
      (* keep *) simt_macro_in in_ (.CLK(clk), .D(RD_EN[i]));
    end
    for (i = 0; i < RD_PORTS * WIDTH; i = i + 1) begin : rd_data
      simt_macro_out out_ (.CLK(clk), .Q(RD_DATA[i]));
    end
    for (i = 0; i < WR_PORTS * ABITS; i = i + 1) begin : wr_addr
      (* keep *) simt_macro_in in_ (.CLK(clk), .D(WR_ADDR[i]));
    end
    for (i = 0; i < WR_PORTS * WIDTH; i = i + 1) begin : wr_data
      (* keep *) simt_macro_in in_d (.CLK(clk), .D(WR_DATA[i]));
      (* keep *) simt_macro_in in_e (.CLK(clk), .D(WR_EN[i]));
    end
  endgenerate
endmodule
