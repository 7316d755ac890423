// cuda::barrier (PTX mbarrier) with cuda::memcpy_async: each block stages its tile of the
// input in shared memory through asynchronous copies completed on a block-scoped barrier,
// then writes the tile reversed; the host checks every element.
#include "check.h"
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

constexpr int TILE = 128;

__global__ void reverse_tiles(const float* in, float* out) {
  __shared__ float tile[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  const float* src = in + blockIdx.x * TILE;
  cuda::memcpy_async(block, tile, src, sizeof(float) * TILE, bar);
  bar.arrive_and_wait();
  int t = threadIdx.x;
  out[blockIdx.x * TILE + t] = tile[TILE - 1 - t] * 2.0f;
}

int main() {
  const int blocks = 16, n = blocks * TILE;
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  static float h[n];
  for (int i = 0; i < n; i++) h[i] = 0.5f * i;
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  reverse_tiles<<<blocks, TILE>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++)
    for (int t = 0; t < TILE; t++)
      EXPECT(h[b * TILE + t] == 2.0f * (0.5f * (b * TILE + TILE - 1 - t)));
  std::printf("PASS\n");
  return 0;
}
