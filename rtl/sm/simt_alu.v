// simt_alu — one integer lane, combinational (docs/sm.md "simt_alu", docs/isa.md §3.1).
//
// fn is a SIMT_FN_* code: the func of a register ALU op (its immediate form decodes to the same
// code) or SIMT_FN_MV (y = a, for MV/MVI/LUI). NOP and unassigned codes give 0; their result is
// never written.
`include "simt_isa.vh"

module simt_alu (
    input  wire [5:0]  fn,
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire [31:0] c,    // MAD addend
    output reg  [31:0] y
);

    // One 32x32 -> 64 unsigned multiplier serves MUL/MAD (low half) and MULHU (high half).
    wire [63:0] prod = {32'd0, a} * {32'd0, b};

    // Shifts take the whole 32-bit amount: any bit above bit 4 means "by 32 or more".
    wire        big  = |b[31:5];
    wire [31:0] shl  = big ? 32'd0 : (a << b[4:0]);
    wire [31:0] shr  = big ? 32'd0 : (a >> b[4:0]);
    // Arithmetic shift by >= 32 is a shift by 31: every bit becomes the sign.
    wire [31:0] sra  = $signed(a) >>> (big ? 5'd31 : b[4:0]);

    wire lts = $signed(a) < $signed(b);
    wire ltu = a < b;
    wire eq  = a == b;

    always @* begin
        case (fn)
            `SIMT_FN_MAD:   y = prod[31:0] + c;
            `SIMT_FN_MUL:   y = prod[31:0];
            `SIMT_FN_MULHU: y = prod[63:32];
            `SIMT_FN_ADD:   y = a + b;
            `SIMT_FN_SUB:   y = a - b;
            `SIMT_FN_SLT:   y = {31'd0, lts};
            `SIMT_FN_SGT:   y = {31'd0, !lts && !eq};
            `SIMT_FN_SLTU:  y = {31'd0, ltu};
            `SIMT_FN_SGTU:  y = {31'd0, !ltu && !eq};
            `SIMT_FN_SEQ:   y = {31'd0, eq};
            `SIMT_FN_SNE:   y = {31'd0, !eq};
            `SIMT_FN_MIN:   y = lts ? a : b;
            `SIMT_FN_MAX:   y = lts ? b : a;
            `SIMT_FN_MINU:  y = ltu ? a : b;
            `SIMT_FN_MAXU:  y = ltu ? b : a;
            `SIMT_FN_SHL:   y = shl;
            `SIMT_FN_SHR:   y = shr;
            `SIMT_FN_SRA:   y = sra;
            `SIMT_FN_NOT:   y = ~a;
            `SIMT_FN_AND:   y = a & b;
            `SIMT_FN_OR:    y = a | b;
            `SIMT_FN_XOR:   y = a ^ b;
            `SIMT_FN_MV:    y = a;
            default:        y = 32'd0;  // NOP / unassigned: result unused
        endcase
    end

endmodule
