// __half2 arithmetic as a mixed-precision kernel writes it: a packed axpy with __hfma2, a
// packed ReLU with __hmax2, a per-pair dot product (__hmul2, then __low2float + __high2float
// in f32), and __floats2half2_rn / __half22float2 conversions.
#include <cuda_fp16.h>

extern "C" __global__ void half2_ops(const __half2* __restrict__ x, const __half2* __restrict__ y,
                                     __half2 a, int n2, __half2* __restrict__ axpy,
                                     __half2* __restrict__ relu, float* __restrict__ dot,
                                     __half2* __restrict__ scaled) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n2) return;
    __half2 xi = x[i], yi = y[i];
    axpy[i] = __hfma2(a, xi, yi);
    relu[i] = __hmax2(xi, __float2half2_rn(0.0f));
    __half2 p = __hmul2(xi, yi);
    dot[i] = __low2float(p) + __high2float(p);
    float2 f = __half22float2(xi);
    scaled[i] = __floats2half2_rn(f.x * 0.5f, f.y * 3.0f);
}
