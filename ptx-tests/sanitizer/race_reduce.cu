// A block sum through shared memory that misses the __syncthreads between the load phase and
// the tree: threads of the first warps add sdata[tid + s] before the warps that own those
// elements have stored them. The tree's own barriers are all there, so the bug hides on a GPU
// whenever the warps happen to run in order; racecheck names the store and the load.
extern "C" __global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
