// Histogram with shared-memory atomics merged into global counts.
#include "check.h"
#include <vector>
#define BINS 64

__global__ void histogram(const unsigned char* in, unsigned* bins, int n) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 1 << 18;
  std::vector<unsigned char> h(n);
  unsigned ref[BINS] = {0};
  for (int i = 0; i < n; i++) { h[i] = (unsigned char)((i * 2654435761u) >> 24); ref[h[i] % BINS]++; }
  unsigned char* d; unsigned* bins;
  CHECK(cudaMalloc(&d, n));
  CHECK(cudaMalloc(&bins, BINS * sizeof(unsigned)));
  CHECK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bins, 0, BINS * sizeof(unsigned)));
  histogram<<<32, 256>>>(d, bins, n);
  unsigned got[BINS];
  CHECK(cudaMemcpy(got, bins, sizeof got, cudaMemcpyDeviceToHost));
  for (int b = 0; b < BINS; b++) EXPECT(got[b] == ref[b]);
  std::printf("PASS\n");
  return 0;
}
