// What a CUDA programmer writes for a small pipeline: a block size from
// cudaOccupancyMaxPotentialBlockSizeVariableSMem (dynamic shared memory per block a function
// of the block size) and cudaOccupancyAvailableDynamicSMemPerBlock, a tile past 48 KiB of
// dynamic shared memory after cudaFuncSetAttribute, __constant__ coefficients written with
// cudaMemcpyToSymbolAsync and read back with cudaMemcpyFromSymbol, a __device__ counter
// reached through cudaGetSymbolAddress, cooperative_groups::reduce over 32-thread tiles,
// __half2 arithmetic, managed memory prefetched (CUDA 13's cudaMemLocation form) and attached
// to a stream, prioritised streams with pinned cudaMemcpyAsync, an event without timing
// ordering them, cudaLaunchHostFunc, and device printf. Every result is checked against the
// host's computation; prints PASS.
#include <cstdio>
#include <cstring>
#include <cmath>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "../../../examples/cuda/check.h"
namespace cg = cooperative_groups;

__constant__ float coef[4];
__device__ unsigned int big_count;

// y[i] = ((c3 x + c2) x + c1) x + c0, with fmaf as the host does; counts y > 1 in big_count.
__global__ void poly(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float r = fmaf(fmaf(fmaf(coef[3], v, coef[2]), v, coef[1]), v, coef[0]);
    y[i] = r;
    if (r > 1.0f) atomicAdd(&big_count, 1u);
  }
}

// Per block: the sum of its integers (one int per thread, dynamic shared memory of one int
// per warp), reduced within each 32-thread tile by cg::reduce.
extern __shared__ int warp_sums[];
__global__ void block_sums(const int *v, int n, long long *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int mine = i < n ? v[i] : 0;
  int t = cg::reduce(tile, mine, cg::plus<int>());
  if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = t;
  block.sync();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (unsigned w = 0; w < tile.meta_group_size(); w++) s += warp_sums[w];
    out[blockIdx.x] = s;
  }
}

// A tile of `n` floats in dynamic shared memory (past 48 KiB), written back rotated by `k`.
extern __shared__ float tile_buf[];
__global__ void rotate_tile(const float *in, float *out, int n, int k) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) tile_buf[i] = in[blockIdx.x * n + i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[blockIdx.x * n + i] = tile_buf[(i + k) % n];
}

// out[i] = a[i] * b[i] + a[i], two halves at a time.
__global__ void half_fma(const __half2 *a, const __half2 *b, __half2 *out, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) out[i] = __hfma2(a[i], b[i], a[i]);
}

// Managed memory: m[i] = m[i] * 3 + tag; thread 0 of block 0 says what it did.
__global__ void managed_step(int *m, int n, int tag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i] = m[i] * 3 + tag;
  if (i == 0) printf("managed_step tag=%d n=%d first=%d hex=%#x %5.2f|%-3s|\n", tag, n, m[0], 255, 2.5, "ok");
}

struct HostNote { int *seen; int value; };
static void CUDART_CB note(void *p) {
  HostNote *h = (HostNote *)p;
  *h->seen = h->value;
}

static size_t smem_for(int block) { return (size_t)((block + 31) / 32) * sizeof(int); }

