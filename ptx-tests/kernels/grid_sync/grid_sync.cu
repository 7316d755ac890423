// Grid-wide synchronisation (cooperative_groups::this_grid().sync(), a cooperative launch):
// rounds of a ping-pong stencil in which every thread reads values other CTAs wrote in the
// previous round, then per-CTA sums and a grand total, each after a grid-wide barrier.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync(const unsigned* in, unsigned* a, unsigned* b,
                                     unsigned* sums, unsigned rounds)
{
    cg::grid_group g = cg::this_grid();
    unsigned n = gridDim.x * blockDim.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = in[i];
    for (unsigned r = 0; r < rounds; r++) {
        g.sync();
        const unsigned* src = (r & 1) ? b : a;
        unsigned* dst = (r & 1) ? a : b;
        dst[i] = src[(i + 1) % n] * 3u + src[(i + n - 1) % n] + r;
    }
    g.sync();
    const unsigned* last = (rounds & 1) ? b : a;
    if (threadIdx.x == 0) {
        unsigned s = 0;
        for (unsigned j = 0; j < blockDim.x; j++) s += last[blockIdx.x * blockDim.x + j];
        sums[blockIdx.x] = s;
    }
    g.sync();
    if (i == n - 1) {
        unsigned t = 0;
        for (unsigned c = 0; c < gridDim.x; c++) t += sums[c];
        sums[gridDim.x] = t;
    }
}
