; must stop with the kernel error SHARED_OUT_OF_RANGE (docs/isa.md section 7)
.shared 16
        LDS r1, %tid
        ST [r1 + 10], r1
        EXIT
