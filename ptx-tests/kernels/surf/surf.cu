// Surface reads and writes with each boundary mode: thread (x, y) of a 2D grid that is
// larger than the surfaces reads src at (x, y) with cudaBoundaryModeZero and Clamp and writes
// the sum to dst (x in bytes) with Zero; a 1D surface read (Clamp) and a 3D write (Zero) too.
extern "C" __global__ void surf(cudaSurfaceObject_t src, cudaSurfaceObject_t dst,
                                cudaSurfaceObject_t s1, cudaSurfaceObject_t s3,
                                int* clamped, int* zeroed, int* one_d)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int w = gridDim.x * blockDim.x;
    uchar4 z = surf2Dread<uchar4>(src, x * 4, y, cudaBoundaryModeZero);
    uchar4 c = surf2Dread<uchar4>(src, x * 4, y, cudaBoundaryModeClamp);
    zeroed[y * w + x] = z.x | z.y << 8 | z.z << 16 | z.w << 24;
    clamped[y * w + x] = c.x | c.y << 8 | c.z << 16 | c.w << 24;
    surf2Dwrite(make_uchar4(c.w, c.z, c.y, c.x), dst, x * 4, y, cudaBoundaryModeZero);
    if (y == 0) {
        one_d[x] = surf1Dread<int>(s1, (x - 2) * 4, cudaBoundaryModeClamp);
    }
    surf3Dwrite<float>(x + 100.0f * y, s3, x * 4, y % 3, y / 3, cudaBoundaryModeZero);
}
