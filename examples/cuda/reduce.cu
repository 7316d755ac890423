// Sum reduction: warp shuffles in one kernel, cooperative-groups tiles in another.
#include "check.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>
namespace cg = cooperative_groups;

__global__ void reduce_shfl(const int* in, long long* out, int n) {
  __shared__ int warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    if (threadIdx.x == 0) atomicAdd((unsigned long long*)out, (unsigned long long)(long long)v);
  }
}

__global__ void reduce_tiles(const int* in, long long* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) atomicAdd((unsigned long long*)out, (unsigned long long)(long long)s);
}

int main() {
  const int n = 1 << 16;
  std::vector<int> h(n);
  long long ref = 0;
  for (int i = 0; i < n; i++) { h[i] = (i * 37) % 101 - 50; ref += h[i]; }
  int* d; long long* out;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(long long)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  long long got;
  CHECK(cudaMemset(out, 0, sizeof(long long)));
  reduce_shfl<<<n / 256, 256>>>(d, out, n);
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT(got == ref);
  CHECK(cudaMemset(out, 0, sizeof(long long)));
  reduce_tiles<<<n / 128, 128>>>(d, out, n);
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT(got == ref);
  std::printf("PASS\n");
  return 0;
}
