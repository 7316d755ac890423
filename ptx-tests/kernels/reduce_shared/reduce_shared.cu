// Block sum reduction in shared memory (tree reduction). Each block reduces
// 2 * blockDim.x elements (first add during load) and writes out[blockIdx.x].
#define BLOCK 256

extern "C" __global__ void reduce_shared(const float* in, float* out, unsigned int n)
{
    __shared__ float sdata[BLOCK];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) out[blockIdx.x] = sdata[0];
}
