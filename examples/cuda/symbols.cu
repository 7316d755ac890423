// __constant__, __device__ and __managed__ symbols: copied to and from, addressed, read by a
// kernel; the managed ones also read and written by the host directly.
#include "check.h"

__constant__ float coeffs[4];
__device__ int counter;
__device__ float results[8];
__managed__ int managed_sum;
__managed__ float managed_scale[2] = {0.5f, 4.0f};

__global__ void poly() {
  int i = threadIdx.x;
  float x = i;
  results[i] = coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3]));
  atomicAdd(&counter, 1);
  atomicAdd(&managed_sum, i);
  if (i < 2) managed_scale[i] *= 2.0f;
}

int main() {
  float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  CHECK(cudaMemcpyToSymbol(coeffs, c, sizeof c));
  int zero = 0;
  CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
  managed_sum = 100;
  poly<<<1, 8>>>();
  CHECK(cudaDeviceSynchronize());
  EXPECT(managed_sum == 100 + 28);
  EXPECT(managed_scale[0] == 1.0f && managed_scale[1] == 8.0f);
  float r[8]; int count;
  CHECK(cudaMemcpyFromSymbol(r, results, sizeof r));
  CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof count));
  EXPECT(count == 8);
  for (int i = 0; i < 8; i++) {
    float x = i;
    EXPECT(r[i] == c[0] + x * (c[1] + x * (c[2] + x * c[3])));
  }
  size_t size; void* addr;
  CHECK(cudaGetSymbolSize(&size, results));
  EXPECT(size == sizeof r);
  CHECK(cudaGetSymbolAddress(&addr, results));
  float r2[8];
  CHECK(cudaMemcpy(r2, addr, sizeof r2, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++) EXPECT(r2[i] == r[i]);
  std::printf("PASS\n");
  return 0;
}
