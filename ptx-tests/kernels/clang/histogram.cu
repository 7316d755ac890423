#include "cuda_min.h"

#define BINS 256

// A 256-bin histogram of bytes: each CTA counts into shared bins with atomicAdd over a
// grid-stride loop, then adds its bins to the global ones.
extern "C" __global__ void histogram(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[BINS];
  for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b] != 0)
      atomicAdd(&bins[b], local[b]);
}
