; Warp 0 spins forever; warp 1 waits at the barrier warp 0 never reaches (issue 20's hang).
.block 64
        LDS  r1, %tid.x
        ANDI r2, r1, 32
        BNE  r2, wait            ; uniform in a warp: warp 1 goes to the barrier
spin:   BRA  spin                ; warp 0 never gets there
wait:   BAR
        EXIT
