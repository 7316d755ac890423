// Cooperative groups: this_grid().sync() through cudaLaunchCooperativeKernel and
// cudaLaunchKernelEx, a too-large cooperative grid, tiled partitions' shfl/shfl_up/reduce,
// coalesced_threads; occupancy queries that size the grid.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "../../../examples/cuda/check.h"
namespace cg = cooperative_groups;
__global__ void gridsum(const int *in, int *partial, int *out, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int v = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
  int w = cg::reduce(warp, v, cg::plus<int>());
  __shared__ int sw[32];
  if (warp.thread_rank() == 0) sw[warp.meta_group_rank()] = w;
  block.sync();
  if (block.thread_rank() == 0) { int s = 0; for (int k = 0; k < (int)warp.meta_group_size(); k++) s += sw[k]; partial[blockIdx.x] = s; }
  grid.sync();
  if (grid.thread_rank() == 0) { int s = 0; for (unsigned b = 0; b < gridDim.x; b++) s += partial[b]; *out = s; }
}
__global__ void tiles(const int *in, int *out) {
  auto block = cg::this_thread_block();
  auto t8 = cg::tiled_partition<8>(block);
  int v = in[block.thread_rank()];
  // inclusive scan by shfl_up within tile of 8
  for (int d = 1; d < 8; d *= 2) { int o = t8.shfl_up(v, d); if (t8.thread_rank() >= d) v += o; }
  int mx = cg::reduce(t8, in[block.thread_rank()], cg::greater<int>());
  int bcast = t8.shfl(v, 7);
  auto dyn = cg::tiled_partition<16>(block);
  int s16 = 0; for (int k = 0; k < 16; k++) s16 += dyn.shfl(in[block.thread_rank()], k);
  out[block.thread_rank() * 4 + 0] = v; out[block.thread_rank() * 4 + 1] = mx; out[block.thread_rank() * 4 + 2] = bcast;
  out[block.thread_rank() * 4 + 3] = s16;
  auto act = cg::coalesced_threads();
  if (block.thread_rank() % 3 == 0) { auto c = cg::coalesced_threads(); int r = c.thread_rank(); int sz = c.size(); out[block.thread_rank() * 4 + 3] += 1000 * r + 100000 * sz; }
  (void)act;
}
int main() {
  int dev = 0, sms, coop; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev)); EXPECT(coop == 1);
  int nb; CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, gridsum, 256, 0)); EXPECT(nb >= 1);
  int minGrid, bs; CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &bs, gridsum, 0, 0)); EXPECT(bs > 0 && bs <= 1024 && minGrid > 0);
  printf("sms %d blocks/sm %d potential grid %d block %d\n", sms, nb, minGrid, bs);
  const int N = 100000; int *h = new int[N]; long want = 0; for (int i = 0; i < N; i++) { h[i] = (i * 7) % 13 - 6; want += h[i]; }
  int *in, *part, *out; CHECK(cudaMalloc(&in, N * 4)); CHECK(cudaMalloc(&part, nb * sms * 4)); CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMemcpy(in, h, N * 4, cudaMemcpyHostToDevice));
  int n = N; void *args[] = {&in, &part, &out, &n};
  int grid = nb * sms;
  CHECK(cudaLaunchCooperativeKernel((void *)gridsum, dim3(grid), dim3(256), args, 0, 0));
  int got; CHECK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost)); EXPECT(got == want);
  // too big a cooperative grid
  cudaError_t e = cudaLaunchCooperativeKernel((void *)gridsum, dim3(grid + 1), dim3(256), args, 0, 0);
  printf("oversized coop grid: %s\n", cudaGetErrorName(e)); EXPECT(e == cudaErrorCooperativeLaunchTooLarge);
  EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
  // launchEx cooperative attribute
  cudaLaunchConfig_t cfg = {0}; cudaLaunchAttribute attr; attr.id = cudaLaunchAttributeCooperative; attr.val.cooperative = 1;
  cfg.gridDim = dim3(sms); cfg.blockDim = dim3(128); cfg.attrs = &attr; cfg.numAttrs = 1;
  CHECK(cudaMemset(out, 0, 4));
  CHECK(cudaLaunchKernelEx(&cfg, gridsum, (const int *)in, part, out, n));
  CHECK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost)); EXPECT(got == want);
  // tiles
  int hin[64], hout[256]; for (int i = 0; i < 64; i++) hin[i] = (i * 5) % 11;
  int *din, *dout; CHECK(cudaMalloc(&din, 256)); CHECK(cudaMalloc(&dout, 1024));
  CHECK(cudaMemcpy(din, hin, 256, cudaMemcpyHostToDevice));
  tiles<<<1, 64>>>(din, dout); CHECK(cudaMemcpy(hout, dout, 1024, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++) {
    int b = i / 8 * 8, sc = 0, mx = 0, tot = 0; for (int k = b; k <= i; k++) sc += hin[k]; for (int k = b; k < b + 8; k++) { mx = hin[k] > mx ? hin[k] : mx; tot += hin[k]; }
    int b16 = i / 16 * 16, s16 = 0; for (int k = b16; k < b16 + 16; k++) s16 += hin[k];
    if (i % 3 == 0) { int w = i / 32 * 32, r = 0, sz = 0; for (int k = w; k < w + 32; k++) if (k % 3 == 0) { if (k < i) r++; sz++; } s16 += 1000 * r + 100000 * sz; }
    if (hout[i * 4] != sc || hout[i * 4 + 1] != mx || hout[i * 4 + 2] != tot || hout[i * 4 + 3] != s16) { printf("tile %d: %d %d %d %d want %d %d %d %d\n", i, hout[i*4], hout[i*4+1], hout[i*4+2], hout[i*4+3], sc, mx, tot, s16); return 1; }
  }
  printf("PASS\n");
}
