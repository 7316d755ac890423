// Warp-synchronous code from before __syncwarp (CUDA samples, Harris' reduction): the last
// warp of a shared-memory reduction adds through a volatile array with no synchronization,
// relying on the warp executing each statement for all its lanes before the next. A race
// under the Volta memory model, but common in real code: both engines run a warp one
// instruction at a time for all lanes, so it gives the lockstep result.
extern "C" __global__ void warp_reduce(const int* in, int* out)
{
    __shared__ volatile int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
