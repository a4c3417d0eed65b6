/* Stencil3D reference: 7-point stencil, boundary cells copied.   golden NX NY NZ < IN > OUT */
#include "golden_io.h"

int main(int argc, char **argv) {
    size_t nx = (size_t)golden_arg(argc, argv, 1), ny = (size_t)golden_arg(argc, argv, 2),
           nz = (size_t)golden_arg(argc, argv, 3);
    size_t sy = nx, sz = nx * ny, n = nx * ny * nz;
    uint32_t *in = golden_read(n), *out = golden_alloc(n);
    for (size_t z = 0; z < nz; z++)
        for (size_t y = 0; y < ny; y++)
            for (size_t x = 0; x < nx; x++) {
                size_t i = z * sz + y * sy + x;
                if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1)
                    out[i] = in[i];
                else
                    out[i] = 6 * in[i] - in[i - 1] - in[i + 1] - in[i - sy] - in[i + sy] - in[i - sz] -
                             in[i + sz];
            }
    golden_write(out, n);
    return 0;
}
