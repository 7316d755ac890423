// copy_float3.cu in OpenCL C: out[i] = in[i] for 12-byte float3 elements. OpenCL's float3
// type is 16 bytes, so the elements are read and written with vload3/vstore3 (three floats
// at float offset 3 i), CUDA's float3 layout.
__kernel void copy_float3(int n, __global const float* in, __global float* out)
{
    int i = get_global_id(0);
    if (i < n) {
        vstore3(vload3(i, in), i, out);
    }
}
