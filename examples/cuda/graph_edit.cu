// A graph inspected and edited with the runtime's calls: its roots, a node's dependencies
// and dependents, the graph a node belongs to, each node type's parameters read back
// (cudaGraphMemsetNodeGetParams, cudaGraphMemcpyNodeGetParams, cudaGraphNodeGetParams) and
// changed in the instantiated graph (cudaGraphExecMemsetNodeSetParams,
// cudaGraphExecMemcpyNodeSetParams1D, cudaGraphExecNodeSetParams), a kernel node disabled
// and enabled again, a node found in a clone, an edge removed, a child graph node's own
// graph, nodes added with cudaGraphAddNode, event and memory nodes' parameters, and the
// kernel's parameter offsets and sizes (cudaFuncGetParamCount, cudaFuncGetParamInfo).
// Expected values are the kernel's arithmetic (x * m + c) done on the host and the C layout
// of its parameters.
#include "check.h"
#include <cstring>
#include <vector>

__global__ void axpc(int* x, int m, int c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * m + c;
}

static bool all(const std::vector<int>& v, int want) {
  for (int x : v)
    if (x != want) return false;
  return true;
}

int main() {
  const int n = 300;
  const size_t bytes = n * sizeof(int);
  std::vector<int> out(n, -1), out2(n, -1);
  int* d;
  CHECK(cudaMalloc(&d, bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));

  // memset (3) -> axpc (x * 5 + 2) -> copy to the host.
  cudaMemsetParams mp = {};
  mp.dst = d;
  mp.value = 3;
  mp.elementSize = sizeof(int);
  mp.width = n;
  mp.height = 1;
  cudaGraphNode_t memset, kernel, copy;
  CHECK(cudaGraphAddMemsetNode(&memset, g, nullptr, 0, &mp));
  int m = 5, c = 2, count = n;
  void* args[] = {&d, &m, &c, &count};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)axpc;
  kp.gridDim = dim3((n + 127) / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kernel, g, &memset, 1, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &kernel, 1, out.data(), d, bytes,
                                 cudaMemcpyDeviceToHost));

  // Structure.
  size_t k = 0;
  cudaGraphNode_t nodes[4] = {};
  CHECK(cudaGraphGetRootNodes(g, nullptr, &k));
  EXPECT(k == 1);
  k = 2;
  CHECK(cudaGraphGetRootNodes(g, nodes, &k));
  EXPECT(k == 1 && nodes[0] == memset && nodes[1] == nullptr);
  k = 4;
  CHECK(cudaGraphNodeGetDependencies(copy, nodes, nullptr, &k));
  EXPECT(k == 1 && nodes[0] == kernel);
  k = 4;
  CHECK(cudaGraphNodeGetDependentNodes(memset, nodes, nullptr, &k));
  EXPECT(k == 1 && nodes[0] == kernel);
  cudaGraph_t owner;
  CHECK(cudaGraphNodeGetContainingGraph(copy, &owner));
  EXPECT(owner == g);

  // Parameters read back as given.
  cudaMemsetParams mq = {};
  CHECK(cudaGraphMemsetNodeGetParams(memset, &mq));
  EXPECT(mq.dst == d && mq.value == 3 && mq.elementSize == 4 && mq.width == (size_t)n);
  cudaMemcpy3DParms cq = {};
  CHECK(cudaGraphMemcpyNodeGetParams(copy, &cq));
  EXPECT(cq.kind == cudaMemcpyDeviceToHost && cq.dstPtr.ptr == out.data() &&
         cq.srcPtr.ptr == d && cq.extent.width == bytes && cq.extent.height == 1);
  cudaGraphNodeParams np = {};
  CHECK(cudaGraphNodeGetParams(kernel, &np));
  EXPECT(np.type == cudaGraphNodeTypeKernel && np.kernel.func == (void*)axpc &&
         np.kernel.gridDim.x == (n + 127) / 128 && np.kernel.blockDim.x == 128);
  EXPECT(*(int*)np.kernel.kernelParams[1] == 5);
  EXPECT(cudaGraphMemsetNodeGetParams(kernel, &mq) == cudaErrorInvalidValue);

  // Where the kernel's parameters lie (what device-side node updates address): the C
  // layout of (int*, int, int, int).
  size_t pc = 0, off = 0, size = 0;
  CHECK(cudaFuncGetParamCount((void*)axpc, &pc));
  EXPECT(pc == 4);
  const size_t want_off[] = {0, 8, 12, 16}, want_size[] = {8, 4, 4, 4};
  for (size_t i = 0; i < 4; i++) {
    CHECK(cudaFuncGetParamInfo((void*)axpc, i, &off, &size));
    EXPECT(off == want_off[i] && size == want_size[i]);
  }
  EXPECT(cudaFuncGetParamInfo((void*)axpc, 4, &off, &size) == cudaErrorInvalidValue);

  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(all(out, 17));

  // Changed in the instantiated graph: memset 1, the copy into out2, the kernel's c to 4.
  mp.value = 1;
  CHECK(cudaGraphExecMemsetNodeSetParams(e, memset, &mp));
  CHECK(cudaGraphExecMemcpyNodeSetParams1D(e, copy, out2.data(), d, bytes,
                                           cudaMemcpyDeviceToHost));
  int c4 = 4;
  void* args4[] = {&d, &m, &c4, &count};
  cudaGraphNodeParams kn = {};
  kn.type = cudaGraphNodeTypeKernel;
  kn.kernel.func = (void*)axpc;
  kn.kernel.gridDim = dim3((n + 127) / 128);
  kn.kernel.blockDim = dim3(128);
  kn.kernel.kernelParams = args4;
  CHECK(cudaGraphExecNodeSetParams(e, kernel, &kn));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(all(out2, 9) && all(out, 17));

  // The kernel disabled: the memset's value arrives unchanged.
  unsigned on = 7;
  CHECK(cudaGraphNodeSetEnabled(e, kernel, 0));
  CHECK(cudaGraphNodeGetEnabled(e, kernel, &on));
  EXPECT(on == 0);
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(all(out2, 1));
  CHECK(cudaGraphNodeSetEnabled(e, kernel, 1));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(all(out2, 9));
  CHECK(cudaGraphExecDestroy(e));

  // A clone, its copy of the kernel node, and an edge removed from the original.
  cudaGraph_t clone;
  CHECK(cudaGraphClone(&clone, g));
  cudaGraphNode_t k2;
  CHECK(cudaGraphNodeFindInClone(&k2, kernel, clone));
  CHECK(cudaGraphNodeGetContainingGraph(k2, &owner));
  EXPECT(owner == clone && k2 != kernel);
  CHECK(cudaGraphRemoveDependencies(g, &memset, &kernel, nullptr, 1));
  k = 4;
  CHECK(cudaGraphNodeGetDependencies(kernel, nodes, nullptr, &k));
  EXPECT(k == 0);
  CHECK(cudaGraphGetRootNodes(g, nullptr, &k));
  EXPECT(k == 2);
  EXPECT(cudaGraphRemoveDependencies(g, &memset, &kernel, nullptr, 1) == cudaErrorInvalidValue);

  // The clone as a child graph node, run twice in a row: (3 * 5 + 2) twice over.
  cudaGraph_t parent;
  CHECK(cudaGraphCreate(&parent, 0));
  cudaGraphNode_t child;
  CHECK(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, clone));
  cudaGraph_t owned;
  CHECK(cudaGraphChildGraphNodeGetGraph(child, &owned));
  k = 0;
  CHECK(cudaGraphGetNodes(owned, nullptr, &k));
  EXPECT(k == 3 && owned != clone);
  // A second kernel node added by cudaGraphAddNode into the child's own graph, after the
  // copy: x * 2 + 1 on the device only.
  cudaGraphNode_t owned_copy = nullptr;
  cudaGraphNode_t owned_nodes[3];
  k = 3;
  CHECK(cudaGraphGetNodes(owned, owned_nodes, &k));
  cudaGraphNodeType ty;
  for (size_t i = 0; i < k; i++) {
    CHECK(cudaGraphNodeGetType(owned_nodes[i], &ty));
    if (ty == cudaGraphNodeTypeMemcpy) owned_copy = owned_nodes[i];
  }
  EXPECT(owned_copy != nullptr);
  int m2 = 2, c1 = 1;
  void* args2[] = {&d, &m2, &c1, &count};
  cudaGraphNodeParams kn2 = kn;
  kn2.kernel.kernelParams = args2;
  cudaGraphNode_t extra;
  CHECK(cudaGraphAddNode(&extra, owned, &owned_copy, nullptr, 1, &kn2));
  std::fill(out.begin(), out.end(), -1);
  cudaGraphInstantiateParams ip = {};
  ip.result_out = cudaGraphInstantiateError;
  CHECK(cudaGraphInstantiateWithParams(&e, parent, &ip));
  EXPECT(ip.result_out == cudaGraphInstantiateSuccess);
  CHECK(cudaGraphUpload(e, s));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(all(out, 17));
  std::vector<int> dev(n);
  CHECK(cudaMemcpy(dev.data(), d, bytes, cudaMemcpyDeviceToHost));
  EXPECT(all(dev, 35));
  CHECK(cudaGraphExecDestroy(e));

  // A memset node by cudaGraphAddNode, read back through the generic call, then removed.
  cudaGraphNodeParams mn = {};
  mn.type = cudaGraphNodeTypeMemset;
  mn.memset.dst = d;
  mn.memset.value = 8;
  mn.memset.elementSize = 4;
  mn.memset.width = n;
  mn.memset.height = 1;
  cudaGraphNode_t m8;
  CHECK(cudaGraphAddNode(&m8, g, nullptr, nullptr, 0, &mn));
  cudaGraphNodeParams mr = {};
  CHECK(cudaGraphNodeGetParams(m8, &mr));
  EXPECT(mr.type == cudaGraphNodeTypeMemset && mr.memset.value == 8 && mr.memset.dst == d);
  cudaGraphNodeParams cr = {};
  CHECK(cudaGraphNodeGetParams(copy, &cr));
  EXPECT(cr.type == cudaGraphNodeTypeMemcpy && cr.memcpy.copyParams.dstPtr.ptr == out.data());
  CHECK(cudaGraphDestroyNode(m8));
  EXPECT(cudaGraphNodeGetParams(m8, &mr) == cudaErrorInvalidValue);

  // An event record node takes another event; a graph allocation's nodes read back.
  cudaEvent_t ev1, ev2, got;
  CHECK(cudaEventCreate(&ev1));
  CHECK(cudaEventCreate(&ev2));
  cudaGraph_t eg;
  CHECK(cudaGraphCreate(&eg, 0));
  cudaGraphNode_t rec;
  CHECK(cudaGraphAddEventRecordNode(&rec, eg, nullptr, 0, ev1));
  CHECK(cudaGraphEventRecordNodeSetEvent(rec, ev2));
  CHECK(cudaGraphEventRecordNodeGetEvent(rec, &got));
  EXPECT(got == ev2);
  EXPECT(cudaGraphEventWaitNodeGetEvent(rec, &got) == cudaErrorInvalidValue);
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = 4096;
  cudaGraphNode_t alloc, free_node;
  CHECK(cudaGraphAddMemAllocNode(&alloc, eg, &rec, 1, &ap));
  CHECK(cudaGraphAddMemFreeNode(&free_node, eg, &alloc, 1, ap.dptr));
  cudaMemAllocNodeParams aq = {};
  CHECK(cudaGraphMemAllocNodeGetParams(alloc, &aq));
  EXPECT(aq.bytesize == 4096 && aq.dptr == ap.dptr);
  void* freed = nullptr;
  CHECK(cudaGraphMemFreeNodeGetParams(free_node, &freed));
  EXPECT(freed == ap.dptr);
  CHECK(cudaGraphDestroy(eg));
  CHECK(cudaEventDestroy(ev1));
  CHECK(cudaEventDestroy(ev2));

  CHECK(cudaGraphDestroy(parent));
  CHECK(cudaGraphDestroy(clone));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(d));
  std::printf("PASS\n");
  return 0;
}
