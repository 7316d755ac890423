// A pipeline captured from two streams into one graph and launched several times: a
// stream-ordered allocation (cudaMallocAsync, freed with cudaFreeAsync in the same capture), a
// copy in, a fork to a second stream through an event (which scales another buffer while the
// first stream runs a host function), the join back through an event, a kernel on the
// graph's allocation and a copy out. The captured graph is then embedded as a child node of
// a graph built by hand, followed by an event-record node and a host node.
#include "check.h"
#include <vector>

__global__ void axpc(int* x, int m, int c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * m + c;
}

static int host_calls = 0;
static void CUDART_CB count_call(void* data) { ++*static_cast<int*>(data); }

int main() {
  const int n = 1000;
  const size_t bytes = n * sizeof(int);
  std::vector<int> in(n), start(n);
  for (int i = 0; i < n; i++) { in[i] = 3 * i + 7; start[i] = i ^ 0x55; }
  int *x, *y;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMemcpy(x, start.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(y, 0, bytes));
  cudaStream_t s, s2;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));

  cudaGraph_t g;
  int* tmp = nullptr;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&tmp, bytes, s));
  CHECK(cudaMemcpyAsync(tmp, in.data(), bytes, cudaMemcpyHostToDevice, s));
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  axpc<<<(n + 127) / 128, 128, 0, s2>>>(x, 5, 2, n);
  CHECK(cudaGetLastError());
  CHECK(cudaLaunchHostFunc(s, count_call, &host_calls));
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s, join, 0));
  axpc<<<(n + 127) / 128, 128, 0, s>>>(tmp, 3, 1, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(y, tmp, bytes, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaFreeAsync(tmp, s));
  CHECK(cudaStreamEndCapture(s, &g));
  EXPECT(tmp != nullptr);
  EXPECT(host_calls == 0);  // captured, not run

  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 7);  // alloc, copy in, kernel (s2), host function, kernel, copy out, free
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK(cudaGraphGetNodes(g, nodes.data(), &count));
  int allocs = 0, frees = 0, hosts = 0, kernels = 0;
  for (auto node : nodes) {
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(node, &t));
    allocs += t == cudaGraphNodeTypeMemAlloc;
    frees += t == cudaGraphNodeTypeMemFree;
    hosts += t == cudaGraphNodeTypeHost;
    kernels += t == cudaGraphNodeTypeKernel;
  }
  EXPECT(allocs == 1 && frees == 1 && hosts == 1 && kernels == 2);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  std::vector<int> want_x = start, want_y(n), got(n);
  for (int i = 0; i < n; i++) want_y[i] = in[i] * 3 + 1;
  for (int r = 1; r <= 4; r++) {
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++) want_x[i] = want_x[i] * 5 + 2;
    CHECK(cudaMemcpy(got.data(), x, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(got[i] == want_x[i]);
    CHECK(cudaMemcpy(got.data(), y, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(got[i] == want_y[i]);
    EXPECT(host_calls == r);
  }
  CHECK(cudaGraphExecDestroy(exec));

  // The captured graph as a child of a graph built by hand, then an event-record node and a
  // host node: launched twice.
  cudaGraph_t parent;
  CHECK(cudaGraphCreate(&parent, 0));
  cudaGraphNode_t child, record, host;
  // A child graph may not hold memory nodes: the captured graph does.
  EXPECT(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, g) == cudaErrorInvalidValue);
  cudaGetLastError();
  cudaGraph_t scale;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  axpc<<<(n + 127) / 128, 128, 0, s>>>(x, 7, 0, n);
  CHECK(cudaStreamEndCapture(s, &scale));
  CHECK(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, scale));
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  CHECK(cudaGraphAddEventRecordNode(&record, parent, &child, 1, done));
  cudaHostNodeParams hp = {count_call, &host_calls};
  CHECK(cudaGraphAddHostNode(&host, parent, &record, 1, &hp));
  CHECK(cudaGraphInstantiate(&exec, parent, 0));
  for (int r = 0; r < 2; r++) {
    CHECK(cudaGraphLaunch(exec, s));
    for (int i = 0; i < n; i++) want_x[i] = want_x[i] * 7;
  }
  CHECK(cudaEventSynchronize(done));
  CHECK(cudaMemcpy(got.data(), x, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(got[i] == want_x[i]);
  EXPECT(host_calls == 6);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(parent));
  CHECK(cudaGraphDestroy(scale));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  std::printf("PASS\n");
  return 0;
}
