// histogram_shared.cu in OpenCL C: per-work-group bins in local memory (atomic_inc), then one
// atomic_add per non-zero bin on the global bins.
__kernel void histogram_shared(__global const uchar* data, unsigned int n,
                               __global unsigned int* bins)
{
    __local unsigned int local_bins[256];
    unsigned int lid = get_local_id(0);
    unsigned int lsize = get_local_size(0);

    for (unsigned int b = lid; b < 256; b += lsize) {
        local_bins[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    unsigned int stride = get_global_size(0);
    for (unsigned int i = get_global_id(0); i < n; i += stride) {
        atomic_inc(&local_bins[data[i]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (unsigned int b = lid; b < 256; b += lsize) {
        unsigned int c = local_bins[b];
        if (c != 0) atomic_add(&bins[b], c);
    }
}
