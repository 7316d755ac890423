// Atomics one element past the end: in global memory (256-bin histogram, the bin index of
// thread 256 is 256) and in shared memory (16 counters, 32 threads). Both launches must
// report the fault (the atomic does nothing) and never touch host memory.
extern "C" __global__ void oob_atomic_global(unsigned int* bins)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&bins[i], 1u);
}

extern "C" __global__ void oob_atomic_shared(unsigned int* out)
{
    __shared__ unsigned int counts[16];
    if (threadIdx.x < 16) counts[threadIdx.x] = 0;
    __syncthreads();
    unsigned int old = atomicMax(&counts[threadIdx.x], threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = old + (threadIdx.x < 16 ? counts[threadIdx.x] : 0u);
}
