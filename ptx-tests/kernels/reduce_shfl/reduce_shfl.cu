// Block sum reduction with warp shuffles: each warp reduces its 32 values with
// __shfl_down_sync, lane 0 of each warp stores to shared memory, then warp 0
// reduces the per-warp sums the same way. Each block writes out[blockIdx.x].
// Grid-stride loop: each thread first sums in[i], in[i + stride], ... .

__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

extern "C" __global__ void reduce_shfl(const float* in, float* out, int n)
{
    __shared__ float warp_sums[32];

    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;

    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
        v += in[i];
    }

    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        int nwarps = (blockDim.x + 31) >> 5;
        v = (lane < nwarps) ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
