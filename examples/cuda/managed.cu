// Vector add on cudaMallocManaged memory, read and written by host and kernel alike.
#include "check.h"

__global__ void axpy(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 50000;
  float *x, *y;
  CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  CHECK(cudaMallocManaged(&y, n * sizeof(float)));
  for (int i = 0; i < n; i++) { x[i] = i; y[i] = 2.0f; }
  axpy<<<64, 128>>>(3.0f, x, y, n);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; i++) EXPECT(y[i] == 3.0f * i + 2.0f);
  CHECK(cudaFree(x)); CHECK(cudaFree(y));
  std::printf("PASS\n");
  return 0;
}
