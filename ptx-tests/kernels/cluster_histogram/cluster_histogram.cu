// A histogram split across the shared memory of the CTAs of a thread block cluster
// (distributed shared memory, CUDA C++ Programming Guide "Distributed Shared Memory"):
// bin b lives in the shared memory of the cluster's CTA b / BINS_PER_CTA; every thread adds
// its elements to the owning CTA's bins through cluster.map_shared_rank, between
// cluster.sync()s, and each CTA then adds its slice of the bins to the global histogram.
// Each CTA also records its rank, the cluster's size and its neighbour's first bin address
// check (the neighbour's rank, read back from its shared memory).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define BINS_PER_CTA 64

extern "C" __global__ void __cluster_dims__(4, 1, 1)
cluster_histogram(const unsigned* in, unsigned n, unsigned nbins, unsigned* hist, unsigned* info)
{
    __shared__ unsigned bins[BINS_PER_CTA];
    __shared__ unsigned my_rank;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    for (unsigned i = threadIdx.x; i < BINS_PER_CTA; i += blockDim.x)
        bins[i] = 0;
    if (threadIdx.x == 0)
        my_rank = rank;
    cluster.sync();
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned b = in[i] % nbins;
        unsigned* dst = cluster.map_shared_rank(bins, b / BINS_PER_CTA);
        atomicAdd(dst + b % BINS_PER_CTA, 1u);
    }
    if (threadIdx.x == 0) {
        unsigned next = (rank + 1) % cluster.num_blocks();
        unsigned* peer = cluster.map_shared_rank(&my_rank, next);
        info[3 * blockIdx.x] = rank;
        info[3 * blockIdx.x + 1] = cluster.num_blocks();
        info[3 * blockIdx.x + 2] = *peer;
    }
    cluster.sync();
    for (unsigned i = threadIdx.x; i < BINS_PER_CTA; i += blockDim.x)
        atomicAdd(&hist[rank * BINS_PER_CTA + i], bins[i]);
}
