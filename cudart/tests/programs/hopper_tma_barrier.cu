// Tiles copied into shared memory asynchronously and waited for with cuda::barrier (compute
// capability 9.0): the whole block issues cuda::memcpy_async into a barrier's completion,
// and one thread issues a TMA bulk copy (cuda::device::memcpy_async_tx) whose bytes the
// barrier's transaction count tracks (cuda::device::barrier_arrive_tx). Each tile is scaled
// and written back; checked against the host.
#include "../../../examples/cuda/check.h"
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <utility>
#include <vector>
namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

constexpr int TILE = 256;

// out[i] = in[i] * k + 1, a tile at a time through shared memory with cuda::memcpy_async.
__global__ void scale_block_copy(const float* in, float* out, int n, float k) {
  __shared__ alignas(16) float tile[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  for (int base = blockIdx.x * TILE; base < n; base += gridDim.x * TILE) {
    cuda::memcpy_async(block, tile, in + base, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    bar.arrive_and_wait();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) out[base + i] = tile[i] * k + 1.0f;
    // Every thread has read the tile before the next copy overwrites it.
    bar.arrive_and_wait();
  }
}

// The same through the tensor memory accelerator: thread 0 starts a bulk copy of the tile and
// arrives with its byte count; the others arrive; all wait for the phase.
__global__ void scale_bulk_copy(const float* in, float* out, int n, float k) {
  __shared__ alignas(16) float tile[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    // The barrier's initialisation is visible to the copy engine (the async proxy).
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  }
  __syncthreads();
  for (int base = blockIdx.x * TILE; base < n; base += gridDim.x * TILE) {
    block_barrier::arrival_token token;
    if (threadIdx.x == 0) {
      cuda::device::memcpy_async_tx(tile, in + base, cuda::aligned_size_t<16>(sizeof(tile)), bar);
      token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
      token = bar.arrive();
    }
    bar.wait(std::move(token));
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) out[base + i] = tile[i] * k + 1.0f;
    __syncthreads();
  }
}

int main() {
  const int n = TILE * 40;
  const float k = 2.5f;
  std::vector<float> h(n), got(n);
  for (int i = 0; i < n; i++) h[i] = (float)((i * 37) % 1000) * 0.25f - 50.0f;
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  for (int which = 0; which < 2; which++) {
    CHECK(cudaMemset(out, 0, n * sizeof(float)));
    if (which == 0)
      scale_block_copy<<<8, 128>>>(in, out, n, k);
    else
      scale_bulk_copy<<<8, 128>>>(in, out, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
      if (got[i] != h[i] * k + 1.0f) {
        std::fprintf(stderr, "kernel %d: out[%d] = %g, want %g\n", which, i, got[i], h[i] * k + 1.0f);
        return 1;
      }
    }
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  std::printf("PASS\n");
  return 0;
}
