; Transpose: B = A^T for an N x N matrix of words, both row-major.
; Launch (gen.py): 16 x 16 tiles, grid ceil(N/16) x ceil(N/16) (ctaid.x = tile column, ctaid.y =
; tile row), blocks of 8 x 4 threads = one warp, 272 shared words. Thread (x, y) moves 8 words:
;   phase 1  A[r0 + y + 4m][c0 + x + 8h]  -> tile[y + 4m][x + 8h]      m = 0..3, h = 0..1
;   phase 2  tile[x + 8h][y + 4m]         -> B[c0 + y + 4m][r0 + x + 8h]
; where (r0, c0) = 16 (ctaid.y, ctaid.x) is the tile's first element. Each LDG and STG of the warp
; reads or writes four runs of 8 consecutive words (one segment each when N is a multiple of 8); the
; +8 of h is an immediate offset, so only the four rows of m need an address ADD. The tile's rows are
; 17 words long (TILE + 1): the 8 lanes that read one tile column hit 8 different banks, so with 8
; lanes every shared access is one pass per row. (With 16 or 32 lanes a row of lanes spans 2 or 4
; runs of 8, which share banks: 2 passes. No padding avoids that with 16-word tile rows.)
; The block is a single warp, which sees its own shared stores in order (docs/isa.md 6.4): no BAR.
; Tiles that reach past the matrix (N not a multiple of 16) take the guarded path, the only one
; that diverges.
.param A, 0                 ; global word addresses of the matrices (filled by kernels/suite.py)
.param B, 0
.param N, 0                 ; rows = columns

.alias x   r0               ; tid.x, 0..7
.alias y   r1               ; tid.y, 0..3
.alias col0 r2             ; c0: first column of the tile in A = first row of its transpose in B
.alias row0 r3             ; r0: first row of the tile in A
.alias n   r4               ; N
.alias n4  r5               ; 4N: four rows
.alias sa  r6               ; tile[y][x]  = 17y + x
.alias sb  r7               ; tile[x][y]  = 17x + y
.alias ga  r8               ; &A[r0 + y][c0 + x]
.alias gb  r9               ; &B[c0 + y][r0 + x]
.alias v   r10              ; the word moved
.alias p   r11              ; scratch, predicate
.alias g   r12              ; edge path: row address
.alias ca  r0               ; edge path (x, y, c0, r0 are dead there): N - c0 - x, columns left in A
.alias rb  r1               ;   N - c0 - y, rows left in B
.alias ra  r2               ;   N - r0 - y, rows left in A
.alias cb  r3               ;   N - r0 - x, columns left in B

        LDS  x, %tid.x
        LDS  y, %tid.y
        LDS  col0, %ctaid.x
        LDS  row0, %ctaid.y
        LDS  n, %N
        SHLI col0, col0, 4
        SHLI row0, row0, 4
        MVI  sa, 17                 ; tile rows of 17 words
        MAD  sb, x, sa, y
        MAD  sa, y, sa, x
        MAD  p, y, n, x             ; yN + x
        MAD  ga, row0, n, col0
        ADD  ga, ga, p
        LDS  v, %A
        ADD  ga, ga, v
        MAD  gb, col0, n, row0
        ADD  gb, gb, p
        LDS  v, %B
        ADD  gb, gb, v
        SHLI n4, n, 2
        MAXU p, row0, col0
        SUBI v, n, 15
        SLT  p, p, v                ; max(r0, c0) + 16 <= N: the whole tile is inside
        BEQ  p, edge                ; uniform: the block's tile reaches past the matrix

; Interior tile. Phase 1: A rows -> shared tile rows (LDG: four runs of 8 words per warp).
        LDG  v, [ga]                ; A[r0 + y + 0][c0 + x + 0]
        ST   [sa], v                ; tile[y + 0][x + 0]
        LDG  v, [ga + 8]            ; A[r0 + y + 0][c0 + x + 8]
        ST   [sa + 8], v            ; tile[y + 0][x + 8]
        ADD  ga, ga, n4
        LDG  v, [ga]
        ST   [sa + 68], v
        LDG  v, [ga + 8]
        ST   [sa + 76], v
        ADD  ga, ga, n4
        LDG  v, [ga]
        ST   [sa + 136], v
        LDG  v, [ga + 8]
        ST   [sa + 144], v
        ADD  ga, ga, n4
        LDG  v, [ga]
        ST   [sa + 204], v
        LDG  v, [ga + 8]
        ST   [sa + 212], v
