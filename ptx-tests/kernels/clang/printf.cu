#include "cuda_min.h"

// clang turns a variadic printf in device code into vprintf(format, argument buffer).
extern "C" __device__ int printf(const char *, ...);

// Every third thread below n prints one line: an int, a float (passed as double), a long
// long, an unsigned, a char and a string.
extern "C" __global__ void clang_printf(const float *x, long long big, int n) {
  int t = threadIdx.x;
  if (t < n && t % 3 == 0)
    printf("t=%d x=%.3f big=%lld u=%u c=%c s=%s\n", t, x[t], big + t, 4000000000u + t,
           'a' + t % 26, t < 16 ? "lo" : "hi");
}
