; must stop with the kernel error ILLEGAL_INSTRUCTION (docs/isa.md section 7)
        MVI r1, 1
        .illegal 0x00000017
        EXIT
