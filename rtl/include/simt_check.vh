// Parameter checks: write each one once, inside a generate-if on the illegal condition, as
//     `SIMT_AT_ELAB $fatal(1, "simt_x: illegal parameter N=%0d (1..8)", N);
// With VERILATOR defined the $fatal sits directly in the generate block, where it is evaluated at
// elaboration: an illegal parameter stops lint and every build before any C++ is compiled. Icarus 11
// only accepts $fatal in procedural code, so there it is an initial block that stops at time 0.
`ifndef SIMT_CHECK_VH
`define SIMT_CHECK_VH
`ifdef VERILATOR
`define SIMT_AT_ELAB
`else
`define SIMT_AT_ELAB initial
`endif
`endif // SIMT_CHECK_VH
