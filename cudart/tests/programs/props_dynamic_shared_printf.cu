// Device properties and attributes a program sizes its launch with, dynamic shared memory
// past 48 KiB through cudaFuncSetAttribute (refused before it), occupancy, device printf.
#include <cstdio>
#include <cassert>
#include "../../../examples/cuda/check.h"
extern __shared__ float dyn[];
__global__ void rev(const float *in, float *out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) dyn[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = dyn[n - 1 - i];
}
__global__ void hello(int tag) { if (threadIdx.x < 2) printf("hello tag=%d block=%d thread=%d f=%.2f s=%s\n", tag, blockIdx.x, threadIdx.x, 1.5f * threadIdx.x, "str"); }
int main() {
  cudaDeviceProp p; CHECK(cudaGetDeviceProperties(&p, 0));
  printf("name=%s cc=%d.%d sms=%d warp=%d maxThreads=%d smemBlock=%zu smemOptin=%zu smemSM=%zu regs=%d l2=%d maxGrid=%d,%d,%d clock? mem=%zu\n", p.name, p.major, p.minor, p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock, p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor, p.regsPerBlock, p.l2CacheSize, p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2], p.totalGlobalMem);
  int v; CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0)); EXPECT((size_t)v == p.sharedMemPerBlockOptin);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0)); EXPECT(v == 32);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerMultiProcessor, 0)); EXPECT(v == p.maxThreadsPerMultiProcessor);
  // dynamic shared memory above 48KiB
  int n = (int)(p.sharedMemPerBlockOptin / sizeof(float));
  size_t bytes = n * sizeof(float);
  float *h = new float[n], *o = new float[n]; for (int i = 0; i < n; i++) h[i] = i;
  float *din, *dout; CHECK(cudaMalloc(&din, bytes)); CHECK(cudaMalloc(&dout, bytes));
  CHECK(cudaMemcpy(din, h, bytes, cudaMemcpyHostToDevice));
  rev<<<1, 256, bytes>>>(din, dout, n);
  cudaError_t e = cudaGetLastError(); printf("before attribute: %s\n", cudaGetErrorString(e)); EXPECT(e != cudaSuccess);
  CHECK(cudaFuncSetAttribute(rev, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  cudaFuncAttributes fa; CHECK(cudaFuncGetAttributes(&fa, rev)); EXPECT(fa.maxDynamicSharedSizeBytes == (int)bytes);
  rev<<<1, 256, bytes>>>(din, dout, n); CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(o, dout, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(o[i] == h[n - 1 - i]);
  // one more than optin must fail even with attribute
  e = cudaFuncSetAttribute(rev, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes + 4);
  printf("attribute past optin: %s\n", cudaGetErrorName(e)); EXPECT(e == cudaErrorInvalidValue);
  cudaGetLastError();
  int nb; CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, rev, 256, bytes)); printf("blocks/SM with %zu smem: %d\n", bytes, nb); EXPECT(nb >= 1);
  size_t avail; CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, rev, 1, 256)); printf("avail dyn smem %zu\n", avail);
  // printf
  hello<<<2, 32>>>(7); CHECK(cudaDeviceSynchronize());
  fflush(stdout);
  // grid sized from props
  int bs = 256, grid = p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / bs);
  printf("grid %d\n", grid);
  printf("PASS\n");
}