; Phase 2 (no BAR: the block is one warp): tile columns -> B rows.
        LD   v, [sb]                ; tile[x + 0][y + 0]
        STG  [gb], v                ; B[c0 + y + 0][r0 + x + 0]
        LD   v, [sb + 136]          ; tile[x + 8][y + 0]
        STG  [gb + 8], v            ; B[c0 + y + 0][r0 + x + 8]
        ADD  gb, gb, n4
        LD   v, [sb + 4]
        STG  [gb], v
        LD   v, [sb + 140]
        STG  [gb + 8], v
        ADD  gb, gb, n4
        LD   v, [sb + 8]
        STG  [gb], v
        LD   v, [sb + 144]
        STG  [gb + 8], v
        ADD  gb, gb, n4
        LD   v, [sb + 12]
        STG  [gb], v
        LD   v, [sb + 148]
        STG  [gb + 8], v
        EXIT

; Edge tile: the same moves, each guarded. Rows and columns inside form a prefix, so a thread leaves
; a run (rows m = 0..3 of a half h) at its first row outside; a half starts only if its column is
; inside. Words outside are neither read nor written (their tile entries stay unused).
edge:   SUB  p, n, row0             ; N - r0
        SUB  n, n, col0             ; N - c0
        SUB  cb, p, x               ; (cb is row0's register, ra col0's, ca x's, rb y's)
        SUB  ra, p, y
        SUB  ca, n, x
        SUB  rb, n, y
        SSY  e1h0
        SGTI p, ca, 0
        BEQ  p, e1h0                ; column outside: skip this half
        MV   g, ga
        SGTI p, ra, 0
        BEQ  p, e1h0                ; row outside: this and the next rows skipped
        LDG  v, [g]
        ST   [sa], v
        ADD  g, g, n4
        SGTI p, ra, 4
        BEQ  p, e1h0
        LDG  v, [g]
        ST   [sa + 68], v
        ADD  g, g, n4
        SGTI p, ra, 8
        BEQ  p, e1h0
        LDG  v, [g]
        ST   [sa + 136], v
        ADD  g, g, n4
        SGTI p, ra, 12
        BEQ  p, e1h0
        LDG  v, [g]
        ST   [sa + 204], v
e1h0:
        SSY  e1h1
        SGTI p, ca, 8
        BEQ  p, e1h1                ; column outside: skip this half
        SGTI p, ra, 0
        BEQ  p, e1h1                ; row outside: this and the next rows skipped
        LDG  v, [ga + 8]
        ST   [sa + 8], v
        ADD  ga, ga, n4
        SGTI p, ra, 4
        BEQ  p, e1h1
        LDG  v, [ga + 8]
        ST   [sa + 76], v
        ADD  ga, ga, n4
        SGTI p, ra, 8
        BEQ  p, e1h1
        LDG  v, [ga + 8]
        ST   [sa + 144], v
        ADD  ga, ga, n4
        SGTI p, ra, 12
        BEQ  p, e1h1
        LDG  v, [ga + 8]
        ST   [sa + 212], v
e1h1:
; Phase 2 of the edge tile.
        SSY  e2h0
        SGTI p, cb, 0
        BEQ  p, e2h0                ; column outside: skip this half
        MV   g, gb
        SGTI p, rb, 0
        BEQ  p, e2h0                ; row outside: this and the next rows skipped
        LD   v, [sb]
        STG  [g], v
        ADD  g, g, n4
        SGTI p, rb, 4
        BEQ  p, e2h0
        LD   v, [sb + 4]
        STG  [g], v
        ADD  g, g, n4
        SGTI p, rb, 8
        BEQ  p, e2h0
        LD   v, [sb + 8]
        STG  [g], v
        ADD  g, g, n4
        SGTI p, rb, 12
        BEQ  p, e2h0
        LD   v, [sb + 12]
        STG  [g], v
e2h0:
        SSY  e2h1
        SGTI p, cb, 8
        BEQ  p, e2h1                ; column outside: skip this half
        SGTI p, rb, 0
        BEQ  p, e2h1                ; row outside: this and the next rows skipped
        LD   v, [sb + 136]
        STG  [gb + 8], v
        ADD  gb, gb, n4
        SGTI p, rb, 4
        BEQ  p, e2h1
        LD   v, [sb + 140]
        STG  [gb + 8], v
        ADD  gb, gb, n4
        SGTI p, rb, 8
        BEQ  p, e2h1
        LD   v, [sb + 144]
        STG  [gb + 8], v
        ADD  gb, gb, n4
        SGTI p, rb, 12
        BEQ  p, e2h1
        LD   v, [sb + 148]
        STG  [gb + 8], v
e2h1:
        EXIT
