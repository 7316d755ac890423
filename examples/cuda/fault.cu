// A kernel that writes far before the start of its allocation: the program gets
// cudaErrorIllegalAddress (sticky for the process: every later call that needs the device gets it
// too, on any thread), and ptxjit prints where it happened on stderr, naming the buffer by the call
// that made it (cudaMalloc). ptxjit's runtime keeps answering cudaGetLastError with the sticky
// error; NVIDIA's CUDA 13 runtime (nvcc's default --cudart static) clears its per-thread record on
// the first cudaGetLastError without asking the driver, so there the second one gives cudaSuccess
// while calls that reach the driver still fail (run.sh builds every example with --cudart shared).
// What the kernel printed before the fault is written by the synchronisation that reports it,
// before anything the host prints afterwards.
#include "check.h"
#include <thread>

__global__ void oops(int* p) {
  if (threadIdx.x == 0) printf("device: before the store\n");
  p[int(threadIdx.x) - (1 << 24)] = 1;  // 64 MiB before the allocation
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  oops<<<1, 32>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("kernel: %s\n", cudaGetErrorName(e));
  EXPECT(e == cudaErrorIllegalAddress);
  EXPECT(cudaMemset(d, 0, 4) == cudaErrorIllegalAddress);
  EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);  // not cleared
  EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
  cudaError_t other = cudaSuccess;
  std::thread([&] {
    int* q = nullptr;
    other = cudaMalloc(&q, 16);
  }).join();
  EXPECT(other == cudaErrorIllegalAddress);
  std::printf("PASS\n");
  return 0;
}
