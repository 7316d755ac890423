// Vector add on cudaMallocManaged memory, read and written by host and kernel alike, on a
// stream with the performance hints programs give a GPU (an L2 persistence window, memory
// attached to the stream), which are accepted, read back and change no result.
#include "check.h"

__global__ void axpy(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 50000;
  float *x, *y;
  CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  CHECK(cudaMallocManaged(&y, n * sizeof(float)));
  for (int i = 0; i < n; i++) { x[i] = i; y[i] = 2.0f; }
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaStreamAttrValue v = {};
  v.accessPolicyWindow.base_ptr = y;
  v.accessPolicyWindow.num_bytes = n * sizeof(float);
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  cudaStreamAttrValue back = {};
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  EXPECT(back.accessPolicyWindow.base_ptr == y && back.accessPolicyWindow.hitRatio == 0.6f);
  v.accessPolicyWindow.hitRatio = 2.0f;
  EXPECT(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v) == cudaErrorInvalidValue);
  CHECK(cudaStreamAttachMemAsync(s, y, 0, cudaMemAttachSingle));
  EXPECT(cudaStreamAttachMemAsync(s, y + 1, 0, cudaMemAttachSingle) == cudaErrorInvalidValue);
  axpy<<<64, 128, 0, s>>>(3.0f, x, y, n);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaCtxResetPersistingL2Cache());
  CHECK(cudaStreamDestroy(s));
  for (int i = 0; i < n; i++) EXPECT(y[i] == 3.0f * i + 2.0f);
  CHECK(cudaFree(x)); CHECK(cudaFree(y));
  std::printf("PASS\n");
  return 0;
}
