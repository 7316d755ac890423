// Every atomic operation on 32- and 64-bit integers, in global memory (all CTAs at once, on
// every core) and in shared memory (per CTA, then copied out). Each final value is
// independent of the order of the operations; see atomic_ops.toml for the closed forms.
// g32/g64: the global counters; s32/s64: the shared counters of every CTA, summed (with
// atomicAdd) over the CTAs; seen: order-independent facts about returned old values.

__device__ void ops32(unsigned int* c, unsigned int* seen, unsigned int t)
{
    int* s = (int*)c;
    atomicAdd(&c[0], t + 1u);                         // sum of t + 1
    atomicAnd(&c[1], ~(1u << (t % 16u)));             // clears bits 0..15
    atomicOr(&c[2], 1u << (t % 24u));                 // sets bits 0..23
    atomicXor(&c[3], t * 0x9E3779B9u);                // xor of all terms
    unsigned int old = atomicExch(&c[4], 77u);        // exactly one thread sees the initial 5
    if (old == 5u) atomicAdd(&seen[0], 1u);
    atomicMin(&s[5], (int)t - 50);                    // signed
    atomicMax(&s[6], (int)t - 50);
    atomicMin(&c[7], t + 1000u);                      // unsigned
    atomicMax(&c[8], t * 3u);
    unsigned int cur = c[9], assumed;                 // CAS increment loop, +3 each
    do {
        assumed = cur;
        cur = atomicCAS(&c[9], assumed, assumed + 3u);
    } while (cur != assumed);
    atomicInc(&c[10], 100u);                          // wraps after 100
    atomicDec(&c[11], 1000u);                         // from 500, never wraps here
    atomicSub(&c[12], 2u);
}

__device__ void ops64(unsigned long long* c, unsigned int* seen, unsigned int t)
{
    long long* s = (long long*)c;
    unsigned long long T = t;
    atomicAdd(&c[0], (T + 1ull) << 20);
    atomicAnd(&c[1], ~(1ull << (T % 40ull)));         // clears bits 0..39
    atomicOr(&c[2], 1ull << (T % 48ull + 8ull));      // sets bits 8..55
    atomicXor(&c[3], T * 0x9E3779B97F4A7C15ull);
    unsigned long long old = atomicExch(&c[4], 0x1234567890ull);
    if (old == 5ull) atomicAdd(&seen[1], 1u);
    atomicMin(&s[5], ((long long)t - 50) * 4294967296ll);
    atomicMax(&s[6], ((long long)t - 50) * 4294967296ll);
    atomicMin(&c[7], T + 0x100000000ull);
    atomicMax(&c[8], T << 33);
    unsigned long long cur = c[9], assumed;
    do {
        assumed = cur;
        cur = atomicCAS(&c[9], assumed, assumed + 0x300000000ull);
    } while (cur != assumed);
}

extern "C" __global__ void atomic_ops(unsigned int* g32, unsigned long long* g64,
                                      unsigned int* s32, unsigned long long* s64,
                                      unsigned int* seen)
{
    __shared__ unsigned int sh32[16];
    __shared__ unsigned long long sh64[16];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    if (t < 16) {
        // The same initial values as the global counters (atomic_ops.toml).
        const unsigned int init32[16] = {0, 0xffffffffu, 0, 0, 5, 0, 0xfffffc18u, 0xffffffffu,
                                         0, 0, 0, 500, 1000000, 0, 0, 0};
        sh32[t] = init32[t];
        const unsigned long long init64[16] = {0, ~0ull, 0, 0, 5, 0, 0xffffff0000000000ull,
                                               ~0ull, 0, 0, 0, 0, 0, 0, 0, 0};
        sh64[t] = init64[t];
    }
    __syncthreads();
    ops32(g32, seen, i);
    ops64(g64, seen, i);
    ops32(sh32, seen + 2, t);
    ops64(sh64, seen + 2, t);
    __syncthreads();
    if (t < 16) {
        atomicAdd(&s32[t], sh32[t]);
        atomicAdd(&s64[t], sh64[t]);
    }
}
