; AluStream: a micro-benchmark of the pipeline's ALU path (docs/benchmarks.md "Pipeline steady
; state"). OUT[i] = mix^R(i ^ SEED) for i < N, one thread per element: R rounds of a 15-instruction
; integer mix (multiply, shifts, xor, add) plus the round counter, so 16 of every 17 warp-instructions
; of the loop are ALU and the one uniform loop branch is the only other kind. Every warp stays converged; no memory inside the loop.
; Launch (gen.py): blocks of 256 threads (8 warps), ceil(N / 256) blocks.
.param OUT, 0               ; global word address of the output (filled by kernels/suite.py)
.param N, 0                 ; elements (a multiple of 32: no partial warp)
.param R, 0                 ; rounds, >= 1
.param SEED, 0

        LDS  r1, %ctaid.x
        LDS  r2, %ntid.x
        LDS  r3, %tid.x
        MAD  r4, r1, r2, r3         ; i = ctaid.x * ntid.x + tid.x
        LDS  r5, %SEED
        XOR  r6, r4, r5             ; x = i ^ SEED
        LDS  r7, %R                 ; rounds left
loop:   MULI r8, r6, 0x2545         ; the mix: 15 ALU instructions
        SHRI r9, r8, 15
        XOR  r6, r8, r9
        ADDI r6, r6, 0x1234
        SHLI r9, r6, 7
        XOR  r6, r6, r9
        MULI r8, r6, -0x3b5
        SHRI r9, r8, 13
        XOR  r6, r8, r9
        ADD  r6, r6, r4
        SHLI r9, r6, 3
        SUB  r6, r6, r9
        XORI r6, r6, 0x5a5a
        SHRI r9, r6, 11
        ADD  r6, r6, r9
        SUBI r7, r7, 1
        BNE  r7, loop               ; uniform: every thread runs R rounds
        LDS  r8, %OUT
        ADD  r8, r8, r4
        STG  [r8], r6
        EXIT
