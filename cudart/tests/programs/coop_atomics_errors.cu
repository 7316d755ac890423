// Cooperative groups (tiles, cg::reduce, coalesced groups, grid sync through
// cudaLaunchCooperativeKernel sized by occupancy), warp intrinsics, atomics of several
// types, occupancy queries, printf formats, and error handling: a bad launch seen by
// cudaGetLastError, an assert that fails (argv[1] == "assert"); results against the host's.
#include <cstdio>
#include <cstring>
#include <cassert>
#include <vector>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "../../../examples/cuda/check.h"
namespace cg = cooperative_groups;
__device__ unsigned long long counter;
__global__ void grid_sum(const int* in, int n, long long* partial, long long* total, int* rounds) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  long long v = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
  long long w = cg::reduce(warp, v, cg::plus<long long>());
  __shared__ long long s[32];
  if (warp.thread_rank() == 0) s[warp.meta_group_rank()] = w;
  block.sync();
  if (threadIdx.x == 0) {
    long long b = 0;
    for (int i = 0; i < (int)warp.meta_group_size(); i++) b += s[i];
    partial[blockIdx.x] = b;
  }
  grid.sync();
  if (grid.thread_rank() == 0) {
    long long t = 0;
    for (unsigned i = 0; i < gridDim.x; i++) t += partial[i];
    *total = t;
  }
  grid.sync();
  // Every block sees the total after the second sync.
  if (threadIdx.x == 0) atomicAdd(rounds, *total == 0 ? 0 : 1);
}
__global__ void warp_ops(const unsigned* in, unsigned* out) {
  unsigned v = in[threadIdx.x];
  unsigned ballot = __ballot_sync(0xffffffff, v & 1);
  unsigned sum = v;
  for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
  unsigned match = __match_any_sync(0xffffffff, v % 4);
  unsigned red = __reduce_max_sync(0xffffffff, v);
  unsigned up = __shfl_up_sync(0xffffffff, v, 3);
  int* o = (int*)out + threadIdx.x * 6;
  o[0] = ballot; o[1] = sum; o[2] = match; o[3] = red; o[4] = up;
  // A coalesced group of the odd lanes: its size and the rank within it.
  if (v & 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    o[5] = odd.size() * 100 + odd.thread_rank();
  } else {
    o[5] = -1;
  }
}
__global__ void atomics(double* d, float* f, int* mx, unsigned long long* cas, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(d, 0.25 * i);
  atomicAdd(f, 1.0f);
  atomicMax(mx, (i * 7919) % 1000);
  atomicMin(mx + 1, (i * 7919) % 1000 - 500);
  atomicOr((unsigned*)mx + 2, 1u << (i % 32));
  atomicInc((unsigned*)mx + 3, 9);
  unsigned long long old = *cas, assumed;
  do { assumed = old; old = atomicCAS(cas, assumed, assumed + i); } while (old != assumed);
  atomicAdd(&counter, 1ull);
}
__global__ void checker(const int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(p[i] >= 0);
}
__global__ void say(int a, float b, const char* s) {
  if (threadIdx.x == 0) printf("[%d] %5.2f %s %x %lld %c|%-4d|%e\n", a, b, "lit", 255, -12345678901ll, 'Z', 7, 1.5e-3);
  (void)s;
}
int main(int argc, char** argv) {
  bool want_assert = argc > 1 && !strcmp(argv[1], "assert");
  int dev = 0, coop = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  EXPECT(coop == 1 && sms > 0);
  // Grid sync: as many blocks as can be resident.
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 256, 0));
  EXPECT(per_sm >= 1);
  int min_grid = 0, best_block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, grid_sum, 0, 0));
  EXPECT(best_block >= 32 && best_block <= 1024 && min_grid >= 1);
  int blocks = per_sm * sms;
  const int N = 100003;
  std::vector<int> h(N);
  long long want = 0;
  for (int i = 0; i < N; i++) { h[i] = (i * 37) % 201 - 100; want += h[i]; }
  int* d; long long *partial, *total; int* rounds;
  CHECK(cudaMalloc(&d, N * sizeof(int)));
  CHECK(cudaMalloc(&partial, blocks * sizeof(long long)));
  CHECK(cudaMalloc(&total, sizeof(long long)));
  CHECK(cudaMalloc(&rounds, sizeof(int)));
  CHECK(cudaMemset(rounds, 0, sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  int n = N;
  void* args[] = {&d, &n, &partial, &total, &rounds};
  CHECK(cudaLaunchCooperativeKernel((void*)grid_sum, blocks, 256, args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  long long got = 0; int r = 0;
  CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&r, rounds, sizeof r, cudaMemcpyDeviceToHost));
  EXPECT(got == want && r == blocks);
  // The same through cudaLaunchKernelEx with the cooperative attribute.
  CHECK(cudaMemset(total, 0, sizeof(long long)));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = blocks; cfg.blockDim = 256;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative; attr[0].val.cooperative = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  CHECK(cudaMemset(rounds, 0, sizeof(int)));
  CHECK(cudaLaunchKernelEx(&cfg, grid_sum, (const int*)d, n, partial, total, rounds));
  CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT(got == want);
  // Too many blocks for a cooperative launch.
  EXPECT(cudaLaunchCooperativeKernel((void*)grid_sum, blocks * 4 + 1, 256, args, 0, 0) == cudaErrorCooperativeLaunchTooLarge);
  EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
  EXPECT(cudaGetLastError() == cudaSuccess);
  // Warp intrinsics against the host.
  unsigned hin[64], hout[64 * 6];
  for (int i = 0; i < 64; i++) hin[i] = (i * 2654435761u) >> 20;
  unsigned *din, *dout;
  CHECK(cudaMalloc(&din, sizeof hin)); CHECK(cudaMalloc(&dout, sizeof hout));
  CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
  warp_ops<<<1, 64>>>(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
  for (int w = 0; w < 2; w++) {
    unsigned ballot = 0, sum = 0, mx = 0, odd = 0;
    for (int l = 0; l < 32; l++) {
      unsigned v = hin[w * 32 + l];
      if (v & 1) { ballot |= 1u << l; odd++; }
      sum += v; if (v > mx) mx = v;
    }
    unsigned rank = 0;
    for (int l = 0; l < 32; l++) {
      int t = w * 32 + l;
      unsigned v = hin[t], match = 0;
      for (int k = 0; k < 32; k++) if (hin[w * 32 + k] % 4 == v % 4) match |= 1u << k;
      unsigned* o = hout + t * 6;
      EXPECT(o[0] == ballot && o[1] == sum && o[2] == match && o[3] == mx);
      EXPECT(o[4] == (l >= 3 ? hin[t - 3] : v));
      EXPECT((int)o[5] == ((v & 1) ? (int)(odd * 100 + rank++) : -1));
    }
  }
  // Atomics.
  const int A = 5000;
  double* dd; float* df; int* dm; unsigned long long* dc;
  CHECK(cudaMalloc(&dd, 8)); CHECK(cudaMalloc(&df, 4)); CHECK(cudaMalloc(&dm, 16)); CHECK(cudaMalloc(&dc, 8));
  CHECK(cudaMemset(dd, 0, 8)); CHECK(cudaMemset(df, 0, 4)); CHECK(cudaMemset(dc, 0, 8));
  int m0[4] = {-1, 1 << 30, 0, 0};
  CHECK(cudaMemcpy(dm, m0, 16, cudaMemcpyHostToDevice));
  unsigned long long zero = 0;
  CHECK(cudaMemcpyToSymbol(counter, &zero, 8));
  atomics<<<(A + 127) / 128, 128>>>(dd, df, dm, dc, A);
  CHECK(cudaDeviceSynchronize());
  double hd; float hf; int hm[4]; unsigned long long hc, hcount;
  CHECK(cudaMemcpy(&hd, dd, 8, cudaMemcpyDeviceToHost)); CHECK(cudaMemcpy(&hf, df, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hm, dm, 16, cudaMemcpyDeviceToHost)); CHECK(cudaMemcpy(&hc, dc, 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&hcount, counter, 8));
  int wmax = -1, wmin = 1 << 30;
  for (int i = 0; i < A; i++) { int v = (i * 7919) % 1000; if (v > wmax) wmax = v; if (v - 500 < wmin) wmin = v - 500; }
  EXPECT(hd == 0.25 * (A - 1) * A / 2 && hf == (float)A && hm[0] == wmax && hm[1] == wmin);
  EXPECT((unsigned)hm[2] == 0xffffffffu && hm[3] == A % 10);
  EXPECT(hc == (unsigned long long)(A - 1) * A / 2 && hcount == A);
  // printf formats.
  say<<<1, 32>>>(42, 3.14159f, nullptr);
  CHECK(cudaDeviceSynchronize());
  fflush(stdout);
  // A bad launch: cudaGetLastError sees it, and the device still works.
  warp_ops<<<1, 1025>>>(din, dout);
  cudaError_t e = cudaGetLastError();
  EXPECT(e == cudaErrorInvalidConfiguration);
  EXPECT(!strcmp(cudaGetErrorName(e), "cudaErrorInvalidConfiguration"));
  EXPECT(cudaGetLastError() == cudaSuccess);
  // An assert that holds, then (with "assert") one that fails: cudaErrorAssert, sticky.
  checker<<<(N + 255) / 256, 256>>>(d, want_assert ? N : 0);
  if (!want_assert) {
    CHECK(cudaDeviceSynchronize());
  } else {
    EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);
    EXPECT(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost) == cudaErrorAssert);
  }
  printf("blocks %d (%d per SM)\nPASS\n", blocks, per_sm);
  return 0;
}
