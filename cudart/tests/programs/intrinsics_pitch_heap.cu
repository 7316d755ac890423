// Integer intrinsics a CUDA programmer reaches for (__popc, __clz, __ffs, __brev, __byte_perm,
// funnel shifts, __umulhi, __mul64hi, __dp4a, __sad, __hadd/__rhadd) against the host's own
// definitions of them; a float maximum by atomicCAS, atomicMax on 64 bits and atomicAdd on
// doubles; warp votes and __reduce_add_sync; device malloc/free after cudaDeviceSetLimit;
// pitched memory (cudaMallocPitch, cudaMemset2DAsync, cudaMemcpy2DAsync) on a stream;
// cudaLaunchKernelEx with dynamic shared memory; device printf of 64-bit and float formats.
// Prints PASS when every result matches the host's.
#include <cstdio>
#include <cstring>
#include <cstdint>
#include "../../../examples/cuda/check.h"

struct Bits {
  int popc, clz, ffs;
  unsigned brev, perm, fl, fr, umulhi;
  unsigned long long mul64hi;
  int dp4a;
  unsigned sad;
  int hadd, rhadd;
};

__global__ void bits(const unsigned *a, const unsigned *b, Bits *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  Bits r;
  r.popc = __popc(x);
  r.clz = __clz(x);
  r.ffs = __ffs(x);
  r.brev = __brev(x);
  r.perm = __byte_perm(x, y, y & 0x7777);
  r.fl = __funnelshift_l(x, y, i);
  r.fr = __funnelshift_r(x, y, i);
  r.umulhi = __umulhi(x, y);
  r.mul64hi = __umul64hi(((unsigned long long)x << 32) | y, 0x9E3779B97F4A7C15ull);
  r.dp4a = __dp4a((int)x, (int)y, i - 100);
  r.sad = __sad((int)x, (int)y, (unsigned)i);
  r.hadd = __hadd((int)x, (int)y);
  r.rhadd = __rhadd((int)x, (int)y);
  out[i] = r;
}

static int host_clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
static unsigned host_brev(unsigned x) {
  unsigned r = 0;
  for (int k = 0; k < 32; k++) if (x & (1u << k)) r |= 1u << (31 - k);
  return r;
}
// CUDA Math API: byte k of the result is byte (s >> 4k) & 7 of the 8 bytes {y:x}.
static unsigned host_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int k = 0; k < 4; k++) r |= (unsigned)((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
}
static unsigned host_fl(unsigned lo, unsigned hi, int s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (s & 31)) >> 32);
}
static unsigned host_fr(unsigned lo, unsigned hi, int s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (s & 31));
}
static int host_dp4a(int a, int b, int c) {
  int s = c;
  for (int k = 0; k < 4; k++) s += (int)(int8_t)(a >> (8 * k)) * (int)(int8_t)(b >> (8 * k));
  return s;
}

// The maximum of v by atomicCAS on its bits (floats here are all >= 0, so their bits order as
// the values do, and atomicMax on ints would do; the CAS loop is what programs write).
__device__ void atomic_max_float(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p;
  while (__int_as_float(old) < v) {
    int seen = atomicCAS(p, old, __float_as_int(v));
    if (seen == old) break;
    old = seen;
  }
}

__global__ void reductions(const float *v, int n, float *fmax, unsigned long long *umax, double *dsum,
                           unsigned *votes, int *warp_sums) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? v[i] : 0.0f;
  if (i < n) {
    atomic_max_float(fmax, x);
    atomicMax(umax, (unsigned long long)(x * 1000.0f) << 20);
    atomicAdd(dsum, (double)x);
  }
  unsigned ballot = __ballot_sync(0xffffffffu, x > 0.5f);
  int all = __all_sync(0xffffffffu, x >= 0.0f);
  int sum = __reduce_add_sync(0xffffffffu, (unsigned)(x * 16.0f));
  if ((threadIdx.x & 31) == 0) {
    int w = i / 32;
    votes[w] = ballot;
    warp_sums[w] = all ? sum : -1;
  }
}

// Each thread allocates `k` ints on the device heap, fills them, sums them and frees them.
__global__ void heap_sums(int k, long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = (int *)malloc(k * sizeof(int));
  if (!p) { out[i] = -1; return; }
  for (int j = 0; j < k; j++) p[j] = i * j;
  long long s = 0;
  for (int j = 0; j < k; j++) s += p[j];
  free(p);
  out[i] = s;
  if (i == 0) printf("heap i=%d s=%lld big=%llu e=%e g=%g\n", i, s, 18446744073709551615ull, 12345.678, 0.0001);
}

