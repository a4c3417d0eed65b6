/* AluStream reference: OUT[i] = mix^R(i ^ SEED).   golden N R SEED > OUT */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t n = (size_t)golden_arg(argc, argv, 1);
    uint32_t rounds = (uint32_t)golden_arg(argc, argv, 2), seed = (uint32_t)golden_arg(argc, argv, 3);
    uint32_t *out = golden_alloc(n);
    for (size_t i = 0; i < n; i++) {
        uint32_t x = (uint32_t)i ^ seed, t, m;
        for (uint32_t r = 0; r < rounds; r++) {
            m = x * 0x2545u;
            t = m >> 15;
            x = m ^ t;
            x += 0x1234u;
            x ^= x << 7;
            m = x * (uint32_t)-0x3b5;
            x = m ^ (m >> 13);
            x += (uint32_t)i;
            x -= x << 3;
            x ^= 0x5a5au;
            x += x >> 11;
        }
        out[i] = x;
    }
    golden_write(out, n);
    return 0;
}
