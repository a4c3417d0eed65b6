/* Bitonic sort reference: the N keys sorted ascending as unsigned 32-bit words.   golden N < KEYS > SORTED */
#include "golden_io.h"

static int cmp_u32(const void *x, const void *y) {
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    size_t n = (size_t)golden_arg(argc, argv, 1);
    uint32_t *keys = golden_read(n);
    qsort(keys, n, sizeof *keys, cmp_u32);
    golden_write(keys, n);
    return 0;
}
