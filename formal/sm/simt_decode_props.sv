// Equivalence of simt_decode with the reference decoder generated from spec/isa.py
// (formal/sm/simt_decode_ref.v, tools/formal/gen_decode.py): `make formal` proves, for EVERY 32-bit
// word and every legal register count (1..32, the launch checks it), that both decoders agree on
// `illegal`, and on every output of a legal word: class, ALU operation (where specified), operand
// ports and their registers, immediate flags and value (where the word has one), rd / write, the
// BAD_REGISTER check, the control flags, the special-register index and the branch target.
// Combinational: a proof at depth 1 covers every input.
module simt_decode_props (
    input wire [31:0] instr,
    input wire [5:0]  regs
);
    always @* assume (regs >= 1 && regs <= 32);

    wire        illegal, bad_reg, use_a, use_b, use_c, a_imm, b_imm, wr;
    wire        is_load, is_store, is_beq, is_bne, is_bra, is_ssy, is_bar, is_exit, is_lds;
    wire [2:0]  cls;
    wire [5:0]  alu_fn;
    wire [4:0]  ra, rb, rc, rd, sreg;
    wire [31:0] imm;
    wire [15:0] target;
    simt_decode dut (
        .instr(instr), .regs(regs), .illegal(illegal), .bad_reg(bad_reg), .cls(cls), .alu_fn(alu_fn),
        .ra(ra), .rb(rb), .rc(rc), .use_a(use_a), .use_b(use_b), .use_c(use_c), .a_imm(a_imm),
        .b_imm(b_imm), .imm(imm), .wr(wr), .rd(rd), .is_load(is_load), .is_store(is_store),
        .is_beq(is_beq), .is_bne(is_bne), .is_bra(is_bra), .is_ssy(is_ssy), .is_bar(is_bar),
        .is_exit(is_exit), .is_lds(is_lds), .sreg(sreg), .target(target)
    );

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
        assert (illegal == r_illegal);
        if (!r_illegal) begin
            assert (cls == r_cls);
            if (care_alu) assert (alu_fn == r_alu_fn);
            assert (use_a == r_use_a && use_b == r_use_b && use_c == r_use_c);
            assert (a_imm == r_a_imm && b_imm == r_b_imm);
            if (r_use_a) assert (ra == r_ra);
            if (r_use_b) assert (rb == r_rb);
            if (r_use_c) assert (rc == r_rc);
            if (care_imm) assert (imm == r_imm);
            assert (wr == r_wr && rd == r_rd);
            assert (bad_reg == r_bad_reg);
            assert (is_load == r_is_load && is_store == r_is_store && is_lds == r_is_lds);
            assert (is_beq == r_is_beq && is_bne == r_is_bne && is_bra == r_is_bra);
            assert (is_ssy == r_is_ssy && is_bar == r_is_bar && is_exit == r_is_exit);
            assert (sreg == r_sreg && target == r_target);
        end
    end
endmodule
