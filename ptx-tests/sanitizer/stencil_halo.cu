// A 3-point stencil whose halo load is off by one: the right neighbour of the last element is
// read as in[n] instead of being clamped to in[n - 1]. `in` is followed directly by `out` in
// device memory (both are whole multiples of the allocation alignment), so on a GPU the read
// silently lands in `out`; memcheck's red zones catch it and name the buffer.
extern "C" __global__ void stencil3(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float left = i > 0 ? in[i - 1] : in[0];
    float right = in[i + 1];
    out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
}
