; VectorAdd: C[i] = A[i] + B[i] for i < N, one thread per element.
; Launch (gen.py): 1-D blocks of up to 128 threads, ceil(N / block) blocks.
.param A, 0                 ; global word addresses of the arrays (filled by kernels/suite.py)
.param B, 0
.param C, 0
.param N, 0                 ; elements

        LDS  r1, %ctaid.x
        LDS  r2, %ntid.x
        LDS  r3, %tid.x
        MAD  r4, r1, r2, r3         ; i = ctaid.x * ntid.x + tid.x
        LDS  r5, %N
        SLT  r6, r4, r5
        SSY  body
        BNE  r6, body               ; threads past the end of the arrays exit (partial EXIT)
        EXIT
body:   LDS  r7, %A
        ADD  r7, r7, r4
        LDG  r8, [r7]               ; consecutive threads, consecutive words: coalesced
        LDS  r7, %B
        ADD  r7, r7, r4
        LDG  r9, [r7]
        ADD  r8, r8, r9
        LDS  r7, %C
        ADD  r7, r7, r4
        STG  [r7], r8
        EXIT
