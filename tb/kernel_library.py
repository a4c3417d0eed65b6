"""Directed kernel library: small kernels, one or more per ISA feature, divergence and memory case.

Each entry is assembly source (docs/assembler.md) that sets its own launch shape; ``fill`` gives a
kernel its input data. ERROR_KERNELS must each stop with the kernel error they are named after
(docs/isa.md section 7). The SM bench, the GPU system bench and the verification environment's
sequences all draw from here.
"""

from __future__ import annotations

import random
from pathlib import Path

from tb.reference import isa
from tb.reference.asm import assemble
from tb.reference.image import LaunchImage

# ------------------------------------------------------------------------------------------------
# Kernels (docs/assembler.md). Each sets its own launch shape; the test fills the data.
# ------------------------------------------------------------------------------------------------
KERNELS: dict[str, str] = {}

KERNELS["vecadd"] = """
; c[i] = a[i] + b[i] for i < n; uneven last block (n = 100, 4 blocks of 32)
.grid 4
.block 32
.param A, 0
.param B, 512
.param C, 1024
.param N, 100
        LDS  r1, %ctaid.x
        LDS  r2, %ntid.x
        LDS  r3, %tid.x
        MAD  r4, r1, r2, r3
        LDS  r5, %N
        SLT  r6, r4, r5
        SSY  ok
        BNE  r6, ok
        EXIT
ok:     LDS  r7, %A
        ADD  r7, r7, r4
        LDG  r8, [r7]
        LDS  r7, %B
        ADD  r7, r7, r4
        LDG  r9, [r7]
        ADD  r8, r8, r9
        LDS  r7, %C
        ADD  r7, r7, r4
        STG  [r7], r8
        EXIT
"""

KERNELS["alu"] = """
; every ALU operation on per-lane operands; results stored per thread
.grid 1
.block 64
.param OUT, 0
        LDS  r1, %tid
        MULI r2, r1, 0x1357
        LI   r3, 0x9E3779B9
        MUL  r4, r2, r3          ; scrambled per-lane values
        XOR  r5, r4, r1
        SRAI r6, r4, 3
        MAD  r7, r5, r6, r4
        SUB  r8, r7, r5
        SLT  r9, r8, r7
        SGTU r10, r8, r7
        MIN  r11, r4, r5
        MAXU r12, r4, r5
        SHL  r13, r5, r1          ; shift amounts 0..63: >= 32 gives 0
        SHR  r14, r4, r1
        SRA  r15, r4, r1
        MULHU r16, r4, r5
        NOT  r17, r16
        SEQ  r18, r9, r10
        SNEI r19, r1, 7
        ANDI r20, r4, 0xFF00
        ORI  r21, r20, 0x8001
        LUI  r22, 0xBEEF
        ADD  r23, r22, r21
        MINUI r24, r4, -1
        MAXI r25, r4, -5
        SLTUI r26, r4, 100
        SGTI r27, r5, -100
        MV   r28, r27
        NOP
        LDS  r29, %OUT
        MULI r30, r1, 4
        ADD  r29, r29, r30
        STG  [r29 + 0], r13
        STG  [r29 + 1], r15
        STG  [r29 + 2], r23
        STG  [r29 + 3], r28
        EXIT
"""

KERNELS["divergence"] = """
; nested if/else, a divergent loop and partial exit
.grid 2
.block 48
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 48
        ADD  r3, r3, r1          ; global thread index
        ANDI r4, r1, 1
        MVI  r10, 0
        SSY  join
        BNE  r4, odd
        ; even threads
        ANDI r5, r1, 2
        SSY  join2
        BEQ  r5, e0
        ADDI r10, r10, 100
        BRA  join2
e0:     ADDI r10, r10, 200
join2:  BRA  join
odd:    ADDI r10, r10, 1
join:   ; divergent loop: thread runs (tid % 5) iterations
        MVI  r6, 5
        MVI  r7, 0
        ANDI r8, r1, 7
        SSY  done
loop:   BEQ  r8, done
        ADD  r7, r7, r8
        SUBI r8, r8, 1
        BRA  loop
done:   ADD  r10, r10, r7
        ; partial exit: threads with tid % 4 == 0 leave without storing
        SSY  store
        ANDI r11, r1, 3
        BNE  r11, store
        EXIT
store:  LDS  r12, %OUT
        ADD  r12, r12, r3
        STG  [r12], r10
        EXIT
"""

