// Equivalence of simt_decode with the reference decoder generated from spec/isa.py
// (formal/sm/simt_decode_ref.v, tools/formal/gen_decode.py): `make formal` proves, for EVERY 32-bit
// word and every legal register count (1..32, the launch checks it), that both decoders agree on
// `illegal`, and on every output of a legal word: class, ALU operation (where specified), operand
// ports and their registers, immediate flags and value (where the word has one), rd / write, the
// BAD_REGISTER check, the control flags, the special-register index and the branch target.
// Combinational: a proof at depth 1 covers every input.
`include "simt_decoded.vh"
module simt_decode_props (
    input wire [31:0] instr,
    input wire [5:0]  regs
);
    always @* assume (regs >= 1 && regs <= 32);

    // The decoder's one output bus (spec/decoded.py); each field is sliced with its generated macro.
    wire [`SIMT_DEC_W-1:0] dec;
    simt_decode dut (.instr(instr), .regs(regs), .dec(dec));

    wire        r_illegal, r_bad_reg, r_use_a, r_use_b, r_use_c, r_a_imm, r_b_imm, r_wr, care_alu, care_imm;
    wire        r_is_load, r_is_store, r_is_beq, r_is_bne, r_is_bra, r_is_ssy, r_is_bar, r_is_exit, r_is_lds;
    wire [2:0]  r_cls;
    wire [5:0]  r_alu_fn;
    wire [4:0]  r_ra, r_rb, r_rc, r_rd, r_sreg;
    wire [31:0] r_imm;
    wire [15:0] r_target;
    simt_decode_ref ref (
        .instr(instr), .regs(regs), .illegal(r_illegal), .bad_reg(r_bad_reg), .cls(r_cls),
        .alu_fn(r_alu_fn), .care_alu(care_alu), .ra(r_ra), .rb(r_rb), .rc(r_rc), .use_a(r_use_a),
        .use_b(r_use_b), .use_c(r_use_c), .a_imm(r_a_imm), .b_imm(r_b_imm), .imm(r_imm),
        .care_imm(care_imm), .wr(r_wr), .rd(r_rd), .is_load(r_is_load), .is_store(r_is_store),
        .is_lds(r_is_lds), .is_beq(r_is_beq), .is_bne(r_is_bne), .is_bra(r_is_bra), .is_ssy(r_is_ssy),
        .is_bar(r_is_bar), .is_exit(r_is_exit), .sreg(r_sreg), .target(r_target)
    );

    always @* begin
        assert (`SIMT_DEC_ILLEGAL(dec) == r_illegal);
        if (!r_illegal) begin
            assert (`SIMT_DEC_CLS(dec) == r_cls);
            if (care_alu) assert (`SIMT_DEC_ALU_FN(dec) == r_alu_fn);
            assert (`SIMT_DEC_USE_A(dec) == r_use_a && `SIMT_DEC_USE_B(dec) == r_use_b &&
                    `SIMT_DEC_USE_C(dec) == r_use_c);
            assert (`SIMT_DEC_A_IMM(dec) == r_a_imm && `SIMT_DEC_B_IMM(dec) == r_b_imm);
            if (r_use_a) assert (`SIMT_DEC_RA(dec) == r_ra);
            if (r_use_b) assert (`SIMT_DEC_RB(dec) == r_rb);
            if (r_use_c) assert (`SIMT_DEC_RC(dec) == r_rc);
            if (care_imm) assert (`SIMT_DEC_IMM(dec) == r_imm);
            assert (`SIMT_DEC_WR(dec) == r_wr && `SIMT_DEC_RD(dec) == r_rd);
            assert (`SIMT_DEC_BAD_REG(dec) == r_bad_reg);
            assert (`SIMT_DEC_IS_LOAD(dec) == r_is_load && `SIMT_DEC_IS_STORE(dec) == r_is_store &&
                    `SIMT_DEC_IS_LDS(dec) == r_is_lds);
            assert (`SIMT_DEC_IS_BEQ(dec) == r_is_beq && `SIMT_DEC_IS_BNE(dec) == r_is_bne &&
                    `SIMT_DEC_IS_BRA(dec) == r_is_bra);
            assert (`SIMT_DEC_IS_SSY(dec) == r_is_ssy && `SIMT_DEC_IS_BAR(dec) == r_is_bar &&
                    `SIMT_DEC_IS_EXIT(dec) == r_is_exit);
            assert (`SIMT_DEC_SREG(dec) == r_sreg && `SIMT_DEC_TARGET(dec) == r_target);
        end
    end
endmodule
