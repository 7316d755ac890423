// A device-side launch (CUDA dynamic parallelism): each parent thread launches a child grid.
// ptxjit does not run device-side launches; the load fails at the kernel's address, which
// the launch passes. Built with `nvcc -rdc=true -ptx -gencode arch=compute_80,code=compute_80`.
__global__ void child(int* out, int base) { out[base + threadIdx.x] = base + threadIdx.x; }

__global__ void parent(int* out) { child<<<1, 32>>>(out, threadIdx.x * 32); }
