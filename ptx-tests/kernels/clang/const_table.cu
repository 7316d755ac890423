#include "cuda_min.h"

// A __constant__ table read directly and through a generic pointer, and a dynamic
// __shared__ array; compiled also with clang's 32-bit pointers for the const, shared and
// local spaces (gen_ptx.sh), where the table's address is a 32-bit register.
__constant__ float coeffs[8] = {0.5f, -1.25f, 2.0f, 3.5f, -0.75f, 8.0f, 0.125f, -6.0f};

// Reads table[k] through a generic pointer: the caller passes a const-space address made
// generic (cvta.const).
__device__ __noinline__ float pick(const float *table, int k) { return table[k]; }

// stage[t] = coeffs[idx[i] % 8] * t, then out[i] = stage[blockDim.x - 1 - t] + pick(coeffs, t % 8).
extern "C" __global__ void const_table(const int *idx, float *out, int n) {
  extern __shared__ float stage[];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  stage[t] = i < n ? coeffs[idx[i] & 7] * (float)t : 0.0f;
  __syncthreads();
  if (i < n)
    out[i] = stage[blockDim.x - 1 - t] + pick(coeffs, t % 8);
}
