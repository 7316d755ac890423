// A two-pass (three-launch) inclusive prefix sum of unsigned ints, the classic "scan then
// propagate" decomposition; the case file runs the three kernels as one pipeline:
//   1. scan_blocks: each CTA scans its chunk of 256 elements in shared memory (Hillis-Steele)
//      and writes the chunk's total to block_sums[blockIdx.x];
//   2. scan_sums (one CTA, dynamic shared memory): exclusive scan of the chunk totals, in place;
//   3. add_offsets (uniform_add.cu, another PTX file and launch shape): adds each chunk's
//      offset to its elements.
// Sums wrap modulo 2^32 (unsigned arithmetic).

#define CHUNK 256

extern "C" __global__ void scan_blocks(const unsigned* in, unsigned* out, unsigned* block_sums, int n)
{
    __shared__ unsigned s[CHUNK];
    int t = threadIdx.x;
    int i = blockIdx.x * CHUNK + t;
    s[t] = i < n ? in[i] : 0u;
    __syncthreads();
    for (int d = 1; d < CHUNK; d *= 2) {
        unsigned v = t >= d ? s[t - d] : 0u;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (i < n) out[i] = s[t];
    if (t == CHUNK - 1) block_sums[blockIdx.x] = s[t];
}

// m <= blockDim.x; shared memory: blockDim.x unsigned ints (the launch's shared_bytes).
extern "C" __global__ void scan_sums(unsigned* sums, int m)
{
    extern __shared__ unsigned s[];
    int t = threadIdx.x;
    unsigned own = t < m ? sums[t] : 0u;
    s[t] = own;
    __syncthreads();
    for (int d = 1; d < blockDim.x; d *= 2) {
        unsigned v = t >= d ? s[t - d] : 0u;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (t < m) sums[t] = s[t] - own;  // exclusive
}
