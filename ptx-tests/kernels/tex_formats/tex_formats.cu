// Channel formats and read modes: u8x4 element reads (integers), s16x2 and s8 normalized
// floats, f16x2, u16 normalized from pitched 2D memory, s32 element reads; texel coordinates.
extern "C" __global__ void tex_formats(cudaTextureObject_t u8e, cudaTextureObject_t s16n,
                                       cudaTextureObject_t s8n, cudaTextureObject_t f16,
                                       cudaTextureObject_t u16p, cudaTextureObject_t s32e,
                                       const float2* c, uint4* ou, float* of, int* oi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = c[i].x, y = c[i].y;
        uchar4 a = tex2D<uchar4>(u8e, x, y);
        ou[i] = make_uint4(a.x, a.y, a.z, a.w);
        float2 b = tex2D<float2>(s16n, x, y);
        float s = tex2D<float>(s8n, x, y);
        float2 h = tex2D<float2>(f16, x, y);
        float p = tex2D<float>(u16p, x, y);
        of[6 * i + 0] = b.x;
        of[6 * i + 1] = b.y;
        of[6 * i + 2] = s;
        of[6 * i + 3] = h.x;
        of[6 * i + 4] = h.y;
        of[6 * i + 5] = p;
        oi[i] = tex2D<int>(s32e, x, y);
    }
}
