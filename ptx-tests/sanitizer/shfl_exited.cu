// A full-warp reduction after an early return: with n = 40, lanes 8-31 of the second warp
// have exited when lanes 0-7 shuffle with membermask 0xffffffff, which still names them.
extern "C" __global__ void tail_sums(const float *in, float *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0)
        out[i / 32] = v;
}
