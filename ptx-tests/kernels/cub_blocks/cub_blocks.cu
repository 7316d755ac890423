// CUB's block-wide primitives and cooperative_groups::reduce as CUDA C++ programmers use
// them (cccl headers of the CUDA 12.9 toolkit wheel), one CTA of 128 threads per tile of
// 512 elements (4 per thread, blocked arrangement).
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

constexpr int BLOCK = 128;
constexpr int ITEMS = 4;
constexpr int TILE = BLOCK * ITEMS;

// Per tile: an exclusive prefix sum (BlockScan, warp-scans), an inclusive running maximum,
// and the tile's total from the scan's aggregate; the loads transpose through shared memory
// (BLOCK_LOAD_TRANSPOSE / BLOCK_STORE_TRANSPOSE).
extern "C" __global__ void block_scan(const int* in, int* excl, int* runmax, int* totals)
{
    using Load = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
    using Store = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
    using Scan = cub::BlockScan<int, BLOCK>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Scan::TempStorage scan;
    } temp;
    int base = blockIdx.x * TILE;
    int v[ITEMS], s[ITEMS], m[ITEMS];
    Load(temp.load).Load(in + base, v);
    __syncthreads();
    int total;
    Scan(temp.scan).ExclusiveSum(v, s, total);
    __syncthreads();
    Scan(temp.scan).InclusiveScan(v, m, cub::Max());
    __syncthreads();
    Store(temp.store).Store(excl + base, s);
    __syncthreads();
    Store(temp.store).Store(runmax + base, m);
    if (threadIdx.x == 0)
        totals[blockIdx.x] = total;
}

// Per tile: keys sorted ascending with their values (BlockRadixSort, all 32 bits of a
// signed key), and a second copy of the keys sorted descending.
extern "C" __global__ void block_sort(const int* keys_in, const unsigned* vals_in, int* keys_out,
                                      unsigned* vals_out, int* desc_out)
{
    using Sort = cub::BlockRadixSort<int, BLOCK, ITEMS, unsigned>;
    using SortK = cub::BlockRadixSort<int, BLOCK, ITEMS>;
    __shared__ union {
        typename Sort::TempStorage kv;
        typename SortK::TempStorage k;
    } temp;
    int base = blockIdx.x * TILE + threadIdx.x * ITEMS;
    int k[ITEMS], k2[ITEMS];
    unsigned v[ITEMS];
    for (int i = 0; i < ITEMS; ++i) {
        k[i] = keys_in[base + i];
        k2[i] = k[i];
        v[i] = vals_in[base + i];
    }
    Sort(temp.kv).Sort(k, v);
    __syncthreads();
    SortK(temp.k).SortDescending(k2);
    for (int i = 0; i < ITEMS; ++i) {
        keys_out[base + i] = k[i];
        vals_out[base + i] = v[i];
        desc_out[base + i] = k2[i];
    }
}

// Per tile: the maximum (BlockReduce with cub::Max, the raking variant), each warp's sum
// of squares (WarpReduce), and cooperative_groups::reduce over 32-thread tiles (sum, and
// greater's maximum) and 8-thread tiles (bitwise or: cg::bit_or).
extern "C" __global__ void block_reduce(const int* in, int* tile_max, int* warp_sq, int* cg_sum,
                                        int* cg_max, unsigned* cg_or)
{
    using Reduce = cub::BlockReduce<int, BLOCK, cub::BLOCK_REDUCE_RAKING>;
    using WarpRed = cub::WarpReduce<int>;
    __shared__ typename Reduce::TempStorage rtemp;
    __shared__ typename WarpRed::TempStorage wtemp[BLOCK / 32];
    int base = blockIdx.x * TILE;
    int v[ITEMS];
    int sq = 0;
    for (int i = 0; i < ITEMS; ++i) {
        v[i] = in[base + threadIdx.x * ITEMS + i];
        sq += v[i] * v[i];
    }
    int mx = Reduce(rtemp).Reduce(v, cub::Max());
    if (threadIdx.x == 0)
        tile_max[blockIdx.x] = mx;
    int warp = threadIdx.x / 32;
    int wsq = WarpRed(wtemp[warp]).Sum(sq);
    int gw = blockIdx.x * (BLOCK / 32) + warp;
    if (threadIdx.x % 32 == 0)
        warp_sq[gw] = wsq;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    int s = cg::reduce(t32, v[0] + v[1] + v[2] + v[3], cg::plus<int>());
    int g = cg::reduce(t32, v[3], cg::greater<int>());
    if (t32.thread_rank() == 0) {
        cg_sum[gw] = s;
        cg_max[gw] = g;
    }
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    unsigned o = cg::reduce(t8, 1u << (unsigned(v[0]) & 31u), cg::bit_or<unsigned>());
    if (t8.thread_rank() == 0)
        cg_or[blockIdx.x * (BLOCK / 8) + threadIdx.x / 8] = o;
}
