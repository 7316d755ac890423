// Bitonic sort of key/value pairs in __shared__ memory: each CTA sorts its own segment of
// 2 * blockDim.x pairs (blockDim.x a power of two) by key, ascending, each thread comparing
// and exchanging two elements per step, with a __syncthreads between steps. Keys are
// distinct, so the result is one permutation.
extern "C" __global__ void bitonic_sort(unsigned *keys, unsigned *vals) {
  extern __shared__ unsigned smem[];
  unsigned n = 2 * blockDim.x;
  unsigned *sk = smem, *sv = smem + n;
  unsigned base = blockIdx.x * n, t = threadIdx.x;
  sk[t] = keys[base + t];
  sv[t] = vals[base + t];
  sk[t + blockDim.x] = keys[base + t + blockDim.x];
  sv[t + blockDim.x] = vals[base + t + blockDim.x];
  __syncthreads();
  for (unsigned size = 2; size <= n; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      // the pair (i, i + stride): i has bit `stride` clear
      unsigned i = 2 * t - (t & (stride - 1));
      unsigned j = i + stride;
      bool ascending = (i & size) == 0;
      unsigned ki = sk[i], kj = sk[j];
      if ((ki > kj) == ascending) {
        sk[i] = kj;
        sk[j] = ki;
        unsigned vi = sv[i];
        sv[i] = sv[j];
        sv[j] = vi;
      }
      __syncthreads();
    }
  }
  keys[base + t] = sk[t];
  vals[base + t] = sv[t];
  keys[base + t + blockDim.x] = sk[t + blockDim.x];
  vals[base + t + blockDim.x] = sv[t + blockDim.x];
}
