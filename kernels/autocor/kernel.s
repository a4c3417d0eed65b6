; Autocorrelation: R[k] = sum over i < N - k of X[i] * X[i + k] (32-bit wrapping), k < N.
; Launch (gen.py): 1-D blocks of T threads (T = N rounded up to a warp, at most a block's limit),
; ceil(N / T) blocks, one thread per lag k = ctaid.x * T + tid.x; N + 16 shared words.
;
; 1. The block copies X into shared[0 .. N-1] (coalesced, T words per step); shared[N ..] stays zero.
; 2. After the barrier the threads with k >= N exit; thread k walks i = 0, 16, 32, ... while
;    i + k < N, 16 products per step (shared loads with immediate offsets). The last step of a lane
;    may run past N - k: it then reads the zero words after X, which add nothing. Each lane's trip
;    count, ceil((N - k) / 16), differs: a divergent loop whose leaving lanes wait at the loop's
;    reconvergence point (no stack growth); the warp runs until its lowest lag is done.
.param X, 0                 ; global word addresses of the arrays (filled by kernels/suite.py)
.param R, 0
.param N, 0                 ; elements of X, and lags

        LDS  r1, %tid.x             ; tid: the first shared word this thread copies
        LDS  r2, %X
        LDS  r3, %N
        LDS  r4, %ntid.x
        LDS  r5, %ctaid.x
        MAD  r5, r5, r4, r1         ; k; also the shared address of x[i + k] for i = 0
        ADD  r6, r2, r1             ; g = X + tid: the global word it copies
        ADD  r2, r2, r3             ; end of X
        SSY  staged
        SLT  r7, r6, r2
        BEQ  r7, staged
stage:  LDG  r8, [r6]
        ST   [r1], r8
        ADD  r6, r6, r4
        ADD  r1, r1, r4
        SLT  r7, r6, r2
        BNE  r7, stage              ; more than once only when N > T
staged: BAR                         ; X is in shared memory for every warp
        SLT  r7, r5, r3
        SSY  go
        BNE  r7, go
        EXIT                        ; lags k >= N (partial EXIT in the last warp)
go:     LDS  r6, %R
        ADD  r6, r6, r5             ; &R[k]
        SSY  fin                    ; r9 = i (shared address of x[i]) starts at 0
loop:
        LD   r7, [r9 + 0]             ; x[i + u]: one word for every lane (broadcast)
        LD   r8, [r5 + 0]             ; x[i + k + u]: consecutive lanes, consecutive words
        MAD  r10, r7, r8, r10        ; r (r10) starts at 0: registers are zero when a block starts
        LD   r7, [r9 + 1]
        LD   r8, [r5 + 1]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 2]
        LD   r8, [r5 + 2]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 3]
        LD   r8, [r5 + 3]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 4]
        LD   r8, [r5 + 4]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 5]
        LD   r8, [r5 + 5]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 6]
        LD   r8, [r5 + 6]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 7]
        LD   r8, [r5 + 7]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 8]
        LD   r8, [r5 + 8]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 9]
        LD   r8, [r5 + 9]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 10]
        LD   r8, [r5 + 10]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 11]
        LD   r8, [r5 + 11]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 12]
        LD   r8, [r5 + 12]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 13]
        LD   r8, [r5 + 13]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 14]
        LD   r8, [r5 + 14]
        MAD  r10, r7, r8, r10
        LD   r7, [r9 + 15]
        LD   r8, [r5 + 15]
        MAD  r10, r7, r8, r10
        ADDI r9, r9, 16
        ADDI r5, r5, 16
        SLT  r7, r5, r3             ; i + k < N
        BNE  r7, loop               ; divergent: lanes that are done wait at fin (the rpc)
fin:    STG  [r6], r10
        EXIT
