// Inclusive prefix sum: a Hillis-Steele scan per block, then block offsets added.
#include "check.h"
#include <vector>
#define B 256

__global__ void scan_block(int* data, int* sums, int n) {
  __shared__ int s[B];
  int i = blockIdx.x * B + threadIdx.x;
  s[threadIdx.x] = i < n ? data[i] : 0;
  __syncthreads();
  for (int off = 1; off < B; off <<= 1) {
    int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n) data[i] = s[threadIdx.x];
  if (threadIdx.x == B - 1) sums[blockIdx.x] = s[B - 1];
}

__global__ void add_offsets(int* data, const int* sums, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  int off = 0;
  for (int b = 0; b < blockIdx.x; b++) off += sums[b];
  if (i < n) data[i] += off;
}

int main() {
  const int n = 10000, blocks = (n + B - 1) / B;
  std::vector<int> h(n), out(n);
  for (int i = 0; i < n; i++) h[i] = (i % 13) - 4;
  int *d, *sums;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&sums, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  scan_block<<<blocks, B>>>(d, sums, n);
  add_offsets<<<blocks, B>>>(d, sums, n);
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  int acc = 0;
  for (int i = 0; i < n; i++) { acc += h[i]; EXPECT(out[i] == acc); }
  std::printf("PASS\n");
  return 0;
}
