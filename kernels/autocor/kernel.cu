// Autocorrelation in C: R[k] = sum over i < N - k of X[i] * X[i + k] (wrapping), one thread per lag;
// the plan of kernel.s (kernels/autocor/README.md): X staged in shared memory (the launch gives N + 16
// words, the last 16 zero), then 16 products per step; lanes leave the loop at different steps.
#define STEP(u) r += xi[u] * xk[u]

__global__ void autocor(const unsigned *X, unsigned *R, int N) {
    __shared__ unsigned xs[1024];  // the launch sets the real size (N + 16 words)
    int t = threadIdx.x, T = blockDim.x;
    int k = blockIdx.x * T + t;
    const unsigned *g = X + t;
    const unsigned *end = X + N;
    unsigned *s = &xs[t];
    while (g < end) {  // more than once only when N > T
        *s = *g;
        g += T;
        s += T;
    }
    __syncthreads();  // X is in shared memory for every warp
    if (k >= N)
        return;  // lags past the end (a partial EXIT in the last warp)
    const unsigned *xi = &xs[0];
    const unsigned *xk = &xs[k];
    unsigned r = 0;
    do {  // the last step may run past N - k into the zero words: they add nothing
        STEP(0); STEP(1); STEP(2); STEP(3); STEP(4); STEP(5); STEP(6); STEP(7);
        STEP(8); STEP(9); STEP(10); STEP(11); STEP(12); STEP(13); STEP(14); STEP(15);
        xi += 16;
        xk += 16;
    } while (xk < xs + N);
    R[k] = r;
}
