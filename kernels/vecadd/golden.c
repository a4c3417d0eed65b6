/* VectorAdd reference: C[i] = A[i] + B[i].   golden N < A,B > C */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t n = (size_t)golden_arg(argc, argv, 1);
    uint32_t *a = golden_read(n), *b = golden_read(n), *c = golden_alloc(n);
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    golden_write(c, n);
    return 0;
}
