; must stop with the kernel error STACK_OVERFLOW (docs/isa.md section 7)
        SSY  far
        SSY  far
        SSY  far
        SSY  far
        SSY  far
        SSY  far
        SSY  far
        SSY  far
        SSY  far
        EXIT
far:    EXIT
