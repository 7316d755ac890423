// Lockstep order (sm_60): the lanes of a warp split at a data-dependent branch (a loop on one
// side, a straight block on the other) and reconverge at its immediate post-dominator, where
// a non-.sync vote.ballot sees every lane of the warp again.
extern "C" __global__ void vote_join(const unsigned int* in, unsigned int* out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int x = in[i];
    unsigned int y = x;
    if (x & 1) {
        for (unsigned int k = 0; k < (x >> 3) % 4 + 1; k++) {
            y = y * 3 + k;
        }
    } else {
        y = x + 5;
    }
    unsigned int b;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.ballot.b32 %0, p; }"
                 : "=r"(b) : "r"(y & 2));
    out[i] = y ^ b;
}
