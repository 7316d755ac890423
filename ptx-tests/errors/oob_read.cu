// Off-by-one read: out[i] = in[i + 1] for every i < n reads in[n], one element past the end of
// `in`. Without memcheck that address may lie in another allocation; with --memcheck ptxjit
// reports it with the buffer's name and the offset, as compute-sanitizer's memcheck does.
extern "C" __global__ void oob_read(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + 1];
}
