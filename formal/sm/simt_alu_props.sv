// Properties of simt_alu (docs/isa.md 3.1, spec/isa.py ALU_SUMMARY): `make formal` proves, for every
// pair of 32-bit operands, that each ALU operation computes what docs/isa.md 3.1 says. The reference
// below is written from that table, one line per operation; the function codes come from the generated
// header (spec/isa.py). MUL, MAD and MULHU are left out: equivalence of two 32-bit multiplier circuits is
// out of reach of the SAT solver in the time budget (they are checked by the unit bench and every retire
// of the lockstep model). Combinational: depth 1 covers every input.
`include "simt_isa.vh"
module simt_alu_props (
    input wire [5:0]  fn,
    input wire [31:0] a,
    input wire [31:0] b,
    input wire [31:0] c
);
    wire [31:0] y;
    simt_alu dut (.fn(fn), .a(a), .b(b), .c(c), .y(y));

    wire signed [31:0] sa = a, sb = b;
    wire        [31:0] sra_r = sa >>> b;  // own wire: inside ?: the context would make the shift unsigned
    reg  [31:0] r;
    reg         care;
    always @* begin
        care = 1'b1;
        case (fn)
            `SIMT_FN_ADD:  r = a + b;                              // wraps
            `SIMT_FN_SUB:  r = a - b;
            `SIMT_FN_SLT:  r = (sa < sb) ? 32'd1 : 32'd0;          // signed
            `SIMT_FN_SGT:  r = (sa > sb) ? 32'd1 : 32'd0;
            `SIMT_FN_SLTU: r = (a < b) ? 32'd1 : 32'd0;            // unsigned
            `SIMT_FN_SGTU: r = (a > b) ? 32'd1 : 32'd0;
            `SIMT_FN_SEQ:  r = (a == b) ? 32'd1 : 32'd0;
            `SIMT_FN_SNE:  r = (a != b) ? 32'd1 : 32'd0;
            `SIMT_FN_MIN:  r = (sa < sb) ? a : b;                  // signed minimum
            `SIMT_FN_MAX:  r = (sa > sb) ? a : b;
            `SIMT_FN_MINU: r = (a < b) ? a : b;
            `SIMT_FN_MAXU: r = (a > b) ? a : b;
            `SIMT_FN_SHL:  r = (b >= 32) ? 32'd0 : a << b;         // 0 when rb >= 32
            `SIMT_FN_SHR:  r = (b >= 32) ? 32'd0 : a >> b;         // logical
            `SIMT_FN_SRA:  r = (b >= 32) ? {32{a[31]}} : sra_r;    // sign fill when rb >= 32
            `SIMT_FN_NOT:  r = ~a;
            `SIMT_FN_AND:  r = a & b;
            `SIMT_FN_OR:   r = a | b;
            `SIMT_FN_XOR:  r = a ^ b;
            `SIMT_FN_MV:   r = a;                                  // MV, MVI, LUI: y = operand a
            default: begin r = 32'd0; care = 1'b0; end            // NOP, MUL family (see above)
        endcase
    end
    always @* if (care) assert (y == r);
endmodule
