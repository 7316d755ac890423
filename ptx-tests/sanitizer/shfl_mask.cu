// A warp reduction with a wrong __shfl_down_sync mask: 0xffff names lanes 0-15 only, but all
// 32 lanes of the warp execute the shuffle (the mask should be 0xffffffff).
__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffff, v, offset);
    return v;
}

extern "C" __global__ void warp_sums(const float *in, float *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum(in[i]);
    if (threadIdx.x % 32 == 0)
        out[i / 32] = v;
}
