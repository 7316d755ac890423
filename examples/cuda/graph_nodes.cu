// A graph built node by node with the calls CUDA 12 and 13 programs use to assemble one
// without capture: a 3D-parameter copy node (host to device), a memset node, a kernel node
// and a 1D copy node (device to host), added without dependencies and then ordered with
// cudaGraphAddDependencies; its edges read back with cudaGraphGetEdges; cloned
// (cudaGraphClone), the original destroyed, the clone run twice (the copy node reads the
// host buffer when it runs); and written as a DOT file (cudaGraphDebugDotPrint).
#include "check.h"
#include <cstring>
#include <utility>
#include <vector>

__global__ void add(int* x, const int* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += t[i];
}

int main() {
  const int n = 256;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; i++) in[i] = i;
  int *d, *t;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&t, n * sizeof(int)));
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));

  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(in.data(), n * sizeof(int), n * sizeof(int), 1);
  cp.dstPtr = make_cudaPitchedPtr(d, n * sizeof(int), n * sizeof(int), 1);
  cp.extent = make_cudaExtent(n * sizeof(int), 1, 1);
  cp.kind = cudaMemcpyHostToDevice;
  cudaGraphNode_t upload, fill, kernel, download;
  CHECK(cudaGraphAddMemcpyNode(&upload, g, nullptr, 0, &cp));

  cudaMemsetParams mp = {};
  mp.dst = t;
  mp.value = 7;
  mp.elementSize = sizeof(int);
  mp.width = n;
  mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&fill, g, nullptr, 0, &mp));

  int* xa = d;
  int* ta = t;
  int na = n;
  void* args[] = {&xa, &ta, &na};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)add;
  kp.gridDim = dim3((n + 63) / 64);
  kp.blockDim = dim3(64);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kernel, g, nullptr, 0, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&download, g, nullptr, 0, out.data(), d, n * sizeof(int),
                                 cudaMemcpyDeviceToHost));

  // upload -> kernel, fill -> kernel, kernel -> download.
  cudaGraphNode_t from[] = {upload, fill, kernel};
  cudaGraphNode_t to[] = {kernel, kernel, download};
  CHECK(cudaGraphAddDependencies(g, from, to, nullptr, 3));
  // The same edge again is an error.
  EXPECT(cudaGraphAddDependencies(g, from, to, nullptr, 1) == cudaErrorInvalidValue);
  (void)cudaGetLastError();

  size_t count = 0;
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
  EXPECT(count == 3);
  cudaGraphNode_t ef[4], et[4];
  count = 4;
  CHECK(cudaGraphGetEdges(g, ef, et, nullptr, &count));
  EXPECT(count == 3);
  EXPECT(ef[3] == nullptr && et[3] == nullptr);
  for (int e = 0; e < 3; e++) {
    bool found = false;
    for (int k = 0; k < 3; k++) found |= ef[k] == from[e] && et[k] == to[e];
    EXPECT(found);
  }

  cudaGraph_t copy;
  CHECK(cudaGraphClone(&copy, g));
  CHECK(cudaGraphDestroy(g));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(copy, nullptr, &nodes));
  EXPECT(nodes == 4);
  count = 0;
  CHECK(cudaGraphGetEdges(copy, nullptr, nullptr, nullptr, &count));
  EXPECT(count == 3);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, copy, 0));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; i++) EXPECT(out[i] == i + 7);
  // The copy node reads the host buffer when it runs.
  for (int i = 0; i < n; i++) in[i] = 3 * i;
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; i++) EXPECT(out[i] == 3 * i + 7);

  const char* path = "graph_nodes.dot";
  std::remove(path);
  CHECK(cudaGraphDebugDotPrint(copy, path, cudaGraphDebugDotFlagsVerbose));
  FILE* f = std::fopen(path, "r");
  EXPECT(f != nullptr);
  char text[8192] = {};
  size_t len = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  EXPECT(len > 0);
  EXPECT(std::strncmp(text, "digraph", 7) == 0);
  EXPECT(std::strstr(text, "->") != nullptr);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(copy));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d));
  CHECK(cudaFree(t));
  std::printf("PASS\n");
  return 0;
}
