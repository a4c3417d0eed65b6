; several blocks per SM keep data in shared memory while more blocks are dispatched next to them: a
; block's initialisation must clear its own shared lines and no others
.grid 8
.block 32
.shared 32
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 1000
        ADD  r3, r3, r1          ; unique to (block, thread)
        LD   r7, [r1]            ; a new block's shared memory reads 0
        ADD  r3, r3, r7
        ST   [r1], r3
        MVI  r5, 8               ; stay resident while other blocks start (uniform loop)
wait:   SUBI r5, r5, 1
        BNE  r5, wait
        LD   r6, [r1]
        LDS  r4, %OUT
        MULI r8, r2, 32
        ADD  r4, r4, r8
        ADD  r4, r4, r1
        STG  [r4], r6
        EXIT
