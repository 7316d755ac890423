// Library management: PTX the program holds itself, loaded with cudaLibraryLoadData; its
// kernel launched through cudaLaunchKernel by its cudaKernel_t and its global read by name.
#include "check.h"

static const char* ptx = R"(
.version 7.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 bias = 7;
.visible .entry add_bias(.param .u64 p) {
  .reg .b32 %r<4>; .reg .b64 %a<4>;
  ld.param.u64 %a1, [p]; cvta.to.global.u64 %a1, %a1;
  mov.u32 %r1, %tid.x; mul.wide.u32 %a2, %r1, 4; add.s64 %a3, %a1, %a2;
  ld.global.u32 %r2, [bias]; add.u32 %r3, %r1, %r2; st.global.u32 [%a3], %r3;
  ret;
}
)";

int main() {
  cudaLibrary_t lib;
  CHECK(cudaLibraryLoadData(&lib, ptx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  unsigned count = 0;
  CHECK(cudaLibraryGetKernelCount(&count, lib));
  EXPECT(count == 1);
  cudaKernel_t k;
  CHECK(cudaLibraryGetKernel(&k, lib, "add_bias"));
  void* bias; size_t size;
  CHECK(cudaLibraryGetGlobal(&bias, &size, lib, "bias"));
  EXPECT(size == 4);
  int nine = 9;
  CHECK(cudaMemcpy(bias, &nine, 4, cudaMemcpyHostToDevice));
  int* d;
  CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  void* args[] = {&d};
  CHECK(cudaLaunchKernel((const void*)k, dim3(1), dim3(32), args, 0, nullptr));
  int h[32];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) EXPECT(h[i] == i + 9);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, (const void*)k));
  EXPECT(fa.maxThreadsPerBlock > 0);
  // An address that is neither a registered kernel nor a kernel handle.
  EXPECT(cudaLaunchKernel((const void*)&nine, dim3(1), dim3(1), args, 0, nullptr) == cudaErrorInvalidDeviceFunction);
  CHECK(cudaLibraryUnload(lib));
  std::printf("PASS\n");
  return 0;
}
