// Streams, events and callbacks: async copies from pinned memory, kernels on two streams,
// event timing, a stream callback and a host function, each checked.
#include "check.h"

__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

static int callbacks = 0;
static void CUDART_CB on_done(cudaStream_t, cudaError_t status, void* data) {
  if (status == cudaSuccess) callbacks += *(int*)data;
}
static void CUDART_CB host_fn(void* data) { callbacks += 10 * *(int*)data; }

int main() {
  const int n = 1 << 16, half = n / 2;
  float *h, *d;
  CHECK(cudaMallocHost(&h, n * sizeof(float)));
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  for (int i = 0; i < n; i++) h[i] = i;
  cudaStream_t s[2];
  for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, s[0]));
  for (int k = 0; k < 2; k++) {
    float* hp = h + k * half; float* dp = d + k * half;
    CHECK(cudaMemcpyAsync(dp, hp, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    scale<<<(half + 255) / 256, 256, 0, s[k]>>>(dp, k + 2.0f, half);
    CHECK(cudaMemcpyAsync(hp, dp, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
  }
  int one = 1;
  CHECK(cudaStreamAddCallback(s[0], on_done, &one, 0));
  CHECK(cudaLaunchHostFunc(s[1], host_fn, &one));
  CHECK(cudaStreamWaitEvent(s[1], start, 0));
  CHECK(cudaEventRecord(stop, s[1]));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaStreamSynchronize(s[0]));
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0.0f);
  EXPECT(cudaStreamQuery(s[0]) == cudaSuccess);
  for (int i = 0; i < n; i++) EXPECT(h[i] == (float)i * (i < half ? 2.0f : 3.0f));
  EXPECT(callbacks == 11);
  for (auto& st : s) CHECK(cudaStreamDestroy(st));
  CHECK(cudaEventDestroy(start)); CHECK(cudaEventDestroy(stop));
  CHECK(cudaFreeHost(h)); CHECK(cudaFree(d));
  std::printf("PASS\n");
  return 0;
}
