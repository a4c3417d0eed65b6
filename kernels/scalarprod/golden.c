/* ScalarProd reference: OUT[v] = sum_i A[v*N + i] * B[v*N + i] (wrapping).   golden V N < A,B > OUT */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t v = (size_t)golden_arg(argc, argv, 1), n = (size_t)golden_arg(argc, argv, 2);
    uint32_t *a = golden_read(v * n), *b = golden_read(v * n), *out = golden_alloc(v);
    for (size_t p = 0; p < v; p++)
        for (size_t i = 0; i < n; i++)
            out[p] += a[p * n + i] * b[p * n + i];
    golden_write(out, v);
    return 0;
}
