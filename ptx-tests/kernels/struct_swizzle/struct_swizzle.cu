// Members of float2/float3/float4 structs read and written whole by lane-consecutive threads,
// each member with its own operation so that any mix-up of members or lanes shows:
// ld.global.nc.v2.f32/.v4.f32, three ld.global.nc.f32 at a 12-byte lane stride, and the
// stores alike. Then an in-place float2 update through volatile pointers: a load, a store
// to the other member, a load of the stored member, a store (member order must be kept).
extern "C" __global__ void struct_swizzle(int n, const float3* __restrict__ a,
                                          const float4* __restrict__ b,
                                          const float2* __restrict__ c,
                                          float4* __restrict__ out4, float3* __restrict__ out3,
                                          float2* __restrict__ out2, volatile float* inplace)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float3 p = a[i];
        float4 q = b[i];
        float2 r = c[i];
        out4[i] = make_float4(q.w - p.x, q.z * 2.0f, q.y + r.x, q.x - r.y);
        out3[i] = make_float3(p.z + q.x, p.y * 3.0f, p.x - r.y);
        out2[i] = make_float2(r.y * p.y, r.x + q.w);
        // inplace[2i] (x) and inplace[2i + 1] (y): x = y + 1, then y = x * 2 (the new x).
        inplace[2 * i] = inplace[2 * i + 1] + 1.0f;
        inplace[2 * i + 1] = inplace[2 * i] * 2.0f;
    }
}
