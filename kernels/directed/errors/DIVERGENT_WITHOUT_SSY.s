; must stop with the kernel error DIVERGENT_WITHOUT_SSY (docs/isa.md section 7)
        LDS r1, %tid
        ANDI r2, r1, 1
        BNE r2, skip
        NOP
skip:   EXIT
