// copy_float.cu in OpenCL C: out[i] = in[i] for float elements (4 bytes each).
__kernel void copy_float(int n, __global const float* in, __global float* out)
{
    int i = get_global_id(0);
    if (i < n) {
        out[i] = in[i];
    }
}
