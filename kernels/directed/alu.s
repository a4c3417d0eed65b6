; every ALU operation on per-lane operands; results stored per thread
.grid 1
.block 64
.param OUT, 0
        LDS  r1, %tid
        MULI r2, r1, 0x1357
        LI   r3, 0x9E3779B9
        MUL  r4, r2, r3          ; scrambled per-lane values
        XOR  r5, r4, r1
        SRAI r6, r4, 3
        MAD  r7, r5, r6, r4
        SUB  r8, r7, r5
        SLT  r9, r8, r7
        SGTU r10, r8, r7
        MIN  r11, r4, r5
        MAXU r12, r4, r5
        SHL  r13, r5, r1          ; shift amounts 0..63: >= 32 gives 0
        SHR  r14, r4, r1
        SRA  r15, r4, r1
        MULHU r16, r4, r5
        NOT  r17, r16
        SEQ  r18, r9, r10
        SNEI r19, r1, 7
        ANDI r20, r4, 0xFF00
        ORI  r21, r20, 0x8001
        LUI  r22, 0xBEEF
        ADD  r23, r22, r21
        MINUI r24, r4, -1
        MAXI r25, r4, -5
        SLTUI r26, r4, 100
        SGTI r27, r5, -100
        MV   r28, r27
        NOP
        LDS  r29, %OUT
        MULI r30, r1, 4
        ADD  r29, r29, r30
        STG  [r29 + 0], r13
        STG  [r29 + 1], r15
        STG  [r29 + 2], r23
        STG  [r29 + 3], r28
        EXIT
