// Kernels whose PTX names are mangled C++ names (a template, overloads in a namespace) and one
// extern "C" kernel: tests/nvrtc.rs looks each up by its demangled name.
template <typename T>
__global__ void transpose(T* out, const T* in, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}

template __global__ void transpose<float>(float*, const float*, int, int);
template __global__ void transpose<double>(double*, const double*, int, int);

namespace ns {
__global__ void scale(float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2.0f;
}

__global__ void scale(double* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 3.0;
}
} // namespace ns

extern "C" __global__ void negate(int* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = -x[i];
}
