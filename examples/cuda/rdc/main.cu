// Separate compilation (-rdc=true): the kernel calls a device function defined in
// rdc/helper.cu.
#include "../check.h"

__device__ int mix(int a, int b);

__global__ void apply(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = mix(a[i], b[i]);
}

int main() {
  const int n = 300;
  int ha[n], hb[n], hc[n];
  for (int i = 0; i < n; i++) { ha[i] = i; hb[i] = 3 * i + 1; }
  int *a, *b, *c;
  CHECK(cudaMalloc(&a, sizeof ha)); CHECK(cudaMalloc(&b, sizeof hb)); CHECK(cudaMalloc(&c, sizeof hc));
  CHECK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
  apply<<<(n + 127) / 128, 128>>>(a, b, c, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(hc[i] == 2 * ha[i] - hb[i] + 7);
  std::printf("PASS\n");
  return 0;
}
