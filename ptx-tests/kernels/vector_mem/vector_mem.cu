// Vector loads and stores of at most 8 bytes (uchar4, char2, ushort4, float2, int2)
// through global, shared and local memory, and generic pointers (t = threadIdx.x).
// Each thread i:
//   o8[i]  = uchar4(a.w+1, a.z+2, a.y+3, a.x+4)          for a = in8[i]       (byte swizzle)
//   o16[i] = ushort4(b.y, b.x, b.w ^ 0x8000, b.z + 7)      for b = in16[i]
//   of2[i] = float2(c.y * 2, c.x - 1)                      for c = inf2[i], stored
//            through a generic pointer to shared (odd t) or global memory (even t)
//   oi2[i] = int2(d.x + d.y, d.x - d.y)   for d = ini2 of the CTA's thread (t + 1) % blockDim.x,
//            through shared memory (n a multiple of blockDim.x)
//   oc2[i] = char2(-a.y, a.x)             through a local array indexed at run time
extern "C" __global__ void vector_mem(const uchar4* in8, const ushort4* in16, const float2* inf2,
                                      const int2* ini2, uchar4* o8, ushort4* o16, float2* of2,
                                      int2* oi2, char2* oc2, int n)
{
    __shared__ int2 s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    if (i < n) s[t] = ini2[i];
    __syncthreads();
    int2 d = s[(t + 1) % blockDim.x];
    __syncthreads();
    if (i >= n) return;
    uchar4 a = in8[i];
    o8[i] = make_uchar4(a.w + 1, a.z + 2, a.y + 3, a.x + 4);
    ushort4 b = in16[i];
    o16[i] = make_ushort4(b.y, b.x, b.w ^ 0x8000, b.z + 7);
    float2 c = inf2[i];
    __shared__ float2 sf[256];
    float2* gp = (t & 1) ? &sf[t] : &of2[i];  // a generic pointer: shared or global
    *gp = make_float2(c.y * 2.0f, c.x - 1.0f);
    if (t & 1) of2[i] = sf[t];
    s[t] = make_int2(d.x + d.y, d.x - d.y);
    __syncwarp();
    oi2[i] = s[t];
    char2 loc[4];
    for (int k = 0; k < 4; k++) loc[k] = make_char2((char)(a.x + k), (char)(a.y - k));
    char2* g = &loc[i & 3];
    char2 e = *g;
    e.x -= (char)(i & 3);
    e.y += (char)(i & 3);
    char2* out = oc2 + i;
    *out = make_char2(-e.y, e.x);
}
