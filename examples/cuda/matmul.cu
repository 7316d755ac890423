// Tiled matrix multiply with shared memory.
#include "check.h"
#include <cmath>
#include <vector>
#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}

int main() {
  const int n = 100;
  std::vector<float> A(n * n), B(n * n), C(n * n);
  for (int i = 0; i < n * n; i++) { A[i] = (i % 7) - 3; B[i] = (i % 5) * 0.25f; }
  float *dA, *dB, *dC;
  size_t bytes = n * n * sizeof(float);
  CHECK(cudaMalloc(&dA, bytes)); CHECK(cudaMalloc(&dB, bytes)); CHECK(cudaMalloc(&dC, bytes));
  CHECK(cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), bytes, cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  matmul<<<grid, block>>>(dA, dB, dC, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float ref = 0.0f;
      for (int k = 0; k < n; k++) ref += A[i * n + k] * B[k * n + j];
      EXPECT(std::fabs(C[i * n + j] - ref) <= 1e-3f * (1.0f + std::fabs(ref)));
    }
  std::printf("PASS\n");
  return 0;
}
