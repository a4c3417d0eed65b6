; ScalarProd: OUT[v] = sum over i < N of A[v*N + i] * B[v*N + i] (32-bit wrapping), v < V.
; Launch (gen.py): V blocks (one per vector pair) of one 32-thread warp; 32 shared words.
;
; 1. Strided partial products: the warp reads whole 128-word tiles of its pair, lane l of the tile at
;    t loads t + l, t + l + 32, t + l + 64, t + l + 96 of A and of B (coalesced, offsets as immediates)
;    and accumulates with MAD. The loop runs while the tile is entirely below N, so it never diverges.
;    The partial last tile is read 32 words at a time: a divergent loop, lanes leave at its
;    reconvergence point (no stack growth).
; 2. A shared tree, s = 16, 8, 4, 2, 1; each step the lanes with l >= s leave for the reconvergence
;    point, so the active threads halve (one SSY for all five steps). Lane 0 stores OUT[v].
.param A, 0                 ; global word addresses of the arrays (filled by kernels/suite.py)
.param B, 0
.param OUT, 0
.param N, 0                 ; length of each vector

        LDS  r1, %tid.x             ; lane l
        LDS  r2, %ctaid.x           ; pair v
        LDS  r3, %N
        MAD  r4, r2, r3, r1         ; v N + l
        LDS  r5, %A
        ADD  r6, r5, r4             ; pa = A + v N + l
        LDS  r5, %B
        ADD  r7, r5, r4             ; pb = B + v N + l
        ADD  r8, r6, r3
        SUB  r9, r8, r1             ; end = A + v N + N: lane's element is in the vector iff pa < end
        ADDI r8, r8, -127           ; the tile at pa - l is whole iff pa < lim = A + v N + l + N - 127
        SLT  r10, r6, r8
        BEQ  r10, tail              ; uniform (pa - l is the same for all lanes)
main:   LDG  r11, [r6]
        LDG  r12, [r7]
        LDG  r13, [r6 + 32]
        LDG  r14, [r7 + 32]
        MAD  r15, r11, r12, r15     ; acc (r15) starts at 0: registers are zero when a block starts
        MAD  r15, r13, r14, r15
        LDG  r11, [r6 + 64]
        LDG  r12, [r7 + 64]
        LDG  r13, [r6 + 96]
        LDG  r14, [r7 + 96]
        MAD  r15, r11, r12, r15
        MAD  r15, r13, r14, r15
        ADDI r6, r6, 128
        ADDI r7, r7, 128
        SLT  r10, r6, r8
        BNE  r10, main
tail:   SSY  red                    ; the partial tile: lanes with pa < end, 32 words per step
        SLT  r10, r6, r9
        BEQ  r10, red
tl:     LDG  r11, [r6]
        LDG  r12, [r7]
        MAD  r15, r11, r12, r15
        ADDI r6, r6, 32
        ADDI r7, r7, 32
        SLT  r10, r6, r9
        BNE  r10, tl                ; divergent loop: leavers wait at red (the rpc)
red:    ST   [r1], r15
        SSY  done
        SLTI r10, r1, 16            ; if (l < 16)
        BEQ  r10, done
        LD   r11, [r1 + 16]
        ADD  r15, r15, r11
        ST   [r1], r15
        SLTI r10, r1, 8             ; if (l < 8)
        BEQ  r10, done
        LD   r11, [r1 + 8]
        ADD  r15, r15, r11
        ST   [r1], r15
        SLTI r10, r1, 4             ; if (l < 4)
        BEQ  r10, done
        LD   r11, [r1 + 4]
        ADD  r15, r15, r11
        ST   [r1], r15
        SLTI r10, r1, 2             ; if (l < 2)
        BEQ  r10, done
        LD   r11, [r1 + 2]
        ADD  r15, r15, r11
        ST   [r1], r15
        SLTI r10, r1, 1             ; if (l < 1): lane 0 adds the last pair and writes OUT[v]
        BEQ  r10, done
        LD   r11, [r1 + 1]
        ADD  r15, r15, r11
        LDS  r5, %OUT
        ADD  r5, r5, r2
        STG  [r5], r15
done:   EXIT                        ; the whole warp again (the SYNC of done is popped)
