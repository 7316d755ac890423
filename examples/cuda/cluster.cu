// Thread block clusters (compute capability 9.0): distributed shared memory through
// cooperative_groups, in a launch whose cluster shape comes from cudaLaunchKernelEx's
// cudaLaunchAttributeClusterDimension, and in one whose shape the kernel fixes with
// __cluster_dims__, and in a plain <<<>>> launch of a kernel without __cluster_dims__ whose
// shape comes from cudaFuncSetAttribute(cudaFuncAttributeRequiredClusterWidth). Also: the
// device reports cudaDevAttrClusterLaunch, and a cluster shape that does not divide the grid
// is refused.
#include "check.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Every block writes rank * 100 + tid into its shared array; then each thread reads the
// element of its right neighbour in the cluster (distributed shared memory).
__global__ void neighbours(int* out, int* ranks) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  s[threadIdx.x] = rank * 100 + threadIdx.x;
  cluster.sync();
  unsigned next = (rank + 1) % cluster.num_blocks();
  int* remote = cluster.map_shared_rank(s, next);
  out[blockIdx.x * blockDim.x + threadIdx.x] = remote[threadIdx.x];
  if (threadIdx.x == 0) ranks[blockIdx.x] = rank;
  cluster.sync();  // the neighbours have read this block's shared memory
}

// Pairs of blocks swap their block index through shared memory.
__global__ void __cluster_dims__(2, 1, 1) pairs(int* out) {
  __shared__ int v;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) v = blockIdx.x;
  cluster.sync();
  int* other = cluster.map_shared_rank(&v, cluster.block_rank() ^ 1);
  if (threadIdx.x == 0) out[blockIdx.x] = *other;
  cluster.sync();
}

// Each block records its rank in its cluster and the cluster's size.
__global__ void shape(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = cluster.block_rank();
    out[2 * blockIdx.x + 1] = cluster.num_blocks();
  }
}

int main() {
  const int blocks = 8, threads = 64, cluster = 4;
  int dev = 0, launchable = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&launchable, cudaDevAttrClusterLaunch, dev));
  EXPECT(launchable == 1);
  int *out, *ranks;
  CHECK(cudaMalloc(&out, blocks * threads * sizeof(int)));
  CHECK(cudaMalloc(&ranks, blocks * sizeof(int)));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, neighbours, out, ranks));
  int h[blocks * threads], r[blocks];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(r, ranks, sizeof r, cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++) {
    EXPECT(r[b] == b % cluster);
    for (int t = 0; t < threads; t++)
      EXPECT(h[b * threads + t] == (b % cluster + 1) % cluster * 100 + t);
  }

  pairs<<<6, 32>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, out, 6 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < 6; b++) EXPECT(h[b] == (b ^ 1));

  // A kernel without __cluster_dims__ launched in clusters of 2 along x by its required
  // cluster width, set at run time; the attribute reads back.
  CHECK(cudaFuncSetAttribute(shape, cudaFuncAttributeRequiredClusterWidth, 2));
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, shape));
  EXPECT(fa.requiredClusterWidth == 2);
  shape<<<blocks, 32>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, out, 2 * blocks * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++) {
    EXPECT(h[2 * b] == b % 2);
    EXPECT(h[2 * b + 1] == 2);
  }
  // A read-only attribute cannot be set.
  EXPECT(cudaFuncSetAttribute(shape, cudaFuncAttributeClusterDimMustBeSet, 1) ==
         cudaErrorInvalidValue);
  cudaGetLastError();

  // A grid of 8 blocks in clusters of 3: the launch fails, and nothing runs.
  attr[0].val.clusterDim.x = 3;
  EXPECT(cudaLaunchKernelEx(&config, neighbours, out, ranks) != cudaSuccess);
  cudaGetLastError();
  std::printf("PASS\n");
  return 0;
}
