// Asynchronous barriers as CUDA code writes them (sm_80): cuda::barrier (mbarrier.init,
// arrive, test_wait in a spin loop), cuda::pipeline with cuda::memcpy_async double buffering
// (cp.async, cp.async.mbarrier.arrive, test_wait.parity), and raw mbarrier PTX in inline asm
// (cp.async.mbarrier.arrive.noinc, test_wait.parity, arrive tokens). Expected values:
// gen_expected.py.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// arrive_and_wait twice, then a split arrive / wait across a phase with independent work in
// between: out[t] = 2 * (x[t+1] + x[t-1]) at (t + 5) mod N, plus 3 * x[t] (indices mod N).
extern "C" __global__ void barrier_phases(const int* in, int* out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[128];
    int n = blockDim.x;
    int t = threadIdx.x;
    const int* x = in + blockIdx.x * n;
    if (t == 0) {
        init(&bar, n);
    }
    __syncthreads();
    s[t] = x[t];
    bar.arrive_and_wait();
    int v = s[(t + 1) % n] + s[(t + n - 1) % n];
    bar.arrive_and_wait();
    s[t] = 2 * v;
    auto token = bar.arrive();
    int w = 3 * x[t];
    bar.wait(std::move(token));
    out[blockIdx.x * n + t] = s[(t + 5) % n] + w;
}

// A two-stage pipeline over ntiles tiles of 128 ints per CTA: tile k + 1 is in flight while
// tile k is used. acc = sum over k of (k + 1) * tile_k[t] + tile_k[(t + 1) mod 128].
extern "C" __global__ void pipeline_sum(const int* in, int* out, int ntiles)
{
    constexpr int T = 128;
    __shared__ int buf[2][T];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const int* base = in + blockIdx.x * ntiles * T;
    int acc = 0;
    int fetch = 0;
    for (int k = 0; k < ntiles; ++k) {
        for (; fetch < ntiles && fetch < k + 2; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[fetch % 2], base + fetch * T, sizeof(int) * T, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        int t = threadIdx.x;
        acc += (k + 1) * buf[k % 2][t] + buf[k % 2][(t + 1) % T];
        pipe.consumer_release();
    }
    out[blockIdx.x * T + threadIdx.x] = acc;
}

// Raw mbarrier: each thread's cp.async completes on the barrier (cp.async.mbarrier.arrive.noinc,
// counted by init), phase 0 is awaited by parity (test_wait.parity: try_wait needs sm_90),
// then every thread arrives again and waits for phase 1 with its token (test_wait). out[t] = tile[(t + 7) mod 128] + t;
// out[128 + t] = 2 * p0 + p1, the parity tests once phase 1 is complete: the barrier is in
// phase 2, so parity 0 names phase 2 (current, not complete: p0 = 0) and parity 1 names
// phase 1 (the preceding one, complete: p1 = 1).
extern "C" __global__ void raw_mbarrier(const int* in, int* out)
{
    __shared__ alignas(8) unsigned long long bar;
    __shared__ int tile[128];
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(blockDim.x) : "memory");
    }
    __syncthreads();
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(in + blockIdx.x * 128 + t)
                 : "memory");
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(b) : "memory");
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(b), "r"(0u)
                     : "memory");
    }
    int v = tile[(t + 7) % 128];
    unsigned long long token;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(token) : "r"(b) : "memory");
    done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(b), "l"(token)
                     : "memory");
    }
    unsigned p0, p1;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], 0; "
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(p0)
                 : "r"(b)
                 : "memory");
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], 1; "
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(p1)
                 : "r"(b)
                 : "memory");
    out[blockIdx.x * 256 + t] = v + (int)t;
    out[blockIdx.x * 256 + 128 + t] = (int)(p0 * 2 + p1);
}
