// A sum per thread block cluster (compute capability 9.0, __cluster_dims__): each block
// reduces its part with warp shuffles, then hands its partial sum to block rank 0 of its
// cluster through distributed shared memory and raises a counter there with a release
// release; rank 0 waits for the counter with acquire loads and __nanosleep back-off, adds
// the partials and writes the cluster's total. Checked against the host.
#include "../../../examples/cuda/check.h"
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <vector>
namespace cg = cooperative_groups;

constexpr int CLUSTER = 4;

__global__ void __cluster_dims__(CLUSTER, 1, 1) cluster_sums(const int* in, long long* totals,
                                                           int per_block) {
  __shared__ long long warp_sums[32];
  __shared__ long long partials[CLUSTER];
  __shared__ int arrived;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) arrived = 0;
  // Rank 0's counter is zero before any block raises it.
  cluster.sync();

  long long v = 0;
  const int* mine = in + blockIdx.x * per_block;
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) v += mine[i];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int w = 0; w < (int)(blockDim.x / 32); w++) s += warp_sums[w];
    long long* slots = cluster.map_shared_rank(partials, 0);
    slots[rank] = s;
    cuda::atomic_ref<int, cuda::thread_scope_device> count(*cluster.map_shared_rank(&arrived, 0));
    count.fetch_add(1, cuda::memory_order_release);
    if (rank == 0) {
      unsigned ns = 32;
      while (count.load(cuda::memory_order_acquire) < CLUSTER) {
        __nanosleep(ns);
        if (ns < 1024) ns *= 2;
      }
      long long total = 0;
      for (int r = 0; r < CLUSTER; r++) total += partials[r];
      totals[blockIdx.x / CLUSTER] = total;
    }
  }
  // Rank 0's shared memory stays until every block of the cluster is done with it.
  cluster.sync();
}

int main() {
  const int blocks = 32, per_block = 3000, n = blocks * per_block;
  std::vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = (i * 7919) % 2001 - 1000;
  std::vector<long long> want(blocks / CLUSTER, 0), got(blocks / CLUSTER, -1);
  for (int i = 0; i < n; i++) want[i / per_block / CLUSTER] += h[i];
  int* in;
  long long* totals;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&totals, got.size() * sizeof(long long)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cluster_sums<<<blocks, 256>>>(in, totals, per_block);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got.data(), totals, got.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  for (size_t c = 0; c < got.size(); c++) EXPECT(got[c] == want[c]);
  // The kernel's cluster shape is part of it: the attributes say so.
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, cluster_sums));
  EXPECT(fa.requiredClusterWidth == CLUSTER && fa.requiredClusterHeight == 1);
  CHECK(cudaFree(in));
  CHECK(cudaFree(totals));
  std::printf("PASS\n");
  return 0;
}
