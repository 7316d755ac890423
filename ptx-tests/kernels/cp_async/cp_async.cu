// Asynchronous global -> shared copies as CUDA code writes them (sm_80): the pipeline
// primitives (__pipeline_memcpy_async with and without zero fill, commit, wait) and
// cooperative_groups::memcpy_async. NVRTC emits cp.async.ca (4 bytes), cp.async.cg (16 bytes,
// src-size 16 or 0), cp.async.commit_group and cp.async.wait_group / wait_all.
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

// out[i] = 2 * in[block base + 255 - t]: each thread copies one float into the tile.
extern "C" __global__ void reverse4(const float* in, float* out, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    if (i < n) {
        __pipeline_memcpy_async(&tile[threadIdx.x], &in[i], sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int j = blockIdx.x * 256 + 255 - threadIdx.x;
    if (i < n && j < n) {
        out[i] = tile[255 - threadIdx.x] * 2.0f;
    }
}

// 16-byte copies; threads past n copy zeros (zero fill of all 16 bytes) from a valid address.
extern "C" __global__ void zfill16(const float4* in, float4* out, int n)
{
    __shared__ float4 tile[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    __pipeline_memcpy_async(&tile[threadIdx.x], &in[i < n ? i : 0], sizeof(float4), i < n ? 0 : 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    float4 v = tile[127 - threadIdx.x];
    out[i] = make_float4(v.x + 1.0f, v.y, v.z, v.w);
}

// A block-wide copy of 512 floats, then each thread sums a window of the tile.
extern "C" __global__ void block_copy(const float* in, float* out)
{
    __shared__ float tile[512];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in + blockIdx.x * 512, sizeof(float) * 512);
    cg::wait(block);
    int t = threadIdx.x;
    out[blockIdx.x * 128 + t] = tile[t] + tile[t + 128] + tile[t + 256] + tile[511 - t];
}
