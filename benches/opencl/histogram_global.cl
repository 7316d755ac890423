// histogram_global.cu in OpenCL C: atomic_inc directly on the global bins (atomicAdd(p, 1u)),
// grid-stride loop.
__kernel void histogram_global(__global const uchar* data, unsigned int n,
                               __global unsigned int* bins)
{
    unsigned int stride = get_global_size(0);
    for (unsigned int i = get_global_id(0); i < n; i += stride) {
        atomic_inc(&bins[data[i]]);
    }
}
