// out[i] = in[i] for float elements: one 4-byte ld.global.f32 and st.global.f32 per thread,
// lane-consecutive (the scalar reference of copy_float4 and copy_float3).
extern "C" __global__ void copy_float(int n, const float* __restrict__ in, float* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}
