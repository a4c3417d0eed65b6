// Transpose in C: B = A^T (N x N, row-major); 16 x 16 tiles, one 8 x 4 warp per tile; the plan of
// kernel.s (kernels/transpose/README.md). The block is one warp, which sees its own shared stores
// in order (docs/isa.md 6.4): no __syncthreads() between the two phases.
__global__ void transpose(const unsigned *A, unsigned *B, int N) {
    __shared__ unsigned tile[16][17];  // rows padded to 17 words: a tile column spans 8 banks
    int x = threadIdx.x, y = threadIdx.y;
    int c0 = blockIdx.x * 16, r0 = blockIdx.y * 16;
    unsigned *sa = &tile[y][x];
    unsigned *sb = &tile[x][y];
    const unsigned *ga = A + (r0 + y) * N + c0 + x;
    unsigned *gb = B + (c0 + y) * N + r0 + x;
    int n4 = 4 * N;
    if (r0 + 16 <= N && c0 + 16 <= N) {  // the whole tile is inside (uniform per block)
        sa[0] = ga[0];
        sa[8] = ga[8];
        ga += n4;
        sa[68] = ga[0];
        sa[76] = ga[8];
        ga += n4;
        sa[136] = ga[0];
        sa[144] = ga[8];
        ga += n4;
        sa[204] = ga[0];
        sa[212] = ga[8];
        gb[0] = sb[0];
        gb[8] = sb[136];
        gb += n4;
        gb[0] = sb[4];
        gb[8] = sb[140];
        gb += n4;
        gb[0] = sb[8];
        gb[8] = sb[144];
        gb += n4;
        gb[0] = sb[12];
        gb[8] = sb[148];
        return;
    }
    // an edge tile: every move guarded (rows and columns inside form a prefix)
    int ca = N - c0 - x, ra = N - r0 - y;  // columns / rows of A left for this thread
    int cb = N - r0 - x, rb = N - c0 - y;  // columns / rows of B left
    do {
        if (ca <= 0) break;
        const unsigned *g = ga;
        if (ra <= 0) break;
        sa[0] = g[0];
        g += n4;
        if (ra <= 4) break;
        sa[68] = g[0];
        g += n4;
        if (ra <= 8) break;
        sa[136] = g[0];
        g += n4;
        if (ra <= 12) break;
        sa[204] = g[0];
    } while (0);
    do {
        if (ca <= 8) break;
        if (ra <= 0) break;
        sa[8] = ga[8];
        ga += n4;
        if (ra <= 4) break;
        sa[76] = ga[8];
        ga += n4;
        if (ra <= 8) break;
        sa[144] = ga[8];
        ga += n4;
        if (ra <= 12) break;
        sa[212] = ga[8];
    } while (0);
    do {
        if (cb <= 0) break;
        unsigned *g = gb;
        if (rb <= 0) break;
        g[0] = sb[0];
        g += n4;
        if (rb <= 4) break;
        g[0] = sb[4];
        g += n4;
        if (rb <= 8) break;
        g[0] = sb[8];
        g += n4;
        if (rb <= 12) break;
        g[0] = sb[12];
    } while (0);
    do {
        if (cb <= 8) break;
        if (rb <= 0) break;
        gb[8] = sb[136];
        gb += n4;
        if (rb <= 4) break;
        gb[8] = sb[140];
        gb += n4;
        if (rb <= 8) break;
        gb[8] = sb[144];
        gb += n4;
        if (rb <= 12) break;
        gb[8] = sb[148];
    } while (0);
}
