// Address-space predicates on generic pointers (__isConstant, __isGlobal, __isShared:
// isspacep.const/.global/.shared). Thread t tests the pointer kinds below; out[5 t + k] holds
// isConstant | isGlobal << 1 | isShared << 2 for pointer k, where isGlobal is left out (0) for
// a constant address: whether const banks also count as global is not specified by the ISA.
__constant__ int ctab[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__device__ int gvar[8];

__device__ __noinline__ unsigned kinds(const void* p)
{
    unsigned c = __isConstant(p);
    return c | (c ? 0u : (unsigned)__isGlobal(p) << 1) | (unsigned)__isShared(p) << 2;
}

extern "C" __global__ void isspace(const int* gbuf, unsigned* out)
{
    __shared__ int s[8];
    unsigned t = threadIdx.x;
    s[t % 8] = (int)t;
    __syncthreads();
    const void* ptrs[5] = {ctab + t % 8, gbuf + t, s + t % 8, gvar + t % 8, s};
    for (int k = 0; k < 5; k++)
        out[5 * t + k] = kinds(ptrs[k]);
}
