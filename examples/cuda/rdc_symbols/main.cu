// Separate compilation (-rdc=true) across three files: the kernel calls device functions of
// rdc_symbols/helper.cu and vars.cu, and the host reaches the variables that vars.cu
// defines through their `extern` declarations here (cudaMemcpyToSymbol,
// cudaGetSymbolAddress, cudaGetSymbolSize, cudaMemcpyFromSymbol, a __managed__ variable
// read directly).
#include "../check.h"

extern __device__ int counter;
extern __device__ float table[8];
extern __constant__ float scale[4];
extern __managed__ int managed_total;
__device__ int bump(int by);
__device__ float weigh(float x, int i);

__global__ void apply(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = weigh(in[i], i);
    bump(1);
  }
}

int main() {
  const int n = 200;
  float h_in[n], h_out[n], h_scale[4] = {1.0f, 2.0f, -3.0f, 0.25f}, h_table[8];
  for (int i = 0; i < 8; i++) h_table[i] = 0.5f * i;
  for (int i = 0; i < n; i++) h_in[i] = i;
  CHECK(cudaMemcpyToSymbol(scale, h_scale, sizeof h_scale));
  float* d_table;
  CHECK(cudaGetSymbolAddress((void**)&d_table, table));
  CHECK(cudaMemcpy(d_table, h_table, sizeof h_table, cudaMemcpyHostToDevice));
  int start = 5;
  CHECK(cudaMemcpyToSymbol(counter, &start, sizeof start));
  size_t size = 0;
  CHECK(cudaGetSymbolSize(&size, scale));
  EXPECT(size == sizeof h_scale);
  EXPECT(managed_total == 1000);
  float *in, *out;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&out, sizeof h_out));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  apply<<<(n + 63) / 64, 64>>>(in, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(h_out[i] == h_in[i] * h_scale[i % 4] + h_table[i % 8]);
  int count = 0;
  CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof count));
  EXPECT(count == start + n);
  EXPECT(managed_total == 1000 + n);
  float back[4];
  CHECK(cudaMemcpyFromSymbol(back, scale, sizeof back));
  for (int i = 0; i < 4; i++) EXPECT(back[i] == h_scale[i]);
  std::printf("PASS\n");
  return 0;
}
