// Chains of float operations (fma, add, sub, mul, div, sqrt; f32 and f64) fed NaNs with
// payloads, infinities and zeros. PTX results that are NaN are the canonical NaN whatever
// the operands' payloads (ptxjit's rule, ptx-tests/isa/float_special.isa), including
// results that only feed further arithmetic. `mid` is an intermediate value that is also
// stored; `out` the end of the chain. The outputs are the results' bit patterns as integers,
// so that every expectation and the engines' comparison see NaN payloads.
extern "C" __global__ void nan_chain(const float* a, const float* b, const float* c,
                                     unsigned int* mid, unsigned int* out,
                                     const double* da, const double* db,
                                     unsigned long long* dout)
{
    int i = threadIdx.x;
    float x = __fmaf_rn(a[i], b[i], c[i]);
    float y = __fmaf_rn(x, b[i], a[i]);
    mid[i] = __float_as_uint(y);
    float z = __fadd_rn(y, c[i]);
    z = __fmul_rn(z, a[i]);
    z = __fsub_rn(z, b[i]);
    z = __fdiv_rn(z, b[i]);
    out[i] = __float_as_uint(__fsqrt_rn(z));
    double u = __fma_rn(da[i], db[i], da[i]);
    u = __dadd_rn(u, db[i]);
    u = __dmul_rn(u, da[i]);
    dout[i] = (unsigned long long)__double_as_longlong(__dsqrt_rn(u));
}
