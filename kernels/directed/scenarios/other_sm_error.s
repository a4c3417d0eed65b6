; A kernel error raised only by the last warp of blocks on SM 1 and up (blocks go round-robin over
; the SMs, so one of the four lands there): the error registers must report that SM's error fields
; (warp included), not SM 0's.
.grid 4
.block 128
        LDS  r1, %smid
        BEQ  r1, ok              ; uniform in a warp: blocks on SM 0 just leave
        LDS  r2, %warpid
        SEQI r3, r2, 3
        BEQ  r3, ok              ; warps 0..2 leave too
        .illegal 0x00000017
ok:     EXIT
