; must stop with the kernel error PC_OUT_OF_RANGE (docs/isa.md section 7)
        MVI r1, 1
        ADDI r1, r1, 2
