// Each thread samples one of two 2D texture objects, picked by the parity of its index, so
// the handle of the one `tex.2d` differs between the lanes of every warp: each lane must read
// its own texture (a per-warp fast path may take only warps whose lanes agree).
extern "C" __global__ void tex2d_pick(cudaTextureObject_t a, cudaTextureObject_t b,
                                      const float* xs, const float* ys, float4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cudaTextureObject_t t = (i & 1) ? b : a;
        out[i] = tex2D<float4>(t, xs[i], ys[i]);
    }
}
