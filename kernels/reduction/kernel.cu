// Reduction in C: OUT[0] = X[0] + ... + X[N-1] (wrapping), one block of 1-4 warps; the same plan as
// kernel.s (kernels/reduction/README.md): whole 128-word tiles per warp, the partial tile 32 words
// at a time, warps 1..3 hand their sums to warp 0 through shared memory, then a tree within warp 0.
__global__ void reduction(const unsigned *X, unsigned *OUT, int N) {
    __shared__ unsigned s[128];
    unsigned t = threadIdx.x;
    unsigned l = t & 31;
    unsigned w = t - l;  // 32 x warp
    const unsigned *p = X + l + 4 * w;
    const unsigned *end = X + N;
    const unsigned *lim = X + l + N - 127;  // the tile at p - l is whole iff p < lim
    int stride = 4 * blockDim.x;
    unsigned v = 0;
    while (p < lim) {
        v += p[0] + p[32] + p[64] + p[96];
        p += stride;
    }
    while (p < end) {  // the partial tile: lanes leave at the loop's end
        v += *p;
        p += 32;
    }
    if (stride > 128) {  // several warps: 1..3 publish their sums and finish, warp 0 gathers
        if (w != 0) {
            s[t] = v;
            return;
        }
        __syncthreads();
        v += s[t + 32] + s[t + 64] + s[t + 96];
    }
    s[t] = v;
    do {  // warp 0: the active lanes halve each step (one reconvergence point for all five)
        if (l >= 16) break;
        v += s[t + 16];
        s[t] = v;
        if (l >= 8) break;
        v += s[t + 8];
        s[t] = v;
        if (l >= 4) break;
        v += s[t + 4];
        s[t] = v;
        if (l >= 2) break;
        v += s[t + 2];
        s[t] = v;
        if (l >= 1) break;
        OUT[0] = v + s[t + 1];
    } while (0);
}
