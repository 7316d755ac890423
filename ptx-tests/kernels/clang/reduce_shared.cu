#include "cuda_min.h"

#define BLOCK 256

// Per-CTA sums of in[0..n): each thread loads one element (0 past the end), then a tree
// reduction in shared memory halves the active threads with a __syncthreads per level.
extern "C" __global__ void reduce_shared(const float *in, float *sums, int n) {
  __shared__ float s[BLOCK];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    sums[blockIdx.x] = s[0];
}
