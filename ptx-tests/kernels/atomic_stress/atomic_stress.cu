// Atomics from many CTAs running on several cores at once; every final value is known in
// closed form (see atomic_stress.toml).
#define ITERS 16

extern "C" __global__ void atomic_stress(unsigned int* c, float* f)
{
    __shared__ unsigned int s_count;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) s_count = 0;
    __syncthreads();
    for (int k = 0; k < ITERS; k++) {
        atomicAdd(&c[0], 1u);                 // total count
        atomicAdd(&c[1 + (i & 7)], 2u);       // 8 bins, 2 per op
        atomicInc(&c[9], 99u);                // wraps at 100
        atomicMax(&c[10], i * ITERS + k);
        atomicMin(&c[11], i * ITERS + k + 5u);
        atomicOr(&c[12], 1u << (i & 31));
        atomicXor(&c[13], 1u << (k & 31));
        atomicAdd(&s_count, 1u);
        unsigned int old = c[14], assumed;    // an atomicCAS increment loop
        do {
            assumed = old;
            old = atomicCAS(&c[14], assumed, assumed + 3u);
        } while (old != assumed);
        atomicDec(&c[15], 0xffffffffu);       // never wraps: counts down from 0xffffffff
        atomicAdd(&f[0], 0.5f);
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&c[16], s_count);
}
