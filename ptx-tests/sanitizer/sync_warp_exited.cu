// A __syncthreads() inside `if (threadIdx.x < 32)` in a block of 64 threads: the second warp
// skips the barrier and exits while the first waits at it.
extern "C" __global__ void first_warp_sum(const float *in, float *out)
{
    __shared__ float tile[32];
    unsigned tid = threadIdx.x;
    if (tid < 32) {
        tile[tid] = in[tid];
        __syncthreads();
        out[tid] = tile[tid] + tile[(tid + 1) % 32];
    }
}
