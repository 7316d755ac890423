// Every texture shape through one kernel: tex1D, tex3D, tex1DLayered, tex2DLayered,
// texCubemap and texCubemapLayered on float textures (one object per shape).
extern "C" __global__ void tex_shapes(cudaTextureObject_t t1, cudaTextureObject_t t3,
                                      cudaTextureObject_t l1, cudaTextureObject_t l2,
                                      cudaTextureObject_t cube, cudaTextureObject_t cubel,
                                      const float4* c, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 p = c[i];
        int layer = (int)p.w;
        out[6 * i + 0] = tex1D<float>(t1, p.x);
        out[6 * i + 1] = tex3D<float>(t3, p.x, p.y, p.z);
        out[6 * i + 2] = tex1DLayered<float>(l1, p.x, layer);
        out[6 * i + 3] = tex2DLayered<float>(l2, p.x, p.y, layer);
        out[6 * i + 4] = texCubemap<float>(cube, p.x - 0.5f, p.y - 0.5f, p.z - 0.5f);
        out[6 * i + 5] = texCubemapLayered<float>(cubel, p.x - 0.5f, p.y - 0.5f, p.z - 0.5f, layer);
    }
}
