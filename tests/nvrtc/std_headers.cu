// A kernel that includes the C and C++ standard headers most CUDA files start with; NVRTC has
// none of them, so ptxjit gives them in memory (src/nvrtc/headers.rs).
#include <cstdio>
#include <cstdint>
#include <cstddef>
#include <climits>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <stdio.h>
#include <stdint.h>
#include <math.h>
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <stddef.h>
#include <cuda/std/cstdint>

extern "C" __global__ void k(float* out, std::uint32_t* u, double* d) {
  std::size_t i = threadIdx.x;
  if (i == 0) printf("max %d\n", INT_MAX);
  uint64_t big = UINT64_MAX;
  int32_t m = INT32_MIN;
  out[i] = std::sqrt((float)i) + sinf(0.0f) + (float)M_PI * 0.0f + std::fabs(-1.0f);
  u[i] = (std::uint32_t)(big >> 40) + (uint32_t)(m == INT_MIN) + (uint32_t)std::abs(-3);
  d[i] = DBL_EPSILON + FLT_MAX * 0.0 + (std::isinf(HUGE_VAL) ? 1.0 : 0.0) + floor(2.5) + (INFINITY > FLT_MAX);
}
