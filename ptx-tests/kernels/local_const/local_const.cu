// Local memory (a per-thread array indexed dynamically, so it cannot live in registers) and a
// __constant__ table with an initializer.
__constant__ int c_coef[16] = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3};

extern "C" __global__ void local_const(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    volatile int tmp[16];
    for (int j = 0; j < 16; j++) tmp[j] = in[i] * c_coef[j] + j;
    out[i] = tmp[(i * 7) & 15];
}
