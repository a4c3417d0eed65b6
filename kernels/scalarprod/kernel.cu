// ScalarProd in C: OUT[v] = sum over i < N of A[vN + i] * B[vN + i] (wrapping); one 32-thread block
// per pair; the plan of kernel.s (kernels/scalarprod/README.md).
__global__ void scalarprod(const unsigned *A, const unsigned *B, unsigned *OUT, int N) {
    __shared__ unsigned s[32];
    unsigned l = threadIdx.x;
    unsigned v = blockIdx.x;
    int first = v * N + l;
    const unsigned *pa = A + first;
    const unsigned *pb = B + first;
    const unsigned *end = pa + N - l;
    const unsigned *lim = pa + N - 127;  // the tile at pa - l is whole iff pa < lim
    unsigned acc = 0;
    while (pa < lim) {
        acc += pa[0] * pb[0];
        acc += pa[32] * pb[32];
        acc += pa[64] * pb[64];
        acc += pa[96] * pb[96];
        pa += 128;
        pb += 128;
    }
    while (pa < end) {
        acc += *pa * *pb;
        pa += 32;
        pb += 32;
    }
    s[l] = acc;
    do {
        if (l >= 16) break;
        acc += s[l + 16];
        s[l] = acc;
        if (l >= 8) break;
        acc += s[l + 8];
        s[l] = acc;
        if (l >= 4) break;
        acc += s[l + 4];
        s[l] = acc;
        if (l >= 2) break;
        acc += s[l + 2];
        s[l] = acc;
        if (l >= 1) break;
        OUT[v] = acc + s[l + 1];
    } while (0);
}
