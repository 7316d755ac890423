// tex2Dgather (tld4): each of the four components of the 2x2 bilinear footprint.
extern "C" __global__ void tex_gather(cudaTextureObject_t t, const float* xs, const float* ys,
                                      float4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[4 * i + 0] = tex2Dgather<float4>(t, xs[i], ys[i], 0);
        out[4 * i + 1] = tex2Dgather<float4>(t, xs[i], ys[i], 1);
        out[4 * i + 2] = tex2Dgather<float4>(t, xs[i], ys[i], 2);
        out[4 * i + 3] = tex2Dgather<float4>(t, xs[i], ys[i], 3);
    }
}
