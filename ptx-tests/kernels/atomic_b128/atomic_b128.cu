// 128-bit atomics (sm_90, PTX ISA 8.3: atom.cas.b128 / atom.exch.b128) as CUDA writes them:
// atomicCAS and atomicExch on a 16-byte aligned struct and on unsigned __int128.
//
// - mixed[0]: even threads atomicAdd 1 to its low 64-bit half while odd threads run 128-bit
//   CAS loops that add their index to the high half and keep the low half they found, from
//   every CTA at once: no update of either kind may be lost.
// - wide[0]: every thread adds 1 to a 128-bit counter (CAS loop on unsigned __int128) that
//   starts just below 2^64, so the increments carry into the high half.
// - slots[i]: atomicExch puts the thread's own value in (the old one goes to olds[i]); a CAS
//   with a wrong compare value returns the value and stores nothing; a CAS with the right
//   one swaps the halves.
// - a __shared__ 128-bit counter per CTA (lo += 1, hi += threadIdx.x by CAS loops), written
//   to per_cta[blockIdx.x] after a barrier.
struct __align__(16) u64x2 {
    unsigned long long lo, hi;
};

__device__ bool same(u64x2 a, u64x2 b) { return a.lo == b.lo && a.hi == b.hi; }

extern "C" __global__ void atomic_b128(u64x2* mixed, unsigned __int128* wide, u64x2* slots,
                                       u64x2* olds, u64x2* cas_out, u64x2* per_cta) {
    __shared__ u64x2 sh;
    unsigned t = threadIdx.x;
    unsigned long long i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        sh.lo = 0;
        sh.hi = 0;
    }
    __syncthreads();

    if (i & 1) {
        u64x2 old = {0, 0};
        for (;;) {
            u64x2 next = {old.lo, old.hi + i};
            u64x2 seen = atomicCAS(mixed, old, next);
            if (same(seen, old)) break;
            old = seen;
        }
    } else {
        atomicAdd(&mixed->lo, 1ull);
    }

    unsigned __int128 w = 0;
    for (;;) {
        unsigned __int128 seen = atomicCAS(wide, w, w + 1);
        if (seen == w) break;
        w = seen;
    }

    u64x2 mine = {i * 0x9E3779B97F4A7C15ull, ~i};
    olds[i] = atomicExch(&slots[i], mine);
    u64x2 wrong = {mine.lo, mine.hi ^ 1};
    u64x2 zero = {0, 0};
    cas_out[2 * i] = atomicCAS(&slots[i], wrong, zero);
    u64x2 swapped = {mine.hi, mine.lo};
    cas_out[2 * i + 1] = atomicCAS(&slots[i], mine, swapped);

    u64x2 s = {0, 0};
    for (;;) {
        u64x2 next = {s.lo + 1, s.hi + t};
        u64x2 seen = atomicCAS(&sh, s, next);
        if (same(seen, s)) break;
        s = seen;
    }
    __syncthreads();
    if (t == 0) per_cta[blockIdx.x] = sh;
}
