; must stop with the kernel error BAD_PARAM (docs/isa.md section 7)
.param 5
        LDS r1, %param0
        LDS r2, %param1
        EXIT
