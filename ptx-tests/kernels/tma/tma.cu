// The tensor memory accelerator as CUDA code uses it (sm_90): a CUtensorMap passed as a
// `const __grid_constant__` kernel parameter, cuda::device::experimental's tensor copies
// (cp.async.bulk.tensor global -> shared with a cuda::barrier, shared -> global with a bulk
// group) and cuda::ptx's cp.reduce.async.bulk.tensor. The host side (cuTensorMapEncodeTiled)
// is the case file's [tensor_maps]. Expected values: gen_expected.py.
#include <cuda/barrier>
#include <cuda/ptx>
using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;
namespace ptx = cuda::ptx;

// CUDA's CUtensorMap (cuda.h: 128 bytes, 64-byte aligned), which libcu++ declares only.
struct alignas(64) CUtensorMap_st {
    unsigned long long opaque[16];
};

#define BOX_W 32
#define BOX_H 8

// One CTA of 256 threads per 32 x 8 box of a 2D f32 tensor, the box at
// (x0 + 32 * blockIdx.x, y0 + 8 * blockIdx.y). The box lands in shared memory as the tensor
// map says (out-of-bound elements as its fill, rows swizzled if it swizzles); each thread
// copies one 4-byte word of the shared tile, in shared-memory order, to raw.
extern "C" __global__ void tma_load(const __grid_constant__ CUtensorMap tmap, int x0, int y0,
                                    float* raw)
{
    __shared__ alignas(1024) float tile[BOX_H * BOX_W];
    __shared__ barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(
            tile, &tmap, x0 + BOX_W * blockIdx.x, y0 + BOX_H * blockIdx.y, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    int cta = blockIdx.y * gridDim.x + blockIdx.x;
    raw[cta * BOX_H * BOX_W + threadIdx.x] = tile[threadIdx.x];
}

// Load a box of `in`, double it in shared memory, store it to the same box of `out` (only
// in-bound elements are written) and add it into `acc` (cp.reduce.async.bulk.tensor .add).
extern "C" __global__ void tma_store(const __grid_constant__ CUtensorMap in,
                                     const __grid_constant__ CUtensorMap out,
                                     const __grid_constant__ CUtensorMap acc, int x0, int y0)
{
    __shared__ alignas(1024) float tile[BOX_H * BOX_W];
    __shared__ barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    int x = x0 + BOX_W * blockIdx.x, y = y0 + BOX_H * blockIdx.y;
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(tile, &in, x, y, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    tile[threadIdx.x] *= 2.0f;
    cde::fence_proxy_async_shared_cta();
    __syncthreads();
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_shared_to_global(&out, x, y, tile);
        int32_t coords[2] = {x, y};
        ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_add,
                                         &acc, coords, tile);
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
    }
}
