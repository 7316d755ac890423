// Built with SASS only (-gencode arch=compute_80,code=sm_80): ptxjit cannot run GPU machine
// code, so the launch fails with cudaErrorNoKernelImageForDevice.
#include "check.h"

__global__ void k(int* p) { *p = 1; }

int main() {
  int* d;
  CHECK(cudaMalloc(&d, sizeof(int)));
  k<<<1, 1>>>(d);
  cudaError_t e = cudaGetLastError();
  std::printf("launch: %s\n", cudaGetErrorName(e));
  EXPECT(e == cudaErrorNoKernelImageForDevice);
  std::printf("PASS\n");
  return 0;
}
