// A histogram kept in distributed shared memory (compute capability 9.0): each block of a
// thread block cluster holds a slice of the bins, and every thread of the cluster adds its
// samples into whichever block's slice the bin falls in (cluster.map_shared_rank). Launched
// with cudaLaunchKernelEx and cudaLaunchAttributeClusterDimension, after asking
// cudaOccupancyMaxActiveClusters how many such clusters fit; checked against the host.
#include "../../../examples/cuda/check.h"
#include <cooperative_groups.h>
#include <vector>
namespace cg = cooperative_groups;

__global__ void cluster_histogram(int* bins, int nbins, int bins_per_block, const int* samples,
                                  int n) {
  extern __shared__ int slice[];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) slice[i] = 0;
  // Every slice is zero before any block adds into another's.
  cluster.sync();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    int b = min(max(samples[i], 0), nbins - 1);
    int* owner = cluster.map_shared_rank(slice, b / bins_per_block);
    atomicAdd(owner + b % bins_per_block, 1);
  }
  // No block leaves (and frees its slice) while others may still add into it.
  cluster.sync();
  int* mine = bins + cluster.block_rank() * bins_per_block;
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&mine[i], slice[i]);
}

int main() {
  const int cluster_size = 4, bins_per_block = 64, nbins = cluster_size * bins_per_block;
  const int n = 100000, blocks = 16, threads = 128;
  std::vector<int> samples(n), want(nbins, 0), got(nbins, 0);
  unsigned x = 12345;
  for (int i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    samples[i] = (int)(x >> 8) % (nbins + 8) - 4;  // a few out of range: clamped
    want[std::min(std::max(samples[i], 0), nbins - 1)]++;
  }
  int *d_samples, *d_bins;
  CHECK(cudaMalloc(&d_samples, n * sizeof(int)));
  CHECK(cudaMalloc(&d_bins, nbins * sizeof(int)));
  CHECK(cudaMemcpy(d_samples, samples.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_bins, 0, nbins * sizeof(int)));

  int cluster_launch = 0;
  CHECK(cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, 0));
  EXPECT(cluster_launch == 1);

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = bins_per_block * sizeof(int);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster_size;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;

  int max_clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&max_clusters, (void*)cluster_histogram, &config));
  EXPECT(max_clusters >= 1);

  CHECK(cudaLaunchKernelEx(&config, cluster_histogram, d_bins, nbins, bins_per_block,
                           (const int*)d_samples, n));
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got.data(), d_bins, nbins * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < nbins; b++) EXPECT(got[b] == want[b]);

  // A cluster shape that does not divide the grid is refused.
  attr[0].val.clusterDim.x = 3;
  EXPECT(cudaLaunchKernelEx(&config, cluster_histogram, d_bins, nbins, bins_per_block,
                            (const int*)d_samples, n) != cudaSuccess);
  cudaGetLastError();

  CHECK(cudaFree(d_samples));
  CHECK(cudaFree(d_bins));
  std::printf("PASS\n");
  return 0;
}
