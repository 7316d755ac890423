// out[i] = in[i] for float4 elements: one 16-byte ld.global.v4.f32 and st.global.v4.f32 per
// thread, lane-consecutive.
extern "C" __global__ void copy_float4(int n, const float4* __restrict__ in, float4* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}
