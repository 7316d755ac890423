// 256-bin histogram of bytes with a per-block shared-memory histogram,
// then the block's bins are added to the global bins with atomicAdd.
extern "C" __global__ void histogram_shared(const unsigned char* data, unsigned int n, unsigned int* bins)
{
    __shared__ unsigned int local_bins[256];

    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
        local_bins[b] = 0;
    }
    __syncthreads();

    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local_bins[data[i]], 1u);
    }
    __syncthreads();

    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned int c = local_bins[b];
        if (c != 0) atomicAdd(&bins[b], c);
    }
}
