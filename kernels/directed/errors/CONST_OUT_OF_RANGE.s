; must stop with the kernel error CONST_OUT_OF_RANGE (docs/isa.md section 7)
        LDS r1, %tid
        LDC r2, [r1 + 0]
        EXIT
.const
        .word 1, 2, 3, 4
