; if/else nested three deep in the taken paths (which run first) plus one more SSY: a divergence stack
; 7 entries deep, left by a plain instruction falling through to its join (with STACK_DEPTH 7 the depth
; field is then all ones)
.grid 1
.block 32
.param OUT, 0
        LDS  r1, %tid
        MVI  r10, 0
        ANDI r2, r1, 1
        ANDI r3, r1, 2
        ANDI r4, r1, 4
        SSY  j1
        BNE  r2, t1
        ADDI r10, r10, 16
        BRA  j1
t1:     SSY  j2
        BNE  r3, t2
        ADDI r10, r10, 8
        BRA  j2
t2:     SSY  j3
        BNE  r4, t3
        ADDI r10, r10, 4
        BRA  j3
t3:     SSY  j4                  ; depth 7
        ADDI r10, r10, 1
j4:     ADDI r10, r10, 2
j3:     ADDI r10, r10, 32
j2:     ADDI r10, r10, 64
j1:     LDS  r5, %OUT
        ADD  r5, r5, r1
        STG  [r5], r10
        EXIT
