; must stop with the kernel error GLOBAL_OUT_OF_RANGE (docs/isa.md section 7)
        LDS r1, %tid
        LI r2, 0xFFFFFFFA
        ADD r2, r2, r1
        LDG r3, [r2]
        EXIT
