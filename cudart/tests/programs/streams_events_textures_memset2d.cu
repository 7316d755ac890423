// Two streams ordered by cudaStreamWaitEvent (a producer, a consumer that must see its
// writes), events timing the work (cudaEventElapsedTime), cudaMemset2D on pitched memory,
// and a texture object over a cudaArray of uchar4 read as normalized floats with point
// filtering and border addressing. Each result is checked against the host's computation.
#include <cstdio>
#include <cstring>
#include <vector>
#include "../../../examples/cuda/check.h"

__global__ void produce(int* buf, int n, int round) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    // Busy work so that the consumer would see stale data if it did not wait.
    int v = i;
    for (int k = 0; k < 64; ++k) v = v * 1103515245 + 12345;
    buf[i] = (v & 0xffff) + round;
  }
}

__global__ void consume(const int* buf, long long* sum, int n) {
  long long acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += buf[i];
  atomicAdd((unsigned long long*)sum, (unsigned long long)acc);
}

__global__ void read_rows(const unsigned char* p, size_t pitch, int w, int h, int* rowsum) {
  int y = blockIdx.x;
  if (y >= h) return;
  int s = 0;
  for (int x = threadIdx.x; x < w; x += blockDim.x) s += p[y * pitch + x];
  atomicAdd(&rowsum[y], s);
}

__global__ void sample(cudaTextureObject_t t, float4* out, int w, int h) {
  int x = threadIdx.x - 2, y = blockIdx.x - 2;  // two texels of border on each side
  float4 v = tex2D<float4>(t, x + 0.5f, y + 0.5f);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static int host_value(int i, int round) {
  int v = i;
  for (int k = 0; k < 64; ++k) v = v * 1103515245 + 12345;
  return (v & 0xffff) + round;
}

int main() {
  // Producer/consumer over two non-blocking streams.
  const int n = 1 << 16;
  int* buf; long long* sum;
  CHECK(cudaMalloc(&buf, n * sizeof(int)));
  CHECK(cudaMalloc(&sum, sizeof(long long)));
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t ready, start, stop;
  CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  // An event that never recorded has no time.
  float ms = -1.f;
  EXPECT(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle);
  CHECK(cudaEventRecord(start, a));
  for (int round = 0; round < 3; ++round) {
    CHECK(cudaMemsetAsync(sum, 0, sizeof(long long), b));
    produce<<<32, 128, 0, a>>>(buf, n, round);
    CHECK(cudaEventRecord(ready, a));
    CHECK(cudaStreamWaitEvent(b, ready, 0));
    consume<<<16, 256, 0, b>>>(buf, sum, n);
    long long got = 0;
    CHECK(cudaMemcpyAsync(&got, sum, sizeof got, cudaMemcpyDeviceToHost, b));
    CHECK(cudaStreamSynchronize(b));
    long long want = 0;
    for (int i = 0; i < n; ++i) want += host_value(i, round);
    EXPECT(got == want);
  }
  CHECK(cudaEventRecord(stop, a));
  CHECK(cudaEventSynchronize(stop));
  EXPECT(cudaEventQuery(stop) == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0.f);
  // Timing needs both events timed: one made with cudaEventDisableTiming is refused.
  EXPECT(cudaEventElapsedTime(&ms, start, ready) == cudaErrorInvalidResourceHandle);

  // cudaMemset2D: a 100x37 region of a pitched 2D allocation, the rest untouched.
  const int W = 300, H = 50, RW = 100, RH = 37;
  unsigned char* p; size_t pitch;
  CHECK(cudaMallocPitch(&p, &pitch, W, H));
  EXPECT(pitch >= (size_t)W);
  CHECK(cudaMemset2D(p, pitch, 7, W, H));
  CHECK(cudaMemset2D(p + 5 * pitch + 11, pitch, 200, RW, RH));
  int* rowsum;
  CHECK(cudaMalloc(&rowsum, H * sizeof(int)));
  CHECK(cudaMemset(rowsum, 0, H * sizeof(int)));
  read_rows<<<H, 64>>>(p, pitch, W, H, rowsum);
  std::vector<int> rs(H);
  CHECK(cudaMemcpy(rs.data(), rowsum, H * sizeof(int), cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y) {
    int want = (y >= 5 && y < 5 + RH) ? (W - RW) * 7 + RW * 200 : W * 7;
    EXPECT(rs[y] == want);
  }
  std::vector<unsigned char> back(W * H);
  CHECK(cudaMemcpy2D(back.data(), W, p, pitch, W, H, cudaMemcpyDeviceToHost));
  EXPECT(back[5 * W + 11] == 200 && back[5 * W + 10] == 7 && back[(5 + RH) * W + 11] == 7);
  // A width past the pitch is refused.
  EXPECT(cudaMemset2D(p, pitch, 0, pitch + 1, 2) == cudaErrorInvalidValue);

  // Texture over a cudaArray of uchar4, normalized-float reads, point filtering, border.
  const int TW = 8, TH = 5;
  std::vector<uchar4> tex(TW * TH);
  for (int y = 0; y < TH; ++y)
    for (int x = 0; x < TW; ++x)
      tex[y * TW + x] = make_uchar4(x * 30, y * 50, 255 - x * y, 128);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &cd, TW, TH));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, tex.data(), TW * sizeof(uchar4), TW * sizeof(uchar4), TH, cudaMemcpyHostToDevice));
  cudaChannelFormatDesc got_cd; cudaExtent ext; unsigned int flags;
  CHECK(cudaArrayGetInfo(&got_cd, &ext, &flags, arr));
  EXPECT(got_cd.x == 8 && got_cd.w == 8 && got_cd.f == cudaChannelFormatKindUnsigned);
  EXPECT(ext.width == TW && ext.height == TH && ext.depth == 0);
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  cudaResourceDesc rd_back;
  CHECK(cudaGetTextureObjectResourceDesc(&rd_back, t));
  EXPECT(rd_back.resType == cudaResourceTypeArray && rd_back.res.array.array == arr);
  const int OW = TW + 4, OH = TH + 4;
  float4* dout;
  CHECK(cudaMalloc(&dout, OW * OH * sizeof(float4)));
  sample<<<OH, OW>>>(t, dout, TW, TH);
  std::vector<float4> o(OW * OH);
  CHECK(cudaMemcpy(o.data(), dout, o.size() * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox) {
      int x = ox - 2, y = oy - 2;
      float4 w = make_float4(0, 0, 0, 0);  // border colour
      if (x >= 0 && x < TW && y >= 0 && y < TH) {
        uchar4 c = tex[y * TW + x];
        w = make_float4(c.x / 255.f, c.y / 255.f, c.z / 255.f, c.w / 255.f);
      }
      float4 g = o[oy * OW + ox];
      EXPECT(fabsf(g.x - w.x) < 1e-6f && fabsf(g.y - w.y) < 1e-6f && fabsf(g.z - w.z) < 1e-6f && fabsf(g.w - w.w) < 1e-6f);
    }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(arr));
  CHECK(cudaStreamDestroy(a));
  CHECK(cudaStreamDestroy(b));
  CHECK(cudaEventDestroy(ready));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaDeviceSynchronize());
  printf("PASS\n");
  return 0;
}
