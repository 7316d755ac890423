// A new user's kernels (the ptx-tests cases warp_scan, spmv_csr, stencil2d and bitonic_sort,
// included from their .cu files) in a program as a CUDA programmer writes it: cudaMalloc,
// cudaMemcpy, <<<...>>> with static and dynamic shared memory, 1-D and 2-D grids, and each
// result compared with the host's own computation of it (sums modulo 2^32; dyadic floats so
// that every order of summation is exact). Prints one line with what it checked, then PASS.
#include <cstdio>
#include <cstring>
#include <vector>
#include "../../../examples/cuda/check.h"
#include "../../../ptx-tests/kernels/warp_scan/warp_scan.cu"
#include "../../../ptx-tests/kernels/spmv_csr/spmv_csr.cu"
#include "../../../ptx-tests/kernels/stencil2d/stencil2d.cu"
#include "../../../ptx-tests/kernels/bitonic_sort/bitonic_sort.cu"

static unsigned long long lcg_state = 0x2026120717u;
static unsigned next_u32() {
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(lcg_state >> 32);
}

template <typename T>
static T *to_device(const std::vector<T> &h) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
static std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static int check_scan() {
  const int n = 3000, block = 128, grid = (n + block - 1) / block;
  std::vector<unsigned> in(n);
  for (auto &v : in) v = next_u32();
  unsigned *d_in = to_device(in), *d_out, *d_sums;
  CHECK(cudaMalloc(&d_out, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_sums, grid * sizeof(unsigned)));
  warp_scan<<<grid, block>>>(d_in, d_out, d_sums, n);
  CHECK(cudaGetLastError());
  auto out = to_host(d_out, n);
  auto sums = to_host(d_sums, grid);
  for (int b = 0; b < grid; ++b) {
    unsigned acc = 0;
    for (int i = b * block; i < n && i < (b + 1) * block; ++i) {
      acc += in[i];
      EXPECT(out[i] == acc);
    }
    EXPECT(sums[b] == acc);
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_sums));
  return n;
}

static int check_spmv() {
  const int rows = 500, cols = 300;
  std::vector<int> row_ptr(rows + 1, 0), col_idx;
  std::vector<float> vals, x(cols);
  for (auto &v : x) v = (float)((int)(next_u32() % 128) - 64) / 16.0f;
  for (int r = 0; r < rows; ++r) {
    int len = r % 13 == 0 ? 0 : (r % 29 == 1 ? 40 + (int)(next_u32() % 60) : (int)(next_u32() % 32));
    for (int k = 0; k < len; ++k) {
      col_idx.push_back((int)(next_u32() % cols));
      vals.push_back((float)((int)(next_u32() % 128) - 64) / 16.0f);
    }
    row_ptr[r + 1] = (int)col_idx.size();
  }
  int *d_rp = to_device(row_ptr), *d_ci = to_device(col_idx);
  float *d_v = to_device(vals), *d_x = to_device(x), *d_y;
  CHECK(cudaMalloc(&d_y, rows * sizeof(float)));
  for (int form = 0; form < 2; ++form) {
    CHECK(cudaMemset(d_y, 0xff, rows * sizeof(float)));  // NaN
    if (form == 0)
      spmv_csr_vector<<<(rows * 32 + 255) / 256, 256>>>(rows, d_rp, d_ci, d_v, d_x, d_y);
    else
      spmv_csr_scalar<<<(rows + 127) / 128, 128>>>(rows, d_rp, d_ci, d_v, d_x, d_y);
    CHECK(cudaGetLastError());
    auto y = to_host(d_y, rows);
    for (int r = 0; r < rows; ++r) {
      double want = 0.0;
      for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) want += (double)vals[k] * x[col_idx[k]];
      EXPECT(y[r] == (float)want);
    }
  }
  CHECK(cudaFree(d_rp));
  CHECK(cudaFree(d_ci));
  CHECK(cudaFree(d_v));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  return (int)vals.size();
}

static int check_stencil() {
  const int w = 70, h = 45;
  std::vector<float> in(w * h);
  for (auto &v : in) v = (float)(next_u32() % 65536);
  float *d_in = to_device(in), *d_out;
  CHECK(cudaMalloc(&d_out, w * h * sizeof(float)));
  stencil2d<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(d_in, d_out, w, h);
  CHECK(cudaGetLastError());
  auto out = to_host(d_out, w * h);
  auto at = [&](int x, int y) {
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    return (double)in[y * w + x];
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double want = 0.5 * at(x, y) + 0.125 * (at(x, y - 1) + at(x, y + 1) + at(x + 1, y) + at(x - 1, y));
      EXPECT(out[y * w + x] == (float)want);
    }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return w * h;
}

static int check_sort() {
  const int block = 128, seg = 2 * block, grid = 6, n = grid * seg;
  std::vector<unsigned> keys(n), vals(n);
  for (int i = 0; i < n; ++i) {
    keys[i] = (next_u32() & ~0xfffu) | (unsigned)i;  // distinct: the index in the low bits
    vals[i] = (unsigned)i;
  }
  unsigned *d_k = to_device(keys), *d_v = to_device(vals);
  bitonic_sort<<<grid, block, 2 * seg * sizeof(unsigned)>>>(d_k, d_v);
  CHECK(cudaGetLastError());
  auto k = to_host(d_k, n);
  auto v = to_host(d_v, n);
  for (int b = 0; b < grid; ++b)
    for (int i = b * seg; i < (b + 1) * seg; ++i) {
      EXPECT(v[i] >= (unsigned)(b * seg) && v[i] < (unsigned)((b + 1) * seg));
      EXPECT(k[i] == keys[v[i]]);
      if (i > b * seg) EXPECT(k[i - 1] < k[i]);
    }
  CHECK(cudaFree(d_k));
  CHECK(cudaFree(d_v));
  return n;
}

int main() {
  int scanned = check_scan();
  int nonzeros = check_spmv();
  int cells = check_stencil();
  int sorted = check_sort();
  CHECK(cudaDeviceSynchronize());
  std::printf("user_kernels scan=%d spmv_nnz=%d stencil=%d sort=%d\n", scanned, nonzeros, cells,
              sorted);
  std::printf("PASS\n");
  return 0;
}
