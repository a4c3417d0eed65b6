; nested if/else, a divergent loop and partial exit
.grid 2
.block 48
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 48
        ADD  r3, r3, r1          ; global thread index
        ANDI r4, r1, 1
        MVI  r10, 0
        SSY  join
        BNE  r4, odd
        ; even threads
        ANDI r5, r1, 2
        SSY  join2
        BEQ  r5, e0
        ADDI r10, r10, 100
        BRA  join2
e0:     ADDI r10, r10, 200
join2:  BRA  join
odd:    ADDI r10, r10, 1
join:   ; divergent loop: thread runs (tid % 5) iterations
        MVI  r6, 5
        MVI  r7, 0
        ANDI r8, r1, 7
        SSY  done
loop:   BEQ  r8, done
        ADD  r7, r7, r8
        SUBI r8, r8, 1
        BRA  loop
done:   ADD  r10, r10, r7
        ; partial exit: threads with tid % 4 == 0 leave without storing
        SSY  store
        ANDI r11, r1, 3
        BNE  r11, store
        EXIT
store:  LDS  r12, %OUT
        ADD  r12, r12, r3
        STG  [r12], r10
        EXIT
