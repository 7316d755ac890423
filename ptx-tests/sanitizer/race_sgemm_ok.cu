// C = A B for n × n matrices (n a multiple of 16) with 16 × 16 tiles in shared memory, the
// usual two barriers per tile: after the tiles are loaded, and before they are overwritten.
// racecheck runs it clean.
#define TILE 16
extern "C" __global__ void sgemm_tiled(const float* a, const float* b, float* c, int n)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[ty][tx] = a[row * n + t + tx];
        bs[ty][tx] = b[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}
