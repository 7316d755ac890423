// A cooperative launch with grid-wide synchronisation: each phase reads what every block
// wrote in the phase before.
#include "check.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void two_phase(int* a, int* b, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = grid.thread_rank();
  if (i < n) a[i] = i;
  grid.sync();
  if (i < n) b[i] = a[(i + 1) % n] + a[(i + n - 1) % n];
}

int main() {
  const int blocks = 4, threads = 64, n = blocks * threads;
  int *a, *b;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  int nn = n;
  void* args[] = {&a, &b, &nn};
  CHECK(cudaLaunchCooperativeKernel((void*)two_phase, blocks, threads, args, 0, 0));
  int h[n];
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(h[i] == (i + 1) % n + (i + n - 1) % n);
  std::printf("PASS\n");
  return 0;
}
