// Mipmapped 2D texture: tex2DLod at an explicit level of detail and tex2DGrad with
// gradients (level = log2 of the longer gradient in texels).
extern "C" __global__ void tex_lod(cudaTextureObject_t t, const float4* c, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 p = c[i];
        out[2 * i] = tex2DLod<float>(t, p.x, p.y, p.z);
        out[2 * i + 1] = tex2DGrad<float>(t, p.x, p.y, make_float2(p.w, 0.0f), make_float2(0.0f, p.w * 0.5f));
    }
}
