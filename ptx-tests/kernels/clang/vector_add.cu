#include "cuda_min.h"

// c[i] = a[i] + b[i] for i < n: one thread per element, a partial last CTA.
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
