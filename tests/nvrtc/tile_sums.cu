// Cooperative groups on warp tiles: cg::reduce (redux.sync) and a shfl_down loop sum each
// 32-thread tile; <cuda_fp16.h> conversions and <assert.h>'s assert. Built by tests/nvrtc.rs
// with `ptxjit compile` (the headers come from the CUDA pip wheels).
#include <assert.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

extern "C" __global__ void tile_sums(const int* in, int* reduced, int* shuffled, float* halves,
                                     int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    assert(v >= 0);
    int r = cg::reduce(tile, v, cg::plus<int>());
    int s = v;
    for (int d = tile.size() / 2; d > 0; d /= 2)
        s += tile.shfl_down(s, d);
    if (tile.thread_rank() == 0) {
        reduced[i / 32] = r;
        shuffled[i / 32] = s;
    }
    if (i < n)
        halves[i] = __half2float(__float2half(v * 0.5f));
}
