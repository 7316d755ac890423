// Errors a program gets back instead of a crash: launch shapes the device cannot run
// (cudaErrorInvalidConfiguration from cudaGetLastError, not sticky), more threads per block
// than the kernel's __launch_bounds__ (cudaErrorLaunchOutOfResources, not sticky), and copies
// whose cudaMemcpyKind names a pointer that is not device memory (cudaErrorInvalidValue).
#include "check.h"

__global__ void touch(int* p) { p[threadIdx.x] = 1; }

__global__ void __launch_bounds__(64) bounded(int* p) { p[threadIdx.x] = 2; }

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 2048 * sizeof(int)));
  touch<<<1, 2048>>>(d);  // more threads per block than the device runs
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  touch<<<0, 32>>>(d);  // an empty grid
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  touch<<<dim3(1, 70000), 32>>>(d);  // gridDim.y above 65535
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  touch<<<1, dim3(1, 1, 65)>>>(d);  // blockDim.z above 64
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, bounded));
  EXPECT(fa.maxThreadsPerBlock == 64);
  bounded<<<1, 128>>>(d);  // more threads than __launch_bounds__(64)
  EXPECT(cudaGetLastError() == cudaErrorLaunchOutOfResources);
  bounded<<<1, dim3(16, 8)>>>(d);  // 128 threads again, in two dimensions
  EXPECT(cudaGetLastError() == cudaErrorLaunchOutOfResources);

  int h[8] = {};
  void* bogus = (void*)0x10;
  EXPECT(cudaMemcpy(h, bogus, sizeof h, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy(d, bogus, sizeof h, cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy(bogus, h, sizeof h, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  (void)cudaGetLastError();

  // None of these is sticky: the device still works.
  touch<<<1, 32>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++) EXPECT(h[i] == 1);
  bounded<<<1, 64>>>(d);  // within the bounds: runs
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++) EXPECT(h[i] == 2);
  CHECK(cudaFree(d));
  std::printf("PASS\n");
  return 0;
}
