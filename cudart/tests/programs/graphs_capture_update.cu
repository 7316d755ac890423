// CUDA graphs: stream capture, explicit kernel nodes, instantiate, launch several times,
// exec node parameter updates, whole-graph update and a refused topology change.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include "../../../examples/cuda/check.h"
__global__ void axpy(float a, const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }
__global__ void addc(float *y, float c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += c; }
void CUDART_CB hostcount(void *p) { (*(int *)p)++; }
int main() {
  const int N = 3000; float *x, *y; float hx[N], hy[N];
  CHECK(cudaMalloc(&x, N * 4)); CHECK(cudaMalloc(&y, N * 4));
  for (int i = 0; i < N; i++) hx[i] = i * 0.5f;
  CHECK(cudaMemcpy(x, hx, N * 4, cudaMemcpyHostToDevice));
  cudaStream_t s; CHECK(cudaStreamCreate(&s));
  int hostcalls = 0;
  // capture
  cudaGraph_t g; cudaGraphExec_t ge;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus cs; CHECK(cudaStreamIsCapturing(s, &cs)); EXPECT(cs == cudaStreamCaptureStatusActive);
  CHECK(cudaMemsetAsync(y, 0, N * 4, s));
  axpy<<<(N + 255) / 256, 256, 0, s>>>(2.0f, x, y, N);
  addc<<<(N + 255) / 256, 256, 0, s>>>(y, 1.0f, N);
  CHECK(cudaLaunchHostFunc(s, hostcount, &hostcalls));
  CHECK(cudaStreamEndCapture(s, &g));
  size_t nn; CHECK(cudaGraphGetNodes(g, nullptr, &nn)); EXPECT(nn == 4);
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  for (int r = 0; r < 3; r++) CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(hy, y, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) EXPECT(hy[i] == 2.0f * hx[i] + 1.0f);
  EXPECT(hostcalls == 3);
  // explicit graph: y = 3x + y ; y += 5, launched 4 times
  cudaGraph_t g2; CHECK(cudaGraphCreate(&g2, 0));
  float a = 3.0f; int n = N;
  void *args1[] = {&a, &x, &y, &n};
  cudaKernelNodeParams kp = {0};
  kp.func = (void *)axpy; kp.gridDim = dim3((N + 127) / 128); kp.blockDim = dim3(128); kp.kernelParams = args1;
  cudaGraphNode_t k1, k2;
  CHECK(cudaGraphAddKernelNode(&k1, g2, nullptr, 0, &kp));
  float c = 5.0f; void *args2[] = {&y, &c, &n};
  cudaKernelNodeParams kp2 = {0};
  kp2.func = (void *)addc; kp2.gridDim = dim3((N + 127) / 128); kp2.blockDim = dim3(128); kp2.kernelParams = args2;
  CHECK(cudaGraphAddKernelNode(&k2, g2, &k1, 1, &kp2));
  cudaGraphExec_t ge2; CHECK(cudaGraphInstantiateWithFlags(&ge2, g2, 0));
  CHECK(cudaMemset(y, 0, N * 4));
  for (int r = 0; r < 4; r++) CHECK(cudaGraphLaunch(ge2, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(hy, y, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) { float w = 0; for (int r = 0; r < 4; r++) w = 3.0f * hx[i] + w + 5.0f; if (hy[i] != w) { printf("g2 %d %f %f\n", i, hy[i], w); return 1; } }
  // update exec node params: c = -1
  float c2 = -1.0f; void *args3[] = {&y, &c2, &n}; kp2.kernelParams = args3;
  CHECK(cudaGraphExecKernelNodeSetParams(ge2, k2, &kp2));
  CHECK(cudaMemset(y, 0, N * 4));
  CHECK(cudaGraphLaunch(ge2, s)); CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(hy, y, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) EXPECT(hy[i] == 3.0f * hx[i] - 1.0f);
  // whole graph update: new graph with same topology, a = 10
  cudaGraph_t g3; CHECK(cudaGraphCreate(&g3, 0));
  float a3 = 10.0f; void *args4[] = {&a3, &x, &y, &n}; kp.kernelParams = args4;
  cudaGraphNode_t m1, m2; CHECK(cudaGraphAddKernelNode(&m1, g3, nullptr, 0, &kp));
  CHECK(cudaGraphAddKernelNode(&m2, g3, &m1, 1, &kp2));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(ge2, g3, &info)); EXPECT(info.result == cudaGraphExecUpdateSuccess);
  CHECK(cudaMemset(y, 0, N * 4));
  CHECK(cudaGraphLaunch(ge2, s)); CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(hy, y, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) EXPECT(hy[i] == 10.0f * hx[i] - 1.0f);
  // update with different topology fails
  cudaGraph_t g4; CHECK(cudaGraphCreate(&g4, 0)); cudaGraphNode_t o1; CHECK(cudaGraphAddKernelNode(&o1, g4, nullptr, 0, &kp));
  cudaError_t e = cudaGraphExecUpdate(ge2, g4, &info);
  EXPECT(e == cudaErrorGraphExecUpdateFailure && info.result == cudaGraphExecUpdateErrorTopologyChanged);
  CHECK(cudaGetLastError() == cudaErrorGraphExecUpdateFailure ? cudaSuccess : cudaErrorUnknown);
  // node params read back
  cudaKernelNodeParams rb; CHECK(cudaGraphKernelNodeGetParams(k1, &rb)); EXPECT(rb.func == (void *)axpy && rb.blockDim.x == 128);
  // debug dot
  char dot[256];
  snprintf(dot, sizeof(dot), "%s/ptxjit-graph-%d.dot", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  CHECK(cudaGraphDebugDotPrint(g2, dot, 0));
  FILE *df = fopen(dot, "r"); EXPECT(df != nullptr);
  char text[4096] = {0}; fread(text, 1, sizeof(text) - 1, df); fclose(df); unlink(dot);
  EXPECT(strstr(text, "_Z4axpyfPKfPfi") && strstr(text, "_Z4addcPffi"));
  CHECK(cudaGraphExecDestroy(ge)); CHECK(cudaGraphExecDestroy(ge2));
  CHECK(cudaGraphDestroy(g)); CHECK(cudaGraphDestroy(g2)); CHECK(cudaGraphDestroy(g3)); CHECK(cudaGraphDestroy(g4));
  printf("PASS\n");
}
