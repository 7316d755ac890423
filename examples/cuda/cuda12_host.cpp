// A host program built against CUDA 12's runtime (g++ with CUDA 12.9's headers, linked to
// NVIDIA's libcudart.so.12): it imports cudaGetDeviceProperties_v2@libcudart.so.12 and friends,
// which ptxjit's libcudart.so.12 link serves with CUDA 12's cudaDeviceProp layout; it gets
// CUDA 12.9's runtime version (CUDART_VERSION of its headers), and the CUDA 12 forms of the
// graph calls whose arguments CUDA 13 changed (cudaGraphAddDependencies, cudaGraphGetEdges,
// cudaGraphNodeGetDependencies, cudaGraphNodeGetDependentNodes, cudaGraphRemoveDependencies
// and cudaGraphAddNode without edge data).
#include <cuda_runtime_api.h>
#include <cstdio>
#include <cstring>
#define EXPECT(c) do { if (!(c)) { std::fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

int main() {
  cudaDeviceProp p;
  std::memset(&p, 0xff, sizeof p);
  EXPECT(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  EXPECT(p.warpSize == 32 && p.maxThreadsPerBlock == 1024 && p.major >= 7);
  EXPECT(std::strlen(p.name) > 0 && p.reserved[0] == 0 && p.reserved[62] == 0);
  char h[64], g[64];
  for (int i = 0; i < 64; i++) h[i] = (char)(3 * i);
  void* d;
  EXPECT(cudaMalloc(&d, sizeof h) == cudaSuccess);
  EXPECT(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
  EXPECT(cudaMemcpy(g, d, sizeof g, cudaMemcpyDeviceToHost) == cudaSuccess);
  EXPECT(std::memcmp(h, g, sizeof h) == 0);
  cudaEvent_t a, b;
  EXPECT(cudaEventCreate(&a) == cudaSuccess && cudaEventCreate(&b) == cudaSuccess);
  EXPECT(cudaEventRecord(a, 0) == cudaSuccess && cudaEventRecord(b, 0) == cudaSuccess);
  EXPECT(cudaEventSynchronize(b) == cudaSuccess);
  float ms = -1.0f;
  EXPECT(cudaEventElapsedTime(&ms, a, b) == cudaSuccess && ms >= 0.0f);
  EXPECT(cudaThreadSynchronize() == cudaSuccess);
  EXPECT(cudaFree(d) == cudaSuccess);

  int runtime = 0;
  EXPECT(cudaRuntimeGetVersion(&runtime) == cudaSuccess && runtime == CUDART_VERSION);
  cudaGraph_t gr;
  EXPECT(cudaGraphCreate(&gr, 0) == cudaSuccess);
  cudaGraphNode_t n[3];
  for (int i = 0; i < 3; i++) EXPECT(cudaGraphAddEmptyNode(&n[i], gr, nullptr, 0) == cudaSuccess);
  cudaGraphNode_t from[] = {n[0], n[1]}, to[] = {n[1], n[2]};
  EXPECT(cudaGraphAddDependencies(gr, from, to, 2) == cudaSuccess);
  size_t count = 0;
  EXPECT(cudaGraphGetEdges(gr, nullptr, nullptr, &count) == cudaSuccess && count == 2);
  cudaGraphNode_t ef[2], et[2];
  EXPECT(cudaGraphGetEdges(gr, ef, et, &count) == cudaSuccess && count == 2);
  EXPECT(ef[0] != ef[1] && (ef[0] == n[0] || ef[0] == n[1]) && (ef[1] == n[0] || ef[1] == n[1]));
  for (int i = 0; i < 2; i++) EXPECT(et[i] == (ef[i] == n[0] ? n[1] : n[2]));
  // The _v2 forms carry edge data.
  cudaGraphEdgeData data[2];
  std::memset(data, 0xff, sizeof data);
  EXPECT(cudaGraphGetEdges_v2(gr, ef, et, data, &count) == cudaSuccess && count == 2);
  EXPECT(data[0].type == 0 && data[1].from_port == 0);
  // n[0] -> n[1] -> n[2]: n[1]'s one dependency and one dependent.
  cudaGraphNode_t one[2] = {};
  count = 2;
  EXPECT(cudaGraphNodeGetDependencies(n[1], one, &count) == cudaSuccess && count == 1 && one[0] == n[0] && one[1] == nullptr);
  count = 2;
  EXPECT(cudaGraphNodeGetDependentNodes(n[1], one, &count) == cudaSuccess && count == 1 && one[0] == n[2]);
  EXPECT(cudaGraphRemoveDependencies(gr, &n[0], &n[1], 1) == cudaSuccess);
  EXPECT(cudaGraphNodeGetDependencies(n[1], nullptr, &count) == cudaSuccess && count == 0);
  EXPECT(cudaGraphRemoveDependencies(gr, &n[0], &n[1], 1) == cudaErrorInvalidValue);
  // An empty node after n[2] by cudaGraphAddNode (no edge data in CUDA 12.2's form).
  cudaGraphNodeParams np = {};
  np.type = cudaGraphNodeTypeEmpty;
  cudaGraphNode_t last;
  EXPECT(cudaGraphAddNode(&last, gr, &n[2], 1, &np) == cudaSuccess);
  count = 2;
  EXPECT(cudaGraphNodeGetDependencies(last, one, &count) == cudaSuccess && count == 1 && one[0] == n[2]);
  EXPECT(cudaGraphDestroy(gr) == cudaSuccess);
  std::printf("PASS\n");
  return 0;
}
