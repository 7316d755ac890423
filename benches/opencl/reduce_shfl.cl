// reduce_shfl.cu in OpenCL C 1.2. The CUDA kernel reduces each warp with __shfl_down_sync,
// then the per-warp sums in warp 0. POCL's CPU device has no sub-groups (no cl_khr_subgroups,
// "Max sub-groups per work group 0"), so the shuffles become what an OpenCL 1.2 programmer
// writes instead: the same additions in the same order through local memory, each step of
// 32-lane groups followed by a work-group barrier. The work-group size must be a multiple of
// 32 and at most 1024 (the bench launches 256).
#define MAX_GROUP 1024

// v[lane] += v[lane + offset] for offset = 16, 8, 4, 2, 1 within each group of 32 entries of
// s (lanes whose partner is outside the group keep their value, as __shfl_down_sync does);
// the group's sum ends in its first entry.
static void group32_sum(__local float* s, unsigned int lid)
{
    unsigned int lane = lid & 31;
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        float other = (lane + offset < 32) ? s[lid + offset] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lane + offset < 32) s[lid] += other;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void reduce_shfl(__global const float* in, __global float* out, int n)
{
    __local float s[MAX_GROUP];
    __local float warp_sums[32];

    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    int lane = lid & 31;
    int warp = lid >> 5;

    float v = 0.0f;
    for (int i = get_group_id(0) * lsize + lid; i < n; i += get_num_groups(0) * lsize) {
        v += in[i];
    }

    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    group32_sum(s, lid);
    if (lane == 0) warp_sums[warp] = s[lid];
    barrier(CLK_LOCAL_MEM_FENCE);

    // The per-warp sums, padded with zeros to 32, reduced the same way by the first 32 items.
    int nwarps = (lsize + 31) >> 5;
    if (lid < 32) s[lid] = (lane < nwarps) ? warp_sums[lane] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    group32_sum(s, lid);
    if (lid == 0) out[get_group_id(0)] = s[0];
}
