// Vector add with explicit copies, launched with <<<>>> and with cudaLaunchKernel; the
// runtime and driver versions against the headers'.
#include "check.h"
#include <vector>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  // The versions of the CUDA this program was built with (cuda_runtime_api.h): the runtime's
  // is that one, and the driver is at least as new.
  int runtime = 0, driver = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  EXPECT(runtime == CUDART_VERSION);
  EXPECT(driver >= CUDART_VERSION);
  const int n = 100000;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; i++) { a[i] = i * 0.5f; b[i] = 1.0f - i; }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(c[i] == a[i] + b[i]);
  // The same kernel through cudaLaunchKernel (what CUDA 12's <<<>>> stubs call), c = b + b.
  int nn = n;
  void* args[] = {&db, &db, &dc, &nn};
  CHECK(cudaLaunchKernel((const void*)add, dim3((n + 127) / 128), dim3(128), args, 0, nullptr));
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(c[i] == b[i] + b[i]);
  CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dc));
  std::printf("PASS\n");
  return 0;
}
