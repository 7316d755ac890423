// A failed device-side assert. NVRTC has no <assert.h> but declares __assertfail, which a
// failed assert calls (and which traps); this is the macro the toolkit's headers define.
#define assert(e) ((e) ? (void)0 : __assertfail(#e, "assert.cu", __LINE__, __func__, 1))

extern "C" __global__ void check_sorted(const int* x, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) {
        assert(x[i] <= x[i + 1]);
        out[i] = x[i + 1] - x[i];
    }
}
