// Shared by the examples and cudart/tests/programs: stop with a message when a CUDA call
// fails or a check does not hold.
#pragma once
#include <cstdio>
#include <cstdlib>
#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorString(err_));                                        \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)
#define EXPECT(cond)                                                                 \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);          \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)
