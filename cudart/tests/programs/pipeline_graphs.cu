// Managed memory with prefetch and advice (read back with cudaMemRangeGetAttribute(s)),
// 2D/3D async copies and memsets, a graph captured from
// two streams (fork/join with events, a host function, stream-ordered allocation) replayed
// and updated; results against the host's.
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
#include "../../../examples/cuda/check.h"
__global__ void saxpy(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}
__global__ void add_rows(float* p, size_t pitch, int w, int h, float v) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) ((float*)((char*)p + y * pitch))[x] += v * y;
}
__global__ void square(int* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= p[i]; }
__global__ void sum_into(const int* p, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(out, p[i]);
}
__global__ void incr(int* p, int n, int by) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += by; }
static int host_calls = 0;
void CUDART_CB bump(void* p) { ++*(int*)p; }
int main() {
  int dev = 0;
  CHECK(cudaGetDevice(&dev));
  int concurrent = -1;
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
  // 1. Managed memory, advice and prefetch (CUDA 13 cudaMemLocation forms).
  const int N = 1 << 18;
  float *x, *y;
  CHECK(cudaMallocManaged(&x, N * sizeof(float)));
  CHECK(cudaMallocManaged(&y, N * sizeof(float)));
  for (int i = 0; i < N; i++) { x[i] = i * 0.5f; y[i] = 1.0f; }
  cudaMemLocation loc{};
  loc.type = cudaMemLocationTypeDevice; loc.id = dev;
  CHECK(cudaMemAdvise(x, N * sizeof(float), cudaMemAdviseSetReadMostly, loc));
  CHECK(cudaMemAdvise(y, N * sizeof(float), cudaMemAdviseSetPreferredLocation, loc));
  cudaStream_t s; CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemPrefetchAsync(x, N * sizeof(float), loc, 0, s));
  CHECK(cudaMemPrefetchAsync(y, N * sizeof(float), loc, 0, s));
  saxpy<<<64, 256, 0, s>>>(2.0f, x, y, N);
  CHECK(cudaGetLastError());
  cudaMemLocation host{}; host.type = cudaMemLocationTypeHost;
  CHECK(cudaMemPrefetchAsync(y, N * sizeof(float), host, 0, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < N; i++) EXPECT(y[i] == 2.0f * (i * 0.5f) + 1.0f);
  // What the advice and prefetches asked for, page by page (CUDA Runtime API,
  // cudaMemRangeGetAttribute): x is read-mostly, y prefers the device and was last
  // prefetched to the host; a range over both has no one answer.
  int rm = -1, pref = 7, last = 7, by[3] = {7, 7, 7};
  CHECK(cudaMemRangeGetAttribute(&rm, sizeof rm, cudaMemRangeAttributeReadMostly, x, N * sizeof(float)));
  EXPECT(rm == 1);
  CHECK(cudaMemRangeGetAttribute(&rm, sizeof rm, cudaMemRangeAttributeReadMostly, y, 4096));
  EXPECT(rm == 0);
  CHECK(cudaMemRangeGetAttribute(&pref, sizeof pref, cudaMemRangeAttributePreferredLocation, y + 100, 4 * 4096));
  EXPECT(pref == dev);
  CHECK(cudaMemRangeGetAttribute(&pref, sizeof pref, cudaMemRangeAttributePreferredLocation, x, 64));
  EXPECT(pref == cudaInvalidDeviceId);
  CHECK(cudaMemRangeGetAttribute(&last, sizeof last, cudaMemRangeAttributeLastPrefetchLocation, y, N * sizeof(float)));
  EXPECT(last == cudaCpuDeviceId);
  CHECK(cudaMemRangeGetAttribute(&last, sizeof last, cudaMemRangeAttributeLastPrefetchLocation, x, N * sizeof(float)));
  EXPECT(last == dev);
  cudaMemLocationType lt = cudaMemLocationTypeInvalid;
  CHECK(cudaMemRangeGetAttribute(&lt, sizeof lt, cudaMemRangeAttributeLastPrefetchLocationType, y, 16));
  EXPECT(lt == cudaMemLocationTypeHost);
  CHECK(cudaMemRangeGetAttribute(&lt, sizeof lt, cudaMemRangeAttributePreferredLocationType, y, 16));
  EXPECT(lt == cudaMemLocationTypeDevice);
  // Accessed-by over the second half only; then the read-mostly advice unset on half of x.
  CHECK(cudaMemAdvise(y + N / 2, N / 2 * sizeof(float), cudaMemAdviseSetAccessedBy, loc));
  CHECK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, y + N / 2, 4096));
  EXPECT(by[0] == dev && by[1] == cudaInvalidDeviceId && by[2] == cudaInvalidDeviceId);
  CHECK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, y, N * sizeof(float)));
  EXPECT(by[0] == cudaInvalidDeviceId);
  CHECK(cudaMemAdvise(x, N / 2 * sizeof(float), cudaMemAdviseUnsetReadMostly, loc));
  void* data[2] = {&rm, &pref};
  size_t sizes[2] = {4, 4};
  cudaMemRangeAttribute attrs[2] = {cudaMemRangeAttributeReadMostly, cudaMemRangeAttributePreferredLocation};
  CHECK(cudaMemRangeGetAttributes(data, sizes, attrs, 2, x + N / 2, N / 2 * sizeof(float)));
  EXPECT(rm == 1 && pref == cudaInvalidDeviceId);
  CHECK(cudaMemRangeGetAttribute(&rm, sizeof rm, cudaMemRangeAttributeReadMostly, x, N * sizeof(float)));
  EXPECT(rm == 0);
  // Not managed memory, or a size the attribute does not take: cudaErrorInvalidValue.
  float* plain;
  CHECK(cudaMalloc(&plain, 4096));
  EXPECT(cudaMemRangeGetAttribute(&rm, sizeof rm, cudaMemRangeAttributeReadMostly, plain, 64) == cudaErrorInvalidValue);
  EXPECT(cudaMemRangeGetAttribute(&rm, 8, cudaMemRangeAttributeReadMostly, x, 64) == cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFree(plain));
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, y + 5));
  EXPECT(pa.type == cudaMemoryTypeManaged && pa.devicePointer == y + 5 && pa.hostPointer == y + 5);
  // 2. Pitched 2D: memset, copy in, kernel, copy out with different pitches.
  const int W = 37, H = 11;
  float* d2; size_t pitch;
  CHECK(cudaMallocPitch(&d2, &pitch, W * sizeof(float), H));
  EXPECT(pitch >= W * sizeof(float));
  CHECK(cudaMemset2DAsync(d2, pitch, 0, W * sizeof(float), H, s));
  std::vector<float> h2(W * H), back(W * 2 * H, -1.0f);
  for (int i = 0; i < W * H; i++) h2[i] = (float)i;
  CHECK(cudaMemcpy2DAsync(d2, pitch, h2.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice, s));
  add_rows<<<dim3((W + 31) / 32, H), 32, 0, s>>>(d2, pitch, W, H, 10.0f);
  CHECK(cudaMemcpy2DAsync(back.data(), 2 * W * sizeof(float), d2, pitch, W * sizeof(float), H, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < H; r++)
    for (int c = 0; c < 2 * W; c++)
      EXPECT(back[r * 2 * W + c] == (c < W ? (float)(r * W + c) + 10.0f * r : -1.0f));
  // 3. 3D: cudaMalloc3D, cudaMemset3D, a sub-box copied host->device->host.
  cudaExtent ext = make_cudaExtent(16 * sizeof(int), 8, 4);
  cudaPitchedPtr d3;
  CHECK(cudaMalloc3D(&d3, ext));
  CHECK(cudaMemset3D(d3, 0xff, ext));
  std::vector<int> h3(16 * 8 * 4), o3(16 * 8 * 4, 7);
  for (size_t i = 0; i < h3.size(); i++) h3[i] = (int)i;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(h3.data(), 16 * sizeof(int), 16, 8);
  p.srcPos = make_cudaPos(2 * sizeof(int), 1, 1);
  p.dstPtr = d3;
  p.dstPos = make_cudaPos(2 * sizeof(int), 1, 1);
  p.extent = make_cudaExtent(5 * sizeof(int), 3, 2);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3DAsync(&p, s));
  cudaMemcpy3DParms q = {};
  q.srcPtr = d3;
  q.dstPtr = make_cudaPitchedPtr(o3.data(), 16 * sizeof(int), 16, 8);
  q.extent = ext;
  q.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3DAsync(&q, s));
  CHECK(cudaStreamSynchronize(s));
  for (int z = 0; z < 4; z++) for (int yy = 0; yy < 8; yy++) for (int xx = 0; xx < 16; xx++) {
    int i = (z * 8 + yy) * 16 + xx;
    bool in = xx >= 2 && xx < 7 && yy >= 1 && yy < 4 && z >= 1 && z < 3;
    EXPECT(o3[i] == (in ? i : -1));
  }
  // 4. A graph captured from two streams: fork with an event, a host node, a stream-ordered
  // allocation freed inside the graph, join back.
  const int M = 1000;
  int *dv, *dsum;
  CHECK(cudaMalloc(&dv, M * sizeof(int)));
  CHECK(cudaMalloc(&dsum, sizeof(int)));
  std::vector<int> hv(M);
  for (int i = 0; i < M; i++) hv[i] = i - 300;
  cudaStream_t s2; CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join; CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming)); CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st; unsigned long long id = 0;
  CHECK(cudaStreamGetCaptureInfo(s, &st, &id));
  EXPECT(st == cudaStreamCaptureStatusActive);
  CHECK(cudaMemcpyAsync(dv, hv.data(), M * sizeof(int), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemsetAsync(dsum, 0, sizeof(int), s));
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  int* tmp;
  CHECK(cudaMallocAsync(&tmp, M * sizeof(int), s2));
  CHECK(cudaMemcpyAsync(tmp, dv, M * sizeof(int), cudaMemcpyDeviceToDevice, s2));
  CHECK(cudaLaunchHostFunc(s2, bump, &host_calls));
  CHECK(cudaFreeAsync(tmp, s2));
  CHECK(cudaEventRecord(join, s2));
  square<<<(M + 127) / 128, 128, 0, s>>>(dv, M);
  CHECK(cudaStreamWaitEvent(s, join, 0));
  sum_into<<<(M + 127) / 128, 128, 0, s>>>(dv, M, dsum);
  CHECK(cudaStreamEndCapture(s, &g));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  EXPECT(nodes >= 8);
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphUpload(ge, s));
  long long want = 0;
  for (int i = 0; i < M; i++) want += (long long)(i - 300) * (i - 300);
  for (int rep = 0; rep < 3; rep++) {
    CHECK(cudaGraphLaunch(ge, s));
    int got = 0;
    CHECK(cudaMemcpyAsync(&got, dsum, sizeof got, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(got == want);
  }
  EXPECT(host_calls == 3);
  // Update: the same topology with a different kernel argument through cudaGraphExecUpdate.
  cudaGraph_t g2;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  incr<<<(M + 127) / 128, 128, 0, s>>>(dv, M, 1);
  CHECK(cudaStreamEndCapture(s, &g2));
  cudaGraphExec_t ge2;
  CHECK(cudaGraphInstantiateWithFlags(&ge2, g2, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  cudaGraph_t g3;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  incr<<<(M + 127) / 128, 128, 0, s>>>(dv, M, 5);
  CHECK(cudaStreamEndCapture(s, &g3));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(ge2, g3, &info));
  EXPECT(info.result == cudaGraphExecUpdateSuccess);
  CHECK(cudaMemcpy(dv, hv.data(), M * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaGraphLaunch(ge2, s));
  CHECK(cudaGraphLaunch(ge2, s));
  std::vector<int> out(M);
  CHECK(cudaMemcpyAsync(out.data(), dv, M * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < M; i++) EXPECT(out[i] == i - 300 + 10);
  CHECK(cudaGraphExecDestroy(ge)); CHECK(cudaGraphExecDestroy(ge2));
  CHECK(cudaGraphDestroy(g)); CHECK(cudaGraphDestroy(g2)); CHECK(cudaGraphDestroy(g3));
  CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(d2)); CHECK(cudaFree(d3.ptr));
  CHECK(cudaFree(dv)); CHECK(cudaFree(dsum));
  CHECK(cudaStreamDestroy(s)); CHECK(cudaStreamDestroy(s2));
  printf("concurrent managed access %d\nPASS\n", concurrent);
  return 0;
}
