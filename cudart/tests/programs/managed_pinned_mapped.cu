// cudaMallocManaged with host access after sync, __managed__, prefetch and advice, pinned,
// mapped and registered host memory, pointer attributes.
#include <cstdio>
#include "../../../examples/cuda/check.h"
__global__ void inc(int *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += i; }
__managed__ int mcount;
__global__ void count(int n) { if (threadIdx.x + blockIdx.x * blockDim.x < n) atomicAdd(&mcount, 1); }
int main() {
  int dev; CHECK(cudaGetDevice(&dev));
  int managed, concurrent, mapped;
  CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
  CHECK(cudaDeviceGetAttribute(&mapped, cudaDevAttrCanMapHostMemory, dev));
  EXPECT(managed == 1 && mapped == 1);
  const int N = 5000;
  int *m; CHECK(cudaMallocManaged(&m, N * sizeof(int)));
  for (int i = 0; i < N; i++) m[i] = 7;
  if (concurrent) { CHECK(cudaMemPrefetchAsync(m, N * sizeof(int), cudaMemLocation{cudaMemLocationTypeDevice, dev}, 0)); }
  CHECK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetPreferredLocation, cudaMemLocation{cudaMemLocationTypeDevice, dev}));
  inc<<<(N + 127) / 128, 128>>>(m, N);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < N; i++) EXPECT(m[i] == 7 + i);
  cudaPointerAttributes at; CHECK(cudaPointerGetAttributes(&at, m));
  EXPECT(at.type == cudaMemoryTypeManaged && at.devicePointer == m && at.hostPointer == m);
  mcount = 5; count<<<10, 100>>>(990); CHECK(cudaDeviceSynchronize()); EXPECT(mcount == 995);
  // pinned
  int *h; CHECK(cudaMallocHost(&h, N * sizeof(int)));
  CHECK(cudaPointerGetAttributes(&at, h)); EXPECT(at.type == cudaMemoryTypeHost);
  int *d; CHECK(cudaMalloc(&d, N * sizeof(int)));
  CHECK(cudaPointerGetAttributes(&at, d)); EXPECT(at.type == cudaMemoryTypeDevice && at.hostPointer == nullptr);
  int stackv = 0; CHECK(cudaPointerGetAttributes(&at, &stackv)); EXPECT(at.type == cudaMemoryTypeUnregistered);
  for (int i = 0; i < N; i++) h[i] = -i;
  CHECK(cudaMemcpy(d, h, N * 4, cudaMemcpyHostToDevice));
  inc<<<(N + 127) / 128, 128>>>(d, N);
  CHECK(cudaMemcpy(h, d, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) EXPECT(h[i] == 0);
  // mapped
  int *hm, *dm; CHECK(cudaHostAlloc(&hm, N * 4, cudaHostAllocMapped | cudaHostAllocPortable));
  CHECK(cudaHostGetDevicePointer(&dm, hm, 0));
  unsigned fl; CHECK(cudaHostGetFlags(&fl, hm)); EXPECT(fl & cudaHostAllocMapped);
  for (int i = 0; i < N; i++) hm[i] = 1;
  inc<<<(N + 127) / 128, 128>>>(dm, N);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < N; i++) EXPECT(hm[i] == 1 + i);
  // registered
  static int reg[4096];
  CHECK(cudaHostRegister(reg, sizeof(reg), cudaHostRegisterMapped));
  int *dreg; CHECK(cudaHostGetDevicePointer(&dreg, reg, 0));
  inc<<<32, 128>>>(dreg, 4096); CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < 4096; i++) EXPECT(reg[i] == i);
  CHECK(cudaHostUnregister(reg));
  size_t fr, tot; CHECK(cudaMemGetInfo(&fr, &tot)); EXPECT(fr <= tot && tot > 0);
  CHECK(cudaFree(m)); CHECK(cudaFreeHost(h)); CHECK(cudaFreeHost(hm)); CHECK(cudaFree(d));
  printf("PASS\n");
}
