// Sample a 2D texture object at per-thread coordinates: tex2D<float4> (point or linear
// filtering, every address mode, normalized or texel coordinates, per the case's sampler).
extern "C" __global__ void tex2d(cudaTextureObject_t tex, const float* xs, const float* ys,
                                 float4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = tex2D<float4>(tex, xs[i], ys[i]);
    }
}