KERNELS["shared_barrier"] = """
; reverse a 96-word array through shared memory, with a barrier and bank conflicts
.grid 2
.block 96
.shared 128
.param IN, 0
.param OUT, 256
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 96
        ADD  r3, r3, r1
        LDS  r4, %IN
        ADD  r4, r4, r3
        LDG  r5, [r4]
        ST   [r1], r5
        MULI r6, r1, 4           ; 4-way conflict pattern on 8 banks
        ANDI r6, r6, 127
        BAR
        MVI  r7, 95
        SUB  r7, r7, r1
        LD   r8, [r7]
        LD   r9, [r6]            ; conflicting reads
        LD   r13, [r0 + 5]       ; broadcast
        ADD  r8, r8, r9
        ADD  r8, r8, r13
        LDS  r10, %OUT
        ADD  r10, r10, r3
        STG  [r10], r8
        EXIT
"""

KERNELS["shared_resident"] = """
; several blocks per SM keep data in shared memory while more blocks are dispatched next to them: a
; block's initialisation must clear its own shared lines and no others
.grid 8
.block 32
.shared 32
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        MULI r3, r2, 1000
        ADD  r3, r3, r1          ; unique to (block, thread)
        LD   r7, [r1]            ; a new block's shared memory reads 0
        ADD  r3, r3, r7
        ST   [r1], r3
        MVI  r5, 8               ; stay resident while other blocks start (uniform loop)
wait:   SUBI r5, r5, 1
        BNE  r5, wait
        LD   r6, [r1]
        LDS  r4, %OUT
        MULI r8, r2, 32
        ADD  r4, r4, r8
        ADD  r4, r4, r1
        STG  [r4], r6
        EXIT
"""

KERNELS["full_stack"] = """
; if/else nested three deep in the taken paths (which run first) plus one more SSY: a divergence stack
; 7 entries deep, left by a plain instruction falling through to its join (with STACK_DEPTH 7 the depth
; field is then all ones)
.grid 1
.block 32
.param OUT, 0
        LDS  r1, %tid
        MVI  r10, 0
        ANDI r2, r1, 1
        ANDI r3, r1, 2
        ANDI r4, r1, 4
        SSY  j1
        BNE  r2, t1
        ADDI r10, r10, 16
        BRA  j1
t1:     SSY  j2
        BNE  r3, t2
        ADDI r10, r10, 8
        BRA  j2
t2:     SSY  j3
        BNE  r4, t3
        ADDI r10, r10, 4
        BRA  j3
t3:     SSY  j4                  ; depth 7
        ADDI r10, r10, 1
j4:     ADDI r10, r10, 2
j3:     ADDI r10, r10, 32
j2:     ADDI r10, r10, 64
j1:     LDS  r5, %OUT
        ADD  r5, r5, r1
        STG  [r5], r10
        EXIT
"""

KERNELS["barrier_exit"] = """
; warp 1 of each block is done before the others reach their barrier: done warps count as arrived
; (docs/isa.md 5), so the barrier still releases the others, which then swap data through shared memory;
; 97 threads: the last warp holds a single thread
.grid 2
.block 97
.shared 97
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %warpid
        SEQI r3, r2, 1
        BNE  r3, gone            ; uniform in a warp: warp 1 leaves at once
        LDS  r4, %ctaid.x
        MULI r5, r4, 97
        ADD  r5, r5, r1          ; global thread index
        ST   [r1], r5
        BAR
        MVI  r6, 96
        SUB  r6, r6, r1          ; the last warps read the first warps' words and the other way round
        LD   r7, [r6]
        LDS  r8, %OUT
        ADD  r8, r8, r5
        STG  [r8], r7
gone:   EXIT
"""

KERNELS["const_sregs"] = """
; constant memory and 3-D special registers
.grid 2 2 1
.block 4 2 3
.param OUT, 0
        LDS  r1, %tid.x
        LDS  r2, %tid.y
        LDS  r3, %tid.z
        LDS  r4, %ntid.x
        LDS  r5, %ctaid.y
        LDS  r6, %nctaid.x
        LDS  r7, %laneid
        LDS  r8, %warpid
        LDS  r9, %tid
        LDS  r10, %smid
        LDC  r11, [r1 + 1]
        ADD  r12, r1, r2
        MULI r12, r12, 10
        ADD  r12, r12, r3
        ADD  r12, r12, r11
        ADD  r12, r12, r5
        ADD  r12, r12, r10
        LDS  r13, %ctaid.x
        LDS  r14, %ctaid.y
        MAD  r13, r14, r6, r13   ; flat block index
        MULI r13, r13, 24
        ADD  r13, r13, r9
        LDS  r15, %OUT
        ADD  r15, r15, r13
        STG  [r15], r12
        EXIT
.const
        .word 7, 11, 13, 17, 19, 23
"""

