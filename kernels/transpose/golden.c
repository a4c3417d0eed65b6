/* Transpose reference: B[j][i] = A[i][j] for an N x N row-major matrix.   golden N < A > B */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t n = (size_t)golden_arg(argc, argv, 1);
    uint32_t *a = golden_read(n * n), *b = golden_alloc(n * n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            b[j * n + i] = a[i * n + j];
    golden_write(b, n * n);
    return 0;
}
