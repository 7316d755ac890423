// 256-bin histogram of bytes, atomicAdd directly on global bins.
// Grid-stride loop over the input.
extern "C" __global__ void histogram_global(const unsigned char* data, unsigned int n, unsigned int* bins)
{
    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&bins[data[i]], 1u);
    }
}
