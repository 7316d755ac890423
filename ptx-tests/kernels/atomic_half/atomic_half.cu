// Half-precision, 16-bit and vector atomics from 1024 threads on all cores at once, and the
// subnormal rule of atom.add.f32 (flushed on global memory, kept on shared memory: PTX ISA
// "atom"). ptxjit compile atomic_half.cu --arch compute_90
// (float4 atomicAdd needs sm_90; cuda_fp16.h is in the nvidia-cuda-runtime-cu12 wheel).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __noinline__ void add_generic(float* p, float v) { atomicAdd(p, v); }

extern "C" __global__ void atomic_half(__half* h, __nv_bfloat16* bh, __half2* h2,
                                       __nv_bfloat162* b2, unsigned short* c16, float* fsub,
                                       float4* v4)
{
    __shared__ float s[2];
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 2) s[threadIdx.x] = 0.0f;
    __syncthreads();

    atomicAdd(&h[t % 4], __float2half(1.0f));                       // 256 each
    atomicAdd(&bh[t % 8], __float2bfloat16(1.0f));                  // 128 each
    atomicAdd(&h2[t % 2], __halves2half2(__float2half(1.0f), __float2half(2.0f)));
    atomicAdd(&b2[t % 8], __halves2bfloat162(__float2bfloat16(1.0f), __float2bfloat16(-1.0f)));

    // A 16-bit compare-and-swap loop: every thread increments once.
    unsigned short old = c16[0], assumed;
    do {
        assumed = old;
        old = atomicCAS(&c16[0], assumed, (unsigned short)(assumed + 1));
    } while (assumed != old);

    // 128 adds of (1, 2, 3, 4) into v4[t % 8].
    atomicAdd(&v4[t % 8], make_float4(1.0f, 2.0f, 3.0f, 4.0f));

    if (t == 0) {
        float tiny = __int_as_float(0x00000100);   // a subnormal
        atomicAdd(&fsub[0], tiny);                  // global: flushed, stays 0
        atomicAdd(&s[0], tiny);                     // shared: kept
        add_generic(&fsub[2], tiny);                // generic -> global: flushed
        add_generic(&s[1], tiny);                   // generic -> shared: kept
    }
    __syncthreads();
    if (t == 0) {
        fsub[1] = s[0];
        fsub[3] = s[1];
    }
}
