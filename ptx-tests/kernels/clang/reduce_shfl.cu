#include "cuda_min.h"

// Per-CTA sums over a grid-stride loop: each warp sums its lanes with __shfl_down_sync, lane
// 0 of each warp writes its sum to shared memory, and warp 0 sums those the same way.
extern "C" __global__ void reduce_shfl(const int *in, int *sums, int n) {
  __shared__ int warp_sums[32];
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += in[i];
  for (int d = warpSize / 2; d > 0; d >>= 1)
    acc += __shfl_down_sync(0xffffffffu, acc, d);
  unsigned lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0)
    warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < blockDim.x / warpSize ? warp_sums[lane] : 0;
    for (int d = warpSize / 2; d > 0; d >>= 1)
      acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (lane == 0)
      sums[blockIdx.x] = acc;
  }
}
