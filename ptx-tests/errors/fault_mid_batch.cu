// A fault in one CTA in the middle of a worker's batch of consecutive CTAs: a kernel without
// barriers (each CTA ends in its first round, so a worker runs its CTAs back to back). In a
// 40 x 30 grid of 64 threads, threads 40..63 of CTA (13, 17) (linear CTA 693) and every
// thread of CTA (20, 25) (linear 1020) load from `in` plus `far` bytes, an address in no
// allocation; every other thread loads in[0]. The report names the lowest faulting CTA and
// its first faulting thread, whichever worker ran which CTA.
extern "C" __global__ void fault_mid_batch(unsigned int* out, const unsigned int* in,
                                           unsigned long long far)
{
    unsigned int cta = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int i = cta * blockDim.x + threadIdx.x;
    const unsigned int* p = in;
    if ((blockIdx.x == 13 && blockIdx.y == 17 && threadIdx.x >= 40) ||
        (blockIdx.x == 20 && blockIdx.y == 25))
        p = (const unsigned int*)((const char*)in + far);
    out[i] = p[0] + i;
}
