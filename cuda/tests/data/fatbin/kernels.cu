// Kernels of the fatbin tests (cuda/tests/fatbin.rs); README.md says how the .fatbin files
// were made from this file.

// y[i] = a * x[i] + y[i] * y[i] for i < n.
extern "C" __global__ void axpy_sq(unsigned n, float a, const float *x, float *y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i] * y[i];
    }
}

// The virtual architecture this PTX was compiled for (800 for compute_80): tells which of a
// fatbin's PTX entries the driver chose.
extern "C" __global__ void arch(int *out) {
    *out = __CUDA_ARCH__;
}
