// Streams with cudaLaunchHostFunc and cudaStreamAddCallback (order and count), events and
// timing, cross-stream waits, priorities and flags; the results against the host's.
#include <cstdio>
#include <vector>
#include <atomic>
#include "../../../examples/cuda/check.h"
__global__ void scale(float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + 1.0f;
}
struct Ctx { std::atomic<int> *count; int id; std::vector<int> *order; };
void CUDART_CB hostfn(void *p) { Ctx *c = (Ctx *)p; c->order->push_back(c->id); c->count->fetch_add(1); }
void CUDART_CB cb(cudaStream_t s, cudaError_t st, void *p) {
  Ctx *c = (Ctx *)p; if (st != cudaSuccess) printf("callback status %s\n", cudaGetErrorString(st));
  c->order->push_back(100 + c->id); c->count->fetch_add(1);
}
int main() {
  const int N = 1 << 16, NS = 4;
  cudaStream_t s[NS];
  float *h, *d;
  CHECK(cudaMallocHost(&h, N * NS * sizeof(float)));
  CHECK(cudaMalloc(&d, N * NS * sizeof(float)));
  for (int i = 0; i < N * NS; i++) h[i] = (float)(i % 1000);
  std::atomic<int> count{0};
  std::vector<int> order[NS];
  Ctx ctx[NS][2];
  cudaEvent_t start, stop, ev[NS];
  CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  for (int k = 0; k < NS; k++) {
    CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&ev[k], cudaEventDisableTiming));
    ctx[k][0] = {&count, k, &order[k]}; ctx[k][1] = {&count, k, &order[k]};
    float *dk = d + k * N, *hk = h + k * N;
    CHECK(cudaMemcpyAsync(dk, hk, N * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    scale<<<(N + 255) / 256, 256, 0, s[k]>>>(dk, N, 2.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaLaunchHostFunc(s[k], hostfn, &ctx[k][0]));
    CHECK(cudaStreamAddCallback(s[k], cb, &ctx[k][1], 0));
    CHECK(cudaMemcpyAsync(hk, dk, N * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    CHECK(cudaEventRecord(ev[k], s[k]));
  }
  // default stream waits for all
  for (int k = 0; k < NS; k++) CHECK(cudaStreamWaitEvent(0, ev[k], 0));
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0);
  // elapsed on a disable-timing event must fail
  float ms2;
  EXPECT(cudaEventElapsedTime(&ms2, start, ev[0]) == cudaErrorInvalidResourceHandle);
  for (int k = 0; k < NS; k++) EXPECT(cudaStreamQuery(s[k]) == cudaSuccess);
  for (int k = 0; k < NS; k++) CHECK(cudaStreamSynchronize(s[k]));
  EXPECT(count.load() == 2 * NS);
  for (int k = 0; k < NS; k++) { EXPECT(order[k].size() == 2 && order[k][0] == k && order[k][1] == 100 + k); }
  for (int i = 0; i < N * NS; i++) {
    float want = (float)(i % 1000) * 2.0f + 1.0f;
    if (h[i] != want) { printf("mismatch %d: %f %f\n", i, h[i], want); return 1; }
  }
  // priorities
  int lo, hi; CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  cudaStream_t ps; CHECK(cudaStreamCreateWithPriority(&ps, cudaStreamDefault, hi));
  int pr; CHECK(cudaStreamGetPriority(ps, &pr)); EXPECT(pr == hi);
  unsigned fl; CHECK(cudaStreamGetFlags(s[0], &fl)); EXPECT(fl == cudaStreamNonBlocking);
  CHECK(cudaStreamDestroy(ps));
  for (int k = 0; k < NS; k++) { CHECK(cudaStreamDestroy(s[k])); CHECK(cudaEventDestroy(ev[k])); }
  CHECK(cudaFreeHost(h)); CHECK(cudaFree(d));
  printf("elapsed %.3f ms, stream priorities %d to %d\nPASS\n", ms, lo, hi);
}