// Pitched rows: row r, column c += r * 1000 + c.
__global__ void rows(float *p, size_t pitch, int w, int h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c < w && r < h) {
    float *row = (float *)((char *)p + r * pitch);
    row[c] += r * 1000 + c;
  }
}

// Dynamic shared memory through cudaLaunchKernelEx: out[i] = in[n - 1 - i] within each block.
extern __shared__ int rev_buf[];
__global__ void block_reverse(const int *in, int *out) {
  int base = blockIdx.x * blockDim.x;
  rev_buf[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = rev_buf[blockDim.x - 1 - threadIdx.x];
}

int main() {
  // Intrinsics.
  const int n = 1000;
  unsigned *ha = new unsigned[n], *hb = new unsigned[n];
  unsigned s = 12345;
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u; ha[i] = s;
    s = s * 1664525u + 1013904223u; hb[i] = s;
  }
  ha[0] = 0; hb[1] = 0; ha[2] = 0x80000000u;
  unsigned *da, *db; Bits *dbits;
  CHECK(cudaMalloc(&da, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&db, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dbits, n * sizeof(Bits)));
  CHECK(cudaMemcpy(da, ha, n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb, n * sizeof(unsigned), cudaMemcpyHostToDevice));
  bits<<<(n + 127) / 128, 128>>>(da, db, dbits, n);
  CHECK(cudaGetLastError());
  Bits *hbits = new Bits[n];
  CHECK(cudaMemcpy(hbits, dbits, n * sizeof(Bits), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    unsigned x = ha[i], y = hb[i];
    const Bits &r = hbits[i];
    EXPECT(r.popc == __builtin_popcount(x));
    EXPECT(r.clz == host_clz(x));
    EXPECT(r.ffs == __builtin_ffs((int)x));
    EXPECT(r.brev == host_brev(x));
    EXPECT(r.perm == host_perm(x, y, y & 0x7777));
    EXPECT(r.fl == host_fl(x, y, i));
    EXPECT(r.fr == host_fr(x, y, i));
    EXPECT(r.umulhi == (unsigned)(((unsigned long long)x * y) >> 32));
    unsigned __int128 wide = (unsigned __int128)((((unsigned long long)x << 32) | y)) * 0x9E3779B97F4A7C15ull;
    EXPECT(r.mul64hi == (unsigned long long)(wide >> 64));
    EXPECT(r.dp4a == host_dp4a((int)x, (int)y, i - 100));
    long long d = (long long)(int)x - (long long)(int)y;
    EXPECT(r.sad == (unsigned)((d < 0 ? -d : d) + i));
    EXPECT(r.hadd == (int)(((long long)(int)x + (int)y) >> 1));
    EXPECT(r.rhadd == (int)(((long long)(int)x + (int)y + 1) >> 1));
  }

  // Atomics and warp collectives.
  const int m = 4096;
  float *hv = new float[m];
  for (int i = 0; i < m; i++) hv[i] = (float)((i * 37) % 1024) / 1024.0f;
  float *dv, *dfmax; unsigned long long *dumax; double *dsum; unsigned *dvotes; int *dws;
  CHECK(cudaMalloc(&dv, m * sizeof(float)));
  CHECK(cudaMalloc(&dfmax, sizeof(float)));
  CHECK(cudaMalloc(&dumax, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dsum, sizeof(double)));
  CHECK(cudaMalloc(&dvotes, m / 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&dws, m / 32 * sizeof(int)));
  CHECK(cudaMemcpy(dv, hv, m * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dfmax, 0, sizeof(float)));
  CHECK(cudaMemset(dumax, 0, sizeof(unsigned long long)));
  CHECK(cudaMemset(dsum, 0, sizeof(double)));
  reductions<<<m / 256, 256>>>(dv, m, dfmax, dumax, dsum, dvotes, dws);
  CHECK(cudaGetLastError());
  float gfmax; unsigned long long gumax; double gsum;
  unsigned *gvotes = new unsigned[m / 32]; int *gws = new int[m / 32];
  CHECK(cudaMemcpy(&gfmax, dfmax, sizeof gfmax, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gumax, dumax, sizeof gumax, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gsum, dsum, sizeof gsum, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gvotes, dvotes, m / 32 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gws, dws, m / 32 * sizeof(int), cudaMemcpyDeviceToHost));
  float wfmax = 0; unsigned long long wumax = 0; double wsum = 0;
  for (int i = 0; i < m; i++) {
    if (hv[i] > wfmax) wfmax = hv[i];
    unsigned long long u = (unsigned long long)(hv[i] * 1000.0f) << 20;
    if (u > wumax) wumax = u;
    wsum += hv[i];
  }
  EXPECT(gfmax == wfmax && gumax == wumax);
  // Every value is k/1024: the double sum is exact in any order.
  EXPECT(gsum == wsum);
  for (int w = 0; w < m / 32; w++) {
    unsigned ballot = 0; int sum = 0;
    for (int l = 0; l < 32; l++) {
      float x = hv[w * 32 + l];
      if (x > 0.5f) ballot |= 1u << l;
      sum += (int)(unsigned)(x * 16.0f);
    }
    EXPECT(gvotes[w] == ballot && gws[w] == sum);
  }

  // Device heap.
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
  size_t heap = 0;
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  EXPECT(heap >= (16 << 20));
  const int threads = 512, k = 100;
  long long *dh;
  CHECK(cudaMalloc(&dh, threads * sizeof(long long)));
  heap_sums<<<threads / 128, 128>>>(k, dh);
  CHECK(cudaGetLastError());
  long long *hh = new long long[threads];
  CHECK(cudaMemcpy(hh, dh, threads * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < threads; i++) EXPECT(hh[i] == (long long)i * (k * (k - 1) / 2));

  // Pitched memory on a stream.
  const int w = 300, h = 7;
  float *dp; size_t pitch = 0;
  CHECK(cudaMallocPitch(&dp, &pitch, w * sizeof(float), h));
  EXPECT(pitch >= w * sizeof(float));
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  CHECK(cudaMemset2DAsync(dp, pitch, 0, w * sizeof(float), h, st));
  float *hp = new float[w * h];
  for (int i = 0; i < w * h; i++) hp[i] = 0.5f * i;
  CHECK(cudaMemcpy2DAsync(dp, pitch, hp, w * sizeof(float), (w - 10) * sizeof(float), h, cudaMemcpyHostToDevice, st));
  rows<<<dim3((w + 127) / 128, h), 128, 0, st>>>(dp, pitch, w, h);
  CHECK(cudaGetLastError());
  float *hq = new float[w * h];
  CHECK(cudaMemcpy2DAsync(hq, w * sizeof(float), dp, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost, st));
  CHECK(cudaStreamSynchronize(st));
  for (int r = 0; r < h; r++)
    for (int c = 0; c < w; c++) {
      float base = c < w - 10 ? 0.5f * (r * w + c) : 0.0f;
      EXPECT(hq[r * w + c] == base + (float)(r * 1000 + c));
    }

  // cudaLaunchKernelEx with dynamic shared memory.
  const int bs = 128, nb = 5;
  int *hin = new int[bs * nb], *hout = new int[bs * nb];
  for (int i = 0; i < bs * nb; i++) hin[i] = i * 3 + 1;
  int *din, *dout;
  CHECK(cudaMalloc(&din, bs * nb * sizeof(int)));
  CHECK(cudaMalloc(&dout, bs * nb * sizeof(int)));
  CHECK(cudaMemcpy(din, hin, bs * nb * sizeof(int), cudaMemcpyHostToDevice));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(nb);
  cfg.blockDim = dim3(bs);
  cfg.dynamicSmemBytes = bs * sizeof(int);
  cfg.stream = st;
  CHECK(cudaLaunchKernelEx(&cfg, block_reverse, (const int *)din, dout));
  CHECK(cudaMemcpyAsync(hout, dout, bs * nb * sizeof(int), cudaMemcpyDeviceToHost, st));
  CHECK(cudaStreamSynchronize(st));
  for (int b = 0; b < nb; b++)
    for (int t = 0; t < bs; t++) EXPECT(hout[b * bs + t] == hin[b * bs + bs - 1 - t]);

  CHECK(cudaStreamDestroy(st));
  CHECK(cudaFree(dp)); CHECK(cudaFree(din)); CHECK(cudaFree(dout)); CHECK(cudaFree(dh));
  CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dbits));
  CHECK(cudaFree(dv)); CHECK(cudaFree(dfmax)); CHECK(cudaFree(dumax)); CHECK(cudaFree(dsum));
  CHECK(cudaFree(dvotes)); CHECK(cudaFree(dws));
  CHECK(cudaDeviceSynchronize());
  std::fflush(stdout);
  std::printf("PASS\n");
  return 0;
}
