// AluStream in C: OUT[i] = mix^R(i ^ SEED), one thread per element (kernels/alustream/README.md).
__global__ void alustream(unsigned *OUT, unsigned N, unsigned R, unsigned SEED) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i ^ SEED;
    unsigned r = R;
    do {  // R >= 1 rounds: the loop test at the bottom, as in kernel.s
        unsigned m = x * 0x2545u;
        x = m ^ (m >> 15);
        x += 0x1234u;
        x ^= x << 7;
        m = x * (unsigned)-0x3b5;
        x = m ^ (m >> 13);
        x += i;
        x -= x << 3;
        x ^= 0x5a5au;
        x += x >> 11;
    } while (--r);
    OUT[i] = x;
}
