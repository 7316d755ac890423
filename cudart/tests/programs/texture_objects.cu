// Texture objects over a cudaArray (linear filtering, clamp), pitch2D (normalized
// coordinates, wrap, float4) and linear memory (tex1Dfetch).
#include <cstdio>
#include "../../../examples/cuda/check.h"
__global__ void sample(cudaTextureObject_t t, float *out, int w, int h, float dx) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f + dx, y + 0.5f);
}
__global__ void sample_norm(cudaTextureObject_t t, float4 *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = tex2D<float4>(t, (x + 0.5f) / w, (y + 0.5f) / h);
}
__global__ void sample1d(cudaTextureObject_t t, int *out, int n) { int i = threadIdx.x; if (i < n) out[i] = tex1Dfetch<int>(t, i * 2); }
int main() {
  const int W = 16, H = 8; float h[H][W]; for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) h[y][x] = y * 16 + x;
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t arr; CHECK(cudaMallocArray(&arr, &cd, W, H));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, h, W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
  cudaTextureDesc td = {}; td.addressMode[0] = cudaAddressModeClamp; td.addressMode[1] = cudaAddressModeClamp; td.filterMode = cudaFilterModeLinear; td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t; CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  float *d; CHECK(cudaMalloc(&d, W * H * 4));
  sample<<<H, W>>>(t, d, W, H, 0.25f);
  float o[H][W]; CHECK(cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) { float a = h[y][x], b = h[y][x + 1 < W ? x + 1 : W - 1]; float w = a + 0.25f * (b - a); if (fabsf(o[y][x] - w) > 0.01f) { printf("lin %d %d %f %f\n", y, x, o[y][x], w); return 1; } }
  // pitch2D point, wrap with normalized coords on float4 uchar4? use float4
  float4 *p4; size_t pitch; CHECK(cudaMallocPitch(&p4, &pitch, W * sizeof(float4), H));
  float4 h4[H][W]; for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) h4[y][x] = make_float4(x, y, x * y, -1);
  CHECK(cudaMemcpy2D(p4, pitch, h4, W * sizeof(float4), W * sizeof(float4), H, cudaMemcpyHostToDevice));
  cudaResourceDesc rp = {}; rp.resType = cudaResourceTypePitch2D; rp.res.pitch2D.devPtr = p4; rp.res.pitch2D.desc = cudaCreateChannelDesc<float4>();
  rp.res.pitch2D.width = W; rp.res.pitch2D.height = H; rp.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc tp = {}; tp.normalizedCoords = 1; tp.filterMode = cudaFilterModePoint; tp.addressMode[0] = cudaAddressModeWrap; tp.addressMode[1] = cudaAddressModeWrap;
  cudaTextureObject_t t2; CHECK(cudaCreateTextureObject(&t2, &rp, &tp, nullptr));
  float4 *o4d; CHECK(cudaMalloc(&o4d, sizeof(h4)));
  sample_norm<<<H, W>>>(t2, o4d, W, H);
  float4 o4[H][W]; CHECK(cudaMemcpy(o4, o4d, sizeof(o4), cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) EXPECT(o4[y][x].x == x && o4[y][x].y == y && o4[y][x].z == x * y && o4[y][x].w == -1);
  // linear
  int *lin; CHECK(cudaMalloc(&lin, 256 * 4)); int hl[256]; for (int i = 0; i < 256; i++) hl[i] = i * i; CHECK(cudaMemcpy(lin, hl, sizeof(hl), cudaMemcpyHostToDevice));
  cudaResourceDesc rl = {}; rl.resType = cudaResourceTypeLinear; rl.res.linear.devPtr = lin; rl.res.linear.desc = cudaCreateChannelDesc<int>(); rl.res.linear.sizeInBytes = 1024;
  cudaTextureDesc tl = {}; tl.readMode = cudaReadModeElementType;
  cudaTextureObject_t t3; CHECK(cudaCreateTextureObject(&t3, &rl, &tl, nullptr));
  int *o1; CHECK(cudaMalloc(&o1, 128 * 4)); sample1d<<<1, 128>>>(t3, o1, 128); int ho[128]; CHECK(cudaMemcpy(ho, o1, sizeof(ho), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 128; i++) EXPECT(ho[i] == 4 * i * i);
  cudaResourceDesc back; CHECK(cudaGetTextureObjectResourceDesc(&back, t2)); EXPECT(back.res.pitch2D.pitchInBytes == pitch);
  CHECK(cudaDestroyTextureObject(t)); CHECK(cudaDestroyTextureObject(t2)); CHECK(cudaDestroyTextureObject(t3)); CHECK(cudaFreeArray(arr));
  printf("PASS\n");
}
