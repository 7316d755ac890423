// Hopper bulk asynchronous copies as CUDA code writes them (sm_90): cuda::memcpy_async with a
// cuda::barrier and a 16-byte aligned size (cp.async.bulk.shared::cluster.global with
// mbarrier.expect_tx), then cuda::ptx for the rest: a bulk copy back to global memory
// (cp.async.bulk.global.shared::cta.bulk_group, commit_group, wait_group.read), a bulk
// reduction into global memory (cp.reduce.async.bulk .add.s32 / .max.s32), and st.async /
// red.async into this CTA's shared memory with complete_tx on an mbarrier. Expected values:
// gen_expected.py.
#include <cuda/barrier>
#include <cuda/ptx>
namespace ptx = cuda::ptx;

#define N 256

// One CTA of N threads per N-element tile:
//   out[i]  = 3 * tile[i] + tile[(i + 1) mod N]          (bulk copy in, compute, bulk copy out)
//   acc[i] += 2 * tile[i]  and  mx[i] = max(mx[i], tile[i] - 7)   (bulk reductions)
extern "C" __global__ void bulk_tile(const int* in, int* out, int* acc, int* mx)
{
    __shared__ alignas(16) int tile[N];
    __shared__ alignas(16) int res[N];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    int t = threadIdx.x;
    if (t == 0) {
        init(&bar, blockDim.x);
    }
    __syncthreads();
    const int* src = in + blockIdx.x * N;
    if (t == 0) {
        cuda::memcpy_async(tile, src, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    }
    bar.arrive_and_wait();
    res[t] = 3 * tile[t] + tile[(t + 1) % N];
    __syncthreads();
    tile[t] = 2 * tile[t];
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (t == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + blockIdx.x * N, res, sizeof(res));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, acc + blockIdx.x * N, tile, sizeof(tile));
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
    __syncthreads();
    res[t] = tile[t] / 2 - 7;
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (t == 0) {
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_max, mx + blockIdx.x * N, res, sizeof(res));
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
    }
}

// st.async and red.async to .shared::cluster addresses (this CTA's own shared memory: a
// cluster of one), completing on an mbarrier whose phase waits for all their bytes:
//   box[t] = x[t] * x[t] (st.async .s32), then cnt[t % 8] += x[t] (red.async .add.u32),
//   out[t] = box[(t + 3) mod N] + cnt[t % 8] after the waits.
extern "C" __global__ void async_stores(const int* x, int* out)
{
    __shared__ alignas(16) int box[N];
    __shared__ unsigned cnt[8];
    __shared__ alignas(8) unsigned long long mbar[2];
    int t = threadIdx.x;
    if (t < 8) {
        cnt[t] = 0;
    }
    if (t == 0) {
        ptx::mbarrier_init(&mbar[0], 1);
        ptx::mbarrier_init(&mbar[1], 1);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    __syncthreads();
    int v = x[blockIdx.x * N + t];
    if (t == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &mbar[0], N * 4);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &mbar[1], N * 4);
    }
    __syncthreads();
    ptx::st_async(&box[t], v * v, &mbar[0]);
    ptx::red_async(ptx::op_add, &cnt[t % 8], (unsigned)v, &mbar[1]);
    while (!ptx::mbarrier_try_wait_parity(&mbar[0], 0)) {
    }
    while (!ptx::mbarrier_try_wait_parity(&mbar[1], 0)) {
    }
    out[blockIdx.x * N + t] = box[(t + 3) % N] + (int)cnt[t % 8];
}
