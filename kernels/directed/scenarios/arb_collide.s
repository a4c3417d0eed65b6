; The memory arbiter's launch-history check (tb/tests/system/gpu_tests.py ArbiterHistoryTest): two
; one-warp blocks, one per SM; SM 0 runs the padding the test puts in place of PAD0, SM 1 that of PAD1
; (timed so that both SMs make their first memory request in the same cycle), then every block stores
; one word per thread and SM 1 works on, so the launch ends with SM 1 and takes a cycle longer when the
; arbiter serves SM 0 first at that collision. No DATA records, so the loader makes no request before
; the blocks'.
.grid 2
.block 32
.shared 32
.param OUT, 0
        LDS  r1, %smid
        BNE  r1, sm1             ; uniform in a warp
        ; PAD0
        BRA  go
sm1:    ; PAD1
        BRA  go
go:     LDS  r2, %tid.x
        LDS  r3, %ctaid.x
        SHLI r4, r3, 5
        ADD  r4, r4, r2
        LDS  r5, %OUT
        ADD  r5, r5, r4
        STG  [r5], r4
        BEQ  r1, done            ; SM 0 ends here
        ADDI r9, r9, 1
        ADDI r9, r9, 1
        ADDI r9, r9, 1
        ADDI r9, r9, 1
done:   EXIT
