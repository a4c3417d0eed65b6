; Naive integer matrix multiply, one thread per output element: C = A x B, all N x N.
; Used by tools/bench/model_throughput.py and the directed tests to measure the golden model's speed.
; Parameters: A, B, C (global word addresses), N. Launch: 2-D blocks tiling the N x N output.
.param A, 0
.param B, 0
.param C, 0
.param N, 0

        LDS  r1, %ctaid.y
        LDS  r2, %ntid.y
        LDS  r3, %tid.y
        MAD  r4, r1, r2, r3        ; row = ctaid.y * ntid.y + tid.y
        LDS  r1, %ctaid.x
        LDS  r2, %ntid.x
        LDS  r3, %tid.x
        MAD  r5, r1, r2, r3        ; col
        LDS  r6, %N
        LDS  r1, %A
        MAD  r7, r4, r6, r1        ; &A[row][0]
        LDS  r8, %B
        ADD  r8, r8, r5            ; &B[0][col]
        MVI  r9, 0                 ; sum
        MV   r10, r6               ; k countdown
loop:   LDG  r11, [r7]
        LDG  r12, [r8]
        MAD  r9, r11, r12, r9
        ADDI r7, r7, 1
        ADD  r8, r8, r6
        SUBI r10, r10, 1
        BNE  r10, loop
        LDS  r1, %C
        MAD  r1, r4, r6, r1
        ADD  r1, r1, r5
        STG  [r1], r9
        EXIT
