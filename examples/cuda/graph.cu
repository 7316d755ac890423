// A graph captured from a stream and replayed: each replay adds 1 to every element.
#include "check.h"

__global__ void inc(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }

int main() {
  const int n = 1000;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemset(d, 0, n * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  inc<<<(n + 127) / 128, 128, 0, s>>>(d, n);
  inc<<<(n + 127) / 128, 128, 0, s>>>(d, n);
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int r = 0; r < 3; r++) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  int h[n];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(h[i] == 6);
  CHECK(cudaGraphExecDestroy(exec)); CHECK(cudaGraphDestroy(g));
  std::printf("PASS\n");
  return 0;
}
