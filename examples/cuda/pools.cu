// Stream-ordered allocation: cudaMallocAsync from the device's default pool and
// cudaMallocFromPoolAsync from a pool of the program's own, with the pools' attributes.
#include "check.h"

__global__ void fill(int* out, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = base + i * i;
}

int main() {
  int supported = 0;
  CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
  EXPECT(supported == 1);

  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaMemPool_t dflt;
  CHECK(cudaDeviceGetDefaultMemPool(&dflt, 0));
  unsigned long long threshold = ~0ull;
  CHECK(cudaMemPoolSetAttribute(dflt, cudaMemPoolAttrReleaseThreshold, &threshold));

  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t mine;
  CHECK(cudaMemPoolCreate(&mine, &props));

  const int n = 1000;
  int *a, *b;
  CHECK(cudaMallocAsync((void**)&a, n * sizeof(int), s));
  CHECK(cudaMallocFromPoolAsync((void**)&b, n * sizeof(int), mine, s));
  size_t used = 0;
  CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
  EXPECT(used >= n * sizeof(int));

  fill<<<(n + 127) / 128, 128, 0, s>>>(a, n, 7);
  fill<<<(n + 127) / 128, 128, 0, s>>>(b, n, -3);
  int ha[n], hb[n];
  CHECK(cudaMemcpyAsync(ha, a, sizeof ha, cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemcpyAsync(hb, b, sizeof hb, cudaMemcpyDeviceToHost, s));
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; i++) {
    EXPECT(ha[i] == 7 + i * i);
    EXPECT(hb[i] == -3 + i * i);
  }
  CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
  EXPECT(used == 0);
  CHECK(cudaMemPoolTrimTo(mine, 0));
  CHECK(cudaMemPoolDestroy(mine));
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS\n");
  return 0;
}