KERNELS["matmul"] = (Path(__file__).resolve().parent / "bench" / "matmul.s").read_text()


# Kernels that must stop with an error (docs/isa.md section 7). Each runs one 32-thread block; the
# SM's error status must equal the KernelError the model raises stepping that warp.
NEST = "\n".join("        SSY  far" for _ in range(9))
# Kernels that need a whole GPU (several blocks per SM, 3-D grids): the system tests run them too.
GPU_KERNELS: dict[str, str] = {}

GPU_KERNELS["big_grid"] = """
; more blocks than SMs x slots, 3-D grid and blocks, uneven sizes
.grid 3 2 2
.block 5 3 2
.param OUT, 0
        LDS  r1, %tid
        LDS  r2, %ctaid.x
        LDS  r3, %ctaid.y
        LDS  r4, %ctaid.z
        LDS  r5, %nctaid.x
        LDS  r6, %nctaid.y
        MAD  r7, r4, r6, r3
        MAD  r7, r7, r5, r2      ; flat block index
        MULI r8, r7, 30
        ADD  r8, r8, r1
        LDS  r9, %tid.z
        MULI r10, r9, 1000
        ADD  r10, r10, r7
        LDS  r11, %OUT
        ADD  r11, r11, r8
        STG  [r11], r10
        EXIT
"""



def _every_op(tag: str) -> str:
    """One of every instruction that can run under a partial mask (all but BAR and EXIT), results
    folded into r9; each branch targets the next line (uniform), SSY its own next line (popped at once)."""
    lines = []
    for op in isa.OPS:
        mn, fmt = op.mnemonic, op.fmt
        if mn in ("BAR", "EXIT"):
            continue
        text = {
            isa.Fmt.NONE: "NOP", isa.Fmt.R3: f"{mn} r4, r3, r5", isa.Fmt.RMUL: f"{mn} r4, r3, r5",
            isa.Fmt.RMAD: f"{mn} r4, r3, r5, r2", isa.Fmt.RNOT: f"{mn} r4, r3", isa.Fmt.MV: f"{mn} r4, r3",
            isa.Fmt.IMM: f"{mn} r4, 5", isa.Fmt.RI: f"{mn} r4, r3, 5", isa.Fmt.SREG: f"{mn} r4, %tid",
            isa.Fmt.BRANCH: f"{mn} r3, {tag}_{mn}", isa.Fmt.TARGET: f"{mn} {tag}_{mn}",
        }.get(fmt)  # fmt: skip
        if mn == "LD":
            text = "LD r4, [r10 + 0]"
        elif mn == "ST":
            text = "ST [r10 + 0], r3"
        elif mn == "LDC":
            text = "LDC r4, [r12 + 0]"
        elif mn == "LDG":
            text = "LDG r4, [r13 + 0]"
        elif mn == "STG":
            text = "STG [r13 + 0], r9"
        assert text is not None, f"masks kernel: no operand pattern for {mn} ({fmt})"
        lines.append(f"        {text}")
        if fmt in (isa.Fmt.BRANCH, isa.Fmt.TARGET):
            lines.append(f"{tag}_{mn}:")
        elif op.writes_rd:
            lines.append("        XOR  r9, r9, r4")
    return "\n".join(lines)


