// A host program built against CUDA 12's runtime (g++ with CUDA 12.9's headers, linked to
// NVIDIA's libcudart.so.12): it imports cudaGetDeviceProperties_v2@libcudart.so.12 and friends,
// which ptxjit's libcudart.so.12 link serves with CUDA 12's cudaDeviceProp layout.
#include <cuda_runtime_api.h>
#include <cstdio>
#include <cstring>
#define EXPECT(c) do { if (!(c)) { std::fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

int main() {
  cudaDeviceProp p;
  std::memset(&p, 0xff, sizeof p);
  EXPECT(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  EXPECT(p.warpSize == 32 && p.maxThreadsPerBlock == 1024 && p.major >= 7);
  EXPECT(std::strlen(p.name) > 0 && p.reserved[0] == 0 && p.reserved[62] == 0);
  char h[64], g[64];
  for (int i = 0; i < 64; i++) h[i] = (char)(3 * i);
  void* d;
  EXPECT(cudaMalloc(&d, sizeof h) == cudaSuccess);
  EXPECT(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
  EXPECT(cudaMemcpy(g, d, sizeof g, cudaMemcpyDeviceToHost) == cudaSuccess);
  EXPECT(std::memcmp(h, g, sizeof h) == 0);
  cudaEvent_t a, b;
  EXPECT(cudaEventCreate(&a) == cudaSuccess && cudaEventCreate(&b) == cudaSuccess);
  EXPECT(cudaEventRecord(a, 0) == cudaSuccess && cudaEventRecord(b, 0) == cudaSuccess);
  EXPECT(cudaEventSynchronize(b) == cudaSuccess);
  float ms = -1.0f;
  EXPECT(cudaEventElapsedTime(&ms, a, b) == cudaSuccess && ms >= 0.0f);
  EXPECT(cudaThreadSynchronize() == cudaSuccess);
  EXPECT(cudaFree(d) == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
