// Bitonic sort in C: N unsigned keys ascending, one block of P/2 comparator threads (P = the keys
// padded to a power of two >= 16, pads 0xFFFFFFFF); the network and barrier plan of kernel.s
// (kernels/bitonic/README.md): stages up to k = 64 and the steps j <= 32 stay inside a warp's 64 keys
// (a warp sees its own shared stores in order: no barrier), every step that crosses warps is fenced.
#define SORT2(i, j)         \
    {                       \
        unsigned a = s[i];  \
        unsigned b = s[j];  \
        if (a > b) {        \
            s[i] = b;       \
            s[j] = a;       \
        }                   \
    }
#define FLIP(i, km)                  \
    {                                \
        unsigned m = (i) ^ (km);     \
        SORT2(i, m)                  \
    }                                     // F(k): i with its mirror in the k-block
#define STEP(i, j) SORT2(i, (i) + (j))  // S(j): i with i + j (an immediate offset when j is constant)

__global__ void bitonic(const unsigned *KEYS, unsigned *SORTED, unsigned N) {
    __shared__ unsigned s[1024];  // the launch sets the real size (P words)
    unsigned t = threadIdx.x, nt = blockDim.x;
    unsigned tn = t + nt;
    s[t] = KEYS[t];  // key t < P/2 < N: always a real key
    unsigned pad = 0xFFFFFFFFu;
    if (tn < N)
        pad = KEYS[tn];
    s[tn] = pad;
    // the lower key of a step with distance j is 2t - (t & (j - 1))
    unsigned t2 = t + t;
    unsigned i2 = t2 - (t & 1), i4 = t2 - (t & 3), i8 = t2 - (t & 7);
    unsigned i16 = t2 - (t & 15), i32 = t2 - (t & 31);
    __syncthreads();  // keys t + P/2 were loaded by another warp
    FLIP(t2, 1);
    FLIP(i2, 3);
    STEP(t2, 1);
    FLIP(i4, 7);
    STEP(i2, 2);
    STEP(t2, 1);
    FLIP(i8, 15);
    STEP(i4, 4);
    STEP(i2, 2);
    STEP(t2, 1);
    if (nt >= 16) {  // P >= 32
        FLIP(i16, 31);
        STEP(i8, 8);
        STEP(i4, 4);
        STEP(i2, 2);
        STEP(t2, 1);
        if (nt >= 32) {  // P >= 64
            FLIP(i32, 63);
            unsigned km = 63;  // k - 1 of the stage the tail finishes
            for (;;) {
                STEP(i16, 16);
                STEP(i8, 8);
                STEP(i4, 4);
                STEP(i2, 2);
                STEP(t2, 1);
                if (km >= nt)
                    break;  // 2k > P: sorted
                km = km + km + 1;
                __syncthreads();
                unsigned jm = km >> 1;
                unsigned i = t2 - (t & jm);
                FLIP(i, km);  // F(k), k >= 128: crosses warps
                __syncthreads();
                jm >>= 1;
                while (jm >= 63) {  // S(j), j >= 64: crosses warps
                    i = t2 - (t & jm);
                    unsigned m = i + jm + 1;
                    SORT2(i, m);
                    __syncthreads();
                    jm >>= 1;
                }
                STEP(i32, 32);
            }
        }
    }
    __syncthreads();
    SORTED[t] = s[t];
    if (tn < N)
        SORTED[tn] = s[tn];
}
