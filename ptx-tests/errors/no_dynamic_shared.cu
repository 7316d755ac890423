// Reverses each block of `in` through dynamic shared memory (extern __shared__), as CUDA code
// does when the tile size is chosen at launch. no_dynamic_shared.toml launches it without
// dynamic shared memory (shared_bytes = 0, as if `<<<grid, block>>>` forgot the third
// argument): the first store to tile[] (thread 0, shared offset 0) is out of bounds.
extern "C" __global__ void reverse_blocks(const float* in, float* out)
{
    extern __shared__ float tile[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    __syncthreads();
    out[i] = tile[blockDim.x - 1 - t];
}
