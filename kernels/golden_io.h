/* Shared I/O of the kernels' C reference programs (kernels/suite.py runs them).
 *
 *   golden ARGS... < inputs > outputs
 *
 * Inputs and outputs are 32-bit words, little-endian, arrays concatenated in the order the kernel's
 * gen.py lists them. All arithmetic is on uint32_t, which wraps modulo 2^32 exactly like the GPU. */
#ifndef GOLDEN_IO_H
#define GOLDEN_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* argv[i] as an integer; exits with a message when missing. */
static inline long golden_arg(int argc, char **argv, int i) {
    if (i >= argc) {
        fprintf(stderr, "golden: argument %d missing\n", i);
        exit(2);
    }
    return strtol(argv[i], NULL, 0);
}

static inline uint32_t *golden_alloc(size_t n) {
    uint32_t *p = calloc(n ? n : 1, sizeof(uint32_t));
    if (!p) {
        fprintf(stderr, "golden: out of memory\n");
        exit(2);
    }
    return p;
}

/* Reads n words from stdin into a new array; exits when the input is short. */
static inline uint32_t *golden_read(size_t n) {
    uint32_t *p = golden_alloc(n);
    for (size_t i = 0; i < n; i++) {
        unsigned char b[4];
        if (fread(b, 1, 4, stdin) != 4) {
            fprintf(stderr, "golden: input ends after %zu of %zu words\n", i, n);
            exit(2);
        }
        p[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    }
    return p;
}

static inline void golden_write(const uint32_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char b[4] = {p[i] & 0xFF, p[i] >> 8 & 0xFF, p[i] >> 16 & 0xFF, p[i] >> 24};
        fwrite(b, 1, 4, stdout);
    }
}

#endif
