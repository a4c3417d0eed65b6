/* cudac host emulation: a CUDA-C kernel compiled by gcc as its own reference (cudac/host.py).
 *
 * The threads of a block run one after another as coroutines (ucontext): each runs until it reaches
 * __syncthreads() or returns; when every thread has arrived or returned (a returned thread counts as
 * arrived, as on this GPU) the barrier releases and the next phase runs, again in thread order.
 * Blocks run one after another in flat order. Global memory is one array of 32-bit words; a pointer
 * parameter is a word address in it. Signed arithmetic wraps (compile with -fwrapv), like the GPU. */
#ifndef CUDAC_HOST_H
#define CUDAC_HOST_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

typedef struct { unsigned x, y, z; } cudac_dim3;
static cudac_dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__ static
#define __device__ static inline
#define __shared__ static
#define __constant__ static const
#define __forceinline__
#define __noinline__
#define __host__
#define __restrict__

enum { CUDAC_READY, CUDAC_WAITING, CUDAC_DONE };
#define CUDAC_STACK (256 * 1024)
static ucontext_t cudac_main_ctx;
static ucontext_t *cudac_ctx;
static int *cudac_state;
static int cudac_cur;

static void __syncthreads(void) {
    cudac_state[cudac_cur] = CUDAC_WAITING;
    swapcontext(&cudac_ctx[cudac_cur], &cudac_main_ctx);
}

static void (*cudac_thread)(void);  /* the generated wrapper: calls the kernel with its parameters */

static void cudac_thread_start(void) {
    cudac_thread();
    cudac_state[cudac_cur] = CUDAC_DONE;
    swapcontext(&cudac_ctx[cudac_cur], &cudac_main_ctx);
}

static uint32_t cudac_read_word(void) {
    unsigned char b[4];
    if (fread(b, 1, 4, stdin) != 4) {
        fprintf(stderr, "cudac host: input too short\n");
        exit(2);
    }
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t *cudac_mem;
static uint32_t cudac_params[16];

/* stdin: grid x y z, block x y z, nparams, params..., words, memory...; stdout: the memory after. */
static int cudac_main(void) {
    gridDim.x = cudac_read_word(); gridDim.y = cudac_read_word(); gridDim.z = cudac_read_word();
    blockDim.x = cudac_read_word(); blockDim.y = cudac_read_word(); blockDim.z = cudac_read_word();
    uint32_t np = cudac_read_word();
    for (uint32_t i = 0; i < np && i < 16; i++) cudac_params[i] = cudac_read_word();
    uint32_t words = cudac_read_word();
    cudac_mem = calloc(words ? words : 1, 4);
    for (uint32_t i = 0; i < words; i++) cudac_mem[i] = cudac_read_word();
    int n = (int)(blockDim.x * blockDim.y * blockDim.z);
    cudac_ctx = calloc((size_t)n, sizeof(ucontext_t));
    cudac_state = calloc((size_t)n, sizeof(int));
    char *stacks = malloc((size_t)n * CUDAC_STACK);
    if (!cudac_mem || !cudac_ctx || !cudac_state || !stacks) { fprintf(stderr, "cudac host: out of memory\n"); return 2; }
    for (unsigned bz = 0; bz < gridDim.z; bz++)
    for (unsigned by = 0; by < gridDim.y; by++)
    for (unsigned bx = 0; bx < gridDim.x; bx++) {
        blockIdx.x = bx; blockIdx.y = by; blockIdx.z = bz;
        for (int t = 0; t < n; t++) {
            getcontext(&cudac_ctx[t]);
            cudac_ctx[t].uc_stack.ss_sp = stacks + (size_t)t * CUDAC_STACK;
            cudac_ctx[t].uc_stack.ss_size = CUDAC_STACK;
            cudac_ctx[t].uc_link = NULL;
            makecontext(&cudac_ctx[t], cudac_thread_start, 0);
            cudac_state[t] = CUDAC_READY;
        }
        for (;;) {
            int waiting = 0;
            for (int t = 0; t < n; t++) {
                if (cudac_state[t] != CUDAC_READY) continue;
                cudac_cur = t;
                threadIdx.x = (unsigned)t % blockDim.x;
                threadIdx.y = (unsigned)t / blockDim.x % blockDim.y;
                threadIdx.z = (unsigned)t / (blockDim.x * blockDim.y);
                swapcontext(&cudac_main_ctx, &cudac_ctx[t]);
            }
            for (int t = 0; t < n; t++)
                if (cudac_state[t] == CUDAC_WAITING) { cudac_state[t] = CUDAC_READY; waiting = 1; }
            if (!waiting) break;
        }
    }
    fwrite(cudac_mem, 4, words, stdout);
    return 0;
}
#endif
