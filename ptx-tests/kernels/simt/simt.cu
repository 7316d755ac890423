// SIMT semantics: device-function calls, warp collectives after divergence, and CTA barrier
// reductions. Expected outputs: simt_ref.py (host reference from the CUDA programming guide's
// definitions of the intrinsics).

__device__ __noinline__ int mix(int a, int b) {
    int t[4];
    for (int i = 0; i < 4; ++i) t[i] = a * (i + 1) - b;
    return t[a & 3] ^ (b << 1);
}

__device__ __noinline__ int chain(int a) {
    if (a % 3 == 0) return mix(a, 7);
    return mix(a + 1, a) + 1;
}

__device__ __noinline__ void store_pair(int* out, int i, int v) {
    out[2 * i] = v;
    out[2 * i + 1] = v * 2;
}

// Calls under divergence: every thread calls chain(); odd threads also call mix() directly.
extern "C" __global__ void calls(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = chain(i);
    if (i & 1) v += mix(i, v & 15);
    store_pair(out, i, v);
}

// Warp collectives after divergence; blocks of 80 threads (a partial third warp), 2D grid.
extern "C" __global__ void votes(unsigned* out) {
    unsigned t = threadIdx.x;
    unsigned cta = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned g = cta * blockDim.x + t;
    unsigned lane = t % 32;
    unsigned* o = out + 6 * g;
    bool p = ((t * 7 + cta) % 5) < 2;
    unsigned full = __activemask();
    o[0] = __ballot_sync(full, p);
    if (lane < 12 || lane > 27) {
        unsigned m = __activemask();
        o[1] = m;
        o[2] = __ballot_sync(m, !p) | (__any_sync(m, p) ? 0x10000u : 0u) | (__all_sync(m, lane < 30) ? 0x20000u : 0u);
    } else {
        unsigned m = __activemask();
        o[1] = m;
        o[2] = __reduce_add_sync(m, t + cta);
    }
    __syncwarp();
    o[3] = __match_any_sync(full, (t / 3 + cta) % 4);
    o[4] = __reduce_max_sync(full, (t * 37 + cta * 11) % 101) ^ (__reduce_or_sync(full, 1u << (t % 13)) << 8);
    o[5] = __popc(__ballot_sync(full, p) & ((1u << lane) - 1)) + 1000 * (unsigned)__uni_sync(full, lane < 40);
}

// __syncthreads_count/and/or in a loop with a data-dependent trip count per CTA, inside
// uniform conditionals, with a third of the threads exited early; 3D blocks.
extern "C" __global__ void sync_red(int* out, int rounds) {
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    unsigned cta = blockIdx.x;
    int* o = out + 3 * (cta * nt + t);
    if (t % 3 == 2) return;
    int acc = 0, all = 0, any = 0;
    for (int r = 0; r < rounds + (int)cta; ++r) {
        int c = __syncthreads_count((t + r) % 4 == 0);
        acc += c;
        if (r % 2 == 0) {
            all += __syncthreads_and(t < 1000 - r);
        } else {
            any += __syncthreads_or(t == (unsigned)r);
        }
    }
    o[0] = acc;
    o[1] = all;
    o[2] = any;
}
