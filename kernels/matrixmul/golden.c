/* MatrixMul reference: C = A x B, N x N, row-major.   golden N < A,B > C */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t n = (size_t)golden_arg(argc, argv, 1);
    uint32_t *a = golden_read(n * n), *b = golden_read(n * n), *c = golden_alloc(n * n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            uint32_t sum = 0;
            for (size_t k = 0; k < n; k++)
                sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
    golden_write(c, n * n);
    return 0;
}
