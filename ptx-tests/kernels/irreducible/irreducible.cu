// Loops entered at more than one block, as goto-heavy CUDA code compiles (NVRTC keeps them
// irreducible): ptxjit gives each such loop a dispatcher header before building SSA.

// A two-entry loop: odd inputs enter at B, even ones at A; lanes of one warp diverge.
extern "C" __global__ void two_entry(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = in[i], s = 0, k = 0;
    if (x & 1) goto B;
A:
    s += x * 3 + k;
    k++;
    if (k > (x & 15)) goto done;
B:
    s ^= k * 7;
    k++;
    if (k < 20) goto A;
done:
    out[i] = s;
}

// A three-entry state machine inside an ordinary loop over rounds.
extern "C" __global__ void three_entry(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = in[i], acc = 1;
    for (int round = 0; round < 3; round++) {
        int k = 0;
        switch ((x + round) % 3) {
            case 0: goto P;
            case 1: goto Q;
            default: goto R;
        }
    P:
        acc = acc * 3 + k;
        if (++k > (x & 7)) goto next;
    Q:
        acc ^= (acc >> 3) + k;
        if (++k > 11) goto next;
    R:
        acc += x - k;
        if (++k < 13) goto P;
    next:
        x = x / 2 + acc % 5;
    }
    out[i] = acc;
}