# Functional coverage (docs/testplan.yaml): every instruction under a partial and a single-thread
# mask, shared-memory bank conflicts of every degree 1..16 with broadcast and partial sharing, and
# EXIT / BAR of part of a warp (after a partial EXIT the live threads are fewer than the launched).
GPU_KERNELS["masks"] = f"""
.grid 1
.block 64
.regs 16
.shared 512
.param OUT, 0
        LDS  r1, %laneid
        LDS  r2, %tid
        MULI r3, r2, 0x1357
        ADDI r5, r1, 3
        SHLI r10, r2, 2          ; shared address tid*4 (< 256)
        ANDI r12, r1, 3          ; constant address
        LDS  r13, %OUT
        ADD  r13, r13, r2        ; global address OUT + tid
        MVI  r9, 0
        SLTI r6, r1, 5           ; lanes 0..4 run the body, the others wait at p_end
        SSY  p_end
        BEQ  r6, p_end
{_every_op("p")}
p_end:  SEQI r6, r1, 3           ; lane 3 alone runs the body
        SSY  s_end
        BEQ  r6, s_end
{_every_op("s")}
s_end:  MVI  r8, 0               ; k-1 for k = 1..16: lanes read min(lane, k-1)*32, all in bank 0,
conf:   MIN  r11, r1, r8         ; so the first row of lanes makes min(k, NUM_LANES) passes
        SHLI r11, r11, 5
        LD   r4, [r11 + 0]
        XOR  r9, r9, r4
        ADDI r8, r8, 1
        SLTI r7, r8, 16
        BNE  r7, conf
        SLTI r6, r1, 6           ; lanes 6.. store and exit: a partial EXIT
        SSY  e1
        BNE  r6, e1
        STG  [r13 + 0], r9
        EXIT
e1:     BAR                      ; live threads 0..5: BAR with a partial mask
        SEQI r6, r1, 2
        SSY  e2
        BNE  r6, e2
        STG  [r13 + 0], r9
        EXIT
e2:     BAR                      ; live thread 2 alone
        STG  [r13 + 0], r9
        EXIT
.const
        .word 11, 22, 33, 44
"""

ERROR_KERNELS: dict[str, str] = {
    "ILLEGAL_INSTRUCTION": "        MVI r1, 1\n        .illegal 0x00000017\n        EXIT\n",
    "PC_OUT_OF_RANGE": "        MVI r1, 1\n        ADDI r1, r1, 2\n",
    "BAD_REGISTER": ".regs 8\n        MVI r1, 1\n        ADD r7, r1, r1\n        EXIT\n",  # launched with regs=4
    "BAD_PARAM": ".param 5\n        LDS r1, %param0\n        LDS r2, %param1\n        EXIT\n",
    "SHARED_OUT_OF_RANGE": ".shared 16\n        LDS r1, %tid\n        ST [r1 + 10], r1\n        EXIT\n",
    "CONST_OUT_OF_RANGE": "        LDS r1, %tid\n        LDC r2, [r1 + 0]\n        EXIT\n.const\n        .word 1, 2, 3, 4\n",
    "GLOBAL_OUT_OF_RANGE": "        LDS r1, %tid\n        LI r2, 0xFFFFFFFA\n        ADD r2, r2, r1\n        LDG r3, [r2]\n        EXIT\n",
    "STACK_OVERFLOW": NEST + "\n        EXIT\nfar:    EXIT\n",
    "DIVERGENT_WITHOUT_SSY": "        LDS r1, %tid\n        ANDI r2, r1, 1\n        BNE r2, skip\n        NOP\nskip:   EXIT\n",
    "BARRIER_DIVERGENCE": "        LDS r1, %tid\n        ANDI r2, r1, 1\n        SSY j\n        BNE r2, j\n        BAR\nj:      EXIT\n",
}


def fill(name: str, image: LaunchImage, rng: random.Random) -> None:
    """Give each kernel its input data."""
    if name == "vecadd":
        image.data = [(0, [rng.getrandbits(32) for _ in range(100)]), (512, [rng.getrandbits(32) for _ in range(100)])]
    elif name == "shared_barrier":
        image.data = [(0, [rng.getrandbits(32) for _ in range(192)])]
    elif name == "matmul":
        n = 16
        image.grid, image.block = (2, 4, 1), (8, 4, 1)
        image.params = [0, n * n, 2 * n * n, n]
        image.data = [(0, [rng.getrandbits(16) for _ in range(2 * n * n)])]



def image_of(name: str, rng: random.Random) -> LaunchImage:
    """The launch image of kernel ``name`` (directed or error kernel) with its data filled in."""
    source = ERROR_KERNELS.get(name) or KERNELS.get(name) or GPU_KERNELS[name]
    image = assemble(source, f"{name}.s").image
    fill(name, image, rng)
    if name == "BAD_REGISTER":
        image.regs = 4  # the kernel uses r7: the decoder must refuse it at run time
    return image
