// 128-bit integer arithmetic as CUDA compiles it (NVRTC --device-int128): products from
// mul.lo/mul.hi and add.cc/addc, and nvcc's own division routine (inlined), whose carry
// chains read CC.CF after subtractions (sub.cc ... subc.cc; addc.u32 r, 0, 0).
extern "C" __global__ void int128(const unsigned long long* a, unsigned long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long p = a[2 * i], q = a[2 * i + 1];
    unsigned __int128 x = (unsigned __int128)p * q + p;
    __int128 y = (__int128)(long long)p * (long long)q;
    unsigned long long d = (q >> (i % 61)) | 1;
    unsigned long long* o = out + 8 * i;
    o[0] = (unsigned long long)x;
    o[1] = (unsigned long long)(x >> 64);
    o[2] = (unsigned long long)(x / 1000003u);
    o[3] = (unsigned long long)(x % 1000003u);
    o[4] = (unsigned long long)(x / d);
    o[5] = (unsigned long long)(x % d);
    o[6] = (unsigned long long)(y / -7);
    o[7] = (unsigned long long)(y >> 70);
}
