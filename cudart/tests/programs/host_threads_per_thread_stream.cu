// Host threads launching on their per-thread default streams (built with
// --default-stream per-thread), a uchar4 normalized-float texture with border addressing.
#include <cstdio>
#include <thread>
#include <vector>
#include "../../../examples/cuda/check.h"
__global__ void add(float *x, int n, float v) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += v; }
__global__ void smem_tex(cudaTextureObject_t t, float4 *out, int w) { int x = threadIdx.x; out[x] = tex1D<float4>(t, x + 0.5f); }
int main() {
  const int T = 4, N = 1 << 18;
  std::vector<std::thread> th; std::vector<int> ok(T, 0);
  for (int t = 0; t < T; t++) th.emplace_back([&, t] {
    float *d; if (cudaMalloc(&d, N * 4) != cudaSuccess) return;
    cudaMemset(d, 0, N * 4);
    for (int r = 0; r < 10; r++) add<<<64, 256>>>(d, N, (float)(t + 1));
    std::vector<float> h(N); cudaMemcpy(h.data(), d, N * 4, cudaMemcpyDeviceToHost);
    bool good = true; for (int i = 0; i < N; i++) good &= h[i] == 10.0f * (t + 1);
    ok[t] = good && cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess; cudaFree(d);
  });
  for (auto &x : th) x.join();
  for (int t = 0; t < T; t++) EXPECT(ok[t]);
  // uchar4 normalized-float texture with border
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a; CHECK(cudaMallocArray(&a, &cd, 8));
  uchar4 hv[8]; for (int i = 0; i < 8; i++) hv[i] = make_uchar4(i * 30, 255, 0, 128);
  CHECK(cudaMemcpy2DToArray(a, 0, 0, hv, sizeof(hv), sizeof(hv), 1, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = a;
  cudaTextureDesc td = {}; td.addressMode[0] = cudaAddressModeBorder; td.filterMode = cudaFilterModePoint; td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t t; CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  float4 *o; CHECK(cudaMalloc(&o, 10 * sizeof(float4))); smem_tex<<<1, 10>>>(t, o, 8);
  float4 ho[10]; CHECK(cudaMemcpy(ho, o, sizeof(ho), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++) EXPECT(fabsf(ho[i].x - i * 30 / 255.0f) < 1e-6f && ho[i].y == 1.0f && ho[i].z == 0.0f && fabsf(ho[i].w - 128 / 255.0f) < 1e-6f);
  for (int i = 8; i < 10; i++) EXPECT(ho[i].x == 0 && ho[i].y == 0 && ho[i].w == 0);
  uchar4 back[8]; CHECK(cudaMemcpy2DFromArray(back, sizeof(back), a, 0, 0, sizeof(back), 1, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++) EXPECT(back[i].x == hv[i].x);
  printf("PASS\n");
}
