// Stencil3D in C: out = 6 * centre - its six neighbours for interior cells, out = in on the boundary
// (wrapping); 3-D blocks and grid, one thread per cell (kernels/stencil3d/README.md).
__global__ void stencil3d(const unsigned *IN, unsigned *OUT, int NX, int NY, int NZ) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (!((x < NX) & (y < NY) & (z < NZ)))
        return;  // threads outside the volume (edge blocks) leave: a partial EXIT
    int idx = (z * NY + y) * NX + x;
    const unsigned *p = IN + idx;
    unsigned v = *p;
    // interior: 1 <= x <= NX - 2, likewise y and z (one unsigned compare each)
    unsigned inner = ((unsigned)(x - 1) < (unsigned)(NX - 2)) & ((unsigned)(y - 1) < (unsigned)(NY - 2)) &
                     ((unsigned)(z - 1) < (unsigned)(NZ - 2));
    if (inner) {
        int nxy = NX * NY;
        unsigned sx = p[-1] + p[1];
        unsigned sy = *(p - NX) + *(p + NX);
        unsigned sz = *(p - nxy) + *(p + nxy);
        v = v * 6 - (sx + sy + sz);
    }
    OUT[idx] = v;
}
