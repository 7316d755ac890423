// FP8 conversions as CUDA code writes them (cuda_fp8.h): pairs of floats to e4m3x2 and e5m2x2
// with saturation to the largest finite value, and back to half2. Compiled for compute_90:
// ptxjit compile fp8.cu --arch compute_90 (cuda_fp8.h is in the nvidia-cuda-runtime-cu12 wheel)
#include <cuda_fp8.h>

extern "C" __global__ void fp8(const float2* x, unsigned short* e4, unsigned short* e5,
                               unsigned* back4, unsigned* back5, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_fp8x2_storage_t a = __nv_cvt_float2_to_fp8x2(x[i], __NV_SATFINITE, __NV_E4M3);
    __nv_fp8x2_storage_t b = __nv_cvt_float2_to_fp8x2(x[i], __NV_SATFINITE, __NV_E5M2);
    e4[i] = a;
    e5[i] = b;
    __half2_raw h4 = __nv_cvt_fp8x2_to_halfraw2(a, __NV_E4M3);
    __half2_raw h5 = __nv_cvt_fp8x2_to_halfraw2(b, __NV_E5M2);
    back4[i] = (unsigned)h4.x | (unsigned)h4.y << 16;
    back5[i] = (unsigned)h5.x | (unsigned)h5.y << 16;
}
