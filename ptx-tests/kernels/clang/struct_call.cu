#include "cuda_min.h"

// A struct passed by value to the kernel and a device function that stays a call.
struct Params {
  float scale;
  int offset;
  const float *src;
  float *dst;
  int n;
};

// Clamps v * scale to [lo, hi]; noinline keeps it a .func with .param arguments.
__device__ __noinline__ float scale_clamp(float v, float scale, float lo, float hi) {
  float r = v * scale;
  return r < lo ? lo : (r > hi ? hi : r);
}

// dst[i] = scale_clamp(src[(i + offset) % n], scale, -1, 1) + i.
extern "C" __global__ void struct_call(Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    p.dst[i] = scale_clamp(p.src[(i + p.offset) % p.n], p.scale, -1.0f, 1.0f) + (float)i;
}
