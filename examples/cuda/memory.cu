// Pitched 2D and 3D memory, a 3D CUDA array, stream-ordered allocation, pointer attributes,
// device properties and function attributes, the device's PCI id and a stream's device,
// occupancy and dynamic shared memory above 48 KiB.
#include "check.h"
#include <cstring>

__global__ void fill2d(float* p, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) ((float*)((char*)p + y * pitch))[x] = y * 1000 + x;
}

__global__ void add_one(int* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1; }

// Reverses n ints through dynamic shared memory (more than the default 48 KiB per block).
__global__ void reverse_big(int* p, int n) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = p[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] = buf[n - 1 - i];
}

int main() {
  // Pitched 2D: a kernel fills rows, cudaMemcpy2D packs them on the host.
  const int w = 37, h = 11;
  float* p; size_t pitch;
  CHECK(cudaMallocPitch(&p, &pitch, w * sizeof(float), h));
  EXPECT(pitch >= w * sizeof(float));
  fill2d<<<dim3(2, 2), dim3(32, 8)>>>(p, pitch, w, h);
  float host[h][w];
  CHECK(cudaMemcpy2D(host, w * sizeof(float), p, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) EXPECT(host[y][x] == y * 1000 + x);
  // A row wider than either pitch is refused and nothing is written (CUDA's rule): the
  // canary after a 2-row, 16-byte-pitch host buffer stays.
  unsigned char small[2 * 16 + 16];
  memset(small, 0xab, sizeof small);
  EXPECT(cudaMemcpy2D(small, 16, p, pitch, 32, 2, cudaMemcpyDeviceToHost) == cudaErrorInvalidPitchValue);
  for (int i = 0; i < (int)sizeof small; i++) EXPECT(small[i] == 0xab);
  EXPECT(cudaMemcpy2D(p, pitch, small, 8, 16, 2, cudaMemcpyHostToDevice) == cudaErrorInvalidPitchValue);

  // 3D: cudaMalloc3D, cudaMemset3D, then a host box copied into the middle with cudaMemcpy3D.
  cudaExtent e = make_cudaExtent(10 * sizeof(short), 6, 4);
  cudaPitchedPtr pp;
  CHECK(cudaMalloc3D(&pp, e));
  CHECK(cudaMemset3D(pp, 0x7f, e));
  short box[4][6][10];
  for (int z = 0; z < 4; z++) for (int y = 0; y < 6; y++) for (int x = 0; x < 10; x++) box[z][y][x] = z * 100 + y * 10 + x;
  cudaMemcpy3DParms up = {};
  up.srcPtr = make_cudaPitchedPtr(box, 10 * sizeof(short), 10, 6);
  up.dstPtr = pp;
  up.dstPos = make_cudaPos(2 * sizeof(short), 1, 1);
  up.extent = make_cudaExtent(4 * sizeof(short), 3, 2);
  up.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&up));
  short back[4][6][10];
  cudaMemcpy3DParms down = {};
  down.srcPtr = pp;
  down.dstPtr = make_cudaPitchedPtr(back, 10 * sizeof(short), 10, 6);
  down.extent = e;
  down.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&down));
  for (int z = 0; z < 4; z++) for (int y = 0; y < 6; y++) for (int x = 0; x < 10; x++) {
    bool inside = z >= 1 && z < 3 && y >= 1 && y < 4 && x >= 2 && x < 6;
    short ref = inside ? box[z - 1][y - 1][x - 2] : (short)0x7f7f;
    EXPECT(back[z][y][x] == ref);
  }

  // A 3D CUDA array: host -> array -> host (array extents count elements).
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  cudaExtent ae = make_cudaExtent(8, 4, 3);
  CHECK(cudaMalloc3DArray(&arr, &cd, ae));
  float vol[3][4][8], vol2[3][4][8];
  for (int i = 0; i < 96; i++) (&vol[0][0][0])[i] = i * 0.5f;
  cudaMemcpy3DParms to = {};
  to.srcPtr = make_cudaPitchedPtr(vol, 8 * sizeof(float), 8, 4);
  to.dstArray = arr;
  to.extent = ae;
  to.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&to));
  cudaMemcpy3DParms from = {};
  from.srcArray = arr;
  from.dstPtr = make_cudaPitchedPtr(vol2, 8 * sizeof(float), 8, 4);
  from.extent = ae;
  from.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&from));
  EXPECT(std::memcmp(vol, vol2, sizeof vol) == 0);
  cudaChannelFormatDesc got_cd; cudaExtent got_e; unsigned flags;
  CHECK(cudaArrayGetInfo(&got_cd, &got_e, &flags, arr));
  EXPECT(got_cd.x == 32 && got_cd.y == 0 && got_cd.f == cudaChannelFormatKindFloat);
  EXPECT(got_e.width == 8 && got_e.height == 4 && got_e.depth == 3);

  // Stream-ordered allocation.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int* a;
  CHECK(cudaMallocAsync(&a, 256 * sizeof(int), s));
  CHECK(cudaMemsetAsync(a, 0, 256 * sizeof(int), s));
  add_one<<<2, 128, 0, s>>>(a, 256);
  int ha[256];
  CHECK(cudaMemcpyAsync(ha, a, sizeof ha, cudaMemcpyDeviceToHost, s));
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < 256; i++) EXPECT(ha[i] == 1);

  // Pointer attributes, managed memory hints.
  int* m;
  CHECK(cudaMallocManaged(&m, 64));
  cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
  CHECK(cudaMemAdvise(m, 64, cudaMemAdviseSetReadMostly, loc));
  CHECK(cudaMemPrefetchAsync(m, 64, loc, 0, 0));
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, m));
  EXPECT(pa.type == cudaMemoryTypeManaged);
  CHECK(cudaPointerGetAttributes(&pa, p));
  EXPECT(pa.type == cudaMemoryTypeDevice && pa.devicePointer == p);
  int local = 0;
  CHECK(cudaPointerGetAttributes(&pa, &local));
  EXPECT(pa.type == cudaMemoryTypeUnregistered);

  // Properties and attributes, as libraries read them.
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  EXPECT(prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024 && prop.major >= 7);
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  EXPECT(sms == prop.multiProcessorCount && sms > 0);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, add_one));
  EXPECT(fa.ptxVersion == 80 && fa.maxThreadsPerBlock > 0);
  char bus[32];
  CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  int by_bus = -1;
  CHECK(cudaDeviceGetByPCIBusId(&by_bus, bus));
  EXPECT(by_bus == 0);
  int sdev = -1;
  CHECK(cudaStreamGetDevice(s, &sdev));
  EXPECT(sdev == 0);
  // The occupancy calculator of cuda_runtime.h (a template over the attribute and occupancy
  // calls), and dynamic shared memory above 48 KiB after opting in.
  int min_grid = 0, best_block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, add_one, 0, 0));
  EXPECT(best_block > 0 && best_block <= 1024 && min_grid > 0);
  const int big = 20000;  // 80000 bytes
  CHECK(cudaFuncSetAttribute(reverse_big, cudaFuncAttributeMaxDynamicSharedMemorySize, big * (int)sizeof(int)));
  int* r;
  CHECK(cudaMallocManaged(&r, big * sizeof(int)));
  for (int i = 0; i < big; i++) r[i] = i;
  reverse_big<<<1, 256, big * sizeof(int)>>>(r, big);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < big; i++) EXPECT(r[i] == big - 1 - i);
  size_t free_b, total_b;
  CHECK(cudaMemGetInfo(&free_b, &total_b));
  EXPECT(free_b <= total_b && total_b == prop.totalGlobalMem);
  std::printf("PASS\n");
  return 0;
}