int main() {
  // Occupancy: the block size for block_sums with its shared memory a function of the size.
  int min_grid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, block_sums, smem_for));
  EXPECT(block >= 32 && block <= 1024 && block % 32 == 0 && min_grid > 0);
  int active = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, block_sums, block, smem_for(block)));
  EXPECT(active >= 1);
  size_t avail = 0;
  CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, rotate_tile, 1, 256));
  EXPECT(avail >= 48 * 1024);

  // Integer block sums against the host.
  const int n = 10000;
  int *hv = new int[n];
  for (int i = 0; i < n; i++) hv[i] = (i * 7919) % 2001 - 1000;
  int nblocks = (n + block - 1) / block;
  int *dv; long long *dsum;
  CHECK(cudaMalloc(&dv, n * sizeof(int)));
  CHECK(cudaMalloc(&dsum, nblocks * sizeof(long long)));
  CHECK(cudaMemcpy(dv, hv, n * sizeof(int), cudaMemcpyHostToDevice));
  block_sums<<<nblocks, block, smem_for(block)>>>(dv, n, dsum);
  CHECK(cudaGetLastError());
  long long *hsum = new long long[nblocks];
  CHECK(cudaMemcpy(hsum, dsum, nblocks * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int b = 0; b < nblocks; b++) {
    long long want = 0;
    for (int i = b * block; i < n && i < (b + 1) * block; i++) want += hv[i];
    EXPECT(hsum[b] == want);
  }

  // Streams with priorities, pinned memory, async copies of __constant__ data, events.
  int lo = 0, hi = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithPriority(&s1, cudaStreamNonBlocking, hi));
  CHECK(cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, lo));
  int prio = 99;
  CHECK(cudaStreamGetPriority(s1, &prio));
  EXPECT(prio == hi);
  const float hc[4] = {0.5f, -1.25f, 0.75f, 0.125f};
  CHECK(cudaMemcpyToSymbolAsync(coef, hc, sizeof hc, 0, cudaMemcpyHostToDevice, s1));
  unsigned int zero = 0;
  unsigned int *dcount = nullptr;
  CHECK(cudaGetSymbolAddress((void **)&dcount, big_count));
  size_t count_size = 0;
  CHECK(cudaGetSymbolSize(&count_size, big_count));
  EXPECT(count_size == sizeof(unsigned int));
  CHECK(cudaMemcpyAsync(dcount, &zero, sizeof zero, cudaMemcpyHostToDevice, s1));
  const int m = 1 << 16;
  float *hx, *hy;
  CHECK(cudaMallocHost(&hx, m * sizeof(float)));
  CHECK(cudaMallocHost(&hy, m * sizeof(float)));
  for (int i = 0; i < m; i++) hx[i] = (float)(i % 1000) / 250.0f - 2.0f;
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, m * sizeof(float)));
  CHECK(cudaMalloc(&dy, m * sizeof(float)));
  cudaEvent_t ready;
  CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  CHECK(cudaMemcpyAsync(dx, hx, m * sizeof(float), cudaMemcpyHostToDevice, s1));
  CHECK(cudaEventRecord(ready, s1));
  // s2 waits for s1's copies (coefficients, counter, input) before the kernel.
  CHECK(cudaStreamWaitEvent(s2, ready, 0));
  int pb = 0, pg = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&pg, &pb, poly, 0, 0));
  poly<<<(m + pb - 1) / pb, pb, 0, s2>>>(dx, dy, m);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(hy, dy, m * sizeof(float), cudaMemcpyDeviceToHost, s2));
  int seen = 0;
  HostNote hn = {&seen, 42};
  CHECK(cudaLaunchHostFunc(s2, note, &hn));
  CHECK(cudaStreamSynchronize(s2));
  EXPECT(seen == 42);
  EXPECT(cudaEventQuery(ready) == cudaSuccess);
  float back[4];
  CHECK(cudaMemcpyFromSymbol(back, coef, sizeof back));
  EXPECT(memcmp(back, hc, sizeof hc) == 0);
  unsigned int got_count = 0;
  CHECK(cudaMemcpyFromSymbol(&got_count, big_count, sizeof got_count));
  unsigned int want_count = 0;
  for (int i = 0; i < m; i++) {
    float v = hx[i];
    float r = fmaf(fmaf(fmaf(hc[3], v, hc[2]), v, hc[1]), v, hc[0]);
    EXPECT(hy[i] == r);
    if (r > 1.0f) want_count++;
  }
  EXPECT(got_count == want_count && want_count > 0);

  // Dynamic shared memory past 48 KiB: refused before the attribute, then a rotated tile.
  const int tn = 20000;  // 80000 bytes
  const int tiles = 3;
  float *ht = new float[tn * tiles], *hr = new float[tn * tiles];
  for (int i = 0; i < tn * tiles; i++) ht[i] = (float)i * 0.5f;
  float *dt, *dr;
  CHECK(cudaMalloc(&dt, sizeof(float) * tn * tiles));
  CHECK(cudaMalloc(&dr, sizeof(float) * tn * tiles));
  CHECK(cudaMemcpy(dt, ht, sizeof(float) * tn * tiles, cudaMemcpyHostToDevice));
  CHECK(cudaFuncSetAttribute(rotate_tile, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(tn * sizeof(float))));
  int tile_active = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tile_active, rotate_tile, 256, tn * sizeof(float)));
  EXPECT(tile_active >= 1);
  rotate_tile<<<tiles, 256, tn * sizeof(float)>>>(dt, dr, tn, 777);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hr, dr, sizeof(float) * tn * tiles, cudaMemcpyDeviceToHost));
  for (int b = 0; b < tiles; b++)
    for (int i = 0; i < tn; i++) EXPECT(hr[b * tn + i] == ht[b * tn + (i + 777) % tn]);

  // __half2: a * b + a, fused with one rounding, against the host's float computation
  // rounded to half (exact: the halves' product and sum fit a float without rounding).
  const int h2 = 512;
  __half2 *ha = new __half2[h2], *hb = new __half2[h2], *ho = new __half2[h2];
  for (int i = 0; i < h2; i++) {
    ha[i] = __floats2half2_rn((float)(i % 17) * 0.25f, -(float)(i % 5) * 0.5f);
    hb[i] = __floats2half2_rn((float)(i % 3) - 1.0f, (float)(i % 11) * 0.125f);
  }
  __half2 *da, *db, *dout;
  CHECK(cudaMalloc(&da, h2 * sizeof(__half2)));
  CHECK(cudaMalloc(&db, h2 * sizeof(__half2)));
  CHECK(cudaMalloc(&dout, h2 * sizeof(__half2)));
  CHECK(cudaMemcpy(da, ha, h2 * sizeof(__half2), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb, h2 * sizeof(__half2), cudaMemcpyHostToDevice));
  half_fma<<<(h2 + 127) / 128, 128>>>(da, db, dout, h2);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(ho, dout, h2 * sizeof(__half2), cudaMemcpyDeviceToHost));
  for (int i = 0; i < h2; i++) {
    float2 a = __half22float2(ha[i]), b = __half22float2(hb[i]), o = __half22float2(ho[i]);
    float2 want = __half22float2(__floats2half2_rn(a.x * b.x + a.x, a.y * b.y + a.y));
    EXPECT(o.x == want.x && o.y == want.y);
  }

  // Managed memory prefetched to the device, attached to a stream, then read on the host.
  const int mn = 4096;
  int *mm;
  CHECK(cudaMallocManaged(&mm, mn * sizeof(int)));
  for (int i = 0; i < mn; i++) mm[i] = i;
  cudaMemLocation dev = {};
  dev.type = cudaMemLocationTypeDevice;
  dev.id = 0;
  CHECK(cudaMemPrefetchAsync(mm, mn * sizeof(int), dev, 0, s1));
  CHECK(cudaStreamAttachMemAsync(s1, mm, 0, cudaMemAttachSingle));
  managed_step<<<(mn + 255) / 256, 256, 0, s1>>>(mm, mn, 5);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(s1));
  for (int i = 0; i < mn; i++) EXPECT(mm[i] == i * 3 + 5);
  cudaMemLocation host = {};
  host.type = cudaMemLocationTypeHost;
  CHECK(cudaMemPrefetchAsync(mm, mn * sizeof(int), host, 0, s1));
  CHECK(cudaStreamSynchronize(s1));

  CHECK(cudaEventDestroy(ready));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFree(mm));
  CHECK(cudaFree(dv)); CHECK(cudaFree(dsum)); CHECK(cudaFree(dx)); CHECK(cudaFree(dy));
  CHECK(cudaFree(dt)); CHECK(cudaFree(dr)); CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dout));
  CHECK(cudaFreeHost(hx)); CHECK(cudaFreeHost(hy));
  CHECK(cudaDeviceSynchronize());
  std::fflush(stdout);
  std::printf("PASS\n");
  return 0;
}
