// __constant__ and __device__ symbols (cudaMemcpyTo/FromSymbol with offsets, async, their
// address and size), cudaMallocPitch/cudaMemcpy2D/cudaMemset2D, cudaMalloc3D/cudaMemcpy3D
// with positions; each against the host's computation.
#include <cstdio>
#include "../../../examples/cuda/check.h"
__constant__ float coef[16];
__device__ int dev_arr[64];
__global__ void poly(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float a = 0; for (int k = 15; k >= 0; k--) a = a * x[i] + coef[k]; y[i] = a; }
}
__global__ void bump(int n) { int i = threadIdx.x; if (i < n) dev_arr[i] += i; }
__global__ void add2d(float *p, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) { float *row = (float *)((char *)p + y * pitch); row[x] += 10.0f * y + x; }
}
__global__ void add3d(cudaPitchedPtr pp, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) { char *slice = (char *)pp.ptr + z * pp.pitch * h; float *row = (float *)(slice + y * pp.pitch); row[x] += 1.0f; }
}
int main() {
  float hc[16]; for (int k = 0; k < 16; k++) hc[k] = 0.01f * (k + 1);
  CHECK(cudaMemcpyToSymbol(coef, hc, sizeof(hc)));
  float back[16]; CHECK(cudaMemcpyFromSymbol(back, coef, sizeof(back)));
  for (int k = 0; k < 16; k++) EXPECT(back[k] == hc[k]);
  // offset write
  float two[2] = {5.0f, 6.0f};
  CHECK(cudaMemcpyToSymbol(coef, two, sizeof(two), 4 * sizeof(float)));
  hc[4] = 5.0f; hc[5] = 6.0f;
  const int N = 1000; float hx[N], hy[N]; for (int i = 0; i < N; i++) hx[i] = (i % 17) * 0.1f;
  float *dx, *dy; CHECK(cudaMalloc(&dx, N * 4)); CHECK(cudaMalloc(&dy, N * 4));
  CHECK(cudaMemcpy(dx, hx, N * 4, cudaMemcpyDefault));
  poly<<<4, 256>>>(dx, dy, N);
  CHECK(cudaMemcpy(hy, dy, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) { float a = 0; for (int k = 15; k >= 0; k--) a = a * hx[i] + hc[k]; if (fabsf(a - hy[i]) > 1e-4f * fabsf(a) + 1e-6f) { printf("poly %d %f %f\n", i, hy[i], a); return 1; } }
  // __device__ array, symbol address, async symbol copy
  int ha[64]; for (int i = 0; i < 64; i++) ha[i] = i * 3;
  cudaStream_t st; CHECK(cudaStreamCreate(&st));
  CHECK(cudaMemcpyToSymbolAsync(dev_arr, ha, sizeof(ha), 0, cudaMemcpyHostToDevice, st));
  bump<<<1, 64, 0, st>>>(64);
  int hb[64]; CHECK(cudaMemcpyFromSymbolAsync(hb, dev_arr, sizeof(hb), 0, cudaMemcpyDeviceToHost, st));
  CHECK(cudaStreamSynchronize(st));
  for (int i = 0; i < 64; i++) EXPECT(hb[i] == i * 4);
  int *sym; size_t ssz; CHECK(cudaGetSymbolAddress((void **)&sym, dev_arr)); CHECK(cudaGetSymbolSize(&ssz, dev_arr));
  EXPECT(ssz == 256);
  int one; CHECK(cudaMemcpy(&one, sym + 10, 4, cudaMemcpyDeviceToHost)); EXPECT(one == 40);
  // 2D
  const int W = 37, H = 23; float h2[H][W], o2[H][W];
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) h2[y][x] = y * 100 + x;
  float *d2; size_t pitch; CHECK(cudaMallocPitch(&d2, &pitch, W * 4, H));
  EXPECT(pitch >= W * 4 && pitch % 256 == 0);
  CHECK(cudaMemset2D(d2, pitch, 0, W * 4, H));
  CHECK(cudaMemcpy2D(d2, pitch, h2, W * 4, W * 4, H, cudaMemcpyHostToDevice));
  add2d<<<dim3(2, 3), dim3(32, 8)>>>(d2, pitch, W, H);
  CHECK(cudaMemcpy2D(o2, W * 4, d2, pitch, W * 4, H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) EXPECT(o2[y][x] == y * 100 + x + 10.0f * y + x);
  // 2D sub-rectangle copy device-to-device
  float *d2b; size_t pitchb; CHECK(cudaMallocPitch(&d2b, &pitchb, 16 * 4, 8));
  CHECK(cudaMemcpy2D(d2b, pitchb, (char *)d2 + 3 * pitch + 5 * 4, pitch, 16 * 4, 8, cudaMemcpyDeviceToDevice));
  float sub[8][16]; CHECK(cudaMemcpy2D(sub, 64, d2b, pitchb, 64, 8, cudaMemcpyDeviceToHost));
  for (int y = 0; y < 8; y++) for (int x = 0; x < 16; x++) EXPECT(sub[y][x] == o2[y + 3][x + 5]);
  // 3D
  const int X = 20, Y = 7, Z = 5;
  cudaExtent ext = make_cudaExtent(X * 4, Y, Z);
  cudaPitchedPtr pp; CHECK(cudaMalloc3D(&pp, ext));
  static float h3[Z][Y][X], o3[Z][Y][X];
  for (int z = 0; z < Z; z++) for (int y = 0; y < Y; y++) for (int x = 0; x < X; x++) h3[z][y][x] = z * 1000 + y * 50 + x;
  CHECK(cudaMemset3D(pp, 0, ext));
  cudaMemcpy3DParms p = {0};
  p.srcPtr = make_cudaPitchedPtr(h3, X * 4, X, Y); p.dstPtr = pp; p.extent = ext; p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  add3d<<<dim3(Y, Z), 32>>>(pp, X, Y, Z);
  cudaMemcpy3DParms q = {0};
  q.srcPtr = pp; q.dstPtr = make_cudaPitchedPtr(o3, X * 4, X, Y); q.extent = ext; q.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3DAsync(&q, st)); CHECK(cudaStreamSynchronize(st));
  for (int z = 0; z < Z; z++) for (int y = 0; y < Y; y++) for (int x = 0; x < X; x++) EXPECT(o3[z][y][x] == h3[z][y][x] + 1.0f);
  // 3D with positions: copy a 4x3x2 box from (2,1,1)
  static float box[2][3][4];
  cudaMemcpy3DParms r = {0};
  r.srcPtr = pp; r.srcPos = make_cudaPos(2 * 4, 1, 1);
  r.dstPtr = make_cudaPitchedPtr(box, 16, 4, 3); r.extent = make_cudaExtent(16, 3, 2); r.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&r));
  for (int z = 0; z < 2; z++) for (int y = 0; y < 3; y++) for (int x = 0; x < 4; x++) EXPECT(box[z][y][x] == h3[z + 1][y + 1][x + 2] + 1.0f);
  CHECK(cudaFree(pp.ptr)); CHECK(cudaFree(d2)); CHECK(cudaFree(d2b)); CHECK(cudaFree(dx)); CHECK(cudaFree(dy));
  printf("PASS\n");
}
