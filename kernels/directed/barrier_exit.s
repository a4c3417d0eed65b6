; warp 1 of each block is done before the others reach their barrier: done warps count as arrived
; (docs/isa.md 5), so the barrier still releases the others, which then swap data through shared memory;
; 97 threads: the last warp holds a single thread
.grid 2
.block 97
.shared 97
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %warpid
        SEQI r3, r2, 1
        BNE  r3, gone            ; uniform in a warp: warp 1 leaves at once
        LDS  r4, %ctaid.x
        MULI r5, r4, 97
        ADD  r5, r5, r1          ; global thread index
        ST   [r1], r5
        BAR
        MVI  r6, 96
        SUB  r6, r6, r1          ; the last warps read the first warps' words and the other way round
        LD   r7, [r6]
        LDS  r8, %OUT
        ADD  r8, r8, r5
        STG  [r8], r7
gone:   EXIT
