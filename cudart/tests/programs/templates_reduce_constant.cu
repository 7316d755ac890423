// Templates and C++ lambdas in kernels, a block reduction written by hand as CUB's
// BlockReduce does it (warp shuffles, then one warp over the warps' partials), __constant__
// coefficients set with cudaMemcpyToSymbol, and dynamic shared memory above 48 KiB after
// cudaFuncSetAttribute. Each result is checked against the host's computation.
#include <cstdio>
#include <cstdint>
#include <vector>
#include "../../../examples/cuda/check.h"

__constant__ float coef[8];
__constant__ int offset;

template <typename T, int BLOCK>
struct BlockReduce {
  static constexpr int WARPS = BLOCK / 32;
  struct TempStorage { T partial[WARPS]; };
  TempStorage& tmp;
  __device__ explicit BlockReduce(TempStorage& t) : tmp(t) {}
  template <typename Op>
  __device__ T reduce(T v, Op op) {
    for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) tmp.partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
      v = lane < WARPS ? tmp.partial[lane] : T();
      for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
    }
    return v;  // valid in thread 0
  }
};

template <typename T, int BLOCK, typename F>
__global__ void map_reduce(const T* in, T* out, int n, F f) {
  __shared__ typename BlockReduce<T, BLOCK>::TempStorage tmp;
  T acc = T();
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) acc += f(in[i]);
  T total = BlockReduce<T, BLOCK>(tmp).reduce(acc, [](T a, T b) { return a + b; });
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

template <typename T>
__global__ void block_max(const T* in, T* out, int n) {
  __shared__ typename BlockReduce<T, 256>::TempStorage tmp;
  int i = blockIdx.x * 256 + threadIdx.x;
  T v = i < n ? in[i] : in[0];
  auto mx = [] __device__(T a, T b) { return a > b ? a : b; };
  T m = BlockReduce<T, 256>(tmp).reduce(v, mx);
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}

// Polynomial with __constant__ coefficients (Horner), shifted by a __constant__ int.
__global__ void poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int k = 7; k >= 0; --k) acc = acc * x[i] + coef[k];
  y[i] = acc + offset;
}

// Reverses each block's 16384 ints (64 KiB) through dynamic shared memory.
__global__ void reverse_big(const int* in, int* out) {
  extern __shared__ int buf[];
  const int per = 16384;
  const int* src = in + blockIdx.x * per;
  for (int i = threadIdx.x; i < per; i += blockDim.x) buf[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < per; i += blockDim.x) out[blockIdx.x * per + i] = buf[per - 1 - i];
}

struct Square { __device__ double operator()(double v) const { return v * v; } };

