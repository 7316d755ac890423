// A block sum whose shared array is filled only where the block has input: the last block
// (n = 1000, 256 threads a block) loads 232 elements, yet the tree reduction adds s[t + 128]
// for every t < 128, so threads 104..127 read s[232..255], which nobody wrote. initcheck
// reports the read of never-written shared memory.
extern "C" __global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) s[t] = in[i];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
