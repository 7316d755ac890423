// Clusters whose CTAs each take most of a multiprocessor's shared memory, sized with
// cudaOccupancyMaxActiveClusters (at least one cluster: ptxjit holds a whole cluster on one
// worker) and launched with cudaLaunchKernelEx, portable (8 CTAs) and non-portable (16);
// each cluster's rank 0 sums values every CTA left in its own shared memory (distributed
// shared memory); checked against the host.
#include "../../../examples/cuda/check.h"
#include <cooperative_groups.h>
#include <vector>
namespace cg = cooperative_groups;

__global__ void rank_sums(int* out, int scale) {
  extern __shared__ int big[];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) big[0] = (int)(rank + 1) * scale;
  // The far end of the allocation too, so that the whole size is in use.
  if (threadIdx.x == 1) big[200 * 1024 / 4 - 1] = (int)rank;
  cluster.sync();
  if (rank == 0 && threadIdx.x == 0) {
    int s = 0;
    for (unsigned r = 0; r < cluster.num_blocks(); r++) {
      int* theirs = cluster.map_shared_rank(big, r);
      s += theirs[0] + theirs[200 * 1024 / 4 - 1];
    }
    out[blockIdx.x / cluster.num_blocks()] = s;
  }
  cluster.sync();
}

int main() {
  const size_t shared = 200 * 1024;
  CHECK(cudaFuncSetAttribute(rank_sums, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  CHECK(cudaFuncSetAttribute(rank_sums, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int sms = 0, per_sm = -1;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rank_sums, 128, shared));
  EXPECT(per_sm == 1);
  for (int size : {8, 16}) {
    cudaLaunchConfig_t config = {};
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = shared;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = size;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    int clusters = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, (void*)rank_sums, &config));
    int want = per_sm * sms / size;
    EXPECT(clusters == (want > 0 ? want : 1));
    config.gridDim = dim3(clusters * size);
    int* d;
    CHECK(cudaMalloc(&d, clusters * sizeof(int)));
    CHECK(cudaLaunchKernelEx(&config, rank_sums, d, 10));
    CHECK(cudaGetLastError());
    std::vector<int> h(clusters);
    CHECK(cudaMemcpy(h.data(), d, clusters * sizeof(int), cudaMemcpyDeviceToHost));
    int sum = 0;
    for (int r = 0; r < size; r++) sum += (r + 1) * 10 + r;
    for (int c = 0; c < clusters; c++) EXPECT(h[c] == sum);
    CHECK(cudaFree(d));
    printf("clusters of %d: %d resident on %d multiprocessors\n", size, clusters, sms);
  }
  printf("PASS\n");
  return 0;
}
