// cuda_min.h: the few CUDA names these kernels use, from clang's own CUDA attributes and
// NVPTX builtins, so that clang compiles them without a CUDA installation (-nocudainc).
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

struct uint3_ {
  unsigned x, y, z;
};

static __device__ __forceinline__ uint3_ make_uint3_(unsigned x, unsigned y, unsigned z) {
  uint3_ r = {x, y, z};
  return r;
}

// threadIdx.x and friends: each use reads the three special registers; the unused ones are
// dead code that -O1 and above remove.
#define threadIdx \
  make_uint3_(__nvvm_read_ptx_sreg_tid_x(), __nvvm_read_ptx_sreg_tid_y(), __nvvm_read_ptx_sreg_tid_z())
#define blockIdx \
  make_uint3_(__nvvm_read_ptx_sreg_ctaid_x(), __nvvm_read_ptx_sreg_ctaid_y(), __nvvm_read_ptx_sreg_ctaid_z())
#define blockDim \
  make_uint3_(__nvvm_read_ptx_sreg_ntid_x(), __nvvm_read_ptx_sreg_ntid_y(), __nvvm_read_ptx_sreg_ntid_z())
#define gridDim \
  make_uint3_(__nvvm_read_ptx_sreg_nctaid_x(), __nvvm_read_ptx_sreg_nctaid_y(), __nvvm_read_ptx_sreg_nctaid_z())

#define warpSize 32

// __syncthreads() is a clang builtin (bar.sync 0).

static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}

static __device__ __forceinline__ float atomicAdd(float *p, float v) {
  return __nvvm_atom_add_gen_f(p, v);
}

static __device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v, unsigned delta) {
  return __nvvm_shfl_sync_down_i32(mask, v, delta, 0x1f);
}

static __device__ __forceinline__ float __shfl_down_sync(unsigned mask, float v, unsigned delta) {
  return __nvvm_shfl_sync_down_f32(mask, v, delta, 0x1f);
}

extern "C" __device__ int vprintf(const char *, const char *);
