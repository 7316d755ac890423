// Reverses each block's segment of d in place, missing the __syncthreads() between the loads
// and the stores: a thread may store over an element another thread of its block has not
// loaded yet. On a GPU the warps of a small block often all load before any of them stores,
// so the bug hides; racecheck with --racecheck-global names the store and the load.
extern "C" __global__ void reverse_segments(float* d)
{
    unsigned base = blockIdx.x * blockDim.x;
    unsigned t = threadIdx.x;
    float v = d[base + t];
    d[base + blockDim.x - 1 - t] = v;
}
