#include "cuda_min.h"

// y[i] = a * x[i] + y[i] over a grid-stride loop: fewer threads than elements.
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
