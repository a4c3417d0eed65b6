/* Autocorrelation reference: R[k] = sum_{i < N-k} X[i] * X[i+k] (wrapping), k < N.   golden N < X > R */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t n = (size_t)golden_arg(argc, argv, 1);
    uint32_t *x = golden_read(n), *r = golden_alloc(n);
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i + k < n; i++)
            r[k] += x[i] * x[i + k];
    golden_write(r, n);
    return 0;
}
