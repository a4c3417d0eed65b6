; Bitonic sort of N unsigned keys, ascending (FlexGrip's bitonic benchmark).
; Launch (gen.py): one block of P/2 threads, P = max(16, next power of two >= N), P shared words.
; Thread t is the comparator of every step: it compares keys i and partner(i) and swaps them when
; they are out of order. The sorting network is bitonic sort with the "flip" form of each stage's
; first step, so every comparator sorts ascending and needs no direction:
;   stage k = 2, 4, .., P:  F(k)  compares i with i ^ (k - 1) (the mirror key in its k-block),
;                           S(j)  compares i with i + j, for j = k/4, .., 2, 1,
; where i is key index t with a 0 bit inserted at bit log2(j) (log2(k/2) for F(k)):
;   i = t + (t & ~(j - 1)) = 2t - (t & (j - 1)).
; The swap is a data-dependent divergent branch: SSY join; BEQ swap, join; ST; ST; join.
;
; Barriers: warp w owns keys [64w, 64w + 64) in every step with j <= 32 and every F(k) with k <= 64
; (its 32 comparators never leave that chunk), and a warp sees its own shared stores in program
; order (docs/isa.md 6.4), so those steps need no BAR. A BAR separates every step that crosses
; warps (F(k) for k >= 128, S(j) for j >= 64) from its neighbours, the load from the first step and
; the last step from the write-back. This needs WARP_SIZE = 32 (gen.py checks).
; Steps with j >= 2 read the precomputed key indices i2..i32 (i1 = t2 = 2t); stages 2..32 are
; unrolled, stage 64 ends in the shared tail, and stages k >= 128 loop (BIG) with k in a register.
.param KEYS, 0              ; global word address of the N input keys (filled by kernels/suite.py)
.param SORTED, 0            ; global word address of the N sorted keys
.param N, 0                 ; keys

.alias t   r0               ; comparator = thread index, 0 .. P/2 - 1
.alias t2  r1               ; 2t: lower key of S(1) and F(2)
.alias i2  r2               ; lower key of S(2) and F(4):   2t - (t & 1)
.alias i4  r3               ; lower key of S(4) and F(8):   2t - (t & 3)
.alias i8  r4               ; lower key of S(8) and F(16):  2t - (t & 7)
.alias i16 r5               ; lower key of S(16) and F(32): 2t - (t & 15)
.alias i32 r6               ; lower key of S(32) and F(64): 2t - (t & 31)
.alias nt  r7               ; P/2 threads
.alias km  r8               ; k - 1 of the looped stages
.alias a   r9               ; lower key
.alias b   r10              ; upper key
.alias s   r11              ; swap flag, scratch
.alias p   r12              ; partner index, scratch
.alias i   r13              ; lower key index of a looped step
.alias jm  r14              ; j - 1 of a looped step

; Load keys t and t + P/2 (coalesced); keys N .. P-1 are padding 0xFFFFFFFF, which sorts last.
        LDS  t, %tid.x
        LDS  nt, %ntid.x
        LDS  p, %KEYS
        ADD  p, p, t
        LDG  a, [p]                 ; key t: t < P/2 < N, always a real key
        ST   [t], a
        ADD  i, t, nt
        ADD  p, p, nt
        LDS  s, %N
        SLTU s, i, s
        MVI  b, -1                  ; 0xFFFFFFFF
        SSY  loaded
        BEQ  s, loaded              ; key t + P/2 past the end: keep the pad (last warp only)
        LDG  b, [p]
loaded: ST   [i], b
        ADD  t2, t, t
        ANDI s, t, 1
        SUB  i2, t2, s
        ANDI s, t, 3
        SUB  i4, t2, s
        ANDI s, t, 7
        SUB  i8, t2, s
        ANDI s, t, 15
        SUB  i16, t2, s
        ANDI s, t, 31
        SUB  i32, t2, s
        MVI  km, 63                 ; the stage the shared tail finishes first is k = 64
        BAR                         ; keys t + P/2 were loaded by another warp

; stage k = 2
        LD   a, [t2]                ; F(2) = S(1)
        LD   b, [t2 + 1]
        SGTU s, a, b                ; out of order?
        SSY  k2
        BEQ  s, k2                  ; divergent: only the comparators that swap store
        ST   [t2], b
        ST   [t2 + 1], a
k2:

; stage k = 4
        XORI p, i2, 3               ; F(4): partner = i ^ (k - 1)
        LD   a, [i2]
        LD   b, [p]
        SGTU s, a, b
        SSY  k4f
        BEQ  s, k4f
        ST   [i2], b
        ST   [p], a
k4f:
        LD   a, [t2]                ; S(1)
        LD   b, [t2 + 1]
        SGTU s, a, b
        SSY  k4s1
        BEQ  s, k4s1
        ST   [t2], b
        ST   [t2 + 1], a
k4s1:

; stage k = 8
        XORI p, i4, 7               ; F(8): partner = i ^ (k - 1)
        LD   a, [i4]
        LD   b, [p]
        SGTU s, a, b
        SSY  k8f
        BEQ  s, k8f
        ST   [i4], b
        ST   [p], a
k8f:
        LD   a, [i2]                ; S(2)
        LD   b, [i2 + 2]
        SGTU s, a, b
        SSY  k8s2
        BEQ  s, k8s2
        ST   [i2], b
        ST   [i2 + 2], a
k8s2:
        LD   a, [t2]                ; S(1)
        LD   b, [t2 + 1]
        SGTU s, a, b
        SSY  k8s1
        BEQ  s, k8s1
        ST   [t2], b
        ST   [t2 + 1], a
k8s1:

; stage k = 16
        XORI p, i8, 15              ; F(16): partner = i ^ (k - 1)
        LD   a, [i8]
        LD   b, [p]
        SGTU s, a, b
        SSY  k16f
        BEQ  s, k16f
        ST   [i8], b
        ST   [p], a
k16f:
        LD   a, [i4]                ; S(4)
        LD   b, [i4 + 4]
        SGTU s, a, b
        SSY  k16s4
        BEQ  s, k16s4
        ST   [i4], b
        ST   [i4 + 4], a
k16s4:
        LD   a, [i2]                ; S(2)
        LD   b, [i2 + 2]
        SGTU s, a, b
        SSY  k16s2
        BEQ  s, k16s2
        ST   [i2], b
        ST   [i2 + 2], a
k16s2:
        LD   a, [t2]                ; S(1)
        LD   b, [t2 + 1]
        SGTU s, a, b
        SSY  k16s1
        BEQ  s, k16s1
        ST   [t2], b
        ST   [t2 + 1], a
k16s1:

        SLTUI s, nt, 16
        BNE  s, done                ; P = 16: sorted

; stage k = 32
        XORI p, i16, 31             ; F(32): partner = i ^ (k - 1)
        LD   a, [i16]
        LD   b, [p]
        SGTU s, a, b
        SSY  k32f
        BEQ  s, k32f
        ST   [i16], b
        ST   [p], a
k32f:
        LD   a, [i8]                ; S(8)
        LD   b, [i8 + 8]
        SGTU s, a, b
        SSY  k32s8
        BEQ  s, k32s8
        ST   [i8], b
        ST   [i8 + 8], a
k32s8:
        LD   a, [i4]                ; S(4)
        LD   b, [i4 + 4]
        SGTU s, a, b
        SSY  k32s4
        BEQ  s, k32s4
        ST   [i4], b
        ST   [i4 + 4], a
k32s4:
        LD   a, [i2]                ; S(2)
        LD   b, [i2 + 2]
        SGTU s, a, b
        SSY  k32s2
        BEQ  s, k32s2
        ST   [i2], b
        ST   [i2 + 2], a
k32s2:
        LD   a, [t2]                ; S(1)
        LD   b, [t2 + 1]
        SGTU s, a, b
        SSY  k32s1
        BEQ  s, k32s1
        ST   [t2], b
        ST   [t2 + 1], a
k32s1:
        SLTUI s, nt, 32
        BNE  s, done                ; P = 32: sorted

; stage k = 64: F(64), then the tail from S(16)
        XORI p, i32, 63             ; F(64)
        LD   a, [i32]
        LD   b, [p]
        SGTU s, a, b
        SSY  k64f
        BEQ  s, k64f
        ST   [i32], b
        ST   [p], a
k64f:   BRA  tail16

; Shared tail of the stages k >= 64: S(32) (k >= 128 only), S(16), .., S(1), all warp-local.
tail32: LD   a, [i32]               ; S(32)
        LD   b, [i32 + 32]
        SGTU s, a, b
        SSY  j32
        BEQ  s, j32
        ST   [i32], b
        ST   [i32 + 32], a
j32:
tail16: LD   a, [i16]               ; S(16)
        LD   b, [i16 + 16]
        SGTU s, a, b
        SSY  j16
        BEQ  s, j16
        ST   [i16], b
        ST   [i16 + 16], a
j16:
        LD   a, [i8]                ; S(8)
        LD   b, [i8 + 8]
        SGTU s, a, b
        SSY  j8
        BEQ  s, j8
        ST   [i8], b
        ST   [i8 + 8], a
j8:
        LD   a, [i4]                ; S(4)
        LD   b, [i4 + 4]
        SGTU s, a, b
        SSY  j4
        BEQ  s, j4
        ST   [i4], b
        ST   [i4 + 4], a
j4:
        LD   a, [i2]                ; S(2)
        LD   b, [i2 + 2]
        SGTU s, a, b
        SSY  j2
        BEQ  s, j2
        ST   [i2], b
        ST   [i2 + 2], a
j2:
        LD   a, [t2]                ; S(1)
        LD   b, [t2 + 1]
        SGTU s, a, b
        SSY  j1
        BEQ  s, j1
        ST   [t2], b
        ST   [t2 + 1], a
j1:
; Next stage: k doubles while k <= P.
        SLTU s, km, nt              ; 2k <= P ?
        SHLI km, km, 1
        ORI  km, km, 1              ; k - 1 for k doubled
        BEQ  s, done
; Stage k >= 128: F(k) and S(j) for j = k/4 .. 64 cross warps, a BAR after each.
        BAR
        SHRI jm, km, 1              ; k/2 - 1
        AND  s, t, jm
        SUB  i, t2, s               ; i = 2t - (t & (k/2 - 1))
        XOR  p, i, km               ; F(k)
        LD   a, [i]
        LD   b, [p]
        SGTU s, a, b
        SSY  bigf
        BEQ  s, bigf
        ST   [i], b
        ST   [p], a
bigf:   BAR
        SHRI jm, jm, 1              ; j - 1 for j = k/4
bigj:   SLTUI s, jm, 63
        BNE  s, tail32              ; j < 64: the rest is the warp-local tail
        AND  s, t, jm
        SUB  i, t2, s               ; i = 2t - (t & (j - 1))
        ADD  p, i, jm               ; partner - 1
        LD   a, [i]                 ; S(j)
        LD   b, [p + 1]
        SGTU s, a, b
        SSY  bigs
        BEQ  s, bigs
        ST   [i], b
        ST   [p + 1], a
bigs:   BAR
        SHRI jm, jm, 1
        BRA  bigj

; Write back keys t and t + P/2 (coalesced); the padding past N stays in shared memory.
done:   BAR
        LDS  p, %SORTED
        ADD  p, p, t
        LD   a, [t]
        STG  [p], a
        ADD  i, t, nt
        LDS  s, %N
        SLTU s, i, s
        SSY  exit
        BEQ  s, exit
        ADD  p, p, nt
        LD   b, [i]
        STG  [p], b
exit:   EXIT
