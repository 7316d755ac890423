// The digit-count pass of an LSD radix sort: each block counts the 4-bit digits of its keys at
// bit `shift`. Each warp finds, per digit, the lanes holding it with __ballot_sync (four votes on
// the digit's bits, ANDed) and counts them with __popc; the per-warp counts live in dynamic
// `extern __shared__` memory (16 words per warp, sized at launch) and are summed per block.
// Keys past `n` count nowhere. Output: counts[block * 16 + digit].
#define RADIX 16

extern "C" __global__ void radix_count(const unsigned* __restrict__ keys, int n, int shift,
                                       unsigned* __restrict__ counts) {
    extern __shared__ unsigned warp_counts[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    bool valid = i < n;
    unsigned digit = valid ? (keys[i] >> shift) & (RADIX - 1) : 0;
    unsigned in = __ballot_sync(0xffffffffu, valid);
    unsigned bits[4];
    for (int b = 0; b < 4; ++b) bits[b] = __ballot_sync(0xffffffffu, (digit >> b) & 1);
    if (lane < RADIX) {
        unsigned m = in;
        for (int b = 0; b < 4; ++b) m &= ((lane >> b) & 1) ? bits[b] : ~bits[b];
        warp_counts[warp * RADIX + lane] = __popc(m);
    }
    __syncthreads();
    if (threadIdx.x < RADIX) {
        unsigned total = 0;
        for (int w = 0; w < warps; ++w) total += warp_counts[w * RADIX + threadIdx.x];
        counts[blockIdx.x * RADIX + threadIdx.x] = total;
    }
}
