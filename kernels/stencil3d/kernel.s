; Stencil3D: 7-point stencil on an NX x NY x NZ volume of words (x fastest), one thread per cell:
;   out[z][y][x] = 6*in[z][y][x] - in[z][y][x-1] - in[z][y][x+1] - in[z][y-1][x] - in[z][y+1][x]
;                                - in[z-1][y][x] - in[z+1][y][x]          (wrapping)
; for interior cells; a boundary cell (x, y or z first or last) is copied: out = in.
; Launch (gen.py): 3-D blocks of 8 x 4 x 4 threads (a warp is an 8 x 4 patch of one z-plane),
; a ceil(NX/8) x ceil(NY/4) x ceil(NZ/4) grid; threads outside the volume leave (partial EXIT).
.param IN, 0                ; global word addresses of the arrays (filled by kernels/suite.py)
.param OUT, 0
.param NX, 0                ; volume dimensions
.param NY, 0
.param NZ, 0

.alias t1 r1
.alias t2 r2
.alias t3 r3
.alias x r4
.alias y r5
.alias z r6
.alias nx r7
.alias ny r8
.alias nz r9
.alias idx r10              ; (z*NY + y)*NX + x
.alias p r11                ; &in[z][y][x]
.alias v r12                ; in[z][y][x], then out[z][y][x]
.alias inner r13            ; 1 <= x <= NX-2 && 1 <= y <= NY-2 && 1 <= z <= NZ-2
.alias xm r14               ; the six neighbours
.alias xp r15
.alias ym r16
.alias yp r17
.alias zm r18
.alias zp r19
.alias nxy r20              ; NX*NY: the z stride

        LDS  t1, %ctaid.x
        LDS  t2, %ntid.x
        LDS  t3, %tid.x
        MAD  x, t1, t2, t3          ; x = ctaid.x * ntid.x + tid.x
        LDS  t1, %ctaid.y
        LDS  t2, %ntid.y
        LDS  t3, %tid.y
        MAD  y, t1, t2, t3
        LDS  t1, %ctaid.z
        LDS  t2, %ntid.z
        LDS  t3, %tid.z
        MAD  z, t1, t2, t3
        LDS  nx, %NX
        LDS  ny, %NY
        LDS  nz, %NZ
        SLT  t1, x, nx
        SLT  t2, y, ny
        AND  t1, t1, t2
        SLT  t2, z, nz
        AND  t1, t1, t2
        SSY  ok
        BNE  t1, ok                 ; threads outside the volume (edge blocks) exit: partial EXIT
        EXIT
ok:     MAD  idx, z, ny, y
        MAD  idx, idx, nx, x
        LDS  p, %IN
        ADD  p, p, idx
        LDG  v, [p]                 ; a row of lanes reads 8 consecutive words: coalesced
        SUBI t1, x, 1               ; interior in x: x - 1 < NX - 2 (unsigned)
        SUBI t2, nx, 2
        SLTU inner, t1, t2
        SUBI t1, y, 1
        SUBI t2, ny, 2
        SLTU t1, t1, t2
        AND  inner, inner, t1
        SUBI t1, z, 1
        SUBI t2, nz, 2
        SLTU t1, t1, t2
        AND  inner, inner, t1
        SSY  store
        BEQ  inner, store           ; boundary cells keep v = in (divergent where a warp straddles one)
        LDG  xm, [p - 1]            ; neighbours in x: the same segments, shifted by one word
        LDG  xp, [p + 1]
        SUB  t1, p, nx
        LDG  ym, [t1]               ; neighbours in y and z: whole rows NX and NX*NY words away
        ADD  t1, p, nx
        LDG  yp, [t1]
        MUL  nxy, nx, ny
        SUB  t1, p, nxy
        LDG  zm, [t1]
        ADD  t1, p, nxy
        LDG  zp, [t1]
        ADD  xm, xm, xp
        ADD  ym, ym, yp
        ADD  zm, zm, zp
        ADD  xm, xm, ym
        ADD  xm, xm, zm
        MULI v, v, 6
        SUB  v, v, xm               ; 6*centre - the six neighbours
store:  LDS  t1, %OUT
        ADD  t1, t1, idx
        STG  [t1], v
        EXIT
