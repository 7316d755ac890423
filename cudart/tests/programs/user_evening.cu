// A new user's evening (the ptx-tests cases nbody, half2_ops, transpose_tile and radix_count,
// included from their .cu files) as a CUDA program: float4 bodies and rsqrtf, __half2
// arithmetic with a __half2 argument by value, a padded __shared__ transpose on a 2-D grid,
// and __ballot_sync/__popc digit counts in dynamic `extern __shared__` memory; each result
// compared with the host's own computation (double for the N-body step, with a tolerance for
// rsqrtf's approximation). Prints one line with what it checked, then PASS.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include "../../../examples/cuda/check.h"
#include "../../../ptx-tests/kernels/nbody/nbody.cu"
#include "../../../ptx-tests/kernels/half2_ops/half2_ops.cu"
#include "../../../ptx-tests/kernels/transpose_tile/transpose_tile.cu"
#include "../../../ptx-tests/kernels/radix_count/radix_count.cu"

static unsigned long long lcg_state = 0x2026120720u;
static unsigned next_u32() {
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(lcg_state >> 32);
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (next_u32() >> 8) / 16777216.0f; }

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

static bool close(double got, double want, double rel, double abs) {
  return std::fabs(got - want) <= abs || std::fabs(got - want) <= rel * std::fabs(want);
}

static int check_nbody() {
  const int n = 300, block = NBODY_TILE, grid = (n + block - 1) / block;
  const float dt = 0.01f, eps2 = 0.01f;
  std::vector<float4> pos(n), vel(n);
  for (int i = 0; i < n; ++i) {
    pos[i] = make_float4(uniform(-10, 10), uniform(-10, 10), uniform(-10, 10), uniform(0.5f, 2));
    vel[i] = make_float4(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), 7.0f);
  }
  float4 *d_pos = to_device(pos), *d_vel = to_device(vel), *d_new;
  CHECK(cudaMalloc(&d_new, n * sizeof(float4)));
  nbody_step<<<grid, block>>>(d_pos, d_vel, d_new, n, dt, eps2);
  CHECK(cudaGetLastError());
  auto v = to_host(d_vel, n);
  auto p = to_host(d_new, n);
  for (int i = 0; i < n; ++i) {
    double a[3] = {0, 0, 0};
    for (int j = 0; j < n; ++j) {
      double d[3] = {(double)pos[j].x - pos[i].x, (double)pos[j].y - pos[i].y,
                     (double)pos[j].z - pos[i].z};
      double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
      double s = pos[j].w / (d2 * std::sqrt(d2));
      for (int c = 0; c < 3; ++c) a[c] += d[c] * s;
    }
    double vw[3] = {vel[i].x + a[0] * dt, vel[i].y + a[1] * dt, vel[i].z + a[2] * dt};
    double pw[3] = {pos[i].x + vw[0] * dt, pos[i].y + vw[1] * dt, pos[i].z + vw[2] * dt};
    double vg[3] = {v[i].x, v[i].y, v[i].z}, pg[3] = {p[i].x, p[i].y, p[i].z};
    for (int c = 0; c < 3; ++c) {
      EXPECT(close(vg[c], vw[c], 1e-4, 1e-4));
      EXPECT(close(pg[c], pw[c], 1e-5, 1e-5));
    }
    EXPECT(v[i].w == 7.0f && p[i].w == pos[i].w);
  }
  CHECK(cudaFree(d_pos));
  CHECK(cudaFree(d_vel));
  CHECK(cudaFree(d_new));
  return n;
}

static unsigned short bits(__half h) {
  unsigned short b;
  std::memcpy(&b, &h, 2);
  return b;
}

