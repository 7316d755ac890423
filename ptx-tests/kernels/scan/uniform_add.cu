// The last pass of scan.cu's pipeline: out[i] += offsets[i / chunk] (any launch shape).
extern "C" __global__ void add_offsets(unsigned* out, const unsigned* offsets, int n, int chunk)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += offsets[i / chunk];
}
