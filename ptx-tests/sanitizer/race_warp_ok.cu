// A block sum by warp shuffles, correct: each warp first swaps neighbours' values through
// shared memory ordered by __syncwarp (lane l reads lane l ^ 1's store), reduces with
// __shfl_down_sync, lane 0 stores the warp's sum, and after __syncthreads warp 0 reduces the
// warp sums the same way. racecheck runs it clean: __syncwarp orders the lanes' exchange, the
// barrier the warps' sums, and the shuffles touch no memory.
extern "C" __global__ void warp_sum(const float* in, float* out)
{
    __shared__ float swap[256];
    __shared__ float warp_sums[8];
    unsigned tid = threadIdx.x;
    unsigned lane = tid % 32, warp = tid / 32;
    swap[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncwarp();
    float v = swap[tid ^ 1];
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int d = 16; d > 0; d /= 2)
            v += __shfl_down_sync(0xffffffffu, v, d);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
