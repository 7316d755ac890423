// A graph captured from a stream and replayed: each replay adds 2 to every element, and
// records a 2D memset and a 2D copy of the first rows into a second buffer (the async 2D forms
// are captured, not run at capture time). Then a graph built node by node whose kernel node's
// arguments are read back and changed in the instantiated graph, as the CUDA samples do. Last,
// an instantiated graph updated from a graph captured again with other arguments
// (cudaGraphExecUpdate), and an update refused because the topology changed.
#include "check.h"

__global__ void inc(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }

int main() {
  const int n = 1000;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemset(d, 0, n * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const size_t row = 100 * sizeof(int);
  int* t;
  CHECK(cudaMalloc(&t, 4 * row));
  CHECK(cudaMemset(t, 0, 4 * row));
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  inc<<<(n + 127) / 128, 128, 0, s>>>(d, n);
  inc<<<(n + 127) / 128, 128, 0, s>>>(d, n);
  // Rows of 100 ints (`t`, made before the capture): row 0 of `t` filled with bytes 0x01, then rows 1..3 copied from `d`.
  CHECK(cudaMemset2DAsync(t, row, 1, row, 1, s));
  CHECK(cudaMemcpy2DAsync(t + 100, row, d, row, row, 3, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamEndCapture(s, &g));
  int before[400];
  CHECK(cudaMemcpy(before, t, sizeof before, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 400; i++) EXPECT(before[i] == 0);
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int r = 0; r < 3; r++) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  int h[n];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(h[i] == 6);
  int ht[400];
  CHECK(cudaMemcpy(ht, t, sizeof ht, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 100; i++) EXPECT(ht[i] == 0x01010101);
  for (int i = 100; i < 400; i++) EXPECT(ht[i] == 6);
  CHECK(cudaFree(t));
  CHECK(cudaGraphExecDestroy(exec)); CHECK(cudaGraphDestroy(g));

  // Node by node: inc(d, 10) as a kernel node; the executable graph's node then runs on d + 10.
  cudaGraph_t g2;
  CHECK(cudaGraphCreate(&g2, 0));
  int* arg_p = d;
  int arg_n = 10;
  void* args[] = {&arg_p, &arg_n};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)inc;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(32);
  kp.kernelParams = args;
  cudaGraphNode_t kn;
  CHECK(cudaGraphAddKernelNode(&kn, g2, nullptr, 0, &kp));
  cudaKernelNodeParams got = {};
  CHECK(cudaGraphKernelNodeGetParams(kn, &got));
  EXPECT(got.func == (void*)inc && got.blockDim.x == 32 && got.gridDim.x == 1);
  cudaGraphExec_t exec2;
  CHECK(cudaGraphInstantiate(&exec2, g2, 0));
  CHECK(cudaGraphLaunch(exec2, s));
  int* moved = d + 10;
  void* args2[] = {&moved, &arg_n};
  kp.kernelParams = args2;
  CHECK(cudaGraphExecKernelNodeSetParams(exec2, kn, &kp));
  CHECK(cudaGraphLaunch(exec2, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(h[i] == (i < 20 ? 7 : 6));
  // Changing the graph's own node: the next instantiation runs it.
  kp.gridDim = dim3(2);
  CHECK(cudaGraphKernelNodeSetParams(kn, &kp));
  CHECK(cudaGraphKernelNodeGetParams(kn, &got));
  EXPECT(got.gridDim.x == 2);
  CHECK(cudaGraphExecDestroy(exec2)); CHECK(cudaGraphDestroy(g2));

  // Capture, instantiate, capture the same work on other data, update, relaunch.
  CHECK(cudaMemset(d, 0, n * sizeof(int)));
  auto capture = [&](int* p, int count, int value, int kernels) {
    cudaGraph_t cg;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemsetAsync(p, value, count * sizeof(int), s));
    for (int k = 0; k < kernels; k++) inc<<<(count + 127) / 128, 128, 0, s>>>(p, count);
    CHECK(cudaStreamEndCapture(s, &cg));
    return cg;
  };
  cudaGraph_t ga = capture(d, 100, 0, 1);
  cudaGraphExec_t ex;
  CHECK(cudaGraphInstantiate(&ex, ga, 0));
  cudaGraph_t gb = capture(d + 500, 200, 1, 1);
  cudaGraphExecUpdateResultInfo info;
  info.result = cudaGraphExecUpdateErrorNotSupported;
  CHECK(cudaGraphExecUpdate(ex, gb, &info));
  EXPECT(info.result == cudaGraphExecUpdateSuccess);
  CHECK(cudaGraphLaunch(ex, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  // Only the updated work ran: bytes 0x01 then +1 on d[500..700); d[0..100) untouched.
  for (int i = 0; i < n; i++) EXPECT(h[i] == (i >= 500 && i < 700 ? 0x01010102 : 0));
  // One more kernel node: the update is refused and the executable graph is unchanged.
  cudaGraph_t gc = capture(d, 10, 0, 2);
  info = {};
  EXPECT(cudaGraphExecUpdate(ex, gc, &info) == cudaErrorGraphExecUpdateFailure);
  EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT(info.errorNode == nullptr);
  CHECK(cudaGraphLaunch(ex, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(h[i] == (i >= 500 && i < 700 ? 0x01010102 : 0));
  CHECK(cudaGraphExecDestroy(ex));
  CHECK(cudaGraphDestroy(ga)); CHECK(cudaGraphDestroy(gb)); CHECK(cudaGraphDestroy(gc));
  std::printf("PASS\n");
  return 0;
}
