// out[i] = in[i] for float3 elements: three 4-byte loads and stores per thread at a 12-byte
// stride between lanes (float3 has no 16-byte alignment, so no vector access).
extern "C" __global__ void copy_float3(int n, const float3* __restrict__ in, float3* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}
