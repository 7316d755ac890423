// What a program asks of the devices (count, properties, attributes against the properties,
// peer access between every pair, memory info) and the bad input a program makes by mistake,
// each a documented CUDA error and never a crash: null pointers, launches too big, freed
// memory, double frees, invalid streams and events, copies past the end.
#include <cstdio>
#include <cstring>
#include "../../../examples/cuda/check.h"

__global__ void fill(int* p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }

int main() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT(count >= 1);
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, d));
    int v = 0;
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, d));
    EXPECT(v == prop.multiProcessorCount);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, d));
    EXPECT(v == prop.maxThreadsPerBlock);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, d));
    EXPECT(v == prop.warpSize && v == 32);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, d));
    EXPECT(v == prop.major);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, d));
    EXPECT((size_t)v == prop.sharedMemPerBlock);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxGridDimY, d));
    EXPECT(v == prop.maxGridSize[1]);
    for (int e = 0; e < count; ++e) {
      int can = -1;
      CHECK(cudaDeviceCanAccessPeer(&can, d, e));
      EXPECT(can == 0 || (can == 1 && d != e));
      if (d != e) {
        int attr = -1;
        CHECK(cudaDeviceGetP2PAttribute(&attr, cudaDevP2PAttrAccessSupported, d, e));
        EXPECT(attr == can);
      }
    }
    CHECK(cudaSetDevice(d));
    int cur = -1;
    CHECK(cudaGetDevice(&cur));
    EXPECT(cur == d);
    size_t free_b = 0, total_b = 0;
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    EXPECT(total_b == prop.totalGlobalMem && free_b <= total_b && free_b > 0);
  }
  CHECK(cudaSetDevice(0));
  // Device ordinals past the count.
  cudaDeviceProp prop;
  EXPECT(cudaGetDeviceProperties(&prop, count) == cudaErrorInvalidDevice);
  int v = 0;
  EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, count) == cudaErrorInvalidDevice);
  EXPECT(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0) == cudaErrorInvalidValue);
  EXPECT(cudaSetDevice(-1) == cudaErrorInvalidDevice);
  int can = 0;
  EXPECT(cudaDeviceCanAccessPeer(&can, 0, count) == cudaErrorInvalidDevice);
  // A link joins two devices: a device with itself is no link.
  EXPECT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0) == cudaErrorInvalidDevice);
  EXPECT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, 0, count) == cudaErrorInvalidDevice);
  EXPECT(cudaDeviceGetP2PAttribute(nullptr, cudaDevP2PAttrAccessSupported, 0, 1) == cudaErrorInvalidValue);

  // Null pointers.
  EXPECT(cudaGetDeviceCount(nullptr) == cudaErrorInvalidValue);
  EXPECT(cudaMalloc(nullptr, 16) == cudaErrorInvalidValue);
  EXPECT(cudaGetDeviceProperties(nullptr, 0) == cudaErrorInvalidValue);
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
  int h[2048];  // room for the refused 8 KiB copy below
  EXPECT(cudaMemcpy(nullptr, d, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy(h, nullptr, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  EXPECT(cudaMemset(nullptr, 0, 16) == cudaErrorInvalidValue);
  EXPECT(cudaFree(nullptr) == cudaSuccess);
  // Copies past the end of an allocation.
  EXPECT(cudaMemcpy(h, d, 2048 * sizeof(int), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  EXPECT(cudaMemset(d + 1000, 0, 100 * sizeof(int)) == cudaErrorInvalidValue);
  // Launches too big.
  fill<<<1, 2048>>>(d, 1);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  fill<<<dim3(1, 1, 70000), 32>>>(d, 1);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  fill<<<1, dim3(32, 32, 2)>>>(d, 1);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  fill<<<1, 32, 1 << 30>>>(d, 1);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  // The next launch runs.
  fill<<<32, 32>>>(d, 5);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, 1024 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 1024; ++i) EXPECT(h[i] == 5);
  // Freed memory and handles.
  int* gone = nullptr;
  CHECK(cudaMalloc(&gone, 64));
  CHECK(cudaFree(gone));
  EXPECT(cudaFree(gone) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy(h, gone, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  EXPECT(cudaMemset(gone, 0, 16) == cudaErrorInvalidValue);
  int stack_var = 0;
  EXPECT(cudaFree(&stack_var) == cudaErrorInvalidValue);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamDestroy(s));
  EXPECT(cudaStreamSynchronize(s) == cudaErrorInvalidResourceHandle);
  EXPECT(cudaStreamQuery(s) == cudaErrorInvalidResourceHandle);
  cudaEvent_t e;
  CHECK(cudaEventCreate(&e));
  CHECK(cudaEventDestroy(e));
  EXPECT(cudaEventRecord(e, 0) == cudaErrorInvalidResourceHandle);
  EXPECT(cudaEventSynchronize(e) == cudaErrorInvalidResourceHandle);
  EXPECT(cudaEventCreate(nullptr) == cudaErrorInvalidValue);
  EXPECT(cudaStreamCreate(nullptr) == cudaErrorInvalidValue);
  // A bad memcpy kind and a bad cudaMemcpy2D pitch.
  EXPECT(cudaMemcpy(h, d, 16, (cudaMemcpyKind)42) == cudaErrorInvalidMemcpyDirection);
  EXPECT(cudaMemcpy2D(h, 8, d, 8, 16, 2, cudaMemcpyDeviceToHost) == cudaErrorInvalidPitchValue);
  // The last error was reset by each call that failed with a non-sticky code; the context
  // is still usable.
  cudaGetLastError();
  fill<<<1, 32>>>(d, 9);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, d, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) EXPECT(h[i] == 9);
  CHECK(cudaFree(d));
  printf("PASS\n");
  return 0;
}
