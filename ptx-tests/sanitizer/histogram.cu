// A 16-bin histogram with per-block bins in shared memory, merged into the global bins with
// atomicAdd. The host allocated `bins` with cudaMalloc and never zeroed it (no memset, no
// copy), so every bin's count starts from whatever the memory held: initcheck reports the
// atomicAdd of the merge as a read of never-written global memory.
#define NBINS 16

extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int local[NBINS];
    int t = threadIdx.x;
    if (t < NBINS) local[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&local[data[i] % NBINS], 1u);
    }
    __syncthreads();
    if (t < NBINS) atomicAdd(&bins[t], local[t]);
}
