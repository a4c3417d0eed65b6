; A kernel error raised only by warp 3 of block 3, on any number of SMs: ERR_BLOCK and ERR_WARP are
; not 0 (the error kernels above all fail in warp 0 of block 0).
.grid 4
.block 128
        LDS  r1, %ctaid.x
        SEQI r1, r1, 3
        LDS  r2, %warpid
        SEQI r2, r2, 3
        AND  r3, r1, r2
        BEQ  r3, ok              ; uniform in a warp
        .illegal 0x00000017
ok:     EXIT