int main() {
  const int n = 100003;
  std::vector<int> hi(n);
  std::vector<double> hd(n);
  for (int i = 0; i < n; ++i) { hi[i] = (int)((i * 2654435761u) % 1000) - 500; hd[i] = (i % 97) * 0.25; }
  int *di, *dout; double *dd, *ddout;
  CHECK(cudaMalloc(&di, n * sizeof(int)));
  CHECK(cudaMalloc(&dd, n * sizeof(double)));
  CHECK(cudaMalloc(&dout, 64 * sizeof(int)));
  CHECK(cudaMalloc(&ddout, 64 * sizeof(double)));
  CHECK(cudaMemcpy(di, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dd, hd.data(), n * sizeof(double), cudaMemcpyHostToDevice));

  // Sum of |x| over ints with a device lambda (extended lambda) and a functor on doubles.
  const int blocks = 64;
  map_reduce<int, 128><<<blocks, 128>>>(di, dout, n, [] __device__(int v) { return v < 0 ? -v : v; });
  CHECK(cudaGetLastError());
  map_reduce<double, 256><<<blocks, 256>>>(dd, ddout, n, Square());
  CHECK(cudaGetLastError());
  std::vector<int> pi(blocks); std::vector<double> pd(blocks);
  CHECK(cudaMemcpy(pi.data(), dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(pd.data(), ddout, blocks * sizeof(double), cudaMemcpyDeviceToHost));
  long long si = 0, wi = 0; double sd = 0, wd = 0;
  for (int b = 0; b < blocks; ++b) { si += pi[b]; sd += pd[b]; }
  for (int i = 0; i < n; ++i) { wi += hi[i] < 0 ? -hi[i] : hi[i]; wd += hd[i] * hd[i]; }
  EXPECT(si == wi);
  EXPECT(sd == wd);  // squares of quarter steps sum exactly in double

  // Per-block maximum with a generic lambda over float.
  std::vector<float> hf(n);
  for (int i = 0; i < n; ++i) hf[i] = (float)((i * 7919) % 10007) / 7.f;
  float *df, *dfo; const int mb = (n + 255) / 256;
  CHECK(cudaMalloc(&df, n * sizeof(float)));
  CHECK(cudaMalloc(&dfo, mb * sizeof(float)));
  CHECK(cudaMemcpy(df, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  block_max<float><<<mb, 256>>>(df, dfo, n);
  std::vector<float> mo(mb);
  CHECK(cudaMemcpy(mo.data(), dfo, mb * sizeof(float), cudaMemcpyDeviceToHost));
  for (int b = 0; b < mb; ++b) {
    float m = hf[b * 256];
    for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) m = hf[i] > m ? hf[i] : m;
    EXPECT(mo[b] == m);
  }

  // __constant__ memory.
  float hc[8] = {1.f, -0.5f, 0.25f, 0.f, 2.f, 0.f, 0.f, 0.125f};
  int off = 3;
  CHECK(cudaMemcpyToSymbol(coef, hc, sizeof hc));
  CHECK(cudaMemcpyToSymbol(offset, &off, sizeof off));
  float back[8];
  CHECK(cudaMemcpyFromSymbol(back, coef, sizeof back));
  for (int k = 0; k < 8; ++k) EXPECT(back[k] == hc[k]);
  const int m = 1000;
  std::vector<float> hx(m), hy(m);
  for (int i = 0; i < m; ++i) hx[i] = (i - 500) / 256.f;
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, m * 4)); CHECK(cudaMalloc(&dy, m * 4));
  CHECK(cudaMemcpy(dx, hx.data(), m * 4, cudaMemcpyHostToDevice));
  poly<<<(m + 127) / 128, 128>>>(dx, dy, m);
  CHECK(cudaMemcpy(hy.data(), dy, m * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i) {
    float acc = 0.f;
    for (int k = 7; k >= 0; --k) acc = acc * hx[i] + hc[k];
    float want = acc + off;
    EXPECT(fabsf(hy[i] - want) <= 1e-5f * fabsf(want) + 1e-6f);
  }

  // 64 KiB of dynamic shared memory: refused until the attribute allows it.
  const int per = 16384, nb = 4;
  std::vector<int> hr(per * nb), ho(per * nb);
  for (int i = 0; i < per * nb; ++i) hr[i] = i * 3 + 1;
  int *dr, *dro;
  CHECK(cudaMalloc(&dr, per * nb * 4)); CHECK(cudaMalloc(&dro, per * nb * 4));
  CHECK(cudaMemcpy(dr, hr.data(), per * nb * 4, cudaMemcpyHostToDevice));
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, reverse_big));
  EXPECT(fa.maxDynamicSharedSizeBytes == 48 * 1024);
  int optin = 0;
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  EXPECT(optin >= per * 4);
  CHECK(cudaFuncSetAttribute(reverse_big, cudaFuncAttributeMaxDynamicSharedMemorySize, per * 4));
  CHECK(cudaFuncGetAttributes(&fa, reverse_big));
  EXPECT(fa.maxDynamicSharedSizeBytes == per * 4);
  reverse_big<<<nb, 256, per * 4>>>(dr, dro);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(ho.data(), dro, per * nb * 4, cudaMemcpyDeviceToHost));
  for (int b = 0; b < nb; ++b)
    for (int i = 0; i < per; ++i) EXPECT(ho[b * per + i] == hr[b * per + per - 1 - i]);
  // More than the opt-in limit is refused at the launch.
  EXPECT(cudaFuncSetAttribute(reverse_big, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 4) == cudaErrorInvalidValue);
  CHECK(cudaDeviceSynchronize());
  printf("PASS\n");
  return 0;
}
