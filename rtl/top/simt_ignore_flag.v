`include "simt_fault.vh"
// STATUS bit 8 IGNORED of the GPU top (docs/gpu.md "Launch lifecycle"): an IMAGE word or a START arrived
// while a launch ran, and simt_gpu ignored it. Set by `hit`, held until `clear` (reset, ABORT and its
// drain, or the next launch taking its image). Its own module so that simt_gpu.v stays within 400
// lines with the test-only fault hook below (docs/gpu.md "Test-only fault hooks").
module simt_ignore_flag (
    input  wire clk,
    input  wire clear,  // reset, ABORT (and its drain), or a launch taking its image
    input  wire hit,    // an IMAGE word or a START written while a launch runs (simt_gpu ignores it)
    output reg  flag    // STATUS.IGNORED
);
`ifdef SIMT_FAULTS
    `SIMT_FAULT_PLUSARG
    // Fault 10: the writes are still ignored, but the flag never rises, so the host is not told.
    wire set = hit && simt_fault != `SIMT_FAULT_NO_IGNORED;
`else
    wire set = hit;
`endif
    always @(posedge clk) flag <= clear ? 1'b0 : flag || set;
endmodule
