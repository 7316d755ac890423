// Arguments NVIDIA's runtime and driver refuse with cudaErrorInvalidValue, as documented (and,
// for the runtime's own checks, as NVIDIA's libcudart answers them): event, stream, managed
// memory and device flags outside the valid sets, and a pitched texture whose pointer or pitch
// breaks cudaDeviceProp::textureAlignment / texturePitchAlignment; and a peer copy naming a
// device that does not exist (cudaErrorInvalidDevice). Each refused call must leave the
// runtime usable; the valid forms beside them must succeed.
#include "check.h"

#define REFUSED(call)                                                                \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaErrorInvalidValue) {                                               \
      std::fprintf(stderr, "%s:%d: %s gave %s, want cudaErrorInvalidValue\n",        \
                   __FILE__, __LINE__, #call, cudaGetErrorName(e_));                  \
      std::exit(1);                                                                  \
    }                                                                                \
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);                             \
  } while (0)

__global__ void row_sums(cudaTextureObject_t t, float* out, int w) {
  float s = 0;
  for (int x = 0; x < w; ++x) s += tex2D<float>(t, x + 0.5f, threadIdx.x + 0.5f);
  out[threadIdx.x] = s;
}

int main() {
  cudaStream_t s;
  REFUSED(cudaStreamCreateWithFlags(&s, 2));
  REFUSED(cudaStreamCreateWithPriority(&s, 0x10, 0));
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamDestroy(s));

  cudaEvent_t e;
  REFUSED(cudaEventCreateWithFlags(&e, 0x80));
  REFUSED(cudaEventCreateWithFlags(&e, cudaEventInterprocess));  // needs cudaEventDisableTiming
  CHECK(cudaEventCreateWithFlags(&e, cudaEventInterprocess | cudaEventDisableTiming));
  CHECK(cudaEventDestroy(e));

  void* m;
  REFUSED(cudaMallocManaged(&m, 64, 0));
  REFUSED(cudaMallocManaged(&m, 64, cudaMemAttachSingle));
  CHECK(cudaMallocManaged(&m, 64, cudaMemAttachHost));
  CHECK(cudaFree(m));
  REFUSED(cudaSetDeviceFlags(0x1000));

  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  int* peer;
  CHECK(cudaMalloc(&peer, 2 * sizeof(int)));
  EXPECT(cudaMemcpyPeer(peer, devices, peer + 1, 0, sizeof(int)) == cudaErrorInvalidDevice);
  EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
  EXPECT(cudaMemcpyPeerAsync(peer, 0, peer + 1, -1, sizeof(int), 0) == cudaErrorInvalidDevice);
  EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaMemcpyPeer(peer, 0, peer + 1, 0, sizeof(int)));
  CHECK(cudaFree(peer));

  // A 13 x 4 float image: 52-byte rows. cudaMalloc's pointer with a 52-byte pitch breaks
  // texturePitchAlignment; cudaMallocPitch's pitch and pointer meet both rules.
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  EXPECT(prop.textureAlignment == 512 && prop.texturePitchAlignment == 32);
  const int W = 13, H = 4;
  float img[W * H];
  for (int i = 0; i < W * H; ++i) img[i] = (float)i;
  float* flat;
  CHECK(cudaMalloc(&flat, 4096));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  rd.res.pitch2D.width = W;
  rd.res.pitch2D.height = H;
  rd.res.pitch2D.devPtr = flat;
  rd.res.pitch2D.pitchInBytes = W * sizeof(float);
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  REFUSED(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  rd.res.pitch2D.pitchInBytes = 64;
  rd.res.pitch2D.devPtr = flat + 1;  // 4 bytes into the allocation
  REFUSED(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  rd.res.pitch2D.pitchInBytes = 32;  // narrower than a row
  rd.res.pitch2D.devPtr = flat;
  REFUSED(cudaCreateTextureObject(&t, &rd, &td, nullptr));

  float* pitched;
  size_t pitch;
  CHECK(cudaMallocPitch(&pitched, &pitch, W * sizeof(float), H));
  EXPECT(pitch % prop.texturePitchAlignment == 0);
  CHECK(cudaMemcpy2D(pitched, pitch, img, W * sizeof(float), W * sizeof(float), H,
                     cudaMemcpyHostToDevice));
  rd.res.pitch2D.devPtr = pitched;
  rd.res.pitch2D.pitchInBytes = pitch;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  float* sums;
  CHECK(cudaMalloc(&sums, H * sizeof(float)));
  row_sums<<<1, H>>>(t, sums, W);
  CHECK(cudaGetLastError());
  float got[H];
  CHECK(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y) {
    float want = 0;
    for (int x = 0; x < W; ++x) want += img[y * W + x];
    EXPECT(got[y] == want);
  }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFree(sums));
  CHECK(cudaFree(pitched));
  CHECK(cudaFree(flat));
  std::printf("PASS\n");
  return 0;
}
