// CUB's block-wide reduction (cub::BlockReduce) in a kernel template: one sum per CTA.
// Built by tests/nvrtc.rs with `ptxjit compile` and run by its demangled name.
#include <cub/block/block_reduce.cuh>

template <int BLOCK>
__global__ void block_sums(const int* in, int* out, int n)
{
    using BlockReduce = cub::BlockReduce<int, BLOCK>;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int sum = BlockReduce(temp).Sum(v);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

template __global__ void block_sums<128>(const int*, int*, int);
