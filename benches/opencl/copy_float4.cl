// copy_float4.cu in OpenCL C: out[i] = in[i] for float4 elements (16 bytes each).
__kernel void copy_float4(int n, __global const float4* in, __global float4* out)
{
    int i = get_global_id(0);
    if (i < n) {
        out[i] = in[i];
    }
}
