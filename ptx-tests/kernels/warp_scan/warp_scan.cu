// Block-wide inclusive prefix sum of unsigned ints, written as a CUDA programmer writes it
// with warp shuffles: each warp scans its 32 values with __shfl_up_sync (log2(32) steps, a
// lane adds the value `offset` lanes below it when it has one), the warps' totals go through
// __shared__, warp 0 scans them the same way, and each warp adds the totals of the warps
// before it. The last CTA is partial (n need not be a multiple of the block); lanes past n
// scan a 0 so that every lane of the warp still takes part in the shuffles. Each CTA also
// writes its total to block_sums. Sums wrap modulo 2^32.
extern "C" __global__ void warp_scan(const unsigned *in, unsigned *out, unsigned *block_sums,
                                     int n) {
  __shared__ unsigned warp_totals[32];
  const unsigned full = 0xffffffffu;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  unsigned v = i < n ? in[i] : 0u;
  for (int offset = 1; offset < 32; offset <<= 1) {
    unsigned up = __shfl_up_sync(full, v, offset);
    if (lane >= offset) v += up;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int warps = (blockDim.x + 31) >> 5;
    unsigned t = lane < warps ? warp_totals[lane] : 0u;
    for (int offset = 1; offset < 32; offset <<= 1) {
      unsigned up = __shfl_up_sync(full, t, offset);
      if (lane >= offset) t += up;
    }
    warp_totals[lane] = t;  // inclusive scan of the warp totals
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}
