; Warp 0 loads from a memory that never answers (the item's memory is deaf); warp 1 finishes.
.block 64
        LDS  r1, %tid.x
        ANDI r2, r1, 32
        BNE  r2, out             ; uniform in a warp: warp 1 leaves
        LDG  r3, [r1]            ; warp 0 waits for the response forever
        EXIT
out:    EXIT