static int check_half2() {
  const int n2 = 777, block = 128, grid = (n2 + block - 1) / block;
  // Multiples of 2^-8 in [-4, 4): a*x+y and x*y are exact in float before their rounding.
  std::vector<float> xf(2 * n2), yf(2 * n2);
  std::vector<__half2> x(n2), y(n2);
  for (int i = 0; i < 2 * n2; ++i) {
    xf[i] = ((int)(next_u32() % 2048) - 1024) / 256.0f;
    yf[i] = ((int)(next_u32() % 2048) - 1024) / 256.0f;
  }
  for (int i = 0; i < n2; ++i) {
    x[i] = __floats2half2_rn(xf[2 * i], xf[2 * i + 1]);
    y[i] = __floats2half2_rn(yf[2 * i], yf[2 * i + 1]);
  }
  const float a[2] = {1.5f, -0.75f};
  __half2 *d_x = to_device(x), *d_y = to_device(y), *d_axpy, *d_relu, *d_scaled;
  float *d_dot;
  CHECK(cudaMalloc(&d_axpy, n2 * sizeof(__half2)));
  CHECK(cudaMalloc(&d_relu, n2 * sizeof(__half2)));
  CHECK(cudaMalloc(&d_scaled, n2 * sizeof(__half2)));
  CHECK(cudaMalloc(&d_dot, n2 * sizeof(float)));
  half2_ops<<<grid, block>>>(d_x, d_y, __floats2half2_rn(a[0], a[1]), n2, d_axpy, d_relu, d_dot,
                             d_scaled);
  CHECK(cudaGetLastError());
  auto axpy = to_host(d_axpy, n2), relu = to_host(d_relu, n2), scaled = to_host(d_scaled, n2);
  auto dot = to_host(d_dot, n2);
  for (int i = 0; i < n2; ++i) {
    const __half *ax = reinterpret_cast<const __half *>(&axpy[i]);
    const __half *re = reinterpret_cast<const __half *>(&relu[i]);
    const __half *sc = reinterpret_cast<const __half *>(&scaled[i]);
    float prod = 0;
    for (int h = 0; h < 2; ++h) {
      float xv = xf[2 * i + h], yv = yf[2 * i + h];
      EXPECT(bits(ax[h]) == bits(__float2half_rn(a[h] * xv + yv)));
      EXPECT(bits(re[h]) == bits(__float2half_rn(xv > 0 ? xv : 0.0f)));
      EXPECT(bits(sc[h]) == bits(__float2half_rn(xv * (h ? 3.0f : 0.5f))));
      prod += __half2float(__float2half_rn(xv * yv));
    }
    EXPECT(dot[i] == prod);
  }
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_axpy));
  CHECK(cudaFree(d_relu));
  CHECK(cudaFree(d_scaled));
  CHECK(cudaFree(d_dot));
  return n2;
}

static int check_transpose() {
  const int w = 131, h = 45;
  std::vector<float> in(w * h);
  for (auto &v : in) v = uniform(-1, 1);
  float *d_in = to_device(in), *d_out;
  CHECK(cudaMalloc(&d_out, w * h * sizeof(float)));
  dim3 grid((w + TILE_DIM - 1) / TILE_DIM, (h + TILE_DIM - 1) / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  transpose_tile<<<grid, block>>>(d_out, d_in, w, h);
  CHECK(cudaGetLastError());
  auto out = to_host(d_out, w * h);
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) EXPECT(out[c * h + r] == in[r * w + c]);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return w * h;
}

static int check_radix() {
  const int n = 5000, block = 256, grid = (n + block - 1) / block, shift = 8;
  std::vector<unsigned> keys(n);
  for (auto &k : keys) k = next_u32();
  unsigned *d_keys = to_device(keys), *d_counts;
  CHECK(cudaMalloc(&d_counts, grid * RADIX * sizeof(unsigned)));
  radix_count<<<grid, block, block / 32 * RADIX * sizeof(unsigned)>>>(d_keys, n, shift, d_counts);
  CHECK(cudaGetLastError());
  auto counts = to_host(d_counts, grid * RADIX);
  std::vector<unsigned> want(grid * RADIX, 0);
  for (int i = 0; i < n; ++i) want[i / block * RADIX + ((keys[i] >> shift) & (RADIX - 1))]++;
  int total = 0;
  for (int i = 0; i < grid * RADIX; ++i) {
    EXPECT(counts[i] == want[i]);
    total += counts[i];
  }
  CHECK(cudaFree(d_keys));
  CHECK(cudaFree(d_counts));
  return total;
}

int main() {
  int bodies = check_nbody();
  int pairs = check_half2();
  int cells = check_transpose();
  int counted = check_radix();
  CHECK(cudaDeviceSynchronize());
  std::printf("user_evening nbody=%d half2=%d transpose=%d radix=%d\n", bodies, pairs, cells,
              counted);
  std::printf("PASS\n");
  return 0;
}
