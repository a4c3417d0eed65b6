; GLOBAL_OUT_OF_RANGE at the boundary (docs/isa.md sections 5 and 7: a global address >= GLOBAL_WORDS
; is an error): every lane first loads the last word of global memory (G - 1, valid: no error, its data
; checked), then lane t loads word G - 1 + t: lane 0 the last valid word, lane 1 the first word out of
; range, so the error must name lane 1 (the lowest offending lane) at the second LDG.
.param G, 0                 ; the machine's global memory words (set by tb/sequences/library.py)
.grid 1
.block 32
        LDS  r1, %tid
        LDS  r2, %G
        SUBI r2, r2, 1          ; the last valid word
        LDG  r3, [r2]           ; every lane: in range
        ADD  r4, r2, r1
        LDG  r5, [r4]           ; lane 0 in range, lane 1 the first word out of range
        EXIT
