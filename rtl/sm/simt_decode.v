// simt_decode — combinational instruction decoder (docs/sm.md "simt_decode", docs/isa.md §2-3).
//
// Every encoding comes from the generated header; the only knowledge written here is which format,
// class and immediate extension each opcode has (the opcode table of docs/isa.md §3). The result is one
// packed bus, `dec`, laid out by spec/decoded.py (rtl/include/simt_decoded.vh): the stages slice it with
// `SIMT_DEC_<NAME>(dec). For an illegal word every field except `illegal` is don't-care.
`include "simt_isa.vh"
`include "simt_decoded.vh"

module simt_decode (
    input  wire [31:0]            instr,
    input  wire [5:0]             regs,     // registers per thread of the launch, 1..32 (checked by the launch)
    output wire [`SIMT_DEC_W-1:0] dec       // the decoded instruction (fields: spec/decoded.py)
);
    // The bus's fields, each of its generated width.
    reg                         illegal;
    wire                        bad_reg;
    reg  [`SIMT_DEC_CLS_W-1:0]    cls;
    reg  [`SIMT_DEC_ALU_FN_W-1:0] alu_fn;
    reg  [`SIMT_DEC_RA_W-1:0]     ra;
    reg  [`SIMT_DEC_RB_W-1:0]     rb;
    reg  [`SIMT_DEC_RC_W-1:0]     rc;
    reg                         use_a, use_b, use_c, a_imm, b_imm;
    reg  [`SIMT_DEC_IMM_W-1:0]    imm;
    reg                         wr;
    wire [`SIMT_DEC_RD_W-1:0]     rd;
    reg                         is_load, is_store, is_beq, is_bne, is_bra, is_ssy, is_bar, is_exit, is_lds;
    wire [`SIMT_DEC_SREG_W-1:0]   sreg;
    wire [`SIMT_DEC_TARGET_W-1:0] target;
    // Arguments in the order of the field table (spec/decoded.py), each of its width.
    assign dec = `SIMT_DEC_PACK(illegal, bad_reg, cls, alu_fn, ra, rb, rc, use_a, use_b, use_c, a_imm, b_imm,
                                imm, wr, rd, is_load, is_store, is_beq, is_bne, is_bra, is_ssy, is_bar,
                                is_exit, is_lds, sreg, target);

    // Operand formats of docs/isa.md §2 (internal codes).
    localparam [3:0] F_NONE = 4'd0, F_R3 = 4'd1, F_RMUL = 4'd2, F_RMAD = 4'd3, F_RNOT = 4'd4,
                     F_MV = 4'd5, F_IMM = 4'd6, F_RI = 4'd7, F_LOAD = 4'd8, F_SREG = 4'd9,
                     F_BRANCH = 4'd10, F_STORE = 4'd11, F_TARGET = 4'd12, F_CTRL = 4'd13;
    // How the immediate becomes a 32-bit operand: sign/zero-extended imm16, imm16 << 16 (LUI),
    // sign-extended imm11 (stores).
    localparam [1:0] X_SIGN = 2'd0, X_ZERO = 2'd1, X_HIGH = 2'd2, X_S11 = 2'd3;

    wire [5:0]  op    = instr[`SIMT_OP_LSB +: `SIMT_OP_W];
    wire [5:0]  func  = instr[`SIMT_FUNC_LSB +: `SIMT_FUNC_W];
    wire [4:0]  f1    = instr[`SIMT_F1_LSB +: `SIMT_F1_W];
    wire [4:0]  f2    = instr[`SIMT_F2_LSB +: `SIMT_F2_W];
    wire [4:0]  f3    = instr[`SIMT_F3_LSB +: `SIMT_F3_W];
    wire [15:0] imm16 = instr[`SIMT_IMM16_LSB +: `SIMT_IMM16_W];
    wire [10:0] imm11 = instr[`SIMT_IMM11_LSB +: `SIMT_IMM11_W];

    assign rd     = instr[`SIMT_RD_LSB +: `SIMT_RD_W];
    assign sreg   = f1;       // LDS: f1 is the special-register index, not a register
    assign target = imm16;    // branch / SSY targets are absolute instruction addresses

    // An immediate ALU form is opcode IMM_BASE | func: strip the base to get its register op.
    wire       imm_form = (op & `SIMT_OP_IMM_BASE) == `SIMT_OP_IMM_BASE;
    wire [5:0] fsel     = (op == `SIMT_OP_ALU) ? func : (op & ~`SIMT_OP_IMM_BASE);

    // Function-code table: is the code assigned, its register-form format, whether it has an
    // immediate form and whether that immediate is zero-extended.
    reg       fn_ok, imm_ok, imm_zext;
    reg [3:0] fn_fmt;
    always @* begin
        fn_ok = 1'b1; fn_fmt = F_R3; imm_ok = 1'b0; imm_zext = 1'b0;
        case (fsel)
            `SIMT_FN_NOP:   begin fn_fmt = F_NONE; imm_ok = `SIMT_IMM_OK_NOP; end
            `SIMT_FN_MAD:   begin fn_fmt = F_RMAD; imm_ok = `SIMT_IMM_OK_MAD; end
            `SIMT_FN_MUL:   begin fn_fmt = F_RMUL; imm_ok = `SIMT_IMM_OK_MUL; imm_zext = `SIMT_IMM_ZEXT_MUL; end
            `SIMT_FN_NOT:   begin fn_fmt = F_RNOT; imm_ok = `SIMT_IMM_OK_NOT; end
            `SIMT_FN_ADD:   begin imm_ok = `SIMT_IMM_OK_ADD;   imm_zext = `SIMT_IMM_ZEXT_ADD;   end
            `SIMT_FN_SUB:   begin imm_ok = `SIMT_IMM_OK_SUB;   imm_zext = `SIMT_IMM_ZEXT_SUB;   end
            `SIMT_FN_SLT:   begin imm_ok = `SIMT_IMM_OK_SLT;   imm_zext = `SIMT_IMM_ZEXT_SLT;   end
            `SIMT_FN_SGT:   begin imm_ok = `SIMT_IMM_OK_SGT;   imm_zext = `SIMT_IMM_ZEXT_SGT;   end
            `SIMT_FN_SHR:   begin imm_ok = `SIMT_IMM_OK_SHR;   imm_zext = `SIMT_IMM_ZEXT_SHR;   end
            `SIMT_FN_SHL:   begin imm_ok = `SIMT_IMM_OK_SHL;   imm_zext = `SIMT_IMM_ZEXT_SHL;   end
            `SIMT_FN_AND:   begin imm_ok = `SIMT_IMM_OK_AND;   imm_zext = `SIMT_IMM_ZEXT_AND;   end
            `SIMT_FN_OR:    begin imm_ok = `SIMT_IMM_OK_OR;    imm_zext = `SIMT_IMM_ZEXT_OR;    end
            `SIMT_FN_XOR:   begin imm_ok = `SIMT_IMM_OK_XOR;   imm_zext = `SIMT_IMM_ZEXT_XOR;   end
            `SIMT_FN_SLTU:  begin imm_ok = `SIMT_IMM_OK_SLTU;  imm_zext = `SIMT_IMM_ZEXT_SLTU;  end
            `SIMT_FN_SGTU:  begin imm_ok = `SIMT_IMM_OK_SGTU;  imm_zext = `SIMT_IMM_ZEXT_SGTU;  end
            `SIMT_FN_SEQ:   begin imm_ok = `SIMT_IMM_OK_SEQ;   imm_zext = `SIMT_IMM_ZEXT_SEQ;   end
            `SIMT_FN_SNE:   begin imm_ok = `SIMT_IMM_OK_SNE;   imm_zext = `SIMT_IMM_ZEXT_SNE;   end
            `SIMT_FN_MIN:   begin imm_ok = `SIMT_IMM_OK_MIN;   imm_zext = `SIMT_IMM_ZEXT_MIN;   end
            `SIMT_FN_MAX:   begin imm_ok = `SIMT_IMM_OK_MAX;   imm_zext = `SIMT_IMM_ZEXT_MAX;   end
            `SIMT_FN_MINU:  begin imm_ok = `SIMT_IMM_OK_MINU;  imm_zext = `SIMT_IMM_ZEXT_MINU;  end
            `SIMT_FN_MAXU:  begin imm_ok = `SIMT_IMM_OK_MAXU;  imm_zext = `SIMT_IMM_ZEXT_MAXU;  end
            `SIMT_FN_SRA:   begin imm_ok = `SIMT_IMM_OK_SRA;   imm_zext = `SIMT_IMM_ZEXT_SRA;   end
            `SIMT_FN_MULHU: begin imm_ok = `SIMT_IMM_OK_MULHU; imm_zext = `SIMT_IMM_ZEXT_MULHU; end
            default:        fn_ok = 1'b0;
        endcase
    end

    // Opcode table: assigned?, format, class, immediate extension, ALU function.
    reg       known;
    reg [3:0] fmt;
    reg [1:0] ext;
    always @* begin
        known = 1'b1; fmt = F_CTRL; ext = X_SIGN; cls = `SIMT_CLS_ALU; alu_fn = `SIMT_FN_MV;
        case (op)
            `SIMT_OP_ALU:  begin known = fn_ok; fmt = fn_fmt; alu_fn = func; end
            `SIMT_OP_MV:   fmt = F_MV;
            `SIMT_OP_MVI:  fmt = F_IMM;
            `SIMT_OP_LUI:  begin fmt = F_IMM; ext = X_HIGH; end
            // Memory forms: the address is A + B, so a lane ALU given alu_fn can form it.
            `SIMT_OP_LD:   begin fmt = F_LOAD;  cls = `SIMT_CLS_SHARED; alu_fn = `SIMT_FN_ADD; end
            `SIMT_OP_LDC:  begin fmt = F_LOAD;  cls = `SIMT_CLS_CONST;  alu_fn = `SIMT_FN_ADD; end
            `SIMT_OP_LDG:  begin fmt = F_LOAD;  cls = `SIMT_CLS_GLOBAL; alu_fn = `SIMT_FN_ADD; end
            `SIMT_OP_ST:   begin fmt = F_STORE; cls = `SIMT_CLS_SHARED; alu_fn = `SIMT_FN_ADD; ext = X_S11; end
            `SIMT_OP_STG:  begin fmt = F_STORE; cls = `SIMT_CLS_GLOBAL; alu_fn = `SIMT_FN_ADD; ext = X_S11; end
            `SIMT_OP_LDS:  begin fmt = F_SREG;   cls = `SIMT_CLS_SREG;   end
            `SIMT_OP_BEQ:  begin fmt = F_BRANCH; cls = `SIMT_CLS_BRANCH; end
            `SIMT_OP_BNE:  begin fmt = F_BRANCH; cls = `SIMT_CLS_BRANCH; end
            `SIMT_OP_BRA:  begin fmt = F_TARGET; cls = `SIMT_CLS_BRANCH; end
            `SIMT_OP_SSY:  begin fmt = F_TARGET; cls = `SIMT_CLS_SYNC;   end
            `SIMT_OP_BAR:  begin fmt = F_CTRL;   cls = `SIMT_CLS_SYNC;   end
            `SIMT_OP_EXIT: begin fmt = F_CTRL;   cls = `SIMT_CLS_EXIT;   end
            // SSY/BAR/EXIT sit in the IMM_BASE range too; the explicit items above take priority.
            default: begin
                known = imm_form && imm_ok; fmt = F_RI; alu_fn = fsel;
                ext = imm_zext ? X_ZERO : X_SIGN;
            end
        endcase
    end

    // Control flags straight from the opcode.
    always @* begin
        is_load  = (op == `SIMT_OP_LD) || (op == `SIMT_OP_LDC) || (op == `SIMT_OP_LDG);
        is_store = (op == `SIMT_OP_ST) || (op == `SIMT_OP_STG);
        is_lds   = op == `SIMT_OP_LDS;
        is_beq   = op == `SIMT_OP_BEQ;
        is_bne   = op == `SIMT_OP_BNE;
        is_bra   = op == `SIMT_OP_BRA;
        is_ssy   = op == `SIMT_OP_SSY;
        is_bar   = op == `SIMT_OP_BAR;
        is_exit  = op == `SIMT_OP_EXIT;
    end

    // Reserved bits: everything outside the format's fields must be zero.
    reg [31:0] used;
    always @* begin
        case (fmt)
            F_NONE:   used = `SIMT_USED_NONE;
            F_R3:     used = `SIMT_USED_R3;
            F_RMUL:   used = `SIMT_USED_RMUL;
            F_RMAD:   used = `SIMT_USED_RMAD;
            F_RNOT:   used = `SIMT_USED_RNOT;
            F_MV:     used = `SIMT_USED_MV;
            F_IMM:    used = `SIMT_USED_IMM;
            F_RI:     used = `SIMT_USED_RI;
            F_LOAD:   used = `SIMT_USED_LOAD;
            F_SREG:   used = `SIMT_USED_SREG;
            F_BRANCH: used = `SIMT_USED_BRANCH;
            F_STORE:  used = `SIMT_USED_STORE;
            F_TARGET: used = `SIMT_USED_TARGET;
            default:  used = `SIMT_USED_CTRL;
        endcase
        illegal = !known || ((instr & ~used) != 32'd0);
    end

    // Operand ports per format (docs/sm.md): which register field feeds A, B, C, and where the
    // immediate goes. Ports that are not read carry 0.
    always @* begin
        ra = 5'd0; rb = 5'd0; rc = 5'd0;
        use_a = 1'b0; use_b = 1'b0; use_c = 1'b0; a_imm = 1'b0; b_imm = 1'b0;
        case (fmt)
            F_R3:     begin ra = f1; rb = f2; use_a = 1'b1; use_b = 1'b1; end
            F_RMUL:   begin ra = f2; rb = f3; use_a = 1'b1; use_b = 1'b1; end
            F_RMAD:   begin ra = f2; rb = f3; rc = f1; use_a = 1'b1; use_b = 1'b1; use_c = 1'b1; end
            F_RNOT:   begin ra = f2; use_a = 1'b1; end
            F_MV:     begin ra = f1; use_a = 1'b1; end
            F_IMM:    a_imm = 1'b1;
            F_RI:     begin ra = f1; use_a = 1'b1; b_imm = 1'b1; end
            F_LOAD:   begin ra = f1; use_a = 1'b1; b_imm = 1'b1; end
            F_BRANCH: begin ra = f1; use_a = 1'b1; end
            F_STORE:  begin ra = f1; rc = f2; use_a = 1'b1; b_imm = 1'b1; use_c = 1'b1; end
            default:  ;  // NONE, SREG, TARGET, CTRL read no register
        endcase
    end

    // Formats with an rd field write it (LDS included); NONE (NOP), stores, branches, CTRL do not.
    always @* begin
        case (fmt)
            F_R3, F_RMUL, F_RMAD, F_RNOT, F_MV, F_IMM, F_RI, F_LOAD, F_SREG: wr = 1'b1;
            default: wr = 1'b0;
        endcase
    end

    // BAD_REGISTER: every register field the format uses, i.e. the read ports plus rd.
    // (LDS's f1 is a special-register index and is on no read port.)
    assign bad_reg = (wr    && ({1'b0, rd} >= regs)) ||
                     (use_a && ({1'b0, ra} >= regs)) ||
                     (use_b && ({1'b0, rb} >= regs)) ||
                     (use_c && ({1'b0, rc} >= regs));

    always @* begin
        case (ext)
            X_SIGN:  imm = {{16{imm16[15]}}, imm16};
            X_ZERO:  imm = {16'd0, imm16};
            X_HIGH:  imm = {imm16, 16'd0};
            default: imm = {{21{imm11[10]}}, imm11};
        endcase
    end

endmodule
