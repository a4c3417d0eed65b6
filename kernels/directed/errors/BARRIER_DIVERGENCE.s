; must stop with the kernel error BARRIER_DIVERGENCE (docs/isa.md section 7)
        LDS r1, %tid
        ANDI r2, r1, 1
        SSY j
        BNE r2, j
        BAR
j:      EXIT
