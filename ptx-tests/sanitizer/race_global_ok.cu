// The in-place segment reversal of race_global.cu with its __syncthreads() between the loads
// and the stores: every load of the block happens before any store.
extern "C" __global__ void reverse_segments(float* d)
{
    unsigned base = blockIdx.x * blockDim.x;
    unsigned t = threadIdx.x;
    float v = d[base + t];
    __syncthreads();
    d[base + blockDim.x - 1 - t] = v;
}
