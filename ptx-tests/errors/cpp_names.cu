// C++ kernels without extern "C", so the PTX names them by their mangled names: a template in
// a namespace calling a device function template (not inlined: a `.func` the fault reports
// name on the device call stack), two overloads, and a template whose shared array lanes read
// before their neighbours write it. The cases beside this file check that fault, racecheck
// and argument messages name them demangled, then mangled.
namespace geom {

template <typename T>
__device__ __noinline__ void put(T* p, int i, T v)
{
    p[i] = v;
}

template <typename T>
__global__ void scale(T* out, const T* in, int n, T k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) put(out, i, in[i] * k);
}

template __global__ void scale<float>(float*, const float*, int, float);
template __global__ void scale<int>(int*, const int*, int, int);

} // namespace geom

__global__ void fill(float* out, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}

__global__ void fill(int* out, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}

template <int N>
__global__ void rotate(int* out)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = t;
    out[t] = s[(t + 1) % N]; // no __syncthreads: a race
}

template __global__ void rotate<64>(int*);
