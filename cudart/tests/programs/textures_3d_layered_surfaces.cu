// A 3D CUDA array texture, a layered 1D texture, surface writes and a surface store out of
// range (the fault comes back from the next synchronising call).
#include <cstdio>
#include "../../../examples/cuda/check.h"
__global__ void s3(cudaTextureObject_t t, float *out, int W, int H, int D) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  out[(z * H + y) * W + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}
__global__ void layered(cudaTextureObject_t t, float *out, int W, int L) { int x = threadIdx.x, l = blockIdx.x; out[l * W + x] = tex1DLayered<float>(t, x + 0.5f, l); }
__global__ void surfw(cudaSurfaceObject_t s, int W, int H) { int x = threadIdx.x, y = blockIdx.x; surf2Dwrite<int>(x * 1000 + y, s, x * 4, y); }
int main() {
  const int W = 8, H = 4, D = 3; float h[D][H][W]; for (int z = 0; z < D; z++) for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) h[z][y][x] = z * 100 + y * 10 + x;
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a; CHECK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, H, D)));
  cudaMemcpy3DParms p = {0}; p.srcPtr = make_cudaPitchedPtr(h, W * 4, W, H); p.dstArray = a; p.extent = make_cudaExtent(W, H, D); p.kind = cudaMemcpyHostToDevice; CHECK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = a;
  cudaTextureDesc td = {}; td.filterMode = cudaFilterModePoint;
  cudaTextureObject_t t; CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  float *o; CHECK(cudaMalloc(&o, sizeof(h))); s3<<<D, dim3(W, H)>>>(t, o, W, H, D);
  float ho[D][H][W]; CHECK(cudaMemcpy(ho, o, sizeof(h), cudaMemcpyDeviceToHost));
  for (int z = 0; z < D; z++) for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) EXPECT(ho[z][y][x] == h[z][y][x]);
  // layered 1D
  cudaArray_t la; CHECK(cudaMalloc3DArray(&la, &cd, make_cudaExtent(W, 0, 3), cudaArrayLayered));
  cudaMemcpy3DParms q = {0}; q.srcPtr = make_cudaPitchedPtr(h, W * 4, W, 1); q.dstArray = la; q.extent = make_cudaExtent(W, 1, 3); q.kind = cudaMemcpyHostToDevice; CHECK(cudaMemcpy3D(&q));
  rd.res.array.array = la; cudaTextureObject_t lt; CHECK(cudaCreateTextureObject(&lt, &rd, &td, nullptr));
  layered<<<3, W>>>(lt, o, W, 3); float lo[3][W]; CHECK(cudaMemcpy(lo, o, sizeof(lo), cudaMemcpyDeviceToHost));
  for (int l = 0; l < 3; l++) for (int x = 0; x < W; x++) EXPECT(lo[l][x] == h[0][l][x]);
  // surface
  cudaChannelFormatDesc ci = cudaCreateChannelDesc<int>(); cudaArray_t sa; CHECK(cudaMallocArray(&sa, &ci, W, H, cudaArraySurfaceLoadStore));
  cudaResourceDesc sd = {}; sd.resType = cudaResourceTypeArray; sd.res.array.array = sa; cudaSurfaceObject_t so; CHECK(cudaCreateSurfaceObject(&so, &sd));
  surfw<<<H, W>>>(so, W, H); int hs[H][W]; CHECK(cudaMemcpy2DFromArray(hs, W * 4, sa, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) EXPECT(hs[y][x] == x * 1000 + y);
  // surface write out of range (trap mode)
  surfw<<<H, W + 1>>>(so, W, H); cudaError_t e = cudaDeviceSynchronize(); printf("surface oob: %s\n", cudaGetErrorName(e));
  printf("PASS\n");
}
