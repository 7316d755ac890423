// Sparse-texture fetches as CUDA 11.1+ writes them: tex2D / tex2DLod with the `isResident`
// out-parameter, which NVRTC compiles to tex with the residency predicate `d|p` (PTX ISA
// 9.7.10.3). ptxjit's textures are always resident, so every flag must come back true; the
// texels are those of an ordinary linear-filtered fetch.
// The sparse overloads are behind __NV_TEX_SPARSE in CUDA's headers; the PTX was generated with
//   ptxjit compile tex_resident.cu -D__NV_TEX_SPARSE=1
#include <cuda_runtime.h>

extern "C" __global__ void tex_resident(cudaTextureObject_t t, const float* xs, const float* ys,
                                        float4* out, int* resident, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool r0 = false, r1 = false;
    float4 a = tex2D<float4>(t, xs[i], ys[i], &r0);
    float4 b = tex2DLod<float4>(t, ys[i], xs[i], 0.0f, &r1);
    out[2 * i] = a;
    out[2 * i + 1] = b;
    resident[2 * i] = r0;
    resident[2 * i + 1] = r1;
}
