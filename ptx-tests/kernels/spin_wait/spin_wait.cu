// Warps of one CTA waiting on each other through memory, without a barrier in the loop (legal
// on Volta and later, which guarantee forward progress): warp 0 spins on a volatile shared
// flag that the last warp sets after writing data, then uses the data. ptxjit's warps take
// turns; loops whose exit depends on memory yield every 1024 iterations so the producer runs.
extern "C" __global__ void handoff(const int* in, int* out)
{
    __shared__ volatile int flag;
    __shared__ volatile int data[32];
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    int last = blockDim.x - 32;
    if (t >= last) {
        data[t - last] = in[blockIdx.x * 32 + t - last] * 3;
        __threadfence_block();
        if (t == last) flag = 1;
    }
    if (t < 32) {
        while (flag == 0) {
        }
        out[blockIdx.x * 32 + t] = data[t] + t;
    }
}
