; launched with regs=4 (kernels/directed/__init__.py): the decoder must refuse r7 at run time
; must stop with the kernel error BAD_REGISTER (docs/isa.md section 7)
.regs 8
        MVI r1, 1
        ADD r7, r1, r1
        EXIT
