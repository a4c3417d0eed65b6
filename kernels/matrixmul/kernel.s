; MatrixMul: C = A x B for N x N matrices of words (row-major, wrapping), tiled as in the CUDA
; programming guide. A block of TILE x TILE threads computes one TILE x TILE tile of C: per k-tile each
; thread copies one word of A and one of B into shared memory (0 outside the matrix), BAR, accumulates
; TILE products from shared memory, BAR. The k loop over the tile is unrolled (3 instructions per k).
; Launch (gen.py): blocks of 16 x 16 threads, a ceil(N/16) x ceil(N/16) grid, 512 shared words,
; 16 registers (so a 256-thread block fits an RF_DEPTH of 512 with 8 lanes).
;
; The k-tiles are walked from the last to the first, so the only partial one (N % 16 != 0) comes first
; and takes the guarded loads at `edge`; every later tile is whole and branch-free. Rows and columns
; past N are clamped to N - 1 for the loads (their threads still fill the shared tiles for the others)
; and are not stored.
.param A, 0                 ; global word addresses of the arrays (filled by kernels/suite.py)
.param B, 0
.param C, 0
.param N, 0                 ; matrix order
.param LAST, 0              ; 16 * (NT - 1): first k of the last k-tile
.param NT, 0                ; k-tiles: ceil(N / 16)
.param PART, 0              ; N % 16: width of the partial last k-tile (0: none)

.equ TILE, 16
.equ BS, TILE * TILE        ; shared layout: As[ty][k] at ty*16 + k, Bs[k][tx] at BS + k*16 + tx

.alias x r0                 ; A operand (also the word this thread copies into As)
.alias tx r1                ; %tid.x: Bs column base
.alias ty r2
.alias tid r3               ; %tid = ty*16 + tx: this thread's word in As and Bs
.alias as r4                ; ty*16: As row base
.alias row r5
.alias col r6
.alias n r7
.alias ok r8                ; row < N && col < N
.alias dst r9               ; &C[row][col]
.alias t r10                ; temporary, then 16*N (B pointer step)
.alias pa r11               ; &A[row'][k0 + tx] of the current k-tile
.alias pb r12               ; &B[k0 + ty][col'] of the current k-tile
.alias cnt r13              ; k-tiles left
.alias sum r14              ; 0 at block start (every register reads 0 when a block starts)
.alias y r15                ; B operand (also the word this thread copies into Bs)
.alias in r5                ; (at edge, row and col are free) k0 + tx < N, k0 + ty < N
.alias rem r6               ; (at edge) N % 16 = N - k0

        LDS  tx, %tid.x
        LDS  ty, %tid.y
        LDS  tid, %tid
        SHLI as, ty, 4
        LDS  row, %ctaid.y
        SHLI row, row, 4
        ADD  row, row, ty           ; row = ctaid.y * 16 + ty
        LDS  col, %ctaid.x
        SHLI col, col, 4
        ADD  col, col, tx           ; col = ctaid.x * 16 + tx
        LDS  n, %N
        MAX  ok, row, col
        SLT  ok, ok, n
        LDS  dst, %C
        MAD  t, row, n, col
        ADD  dst, dst, t
        SUBI t, n, 1
        MIN  row, row, t            ; clamp: loads of rows/columns past N stay inside A and B
        MIN  col, col, t
        LDS  t, %LAST               ; k0 of the last k-tile
        LDS  pa, %A
        MAD  pa, row, n, pa
        ADD  pa, pa, t
        ADD  pa, pa, tx             ; pa = &A[row'][k0 + tx]
        ADD  pb, t, ty
        LDS  t, %B
        MAD  pb, pb, n, t
        ADD  pb, pb, col            ; pb = &B[k0 + ty][col']
        SHLI t, n, 4                ; 16 * N
        LDS  cnt, %NT
        LDS  rem, %PART
        BNE  rem, edge              ; uniform: the last k-tile is partial
top:    LDG  x, [pa]                ; a whole k-tile: 16 consecutive words per row of threads
        LDG  y, [pb]
body:   ST   [tid], x
        ST   [tid + BS], y
        BAR
        LD   x, [as + 0]            ; As[ty][k]: one word per ty, a broadcast
        LD   y, [tx + BS + 0]       ; Bs[k][tx]: consecutive words, no bank conflict
        MAD  sum, x, y, sum
        LD   x, [as + 1]
        LD   y, [tx + BS + 16]
        MAD  sum, x, y, sum
        LD   x, [as + 2]
        LD   y, [tx + BS + 32]
        MAD  sum, x, y, sum
        LD   x, [as + 3]
        LD   y, [tx + BS + 48]
        MAD  sum, x, y, sum
        LD   x, [as + 4]
        LD   y, [tx + BS + 64]
        MAD  sum, x, y, sum
        LD   x, [as + 5]
        LD   y, [tx + BS + 80]
        MAD  sum, x, y, sum
        LD   x, [as + 6]
        LD   y, [tx + BS + 96]
        MAD  sum, x, y, sum
        LD   x, [as + 7]
        LD   y, [tx + BS + 112]
        MAD  sum, x, y, sum
        LD   x, [as + 8]
        LD   y, [tx + BS + 128]
        MAD  sum, x, y, sum
        LD   x, [as + 9]
        LD   y, [tx + BS + 144]
        MAD  sum, x, y, sum
        LD   x, [as + 10]
        LD   y, [tx + BS + 160]
        MAD  sum, x, y, sum
        LD   x, [as + 11]
        LD   y, [tx + BS + 176]
        MAD  sum, x, y, sum
        LD   x, [as + 12]
        LD   y, [tx + BS + 192]
        MAD  sum, x, y, sum
        LD   x, [as + 13]
        LD   y, [tx + BS + 208]
        MAD  sum, x, y, sum
        LD   x, [as + 14]
        LD   y, [tx + BS + 224]
        MAD  sum, x, y, sum
        LD   x, [as + 15]
        LD   y, [tx + BS + 240]
        MAD  sum, x, y, sum
        BAR                         ; everyone is done with the tiles before they are overwritten
        SUBI pa, pa, TILE
        SUB  pb, pb, t
        SUBI cnt, cnt, 1
        BNE  cnt, top
        SSY  done
        BEQ  ok, done               ; threads outside C (edge blocks only) skip the store
        STG  [dst], sum
done:   EXIT

; The partial k-tile (the first one walked): copy A[row'][k0 + tx] if k0 + tx < N and B[k0 + ty][col']
; if k0 + ty < N; x and y are still 0 (registers start at 0), so the rest of the tiles is 0.
edge:   SLT  in, tx, rem
        SSY  ea
        BEQ  in, ea                 ; divergent: every warp has tx = 0..15
        LDG  x, [pa]
ea:     SLT  in, ty, rem
        SSY  eb
        BEQ  in, eb                 ; a warp holds ty = 2w, 2w+1: divergent in one warp if N is odd
        LDG  y, [pb]
eb:     BRA  body
