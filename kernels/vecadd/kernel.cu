// VectorAdd in C: C[i] = A[i] + B[i] for i < N (kernels/vecadd/README.md).
__global__ void vecadd(const int *A, const int *B, int *C, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;  // the threads past the end exit (a partial EXIT)
    C[i] = A[i] + B[i];
}
