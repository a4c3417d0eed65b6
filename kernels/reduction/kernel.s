; Reduction: OUT[0] = X[0] + X[1] + ... + X[N-1] (32-bit wrapping), one block.
; Launch (gen.py): one block of T = 32 * W threads, W = 1..4 warps; shared 32 words, 128 when W > 1.
;
; 1. Strided partial sums. Warp w reads whole tiles of 128 words: tile w, w + W, w + 2W, ...; lane l of
;    a tile at t loads t + l, t + l + 32, t + l + 64, t + l + 96 (four coalesced loads, offsets as
;    immediates). The loop runs while the warp's tile is entirely below N, so it never diverges. The
;    last, partial tile (fewer than 128 words) is read 32 words at a time by the one warp that owns it:
;    a divergent loop, lanes leave at its reconvergence point (no stack growth).
; 2. Across warps (W > 1): warps 1..W-1 publish their sums in shared[tid] and exit; warp 0 waits at the
;    barrier and adds shared[l + 32], shared[l + 64], shared[l + 96] (zero where a warp is missing).
; 3. Within warp 0: a shared tree, s = 16, 8, 4, 2, 1; each step the lanes with l >= s leave for the
;    reconvergence point, so the active threads halve (one SSY for all five steps).
.param X, 0                 ; global word address of the input (filled by kernels/suite.py)
.param OUT, 0               ; global word address of the one-word result
.param N, 0                 ; elements

        LDS  r1, %tid.x             ; tid (= lane l in warp 0)
        LDS  r2, %X
        LDS  r3, %N
        ANDI r4, r1, 31             ; l
        ADD  r6, r2, r4             ; X + l
        SUB  r5, r1, r4             ; 32 w: zero in warp 0
        SHLI r7, r5, 2
        ADD  r7, r6, r7             ; p = X + 128 w + l: this lane's word of the warp's first tile
        ADD  r8, r2, r3             ; end = X + N
        ADD  r9, r6, r3
        ADDI r9, r9, -127           ; the tile at p - l is whole iff p < lim = X + l + N - 127 (signed)
        LDS  r10, %ntid.x
        SHLI r10, r10, 2            ; stride = 4 T: the next tile of this warp
        SLT  r11, r7, r9
        BEQ  r11, tail              ; uniform in a warp (p - l is the same for all lanes)
main:   LDG  r12, [r7]
        LDG  r13, [r7 + 32]
        LDG  r14, [r7 + 64]
        LDG  r2, [r7 + 96]
        ADD  r15, r15, r12          ; v (r15) starts at 0: registers are zero when a block starts
        ADD  r13, r13, r14
        ADD  r15, r15, r2
        ADD  r15, r15, r13
        ADD  r7, r7, r10
        SLT  r11, r7, r9
        BNE  r11, main
tail:   SSY  red                    ; the partial tile: lanes with p < end, 32 words per step
        SLT  r11, r7, r8
        BEQ  r11, red
tl:     LDG  r12, [r7]
        ADD  r15, r15, r12
        ADDI r7, r7, 32
        SLT  r11, r7, r8
        BNE  r11, tl                ; divergent loop: leavers wait at red (the rpc)
red:    SLTI r11, r10, 129          ; one warp (stride 128): no exchange across warps
        BNE  r11, intra
        BEQ  r5, gather             ; warp 0 gathers; the others publish their sum and finish
        ST   [r1], r15
        EXIT
gather: BAR                         ; released when warps 1..W-1 have exited (their stores visible)
        LD   r12, [r1 + 32]
        LD   r13, [r1 + 64]
        LD   r14, [r1 + 96]
        ADD  r15, r15, r12
        ADD  r13, r13, r14
        ADD  r15, r15, r13
intra:  ST   [r1], r15              ; warp 0 only from here
        SSY  done
        SLTI r11, r1, 16            ; if (l < 16)
        BEQ  r11, done
        LD   r12, [r1 + 16]
        ADD  r15, r15, r12
        ST   [r1], r15
        SLTI r11, r1, 8             ; if (l < 8)
        BEQ  r11, done
        LD   r12, [r1 + 8]
        ADD  r15, r15, r12
        ST   [r1], r15
        SLTI r11, r1, 4             ; if (l < 4)
        BEQ  r11, done
        LD   r12, [r1 + 4]
        ADD  r15, r15, r12
        ST   [r1], r15
        SLTI r11, r1, 2             ; if (l < 2)
        BEQ  r11, done
        LD   r12, [r1 + 2]
        ADD  r15, r15, r12
        ST   [r1], r15
        SLTI r11, r1, 1             ; if (l < 1): lane 0 adds the last pair and writes the sum
        BEQ  r11, done
        LD   r12, [r1 + 1]
        ADD  r15, r15, r12
        LDS  r2, %OUT
        STG  [r2], r15
done:   EXIT                        ; the whole warp again (the SYNC of done is popped)
