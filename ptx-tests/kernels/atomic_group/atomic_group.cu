// Atomic adds whose lanes share addresses in every pattern a group of four lanes can show:
// all 32 lanes of a warp on one bin, pairs, distinct bins, lanes that skip (partial
// groups), and random bins, with 32- and 64-bit operands. `idx[t]` is thread t's bin
// (SKIP: the thread does nothing), `val[t]` its operand. Beside the sums, each thread takes a
// ticket (the old value of its bin's counter) and counts it in `seen[bin * CAP + ticket]`:
// whatever order the atomics run in, every count is 1 for tickets below the bin's total and
// 0 above it, so a wrong old value shows as a 2 and a 0.
#define SKIP 0xffffffffu
#define NB 16
#define CAP 128

extern "C" __global__ void atomic_group(const unsigned* idx, const unsigned* val, unsigned* bins,
                                        unsigned long long* bins64, unsigned* count,
                                        unsigned* seen)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned b = idx[t];
    if (b == SKIP) return;
    atomicAdd(&bins[b], val[t]);
    atomicAdd(&bins64[b], ((unsigned long long)val[t] << 24) + t);
    unsigned ticket = atomicAdd(&count[b], 1u);
    atomicAdd(&seen[b * CAP + ticket], 1u);
}

// The same in shared memory, per CTA (at most CAP threads per CTA), copied out at the end:
// CTA c's results at bins[c * NB + b], bins64[c * NB + b], count[c * NB + b] and
// seen[(c * NB + b) * CAP + ticket].
extern "C" __global__ void atomic_group_shared(const unsigned* idx, const unsigned* val,
                                               unsigned* bins, unsigned long long* bins64,
                                               unsigned* count, unsigned* seen)
{
    __shared__ unsigned s_bins[NB];
    __shared__ unsigned long long s_bins64[NB];
    __shared__ unsigned s_count[NB];
    __shared__ unsigned s_seen[NB * CAP];
    for (unsigned k = threadIdx.x; k < NB * CAP; k += blockDim.x) {
        s_seen[k] = 0;
        if (k < NB) {
            s_bins[k] = 0;
            s_bins64[k] = 0;
            s_count[k] = 0;
        }
    }
    __syncthreads();
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned b = idx[t];
    if (b != SKIP) {
        atomicAdd(&s_bins[b], val[t]);
        atomicAdd(&s_bins64[b], ((unsigned long long)val[t] << 24) + t);
        unsigned ticket = atomicAdd(&s_count[b], 1u);
        atomicAdd(&s_seen[b * CAP + ticket], 1u);
    }
    __syncthreads();
    unsigned c = blockIdx.x;
    for (unsigned k = threadIdx.x; k < NB * CAP; k += blockDim.x) {
        seen[c * NB * CAP + k] = s_seen[k];
        if (k < NB) {
            bins[c * NB + k] = s_bins[k];
            bins64[c * NB + k] = s_bins64[k];
            count[c * NB + k] = s_count[k];
        }
    }
}
