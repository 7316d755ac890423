// tex1Dfetch on linear memory: an f32 texture and a u8x4 texture read as normalized floats;
// indices past either end read 0. Also txq-free sanity of integer element reads (s32).
extern "C" __global__ void tex_fetch(cudaTextureObject_t tf, cudaTextureObject_t tu,
                                     cudaTextureObject_t ti, const int* idx, float* of,
                                     float4* ou, int* oi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = idx[i];
        of[i] = tex1Dfetch<float>(tf, k);
        ou[i] = tex1Dfetch<float4>(tu, k);
        oi[i] = tex1Dfetch<int>(ti, k);
    }
}
