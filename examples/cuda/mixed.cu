// Runtime and driver API in one program (linked with -lcuda too): one context, one address
// space, one set of modules. Runtime allocations feed a driver launch of a PTX module, and a
// runtime-registered kernel is launched through the driver by its CUfunction.
#include "check.h"
#include <cuda.h>

#define DRV(call)                                                                     \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != CUDA_SUCCESS) {                                                         \
      const char* n_; cuGetErrorName(r_, &n_);                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, n_);         \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

__global__ void twice(int* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= 2; }

// A PTX module handed to the driver directly: p[i] += 5.
static const char* ptx = R"(
.version 7.0
.target sm_80
.address_size 64
.visible .entry add5(.param .u64 p, .param .u32 n) {
  .reg .pred %q; .reg .b32 %r<6>; .reg .b64 %a<4>;
  ld.param.u64 %a1, [p]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.s32 %q, %r2, %r1; @%q bra DONE;
  cvta.to.global.u64 %a1, %a1; mul.wide.s32 %a2, %r2, 4; add.s64 %a3, %a1, %a2;
  ld.global.u32 %r5, [%a3]; add.s32 %r5, %r5, 5; st.global.u32 [%a3], %r5;
DONE:
  ret;
}
)";

int main() {
  const int n = 1000;
  int h[n];
  for (int i = 0; i < n; i++) h[i] = i;
  int* d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  // The runtime made the primary context current; the driver sees it.
  CUcontext ctx, primary;
  DRV(cuCtxGetCurrent(&ctx));
  DRV(cuDevicePrimaryCtxRetain(&primary, 0));
  EXPECT(ctx == primary);
  CUmodule m; CUfunction add5;
  DRV(cuModuleLoadData(&m, ptx));
  DRV(cuModuleGetFunction(&add5, m, "add5"));
  CUdeviceptr dp = (CUdeviceptr)d; int nn = n;
  void* args[] = {&dp, &nn};
  DRV(cuLaunchKernel(add5, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, nullptr));
  // The runtime's kernel, launched through the driver.
  cudaFunction_t f;
  CHECK(cudaGetFuncBySymbol(&f, (const void*)twice));
  DRV(cuLaunchKernel((CUfunction)f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, nullptr));
  // And with <<<>>>.
  twice<<<(n + 127) / 128, 128>>>(d, n);
  int out[n];
  DRV(cuMemcpyDtoH(out, dp, sizeof out));
  for (int i = 0; i < n; i++) EXPECT(out[i] == (i + 5) * 4);
  DRV(cuModuleUnload(m));
  CHECK(cudaFree(d));
  std::printf("PASS\n");
  return 0;
}
