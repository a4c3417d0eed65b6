; constant memory and 3-D special registers
.grid 2 2 1
.block 4 2 3
.param OUT, 0
        LDS  r1, %tid.x
        LDS  r2, %tid.y
        LDS  r3, %tid.z
        LDS  r4, %ntid.x
        LDS  r5, %ctaid.y
        LDS  r6, %nctaid.x
        LDS  r7, %laneid
        LDS  r8, %warpid
        LDS  r9, %tid
        LDS  r10, %smid
        LDC  r11, [r1 + 1]
        ADD  r12, r1, r2
        MULI r12, r12, 10
        ADD  r12, r12, r3
        ADD  r12, r12, r11
        ADD  r12, r12, r5
        ADD  r12, r12, r10
        LDS  r13, %ctaid.x
        LDS  r14, %ctaid.y
        MAD  r13, r14, r6, r13   ; flat block index
        MULI r13, r13, 24
        ADD  r13, r13, r9
        LDS  r15, %OUT
        ADD  r15, r15, r13
        STG  [r15], r12
        EXIT
.const
        .word 7, 11, 13, 17, 19, 23
