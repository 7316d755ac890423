// Barriers reached through different instructions by different warps of one CTA
// (`barrier.sync 0`, not aligned: the ISA allows it), inside a loop whose trip count depends
// on the CTA, followed by a barrier all warps reach through one instruction. Passes of the
// in-call completion where the warps park at two barrier targets alternate with passes where
// all park at one.
extern "C" __global__ void bar_targets(const unsigned int* in, unsigned int* out, unsigned int base)
{
    __shared__ unsigned int s[256];
    unsigned int tid = threadIdx.x;
    unsigned int n = blockDim.x;
    unsigned int w = tid / 32;
    unsigned int v = in[blockIdx.x * n + tid];
    unsigned int rounds = base + blockIdx.x % 3;
#pragma unroll 1
    for (unsigned int r = 0; r < rounds; r++) {
        s[tid] = v;
        if (w & 1) {
            asm volatile("barrier.sync 0;" ::: "memory");
            v = v + s[(tid + 32) % n] * (r + 1);
        } else {
            asm volatile("barrier.sync 0;" ::: "memory");
            v = v * 3u + s[(tid + n - 1) % n];
        }
        asm volatile("barrier.sync 0;" ::: "memory");
    }
    out[blockIdx.x * n + tid] = v;
}
