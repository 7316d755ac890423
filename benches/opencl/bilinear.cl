// upscale.cu (the bilinear row) in OpenCL C: the CUDA texture object becomes an image2d_t
// (CL_RGBA / CL_UNORM_INT8: u8 RGBA read as normalized floats) and a sampler with normalized
// coordinates, clamp to the edge and linear filtering; each output pixel samples at its
// centre and is converted back to 8 bits with rounding and saturation.
__constant sampler_t linear_clamp =
    CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;

__kernel void upscale(__read_only image2d_t src, __global uchar4* dst, int w, int h)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x < w && y < h) {
        float2 uv = (float2)((x + 0.5f) / w, (y + 0.5f) / h);
        float4 c = read_imagef(src, linear_clamp, uv);
        dst[y * w + x] = convert_uchar4_sat_rte(c * 255.0f);
    }
}
