// MatrixMul in C: C = A x B (N x N words, row-major, wrapping), tiled as in the CUDA programming guide;
// the plan of kernel.s (kernels/matrixmul/README.md): 16 x 16 blocks, k-tiles walked from the last
// (the only partial one) to the first, rows and columns past N clamped for the loads, not stored.
#define TILE 16
#define STEP(k) sum += arow[k] * bcol[TILE * (k)]

__global__ void matrixmul(const unsigned *A, const unsigned *B, unsigned *C, int N, int LAST, int NT,
                          int PART) {
    __shared__ unsigned As[TILE][TILE];
    __shared__ unsigned Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    int ok = row < N && col < N;
    unsigned *dst = C + row * N + col;
    int rowc = row < N ? row : N - 1;  // clamped: loads stay inside A and B
    int colc = col < N ? col : N - 1;
    const unsigned *pa = A + rowc * N + LAST + tx;  // &A[row'][k0 + tx] of the current k-tile
    const unsigned *pb = B + (LAST + ty) * N + colc;  // &B[k0 + ty][col']
    unsigned *mine = &As[ty][tx];  // this thread's word of As (and, TILE * TILE later, of Bs)
    unsigned *arow = &As[ty][0];
    unsigned *bcol = &Bs[0][tx];
    int step = TILE * N;
    unsigned x = 0, y = 0, sum = 0;
    int cnt = NT;
    if (PART) {  // the last k-tile is partial: copy only the words inside (the rest stays 0)
        if (tx < PART)
            x = *pa;
        if (ty < PART)
            y = *pb;
    } else {
        x = *pa;
        y = *pb;
    }
    for (;;) {
        mine[0] = x;
        mine[TILE * TILE] = y;
        __syncthreads();
        STEP(0); STEP(1); STEP(2); STEP(3); STEP(4); STEP(5); STEP(6); STEP(7);
        STEP(8); STEP(9); STEP(10); STEP(11); STEP(12); STEP(13); STEP(14); STEP(15);
        __syncthreads();  // everyone is done with the tiles before they are overwritten
        pa -= TILE;
        pb -= step;
        if (--cnt == 0)
            break;
        x = *pa;
        y = *pb;
    }
    if (ok)
        *dst = sum;
}
