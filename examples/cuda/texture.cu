// A 2D texture object over a CUDA array with linear filtering, and a surface write.
#include "check.h"
#include <cmath>

__global__ void sample(cudaTextureObject_t tex, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  // Halfway between texels (x, y) and (x + 1, y): the average of the two.
  if (x < w - 1 && y < h) out[y * w + x] = tex2D<float>(tex, x + 1.0f, y + 0.5f);
}

__global__ void write_surface(cudaSurfaceObject_t surf, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) surf2Dwrite((float)(x * 100 + y), surf, x * (int)sizeof(float), y);
}

int main() {
  const int w = 32, h = 16;
  float src[h][w];
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) src[y][x] = x * x + 10.0f * y;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &desc, w, h, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, src, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  float* out;
  CHECK(cudaMalloc(&out, w * h * sizeof(float)));
  dim3 block(8, 8), grid(w / 8, h / 8);
  sample<<<grid, block>>>(tex, out, w, h);
  float got[h][w];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w - 1; x++) {
      float ref = 0.5f * (src[y][x] + src[y][x + 1]);
      EXPECT(std::fabs(got[y][x] - ref) <= 1e-2f * (1.0f + std::fabs(ref)));
    }
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &res));
  write_surface<<<grid, block>>>(surf, w, h);
  CHECK(cudaMemcpy2DFromArray(got, w * sizeof(float), arr, 0, 0, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) EXPECT(got[y][x] == x * 100 + y);
  CHECK(cudaDestroyTextureObject(tex)); CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(arr)); CHECK(cudaFree(out));
  std::printf("PASS\n");
  return 0;
}
