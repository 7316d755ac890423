// Bilinear upscaling: each output pixel samples the source image (u8 RGBA read as normalized
// floats, linear filtering, normalized coordinates, clamp) at its centre and converts back to
// 8 bits with rounding.
extern "C" __global__ void upscale(cudaTextureObject_t src, uchar4* dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float u = (x + 0.5f) / w;
        float v = (y + 0.5f) / h;
        float4 c = tex2D<float4>(src, u, v);
        dst[y * w + x] = make_uchar4(__float2uint_rn(__saturatef(c.x) * 255.0f),
                                     __float2uint_rn(__saturatef(c.y) * 255.0f),
                                     __float2uint_rn(__saturatef(c.z) * 255.0f),
                                     __float2uint_rn(__saturatef(c.w) * 255.0f));
    }
}
