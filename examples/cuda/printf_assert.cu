// Device printf, then an assert that fires: the program sees cudaErrorAssert.
#include "check.h"
#include <cassert>

__global__ void hello(int n) { if (threadIdx.x < n) printf("hello from thread %d\n", threadIdx.x); }
__global__ void checked(const int* v) { assert(v[threadIdx.x] >= 0); }

int main() {
  hello<<<1, 4>>>(2);
  CHECK(cudaDeviceSynchronize());
  int h[4] = {1, 2, -3, 4};
  int* d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  checked<<<1, 4>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("after the assert: %s\n", cudaGetErrorName(e));
  EXPECT(e == cudaErrorAssert);
  std::printf("PASS\n");
  return 0;
}
