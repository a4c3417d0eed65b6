; One warp spins in a three-instruction loop (issue 20's infinite loop): the budget stop's pc and the
; RTL's pc are both pcs of the loop, whichever the watchdog catches.
.block 32
        LDS  r1, %tid.x
loop:   ADDI r1, r1, 1
        XORI r2, r1, 5
        BRA  loop
