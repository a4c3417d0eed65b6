/* Reduction reference: OUT[0] = X[0] + ... + X[N-1] (wrapping).   golden N < X > OUT */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t n = (size_t)golden_arg(argc, argv, 1);
    uint32_t *x = golden_read(n), sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    golden_write(&sum, 1);
    return 0;
}
