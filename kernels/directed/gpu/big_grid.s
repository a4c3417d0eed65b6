; more blocks than SMs x slots, 3-D grid and blocks, uneven sizes
.grid 3 2 2
.block 5 3 2
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        LDS  r3, %ctaid.y
        LDS  r4, %ctaid.z
        LDS  r5, %nctaid.x
        LDS  r6, %nctaid.y
        MAD  r7, r4, r6, r3
        MAD  r7, r7, r5, r2      ; flat block index
        MULI r8, r7, 30
        ADD  r8, r8, r1
        LDS  r9, %tid.z
        MULI r10, r9, 1000
        ADD  r10, r10, r7
        LDS  r11, %OUT
        ADD  r11, r11, r8
        STG  [r11], r10
        EXIT
