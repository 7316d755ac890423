// Multi-warp cooperative-groups tiles (thread_block_tile<64> and <128>), which on sm_80 and
// later keep their inter-warp scratch in the CTA's reserved shared memory
// (cooperative_groups/details/memory.h: cvta.shared of %reserved_smem_offset_1).
// Per tile: the sum (cg::reduce), the maximum, a value broadcast from rank 37 (shfl), and
// whether any element is a multiple of 97 (any); a user __shared__ array beside the reserved
// region, summed per tile after t.sync(), checks that the two do not overlap.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <unsigned N>
__device__ void tile_stats(const int *x, int *out) {
  __shared__ int staged[256];
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<N> t = cg::tiled_partition<N>(b);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i];
  staged[threadIdx.x] = v ^ 0x5a5a;
  int sum = cg::reduce(t, v, cg::plus<int>());
  int max = cg::reduce(t, v, cg::greater<int>());
  int from37 = t.shfl(v, 37);
  int any97 = t.any(v % 97 == 0);
  t.sync();
  // Ranks 0..3 of the tile sum a quarter of the tile's staged words each, then rank 0 adds.
  unsigned base = threadIdx.x - t.thread_rank();
  int part = 0;
  if (t.thread_rank() < 4) {
    for (unsigned k = 0; k < N / 4; ++k) part += staged[base + t.thread_rank() * (N / 4) + k];
  }
  int staged_sum = cg::reduce(t, part, cg::plus<int>());
  unsigned tile = blockIdx.x * (blockDim.x / N) + t.meta_group_rank();
  if (t.thread_rank() == 0) {
    out[5 * tile + 0] = sum;
    out[5 * tile + 1] = max;
    out[5 * tile + 2] = from37;
    out[5 * tile + 3] = any97;
    out[5 * tile + 4] = staged_sum;
  }
}

extern "C" __global__ void tile64(const int *x, int *out) { tile_stats<64>(x, out); }
extern "C" __global__ void tile128(const int *x, int *out) { tile_stats<128>(x, out); }
