; reverse a 96-word array through shared memory, with a barrier and bank conflicts
.grid 2
.block 96
.shared 128
.param IN, 0
.param OUT, 256
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 96
        ADD  r3, r3, r1
        LDS  r4, %IN
        ADD  r4, r4, r3
        LDG  r5, [r4]
        ST   [r1], r5
        MULI r6, r1, 4           ; 4-way conflict pattern on 8 banks
        ANDI r6, r6, 127
        BAR
        MVI  r7, 95
        SUB  r7, r7, r1
        LD   r8, [r7]
        LD   r9, [r6]            ; conflicting reads
        LD   r13, [r0 + 5]       ; broadcast
        ADD  r8, r8, r9
        ADD  r8, r8, r13
        LDS  r10, %OUT
        ADD  r10, r10, r3
        STG  [r10], r8
        EXIT
